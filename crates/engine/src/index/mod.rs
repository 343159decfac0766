//! The indexing driver: a revision's files → facts in the blob pack →
//! qualified element records in SQLite, all in one transaction.
//!
//! Phases, as [`Progress::Phase`] names them:
//! 1. *parse*: blobs not yet in the store are read and extracted in
//!    parallel; this thread appends them to the pack as they arrive;
//! 2. *signatures*: the type universe of the revision (JDK + every file's
//!    types) and every file's class signatures;
//! 3. *resolve*: every distinct blob whose resolution may differ from an
//!    indexed revision's is qualified and resolved in parallel and stored
//!    as a unit, shared with any earlier revision that resolved the same
//!    blob the same way;
//! 4. *finish*: the reference index's links and the element index, then
//!    the manifest and the revision row commit together.
//!
//! A run that dies anywhere before the commit leaves the store as it was.

mod indexer;
mod parse;
mod report;
mod resolve;
mod sharing;

pub use indexer::{IndexConfig, Indexer};
pub use report::{IndexSummary, Progress};
