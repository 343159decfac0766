//! How to index: the settings an [`super::Indexer`] runs with.

use refscope_store::Store;
use refscope_symbols::JdkTypes;
use refscope_syntax::Passes;

use crate::error::Error;
use crate::source::SourceLimits;

/// How to index.
#[derive(Debug, Clone, Default)]
pub struct IndexConfig {
    /// Worker threads; 0 means one per core.
    pub jobs: usize,
    /// The JDK's type names, if the caller already has them; otherwise
    /// they are discovered when needed.
    pub jdk: Option<JdkTypes>,
    /// Jar files whose classes join resolution (`--classpath`).
    pub classpath: Vec<std::path::PathBuf>,
    /// A work-tree revision replaces the other work-tree revisions read
    /// from the same directory, in the same transaction: `watch` keeps one
    /// current state of the files on disk, not one per save.
    pub replace_worktree: bool,
    /// Which files a commit's listing leaves out.
    pub limits: SourceLimits,
    /// Index every revision from scratch, writing no layer over another
    /// (for benchmarks: what the layers cost a single full index).
    pub from_scratch: bool,
    /// Index every revision from scratch without recording what a later
    /// revision is layered on (each file's lookups and symbols, the
    /// revision's symbol table and dependency index): for benchmarks, the
    /// "without" side of what the incremental machinery costs a full
    /// index. No revision is ever layered over one indexed this way.
    pub without_incremental_data: bool,
    /// Extract the syntax alone, without what frameworks add (Lombok's
    /// members): `--no-frameworks`. A store keeps the facts of one
    /// setting, the one its first index used.
    pub no_frameworks: bool,
}

impl IndexConfig {
    /// The extraction passes it asks for.
    pub fn passes(&self) -> Passes {
        match self.no_frameworks {
            true => Passes::NONE,
            false => Passes::ALL,
        }
    }
}

/// Fails unless the store's extraction passes (as `read` gives them;
/// none yet is fine) are the ones this indexer asks for.
pub(super) fn check_passes(
    store: &Store,
    config: &IndexConfig,
    read: impl FnOnce(&Store) -> Result<String, refscope_store::Error>,
) -> Result<(), Error> {
    let asked = super::passes_name(config.passes());
    let store_has = read(store)?;
    if store_has.is_empty() || store_has == asked {
        return Ok(());
    }
    Err(Error::PassesDiffer {
        store: store.dir().to_path_buf(),
        store_has,
        asked: asked.to_string(),
    })
}
