//! What can go wrong reading libraries: a file that cannot be read, a JDK
//! whose archives cannot be listed.

use std::path::{Path, PathBuf};

/// An error reading the JDK or a jar of the class path.
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

    /// The JDK could not be read.
    #[error("cannot read JDK type names from {}: {message}", path.display())]
    Jdk {
        /// The archive concerned.
        path: PathBuf,
        /// What went wrong.
        message: String,
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
}
