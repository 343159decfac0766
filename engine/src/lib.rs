//! The refscope engine: Java sources at a git revision → per-file facts →
//! a persistent store → answers.
//!
//! Layers, bottom up: [`extract`] turns one file's bytes into [`facts`]
//! (pure, knows nothing of paths or stores); [`names`] qualifies type names
//! across a revision; [`records`] gives elements their stable ids; [`store`]
//! persists facts (blob pack) and records (SQLite); [`index`] drives a
//! revision through all of it; [`snapshot`] is the read API.
//!
//! ```no_run
//! use refscope_engine::{IndexConfig, Indexer, Snapshot, Source, SourceLimits, Store};
//!
//! let source = Source::open("/path/to/repo".as_ref())?;
//! let store = Store::open(&source.default_store_dir())?;
//! let revision = source.resolve_revision(None, &SourceLimits::default())?;
//! let summary = Indexer::new(&store, IndexConfig::default()).index(&source, &revision, &mut |_| {})?;
//! println!("{} files, {} elements", summary.n_files, summary.n_elements);
//!
//! let row = Snapshot::pick_revision(&store, Some(&source), None)?;
//! let snapshot = Snapshot::new(&store, row)?;
//! for view in snapshot.elements_at("src/main/java/com/acme/Shop.java", 42, 42)? {
//!     println!("{}", view.record.element_id);
//! }
//! # Ok::<(), refscope_engine::Error>(())
//! ```

pub mod db;
pub mod extract;
pub mod facts;
pub mod index;
pub mod jdk;
pub mod names;
pub mod records;
pub mod resolve;
pub mod snapshot;
pub mod source;
pub mod store;
pub mod symbols;
pub mod watch;

mod digest;
mod error;
mod parallel;

pub use error::Error;
pub use index::{IndexConfig, IndexSummary, Indexer, Progress};
pub use records::ElementRecord;
pub use snapshot::{ElementView, FileEntry, Snapshot};
pub use source::{BlobId, Revision, Source, SourceLimits, WorkTree};
pub use store::Store;
