//! The refscope MCP bridge: code-context JSON assembly and the MCP server
//! (stdio and streamable HTTP) with the `aicr.*` review tools.
//!
//! [`tool`] holds what every tool shares: its definition and the error a
//! caller can fix. [`aicr`] holds the review tools and their state file.

pub mod aicr;
pub mod tool;
