//! The refscope MCP bridge: code-context JSON assembly and the MCP server
//! (stdio and streamable HTTP) with the `aicr.*` review tools.
//!
//! [`tool`] holds what every tool shares: its definition and the error a
//! caller can fix; [`tool_name`] maps clients' spellings of tool names back
//! to canonical ones; [`task`] keeps review tasks (repository, revision,
//! base revision) in the store directory; [`server`] serves tool sets over
//! MCP; [`aicr`] holds the review tools and their state file.
//!
//! ```no_run
//! use refscope_mcp_bridge::server::{Server, Transport, serve};
//!
//! // The review tool set plugs in as the second argument.
//! let server = Server::new(None, None)?;
//! serve(server, Transport::Http("127.0.0.1:3000".parse().unwrap()))?;
//! # Ok::<(), refscope_mcp_bridge::server::ServerError>(())
//! ```

pub mod aicr;
pub mod context;
pub mod server;
pub mod task;
pub mod tool;
pub mod tool_name;
