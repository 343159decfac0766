//! Where Java files come from: a git revision read in-process, or a plain
//! directory on disk. Both yield `(path, blob id)` pairs; a directory's
//! files are hashed the way git hashes blobs, so the same content has the
//! same id everywhere and its facts are shared.

use crate::error::Error;
use git::{commit_changes, commit_files, git_revision};
use std::path::{Path, PathBuf};
use worktree::directory_revision;

use std::fmt;

mod filter;
mod git;
mod reader;
mod revision;
mod worktree;

pub use filter::PathFilter;
pub use reader::{BlobReader, GitReaders, PooledRepository, ReaderSpec};
pub use revision::{Changes, Files, Revision, RevisionKind, SourceFile, SourceLimits};
pub use worktree::WorkTree;

/// Where sources are read from.
pub enum Source {
    /// A git repository.
    Git {
        /// The work tree (or the git directory of a bare repository).
        root: PathBuf,
        /// The `.git` directory.
        git_dir: PathBuf,
        /// The opened repository.
        repo: git2::Repository,
        /// Where workers get their own readers of its blobs.
        readers: GitReaders,
    },
    /// A plain directory.
    Directory {
        /// The directory.
        root: PathBuf,
    },
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Git { root, .. } => write!(f, "Source::Git({})", root.display()),
            Self::Directory { root } => write!(f, "Source::Directory({})", root.display()),
        }
    }
}

impl Source {
    /// Opens `path`: the git repository containing it, or else the plain
    /// directory.
    pub fn open(path: &Path) -> Result<Self, Error> {
        if !path.exists() {
            return Err(Error::NotASource {
                path: path.to_path_buf(),
            });
        }
        // libgit2 hashes every object it reads again to check its id (a
        // SHA-1 per tree and blob: a few percent of a small commit's
        // work); git itself checks objects when they arrive and on
        // `fsck`, not on each read, and so does refscope.
        git2::opts::strict_hash_verification(false);
        match git2::Repository::discover(path) {
            Ok(repo) => {
                let git_dir = repo.path().to_path_buf();
                let root = repo
                    .workdir()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| git_dir.clone());
                Ok(Self::Git {
                    root,
                    readers: GitReaders::new(git_dir.clone()),
                    git_dir,
                    repo,
                })
            }
            Err(_) if path.is_dir() => Ok(Self::Directory {
                root: std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?,
            }),
            Err(_) => Err(Error::NotASource {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Opens `path` as a plain directory, even inside a git work tree: its
    /// files on disk are the revision.
    pub fn open_directory(path: &Path) -> Result<Self, Error> {
        if !path.is_dir() {
            return Err(Error::NotASource {
                path: path.to_path_buf(),
            });
        }
        Ok(Self::Directory {
            root: std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?,
        })
    }

    /// The top directory paths are relative to.
    pub fn root(&self) -> &Path {
        match self {
            Self::Git { root, .. } | Self::Directory { root } => root,
        }
    }

    /// Where the store lives by default: inside `.git` for a repository,
    /// `.refscope` in a plain directory.
    pub fn default_store_dir(&self) -> PathBuf {
        match self {
            Self::Git { git_dir, .. } => git_dir.join("refscope"),
            Self::Directory { root } => root.join(".refscope"),
        }
    }

    /// A revision to index: `rev` in git (HEAD by default; its files are
    /// listed by the indexer, [`Files::Commit`]), or the directory's files
    /// on disk.
    pub fn resolve_revision(
        &self,
        rev: Option<&str>,
        limits: &SourceLimits,
    ) -> Result<Revision, Error> {
        match self {
            Self::Git { repo, root, .. } => git_revision(repo, root, rev),
            Self::Directory { root } => {
                if let Some(_rev) = rev {
                    return Err(Error::RevisionOnDirectory { path: root.clone() });
                }
                directory_revision(root, limits)
            }
        }
    }

    /// Every Java file of the commit `commit` (a full commit id).
    pub fn commit_files(&self, commit: &str, limits: &SourceLimits) -> Result<Files, Error> {
        match self {
            Self::Git { repo, root, .. } => commit_files(repo, root, commit, limits),
            Self::Directory { root } => Err(Error::RevisionOnDirectory { path: root.clone() }),
        }
    }

    /// The Java files that differ between the commits `base` and `commit`
    /// (full commit ids), from git's tree diff.
    pub fn changes_between(
        &self,
        base: &str,
        commit: &str,
        limits: &SourceLimits,
    ) -> Result<Changes, Error> {
        match self {
            Self::Git { repo, root, .. } => commit_changes(repo, root, base, commit, limits),
            Self::Directory { root } => Err(Error::RevisionOnDirectory { path: root.clone() }),
        }
    }

    /// The commit ids of HEAD's first-parent history, newest first, at most
    /// `limit` of them (used to find the newest indexed revision of the
    /// current branch).
    pub fn head_history(&self, limit: usize) -> Vec<String> {
        let Self::Git { repo, .. } = self else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let Ok(mut commit) = repo.head().and_then(|h| h.peel_to_commit()) else {
            return out;
        };
        while out.len() < limit {
            out.push(commit.id().to_string());
            match commit.parent(0) {
                Ok(parent) => commit = parent,
                Err(_) => break,
            }
        }
        out
    }

    /// Resolves a revision expression to a commit id without listing files.
    pub fn commit_id(&self, rev: &str) -> Result<String, Error> {
        match self {
            Self::Git { repo, root, .. } => repo
                .revparse_single(rev)
                .and_then(|o| o.peel_to_commit())
                .map(|c| c.id().to_string())
                .map_err(|_| Error::RevisionNotFound {
                    repo: root.clone(),
                    revision: rev.to_string(),
                }),
            Self::Directory { root } => Err(Error::RevisionOnDirectory { path: root.clone() }),
        }
    }

    /// The commit id of the merge base of `base` and `head`: the newest
    /// common ancestor, from which a branch `head` made off `base` differs
    /// by its own commits only (git's `base...head`). With several, the one
    /// git picks.
    pub fn merge_base(&self, base: &str, head: &str) -> Result<String, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let base_id = git2::Oid::from_str(&self.commit_id(base)?).expect("commit ids parse");
        let head_id = git2::Oid::from_str(&self.commit_id(head)?).expect("commit ids parse");
        repo.merge_base(base_id, head_id)
            .map(|id| id.to_string())
            .map_err(|_| Error::NoMergeBase {
                repo: root.clone(),
                base: base.to_string(),
                head: head.to_string(),
            })
    }

    /// The commits of `from..to` along `to`'s first-parent history, oldest
    /// first: from `to` back to (not including) the first commit that is
    /// `from` or an ancestor of it. Empty when `to` is `from` or behind it;
    /// an error when the two share no history.
    pub fn first_parent_range(&self, from: &str, to: &str) -> Result<Vec<String>, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let from_id = git2::Oid::from_str(&self.commit_id(from)?).expect("commit ids parse");
        let to_id = git2::Oid::from_str(&self.commit_id(to)?).expect("commit ids parse");
        if repo.merge_base(from_id, to_id).is_err() {
            return Err(Error::UnrelatedRange {
                repo: root.clone(),
                from: from.to_string(),
                to: to.to_string(),
            });
        }
        self.first_parent_walk(to, |commit| {
            commit == from_id || repo.graph_descendant_of(from_id, commit).unwrap_or(false)
        })
    }

    /// The first-parent history of `tip`, oldest first, stopping before
    /// the first commit (walking back from `tip`) for which `stop` holds
    /// (given the commit id).
    pub fn first_parent_history(
        &self,
        tip: &str,
        mut stop: impl FnMut(&str) -> bool,
    ) -> Result<Vec<String>, Error> {
        self.first_parent_walk(tip, |commit| stop(&commit.to_string()))
    }

    fn first_parent_walk(
        &self,
        tip: &str,
        mut stop: impl FnMut(git2::Oid) -> bool,
    ) -> Result<Vec<String>, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let git_error = |e: git2::Error| Error::Git {
            repo: root.clone(),
            message: e.message().to_string(),
        };
        let mut commit = repo
            .find_commit(git2::Oid::from_str(&self.commit_id(tip)?).expect("commit ids parse"))
            .map_err(git_error)?;
        let mut out = Vec::new();
        loop {
            if stop(commit.id()) {
                break;
            }
            out.push(commit.id().to_string());
            if commit.parent_count() == 0 {
                break;
            }
            commit = commit.parent(0).map_err(git_error)?;
        }
        out.reverse();
        Ok(out)
    }

    /// Where each of `blobs` lies in the repository's packs (see
    /// [`git::pack_positions`]); nothing for a directory.
    pub fn pack_positions(
        &self,
        blobs: &rustc_hash::FxHashSet<refscope_store::BlobId>,
    ) -> rustc_hash::FxHashMap<refscope_store::BlobId, (u32, u64)> {
        match self {
            Self::Git { git_dir, .. } => git::pack_positions(git_dir, blobs),
            Self::Directory { .. } => rustc_hash::FxHashMap::default(),
        }
    }

    /// Where workers open their own readers of file contents.
    pub fn reader_spec(&self) -> ReaderSpec {
        match self {
            Self::Git { readers, .. } => ReaderSpec::Git(readers.clone()),
            Self::Directory { root } => ReaderSpec::Directory(root.clone()),
        }
    }
}

impl BlobReader {
    /// [`Source::changes_between`] with this reader's repository, for a
    /// thread that cannot share the source's (`root` is the source's).
    pub(crate) fn changes_between(
        &self,
        root: &Path,
        base: &str,
        commit: &str,
        limits: &SourceLimits,
    ) -> Result<Changes, Error> {
        match self {
            Self::Git(repo) => commit_changes(repo, root, base, commit, limits),
            Self::Directory(root) => Err(Error::RevisionOnDirectory { path: root.clone() }),
        }
    }
}
