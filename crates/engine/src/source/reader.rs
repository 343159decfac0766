//! Reading file contents of a revision, from the git object database or
//! the directory on disk, one reader per worker thread.

use super::revision::SourceFile;
use crate::error::Error;
use refscope_store::BlobId;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What a worker thread needs to open its own [`BlobReader`]; unlike a git
/// repository handle it can be shared between threads.
#[derive(Debug, Clone)]
pub enum ReaderSpec {
    /// A git directory.
    Git(GitReaders),
    /// A plain directory.
    Directory(PathBuf),
}

/// Readers of a git directory: the repositories that readers opened are
/// handed to the next readers when those are done with them. Opening one
/// reads the repository's configuration and references, and its first
/// reads map the packs: a commit of a range, or a save under `watch`,
/// would pay that on every worker again.
#[derive(Clone)]
pub struct GitReaders {
    git_dir: PathBuf,
    idle: Arc<Mutex<Vec<git2::Repository>>>,
}

/// Idle repositories kept: one per worker of the largest pool in use.
const MAX_IDLE: usize = 64;

impl GitReaders {
    /// Readers of the repository at `git_dir`, none opened yet.
    pub(crate) fn new(git_dir: PathBuf) -> Self {
        Self {
            git_dir,
            idle: Arc::default(),
        }
    }

    fn open(&self) -> Result<PooledRepository, Error> {
        let idle = self.idle.lock().expect("idle readers lock").pop();
        let repo = match idle {
            Some(repo) => repo,
            None => git2::Repository::open(&self.git_dir).map_err(|e| Error::Git {
                repo: self.git_dir.clone(),
                message: e.message().to_string(),
            })?,
        };
        Ok(PooledRepository {
            repo: Some(repo),
            idle: self.idle.clone(),
        })
    }
}

impl std::fmt::Debug for GitReaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("GitReaders").field(&self.git_dir).finish()
    }
}

/// A repository a reader holds, given back to its [`GitReaders`] when
/// the reader is dropped.
pub struct PooledRepository {
    repo: Option<git2::Repository>,
    idle: Arc<Mutex<Vec<git2::Repository>>>,
}

impl std::ops::Deref for PooledRepository {
    type Target = git2::Repository;

    fn deref(&self) -> &git2::Repository {
        self.repo.as_ref().expect("held until dropped")
    }
}

impl Drop for PooledRepository {
    fn drop(&mut self) {
        if let Some(repo) = self.repo.take() {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if idle.len() < MAX_IDLE {
                idle.push(repo);
            }
        }
    }
}

impl ReaderSpec {
    /// Opens a reader for the calling thread.
    pub fn open(&self) -> Result<BlobReader, Error> {
        match self {
            Self::Git(readers) => readers.open().map(BlobReader::Git),
            Self::Directory(root) => Ok(BlobReader::Directory(root.clone())),
        }
    }
}

/// Reads file contents of a revision.
pub enum BlobReader {
    /// From the git object database.
    Git(PooledRepository),
    /// From the directory on disk.
    Directory(PathBuf),
}

impl BlobReader {
    /// The bytes of blob `blob_id`, which revision `path` held. For a
    /// directory the file is read from disk and must still have that
    /// content.
    pub fn read_blob(&self, path: &str, blob_id: &BlobId) -> Result<Vec<u8>, Error> {
        let file = SourceFile {
            path: path.to_string(),
            blob_id: *blob_id,
            size: 0,
        };
        let bytes = self.read(&file)?;
        if matches!(self, Self::Directory(_)) && BlobId::of_bytes(&bytes) != *blob_id {
            return Err(Error::FileChanged {
                path: path.to_string(),
            });
        }
        Ok(bytes)
    }

    /// The bytes of a file. For a directory the file is read again and must
    /// still have the same content.
    pub fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        match self {
            Self::Git(repo) => {
                let oid = git2::Oid::from_bytes(&file.blob_id.0).expect("20-byte id");
                let blob = repo.find_blob(oid).map_err(|e| Error::Git {
                    repo: repo.path().to_path_buf(),
                    message: format!("{}: {}", file.path, e.message()),
                })?;
                Ok(blob.content().to_vec())
            }
            Self::Directory(root) => {
                let path = root.join(&file.path);
                std::fs::read(&path).map_err(|e| Error::io(&path, e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(readers: &GitReaders) -> usize {
        readers.idle.lock().unwrap().len()
    }

    #[test]
    fn git_readers_hand_their_repositories_on() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let oid = repo.blob(b"class A {}\n").unwrap();
        let blob_id = BlobId(oid.as_bytes().try_into().unwrap());
        let readers = GitReaders::new(repo.path().to_path_buf());
        let spec = ReaderSpec::Git(readers.clone());

        let first = spec.open().unwrap();
        let second = spec.open().unwrap();
        assert_eq!(idle(&readers), 0);
        assert_eq!(
            first.read_blob("A.java", &blob_id).unwrap(),
            b"class A {}\n"
        );
        drop(first);
        drop(second);
        assert_eq!(idle(&readers), 2, "both repositories are kept");

        // A reader opened later gets one of them, and reads with it
        // objects written since it was opened.
        let later = spec.open().unwrap();
        assert_eq!(idle(&readers), 1);
        let newer = repo.blob(b"class B {}\n").unwrap();
        let newer = BlobId(newer.as_bytes().try_into().unwrap());
        assert_eq!(later.read_blob("B.java", &newer).unwrap(), b"class B {}\n");
        drop(later);
        assert_eq!(idle(&readers), 2);
    }
}
