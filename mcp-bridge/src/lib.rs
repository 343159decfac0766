//! The refscope MCP bridge: code-context JSON assembly and the MCP server
//! (stdio and streamable HTTP) with the `aicr.*` review tools.
//!
//! [`tool`] holds what every tool shares: its definition and the error a
//! caller can fix; [`tool_name`] maps clients' spellings of tool names back
//! to canonical ones; [`task`] keeps review tasks (repository, revision,
//! base revision) in the store directory; [`server`] serves tool sets over
//! MCP; [`context`] assembles the code-context answer (`code_context`);
//! [`query_tool`] runs the query language (`code_query`); [`aicr`] holds
//! the review tools and their state file.
//!
//! ```no_run
//! use refscope_mcp_bridge::server::{Server, Transport, serve};
//!
//! // Tool sets (context, query, review) are boxed `ToolSet`s.
//! let server = Server::new([])?;
//! serve(server, Transport::Http("127.0.0.1:3000".parse().unwrap()))?;
//! # Ok::<(), refscope_mcp_bridge::server::ServerError>(())
//! ```

pub mod aicr;
pub mod context;
pub mod query_tool;
pub mod server;
pub mod task;
pub mod tool;
pub mod tool_name;
