//! What a revision is made of: its files with their blob ids, what was
//! left out, and the contents read while listing them.

use refscope_store::BlobId;

use super::filter::PathFilter;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// One Java file of a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Repository-relative path with `/` separators.
    pub path: String,
    /// The content's blob id.
    pub blob_id: BlobId,
    /// Size in bytes.
    pub size: u64,
}

/// What a revision is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionKind {
    /// A git commit.
    Commit,
    /// The files of a directory on disk at one moment.
    WorkTree,
}

impl RevisionKind {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Commit => "commit",
            Self::WorkTree => "worktree",
        }
    }
}

/// A revision to index: its name and its Java files.
#[derive(Debug, Clone)]
pub struct Revision {
    /// The commit id, or `worktree:<digest>` for the files of a directory,
    /// so identical content is recognised as already indexed.
    pub name: String,
    /// What the revision is.
    pub kind: RevisionKind,
    /// The branch HEAD pointed at, when the revision was resolved from it.
    pub branch: Option<String>,
    /// Its files, as far as they are known.
    pub files: Files,
    /// Contents read while the files were listed (a directory's files are
    /// read to be hashed), for the indexer to parse instead of reading
    /// them again.
    pub prefetched: Option<Arc<Prefetched>>,
}

/// What is known of a revision's files.
#[derive(Debug, Clone)]
pub enum Files {
    /// Every Java file, sorted by path, and the files left out with why.
    All {
        /// The files.
        files: Vec<SourceFile>,
        /// Files left out.
        skipped: Vec<(String, String)>,
    },
    /// What changed since the indexed revision `base`.
    Changes {
        /// The indexed revision the changes are relative to.
        base: String,
        /// The changes.
        changes: Changes,
    },
    /// A commit not listed yet: the indexer lists it, as the changes over
    /// an indexed revision ([`crate::Source::changes_between`]) when
    /// there is one near, else as a whole.
    Commit,
}

/// Files that changed between two revisions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files added or changed, sorted by path.
    pub changed: Vec<SourceFile>,
    /// Paths of files removed (or left out now), sorted.
    pub removed: Vec<String>,
    /// Files left out now that were not before, with why.
    pub skipped: Vec<(String, String)>,
    /// Paths left out before that are not any more.
    pub unskipped: Vec<String>,
}

impl Changes {
    /// How many files changed.
    pub fn len(&self) -> usize {
        self.changed.len() + self.removed.len()
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.skipped.is_empty() && self.unskipped.is_empty()
    }
}

/// File contents read while a directory's files were listed and hashed,
/// by blob id: each is handed out once ([`Self::take`]), so the indexer
/// reads and hashes a file once, and its memory goes with its parse.
/// Bounded by [`PREFETCH_BUDGET`]; the files beyond it are read again.
#[derive(Default)]
pub struct Prefetched {
    pub(super) contents: HashMap<BlobId, Mutex<Option<Vec<u8>>>>,
}

/// At most this many bytes of file contents are kept from a directory's
/// listing for the parse (the JDK's 15,132 source files hold 202 MB).
pub const PREFETCH_BUDGET: u64 = 256 << 20;

impl Prefetched {
    /// The content of blob `blob_id`, if it was kept and not taken yet.
    /// It is the content the blob id was computed from.
    pub fn take(&self, blob_id: &BlobId) -> Option<Vec<u8>> {
        self.contents
            .get(blob_id)?
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Frees the contents not taken (blobs indexed before, which are not
    /// parsed again).
    pub fn release(&self) {
        for content in self.contents.values() {
            content
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
        }
    }

    /// How many contents were kept (taken or not).
    pub fn len(&self) -> usize {
        self.contents.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.contents.is_empty()
    }
}

impl fmt::Debug for Prefetched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Prefetched({} files)", self.contents.len())
    }
}

/// Limits applied when collecting files.
#[derive(Debug, Clone)]
pub struct SourceLimits {
    /// Files larger than this are skipped (and counted).
    pub max_file_bytes: u64,
    /// The paths indexed; the others are no part of a revision (not
    /// listed as skipped either).
    pub paths: PathFilter,
}

impl Default for SourceLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 8 << 20,
            paths: PathFilter::default(),
        }
    }
}

pub(super) fn is_java_path(path: &str) -> bool {
    path.ends_with(".java")
}
