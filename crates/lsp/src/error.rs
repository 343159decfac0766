//! What can stop the server: the store or the work tree cannot be opened,
//! or the connection broke. Everything a client's message can cause is a
//! response (an error response or an empty answer), never an [`Error`].

use std::path::PathBuf;

/// Why the server stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The engine failed outside a request (opening the store for
    /// reading).
    #[error(transparent)]
    Engine(#[from] refscope_engine::Error),
    /// The store failed outside a request.
    #[error(transparent)]
    Store(#[from] refscope_engine::StoreError),
    /// The workspace root is not a directory refscope can index.
    #[error(
        "cannot serve {path}: {reason}; name an existing directory with --repo or the client's rootUri"
    )]
    Root {
        /// The root asked for.
        path: PathBuf,
        /// Why it cannot be served.
        reason: String,
    },
    /// Standard input or output failed.
    #[error("the connection to the client failed: {0}")]
    Connection(#[from] std::io::Error),
}
