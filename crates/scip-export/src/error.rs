//! Why an export to SCIP failed.

use std::path::PathBuf;

/// Why an export to SCIP failed.
#[derive(Debug, thiserror::Error)]
pub enum ScipError {
    /// Reading the store failed (a revision that is not indexed, a damaged
    /// store).
    #[error(transparent)]
    Engine(#[from] refscope_engine::Error),
    /// A jar of the class path could not be listed.
    #[error("cannot list the classes of {}: {message}; check the --classpath entry", jar.display())]
    Jar {
        /// The jar.
        jar: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Encoding or decoding the protobuf message failed.
    #[error("cannot encode or decode the SCIP index: {0}")]
    Protobuf(#[from] protobuf::Error),
    /// Writing the index failed.
    #[error("cannot write the SCIP index: {0}")]
    Write(#[from] std::io::Error),
}
