//! The refscope language server: the reference index of a work tree
//! served over the Language Server Protocol, so that editors and agents
//! ask "where is this declared?", "who references it?", "who calls it?"
//! and "what implements it?" the way they ask any language server.
//!
//! [`serve_stdio`] speaks JSON-RPC on standard input and output
//! ([`transport`]: framing, and malformed messages answered with protocol
//! errors); [`serve`] runs the same server over any [`Connection`], which
//! is how the tests drive it in memory. The server indexes the work tree
//! as `refscope watch` does — one work-tree revision in the store,
//! replaced at each update, layered over the previous one — on a thread
//! of its own (`workspace`), and answers from the newest revision. Open
//! documents' unsaved text stands for the files on disk (the work tree's
//! overlays), so answers follow unsaved edits: a request waits for the
//! edits before it to be indexed.
//!
//! Positions are UTF-16 columns, the protocol's default and refscope's own
//! (javac's) column unit, so no conversion is made.
//!
//! This crate knows JSON-RPC and the LSP; it reads the index through the
//! engine's façade only and knows nothing of SQL, tree-sitter or MCP.
//!
//! ```no_run
//! use refscope_lsp::{ServerConfig, serve_stdio};
//!
//! let config = ServerConfig::new(std::env::current_dir()?);
//! serve_stdio(config)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod answers;
mod config;
mod dispatch;
mod documents;
mod error;
mod initialize;
mod locate;
mod progress;
mod ranges;
mod server;
mod text;
pub mod transport;
mod workspace;

pub use config::ServerConfig;
pub use error::Error;
pub use lsp_server::Connection;
pub use server::{Ending, serve, serve_over, serve_stdio};
