//! What a review is bound to: the repository (git or Subversion), the
//! revision under review and the base of its diff, and why they cannot be
//! opened.

use std::path::PathBuf;

/// Where a review's files and history are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repository {
    /// A git repository: its work tree or its `.git` directory.
    Git(PathBuf),
    /// A Subversion repository (or a directory of one), by URL: `file://`,
    /// `svn://`, `http(s)://`. Paths are read below it and nowhere else.
    Svn(String),
}

impl std::fmt::Display for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Git(path) => write!(f, "{}", path.display()),
            Self::Svn(url) => f.write_str(url),
        }
    }
}

/// What a review is bound to: a repository, the revision under review and,
/// optionally, the base revision of its diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewTarget {
    /// The repository.
    pub repository: Repository,
    /// The revision under review: any git revision expression, or a
    /// Subversion revision number (or `HEAD`).
    pub revision: String,
    /// The base revision of the diff under review, if any: for git, the
    /// diff starts at its merge base with `revision`; for Subversion, at
    /// the base itself.
    pub base_revision: Option<String>,
}

/// The repository or a revision of a [`ReviewTarget`] cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum ReviewTargetError {
    /// No git repository there.
    #[error("{path} is not a git repository ({message}); name the repository of the review task")]
    NotARepository { path: PathBuf, message: String },
    /// The revision does not name a commit (or a Subversion revision).
    #[error("revision `{revision}` is not {what} of {repository}; name an existing one")]
    RevisionNotFound {
        repository: String,
        revision: String,
        /// `a commit` or `a revision`.
        what: &'static str,
    },
    /// Reading the diff failed.
    #[error("cannot compute the diff {base}..{revision} in {repository}: {message}")]
    Diff {
        repository: String,
        base: String,
        revision: String,
        message: String,
    },
    /// The Subversion repository does not answer, or the client failed.
    #[error("cannot read the Subversion repository {url}: {message}")]
    Svn { url: String, message: String },
}
