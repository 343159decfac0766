//! The command line end to end: `refscope` run as a user runs it, in a
//! fresh temporary directory per test, against the stub JDK. Needs nothing
//! beyond Rust and git.

/// refscope reads the stub JDK here (see `common::refscope`).
const INSTALLED_JDK: bool = false;

#[path = "../common/mod.rs"]
mod common;

mod aicr_cli;
mod cli;
mod concurrency;
mod context;
mod crash;
mod deps;
mod dirty_sets;
mod doc_examples;
mod fixtures;
mod flavors;
mod golden;
mod graph;
mod history;
mod incremental;
mod lombok;
mod merge_base;
mod paths;
mod prune;
mod query;
mod scip;
mod spring;
mod stats;
mod watch;
