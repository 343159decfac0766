//! The indexing driver: a revision's files → facts in the pack → units
//! (qualified element records, resolved references, symbols) in SQLite →
//! the revision's manifest tree and the layers of its symbol table and
//! dependency index, all in one transaction.
//!
//! A revision is indexed one of two ways ([`Indexer`] picks):
//! * *as a layer* over an indexed revision near it: its changed paths come
//!   from git's tree diff (or from `watch`); only the dirty files — the
//!   changed ones and those whose recorded lookups touch a changed
//!   declaration — are parsed and resolved ([`layered`]);
//! * *from scratch*, when there is no such revision (or too much changed):
//!   every file, in parallel ([`full`]).
//!
//! Phases, as [`Progress::Phase`] names them:
//! 1. *parse*: blobs not yet in the store are read and extracted in
//!    parallel; this thread appends them to the pack as they arrive;
//! 2. *signatures*: the files' symbols (types, supertypes, class
//!    signatures);
//! 3. *resolve*: each file resolved against them and stored as a unit,
//!    shared with any identical unit stored before;
//! 4. *finish*: the reference index's links and the element index, then
//!    the manifest, the layers and the revision row commit together.
//!
//! A run that dies anywhere before the commit leaves the store as it was.

mod ahead;
mod blob;
mod config;
mod full;
mod indexer;
mod layered;
mod libraries;
mod listing;
mod parse;
mod report;
mod spill;
mod worktree_units;
mod write;

pub use config::IndexConfig;
pub use indexer::Indexer;

use refscope_syntax::Passes;

/// How a store names the passes its facts were extracted with.
pub(crate) const PASSES_FRAMEWORKS: &str = "frameworks";
/// The same, for the syntax alone (`--no-frameworks`).
pub(crate) const PASSES_SYNTAX: &str = "syntax";

/// The store's name of `passes`.
pub(crate) fn passes_name(passes: Passes) -> &'static str {
    match passes.lombok {
        true => PASSES_FRAMEWORKS,
        false => PASSES_SYNTAX,
    }
}

/// The passes a store's name stands for (an unknown name: every pass).
pub(crate) fn passes_named(name: &str) -> Passes {
    match name {
        PASSES_SYNTAX => Passes::NONE,
        _ => Passes::ALL,
    }
}
pub use report::{IndexSummary, Progress};
