//! The persistent store of refscope: a directory holding the pack
//! (`facts.pack`: per-file facts, and the layers of each revision's symbol
//! table and dependency index) and a SQLite database in WAL mode
//! (`refscope.sqlite`) with revisions, their manifest trees, units,
//! elements and the global reference index; review tasks in
//! `tasks.sqlite` beside it.
//!
//! Every SQL statement of refscope is in this crate, behind typed
//! functions: reads are methods of [`Store`], an index's writes methods of
//! the [`IndexTransaction`] it runs in, tasks those of [`TaskTable`]. The
//! store knows the per-file facts (`refscope-syntax`) and the resolver's
//! output types (`refscope-resolve`), which it persists; it must never know
//! of git, the file system outside its directory or MCP.
//!
//! Writers take an exclusive lock on `write.lock`; readers never lock and
//! see the last committed revision. (While a store's first revision is
//! being indexed its database is under a rollback journal instead, and
//! opening the store waits for that commit: see
//! [`Store::journal_for_index`].)
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let store = refscope_store::Store::open(dir.path())?;
//! assert!(store.revisions()?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod blob;
mod blobs;
mod bulk;
mod chain;
mod codec;
mod delta;
mod error;
mod full_layer;
mod journal;
mod layers;
mod links;
mod lock;
mod merge;
mod names;
mod open;
mod pack;
mod pack_writer;
mod prune;
mod record_scan;
mod references;
mod retire;
mod revisions;
mod stats;
mod symbols;
mod tasks;
mod transaction;
mod tree;
mod units;
mod writeback;

pub use blob::BlobId;
pub use blobs::BlobStats;
pub use chain::{LayerChain, write_full_layer};
pub use delta::MAX_DELTA_DEPTH;
pub use error::Error;
pub use full_layer::BulkLayer;
pub use journal::Journal;
pub use layers::{LayerBuilder, LayerKind, MAX_DEPTH};
pub use links::{Links, SiteCounts, SortedLinks};
pub use lock::WriteLock;
pub use names::{BadNames, contains_name, decode_names, encode_names, for_each_name};
pub use open::Store;
pub use pack::{DeltaFrame, EncodedFacts, PackLocation, PackReader, encode_facts};
pub use pack_writer::PackWriter;
pub use prune::Removed;
pub use record_scan::Needles;
pub use references::ElementKey;
pub use revisions::{NewRevision, RevisionRow, RevisionTotals, TreeReader};
pub use stats::{FileBytes, ObjectBytes, PackStats, StoreStats};
pub use symbols::{NO_FILE, TypeEntry, UnitSymbols};
pub use tasks::{SvnReview, TASKS_FILE, Task, TaskTable};
pub use transaction::IndexTransaction;
pub use tree::{FileEntry, FileValue, TreeChange};
pub use units::{ElementIndex, NewUnit, UnitWriter};
pub use writeback::Writeback;

/// The store format this build reads and writes. Bump it whenever the
/// schema, the pack's records, the archived facts or the digests
/// (`refscope_syntax::digest`) change.
pub const FORMAT_VERSION: u32 = 15;

const SCHEMA: &str = include_str!("schema.sql");
const DB_FILE: &str = "refscope.sqlite";
const PACK_FILE: &str = "facts.pack";
const LOCK_FILE: &str = "write.lock";
