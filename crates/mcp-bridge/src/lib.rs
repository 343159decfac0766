//! The refscope MCP bridge: code-context JSON assembly and the MCP server
//! (stdio and streamable HTTP) with the `aicr.*` review tools.
//!
//! [`task`] keeps review tasks (repository, revision, base revision) in
//! the store directory; [`server`] is the MCP server over tool sets, which
//! [`serve`] runs over stdio or over streamable HTTP, guarded as [`http`]
//! says; [`context`]
//! assembles the code-context answer (`code_context`); [`query_tool`] runs
//! the query language (`code_query`). The `aicr.*` review tools are the
//! `refscope-aicr` crate's, served through the `refscope-tool` seam like
//! the others.
//!
//! This is the only crate that knows JSON-RPC and MCP. It reads the index
//! through the engine's façade (`refscope_engine`'s re-exports) only.
//!
//! ```no_run
//! use refscope_mcp_bridge::http::HttpOptions;
//! use refscope_mcp_bridge::serve::{Transport, serve};
//! use refscope_mcp_bridge::server::Server;
//!
//! // Tool sets (context, query, review) are boxed `ToolSet`s.
//! let server = Server::new([])?;
//! serve(server, Transport::Http(HttpOptions::new("127.0.0.1:3000".parse().unwrap())))?;
//! # Ok::<(), refscope_mcp_bridge::server::ServerError>(())
//! ```

#![forbid(unsafe_code)]

pub mod context;
pub mod http;
pub mod query_tool;
pub mod serve;
pub mod server;
pub mod task;
