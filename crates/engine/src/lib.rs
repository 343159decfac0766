//! The refscope engine: Java sources at a git revision (or a directory on
//! disk) → an indexed revision in the store → answers.
//!
//! This crate owns the driver of indexing ([`Indexer`]: the phases parse,
//! signatures, resolve and finish; a revision either from scratch or as a
//! layer over an indexed one that resolves only its dirty files),
//! where files come from ([`Source`]: git in-process, or a plain directory),
//! `watch`, and the read API over one indexed revision ([`Snapshot`]).
//! It builds on the layers below it: `refscope-syntax` (extraction),
//! `refscope-symbols` (class signatures, libraries, type names),
//! `refscope-resolve` (resolution) and `refscope-store` (persistence).
//!
//! The items re-exported here are the whole of what the query language,
//! the MCP bridge and the command line see; everything else is private.
//! The engine knows nothing of the query syntax, JSON-RPC or MCP.
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

mod error;
mod history;
mod index;
mod parallel;
mod prune;
mod snapshot;
mod source;
mod symtab;
mod watch;

pub use error::Error;
pub use history::{HistoryChange, HistoryEntry};
pub use index::{IndexConfig, IndexSummary, Indexer, Progress};
pub use prune::{Keep, PruneReport, prune};
pub use snapshot::{
    CallersConfig, ChangeKind, Diff, DiffConfig, ElementChange, ElementSearch, ElementView,
    FileData, FoundElement, Implementation, Injection, RefHit, RevisionCache, Snapshot,
    glob_matches, id_matches, package_of,
};
pub use source::{
    BlobReader, Changes, Files, GitReaders, PathFilter, PooledRepository, Revision, RevisionKind,
    Source, SourceFile, SourceLimits, WorkTree,
};
pub use watch::{DEFAULT_QUIET_MS, WatchConfig, WatchEvent, watch};

/// The vocabulary of answers: element kinds and modifiers, records,
/// resolved references.
pub use refscope_resolve::records::ElementRecord;
pub use refscope_resolve::{Confidence, FileResolution, RefTargetKind, ResolvedRef};
/// The store and what its readers name: revisions, files, review tasks,
/// where its bytes are.
pub use refscope_store::{
    BlobId, Error as StoreError, FileEntry, Removed, RevisionRow, Store, StoreStats, SvnReview,
    TASKS_FILE, Task, TaskTable,
};
/// The JDK's type names, which callers may read once and hand to
/// [`IndexConfig`].
pub use refscope_symbols::{JdkOrigin, JdkTypes};
pub use refscope_syntax::facts::{Element, ElementKind, FileFacts, Modifiers, NO_ELEMENT, Origin};
pub use refscope_syntax::tree_sitter_on_mimalloc;
