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

    /// The file system holding the store is full.
    #[error(
        "the file system of store {} is full ({} could not grow); no indexed revision was lost: \
         free space (`refscope prune` removes old revisions) and run the command again",
        store.display(), file.display()
    )]
    DiskFull {
        /// The store directory.
        store: PathBuf,
        /// The file that could not grow.
        file: PathBuf,
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
        if is_full(&source) {
            return Self::full(path);
        }
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A SQLite error about the database at `path`.
    pub fn sqlite(path: &Path, source: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(failure, _) = &source
            && failure.code == rusqlite::ErrorCode::DiskFull
        {
            return Self::full(path);
        }
        Self::Sqlite {
            path: path.to_path_buf(),
            source,
        }
    }

    /// File `file` of a store could not grow.
    fn full(file: &Path) -> Self {
        Self::DiskFull {
            store: file.parent().unwrap_or(file).to_path_buf(),
            file: file.to_path_buf(),
        }
    }
}

/// Whether `error` says that the file system (or the user's quota) is full.
fn is_full(error: &std::io::Error) -> bool {
    const ENOSPC: i32 = 28;
    const EDQUOT: i32 = 122;
    error.kind() == std::io::ErrorKind::StorageFull
        || error.kind() == std::io::ErrorKind::QuotaExceeded
        || matches!(error.raw_os_error(), Some(ENOSPC | EDQUOT))
}
