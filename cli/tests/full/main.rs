//! The opt-in suite: what needs more than Rust and git — a JDK and javac
//! (the comparisons with the javac oracle), Debian's archive (fetched
//! corpora), Python (the official MCP client, the history generator).
//! Built with `--features full-tests`; `.ci/run` installs what it needs.

#![cfg(feature = "full-tests")]

/// refscope reads the installed JDK here, as javac does.
const INSTALLED_JDK: bool = true;

#[path = "../common/mod.rs"]
mod common;

mod aicr_python;
mod corpus_lang3;
mod corpus_lombok;
mod doc_examples;
mod full_disk;
mod golden;
mod history;
mod javac;
mod kill_trials;
mod lsp_neovim;
mod mcp_load;
mod mcp_python;
mod monorepo;
mod pr_merge_base;
mod scip_lang3;
mod svn_review;
