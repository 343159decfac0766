//! What each fuzz target does with one input, in one place for both sides:
//! the cargo-fuzz targets under `fuzz/` (nightly, coverage-guided) call
//! these functions, and this crate's tests replay every input of each
//! target's corpus (`fuzz/corpus/<target>/`) through them on stable, so
//! that an input that once crashed stays in `cargo test` for good.
//!
//! A harness gives its input to a reader of outside bytes and lets every
//! error pass: the one thing it looks for is a panic (or a hang, which
//! libFuzzer reports as a timeout). The targets whose readers need no
//! set-up (the query parser, the class-file reader, extraction, the replay
//! log, the store's name lists) call their crate directly; their corpora
//! are replayed by those crates' own tests.
//!
//! | target | what reads the input |
//! | --- | --- |
//! | [`query_eval`] | the query language, parsed and evaluated on a small store |
//! | [`mcp_tools`] | an MCP tool's argument decoding and execution |
//! | [`jar`] | the class path's jar reader, then every class in it |
//! | [`java_resolve`] | extraction, the symbol table and resolution of up to four files |
//! | [`store_file`] | a whole store with its database or pack mutated |
//! | [`state_file`] | the review state file's reader |

#![forbid(unsafe_code)]

mod fixture;
mod jar;
mod java;
mod mcp;
mod query;
mod state;
mod store_file;

pub use jar::jar;
pub use java::java_resolve;
pub use mcp::mcp_tools;
pub use query::query_eval;
pub use state::state_file;
pub use store_file::store_file;

/// What a fuzz target does with one input.
pub type Harness = fn(&[u8]);

/// The targets this crate runs, by the name of their corpus directory.
pub const TARGETS: &[(&str, Harness)] = &[
    ("query_eval", query_eval),
    ("mcp_tools", mcp_tools),
    ("jar", jar),
    ("java_resolve", java_resolve),
    ("store_file", store_file),
    ("state_file", state_file),
];
