//! The refscope MCP bridge: code-context JSON assembly and the MCP server
//! (stdio and streamable HTTP) with the `aicr.*` review tools.
//!
//! Nothing lives here yet: the bridge builds on name resolution and the
//! query language, which come first. The crate exists so the dependency
//! direction `cli -> mcp-bridge -> query -> engine` is fixed from the start.
