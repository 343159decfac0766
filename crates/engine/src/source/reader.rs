//! Reading file contents of a revision, from the git object database or
//! the directory on disk, one reader per worker thread.

use super::revision::SourceFile;
use crate::error::Error;
use refscope_store::BlobId;
use std::path::PathBuf;

/// What a worker thread needs to open its own [`BlobReader`]; unlike a git
/// repository handle it can be shared between threads.
#[derive(Debug, Clone)]
pub enum ReaderSpec {
    /// A git directory.
    Git(PathBuf),
    /// A plain directory.
    Directory(PathBuf),
}

impl ReaderSpec {
    /// Opens a reader for the calling thread.
    pub fn open(&self) -> Result<BlobReader, Error> {
        match self {
            Self::Git(git_dir) => git2::Repository::open(git_dir)
                .map(BlobReader::Git)
                .map_err(|e| Error::Git {
                    repo: git_dir.clone(),
                    message: e.message().to_string(),
                }),
            Self::Directory(root) => Ok(BlobReader::Directory(root.clone())),
        }
    }
}

/// Reads file contents of a revision.
pub enum BlobReader {
    /// From the git object database.
    Git(git2::Repository),
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
