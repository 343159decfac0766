//! The engine's error type. Every variant names the thing it concerns and,
//! where there is one, the fix.

use std::path::{Path, PathBuf};

/// What can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },

    /// The path is neither a git repository nor a directory.
    #[error("{}: not a git repository or a directory", path.display())]
    NotASource {
        /// The path given.
        path: PathBuf,
    },

    /// A revision could not be found in the repository.
    #[error("revision '{revision}' not found in {}: check the name with `git rev-parse {revision}`", repo.display())]
    RevisionNotFound {
        /// The repository.
        repo: PathBuf,
        /// The revision as given.
        revision: String,
    },

    /// The repository has no commit to index.
    #[error("{} has no commits yet; commit something, or index the files on disk with `refscope index --files`", repo.display())]
    NoCommits {
        /// The repository.
        repo: PathBuf,
    },

    /// Two revisions have no common ancestor, so no merge base.
    #[error("{base}...{head}: the two revisions have no common ancestor in {}, so no merge base; name a base that shares history with {head}", repo.display())]
    NoMergeBase {
        /// The repository.
        repo: PathBuf,
        /// The base, as given.
        base: String,
        /// The revision under review, as given.
        head: String,
    },

    /// The two ends of a range share no history.
    #[error("{from}..{to}: the two revisions share no history in {}; give a range along one branch", repo.display())]
    UnrelatedRange {
        /// The repository.
        repo: PathBuf,
        /// The start of the range, as given.
        from: String,
        /// The end of the range, as given.
        to: String,
    },

    /// `--rev` was given for a plain directory.
    #[error("{}: a plain directory has no revisions; drop --rev or point at a git repository", path.display())]
    RevisionOnDirectory {
        /// The directory.
        path: PathBuf,
    },

    /// A glob of paths to include or exclude does not parse.
    #[error("bad path glob {glob:?}: {message}")]
    BadGlob {
        /// The glob.
        glob: String,
        /// What is wrong with it.
        message: String,
    },

    /// Reading from git failed.
    #[error("git error in {}: {message}", repo.display())]
    Git {
        /// The repository.
        repo: PathBuf,
        /// What git said.
        message: String,
    },

    /// The store's facts were extracted with other passes than asked for.
    #[error("store {} was indexed {}, and a store keeps the facts of one setting; index {} too, or into another --store", store.display(), describe_passes(store_has), describe_passes(store_has))]
    PassesDiffer {
        /// The store directory.
        store: PathBuf,
        /// The passes its facts were made with.
        store_has: String,
        /// The passes asked for.
        asked: String,
    },

    /// The revision asked for has not been indexed.
    #[error("revision {revision} is not indexed in store {}; run `refscope index --rev {revision}` first", store.display())]
    NotIndexed {
        /// The store directory.
        store: PathBuf,
        /// The revision asked for.
        revision: String,
    },

    /// `--rev worktree` names no single work-tree revision.
    #[error("store {} holds no single work-tree revision for '{revision}'; `refscope watch` indexes the files on disk into it, and `refscope revisions` lists the revisions it holds", store.display())]
    NoWorkTreeRevision {
        /// The store directory.
        store: PathBuf,
        /// The revision asked for (`worktree` or a prefix of one).
        revision: String,
    },

    /// A file is not part of the indexed revision.
    #[error(
        "{path} is not a file of revision {revision}; give a repository-relative path of an indexed .java file"
    )]
    FileNotInRevision {
        /// The path asked for.
        path: String,
        /// The revision.
        revision: String,
    },

    /// A file of a directory changed since it was indexed.
    #[error("{path} changed on disk since it was indexed; run `refscope index` again")]
    FileChanged {
        /// The file.
        path: String,
    },

    /// A line beyond the end of a file was asked for.
    #[error("{path} has {n_lines} lines; line {line} is beyond its end")]
    LineOutOfRange {
        /// The file.
        path: String,
        /// The line asked for.
        line: u32,
        /// Lines in the file.
        n_lines: u32,
    },

    /// No element of the revision has this id, and nothing in it
    /// references one.
    #[error("no element {spec} in revision {revision}; {}", nearest_hint(nearest))]
    UnknownElement {
        /// The id as given.
        spec: String,
        /// The revision searched.
        revision: String,
        /// Ids of the revision with the same simple name, if any.
        nearest: Vec<String>,
    },

    /// An id without parameter types, or a line, names several elements.
    #[error("{spec} names {} elements of revision {revision}: {}; {hint}", candidates.len(), candidates.join(", "))]
    AmbiguousElement {
        /// The id or `FILE:LINE` as given.
        spec: String,
        /// The revision searched.
        revision: String,
        /// The ids it could mean.
        candidates: Vec<String>,
        /// How to name one of them.
        hint: &'static str,
    },

    /// No element is declared on a line, and none contains it.
    #[error("no element is declared on {path}:{line} or contains it; give a line inside a type")]
    NoElementOnLine {
        /// The file.
        path: String,
        /// The line asked for.
        line: u32,
    },

    /// The run was cancelled (Ctrl-C).
    #[error("interrupted; the store keeps every revision indexed before this run")]
    Interrupted,

    /// The store failed, or holds something it should not.
    #[error(transparent)]
    Store(#[from] refscope_store::Error),

    /// A library (the JDK, a jar of the class path) could not be read.
    #[error(transparent)]
    Library(#[from] refscope_symbols::Error),
}

fn nearest_hint(nearest: &[String]) -> String {
    if nearest.is_empty() {
        "check the id: `refscope at FILE:LINE --json` prints the ids of a line".to_string()
    } else {
        format!("ids with the same name: {}", nearest.join(", "))
    }
}

impl Error {
    /// An I/O error about `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The store in `dir` holds something it should not.
    pub fn corrupt(dir: &Path, message: String) -> Self {
        Self::Store(refscope_store::Error::Corrupt {
            path: dir.to_path_buf(),
            message,
        })
    }

    /// The store in `dir` holds no revision.
    pub fn empty_store(dir: &Path) -> Self {
        Self::Store(refscope_store::Error::EmptyStore {
            store: dir.to_path_buf(),
        })
    }
}

/// How an index with these passes is asked for, in words.
fn describe_passes(passes: &str) -> &'static str {
    if passes == crate::index::PASSES_SYNTAX {
        "with --no-frameworks"
    } else {
        "without --no-frameworks"
    }
}
