//! The MCP server in process: the tool surface (a frozen contract) and the
//! server's handling of calls, over an in-memory transport.

mod history;
mod http;
mod server;
mod surface;
