//! The store's errors. Every variant names the store (or its database) and,
//! where there is one, the fix.

use std::path::{Path, PathBuf};

/// What can go wrong opening, reading or writing a store.
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

    /// The store was written by another format version.
    #[error("store {} has format version {found}, this refscope reads version {expected}; rebuild it with `rm -r {} && refscope index`", path.display(), path.display())]
    FormatVersion {
        /// The store directory.
        path: PathBuf,
        /// The version found in the store.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },

    /// The store's files do not hold what they should.
    #[error("store {} is corrupt ({message}); rebuild it with `rm -r {} && refscope index`", path.display(), path.display())]
    Corrupt {
        /// The store directory.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },

    /// Another process holds the store's write lock.
    #[error("store {} is being written by another refscope process (pid {pid}); wait for it to finish", path.display())]
    Locked {
        /// The store directory.
        path: PathBuf,
        /// The process holding the lock, as recorded in the lock file.
        pid: String,
    },

    /// The store holds no indexed revision at all.
    #[error("store {} holds no indexed revision; run `refscope index` first", store.display())]
    EmptyStore {
        /// The store directory.
        store: PathBuf,
    },

    /// The review tasks' database failed.
    #[error("tasks database {}: {source}", path.display())]
    Tasks {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },

    /// SQLite failed.
    #[error("store database {}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
}

impl Error {
    /// An I/O error about `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A SQLite error about the database at `path`.
    pub fn sqlite(path: &Path, source: rusqlite::Error) -> Self {
        Self::Sqlite {
            path: path.to_path_buf(),
            source,
        }
    }
}
