//! The persistent store of refscope: a directory holding the blob pack of
//! per-file facts (`facts.pack`) and a SQLite database in WAL mode
//! (`refscope.sqlite`) with revisions, manifests, units, elements and the
//! global reference index; review tasks in `tasks.sqlite` beside it.
//!
//! Every SQL statement of refscope is in this crate, behind typed
//! functions: reads are methods of [`Store`], an index's writes methods of
//! the [`IndexTransaction`] it runs in, tasks those of [`TaskTable`]. The
//! store knows the per-file facts (`refscope-syntax`) and the resolver's
//! output types (`refscope-resolve`), which it persists; it must never know
//! of git, the file system outside its directory, salsa or MCP.
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
mod error;
mod journal;
mod links;
mod lock;
mod manifest;
mod names;
mod open;
mod pack;
mod references;
mod revisions;
mod tasks;
mod transaction;
mod units;
mod writeback;

pub use blob::BlobId;
pub use blobs::BlobStats;
pub use error::Error;
pub use journal::Journal;
pub use links::{Links, SortedLinks};
pub use lock::WriteLock;
pub use manifest::FileEntry;
pub use open::Store;
pub use pack::{EncodedFacts, PackLocation, PackReader, PackWriter, encode_facts};
pub use references::ElementKey;
pub use revisions::{Donor, NewRevision, RevisionRow, RevisionTotals};
pub use tasks::{TASKS_FILE, Task, TaskTable};
pub use transaction::IndexTransaction;
pub use units::{ElementIndex, NewUnit, UnitLookups, UnitWriter};
pub use writeback::Writeback;

/// The store format this build reads and writes. Bump it whenever the
/// schema, the archived facts or the digests (`refscope_syntax::digest`)
/// change.
pub const FORMAT_VERSION: u32 = 11;

const SCHEMA: &str = include_str!("schema.sql");
const DB_FILE: &str = "refscope.sqlite";
const PACK_FILE: &str = "facts.pack";
const LOCK_FILE: &str = "write.lock";
