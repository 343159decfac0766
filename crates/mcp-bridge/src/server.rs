//! The MCP server: tool sets behind rmcp, over stdio or streamable HTTP.
//!
//! The server does not know what its tools do. It lists the definitions of
//! the [`ToolSet`]s it was given (the code-context tool, the `aicr.*`
//! review tools), maps each incoming name back to a canonical one
//! ([`ToolSet::canonical_name`], which clients' spellings such as
//! `aicr-output_aicr_report_problem` go through) and calls the set that
//! owns it, one call at a time per set, on a blocking thread. A
//! [`ToolError`](refscope_tool::ToolError), an unknown tool, bad arguments and
//! even a panic in a tool all come back as an MCP error result
//! (`isError: true` and a message), never as a protocol error: an agent
//! reads the message and the server keeps serving.
//!
//! ```no_run
//! use refscope_mcp_bridge::serve::{Transport, serve};
//! use refscope_mcp_bridge::server::Server;
//!
//! let server = Server::new([])?;
//! serve(server, Transport::Stdio)?;
//! # Ok::<(), refscope_mcp_bridge::server::ServerError>(())
//! ```

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use refscope_tool::{ToolDefinition, ToolError, ToolSet};

/// What can stop the server from starting or serving.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Two tool sets define the same tool name.
    #[error("tool '{name}' is defined by two tool sets; a server lists each name once")]
    DuplicateTool {
        /// The name.
        name: &'static str,
    },
    /// The HTTP address could not be bound.
    #[error("cannot listen on {addr}: {source}; pick another --port or stop the process using it")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// A server reachable beyond this machine would let anyone call the
    /// tools.
    #[error(
        "refusing to listen on {addr} without a token: anyone who can reach it could call the \
         tools; give --token-file FILE (or REFSCOPE_MCP_TOKEN), or listen on 127.0.0.1"
    )]
    NoToken {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The transport failed.
    #[error("MCP transport failed: {message}")]
    Transport {
        /// What failed.
        message: String,
    },
}

/// An MCP server over a fixed list of tool sets. Cloning shares the sets:
/// every HTTP session talks to the same tools.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

struct Shared {
    /// Each set behind its own lock: calls into one set run one at a time.
    sets: Vec<Arc<Mutex<Box<dyn ToolSet>>>>,
    /// Every tool as listed, with the index of its set.
    tools: Vec<(ToolDefinition, usize)>,
}

impl Server {
    /// A server offering these tool sets, listed in this order: the
    /// code-context tools, the query tools, the review tools (the `aicr.*`
    /// set bound to one task) — whichever `refscope mcp --tools` chose.
    /// Tool names must be unique across sets.
    pub fn new(tool_sets: impl IntoIterator<Item = Box<dyn ToolSet>>) -> Result<Self, ServerError> {
        let mut sets = Vec::new();
        let mut tools: Vec<(ToolDefinition, usize)> = Vec::new();
        for set in tool_sets {
            let index = sets.len();
            for definition in set.definitions() {
                if tools.iter().any(|(t, _)| t.name == definition.name) {
                    return Err(ServerError::DuplicateTool {
                        name: definition.name,
                    });
                }
                tools.push((definition, index));
            }
            sets.push(Arc::new(Mutex::new(set)));
        }
        Ok(Self {
            shared: Arc::new(Shared { sets, tools }),
        })
    }

    /// The tools as the server lists them.
    pub fn tool_definitions(&self) -> Vec<ToolDefinition> {
        self.shared.tools.iter().map(|(t, _)| t.clone()).collect()
    }

    /// Calls a tool by any spelling a client may use, with JSON arguments:
    /// the tool's JSON answer, or the error an agent reads. Runs on the
    /// calling thread; the MCP handler calls it on a blocking thread.
    pub fn call(
        &self,
        requested: &str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        let (name, set_index) = self.resolve_name(requested)?;
        let set = &self.shared.sets[set_index];
        // A tool that panicked poisoned the lock; the set itself is still
        // there and the next call may well succeed.
        let mut guard = set.lock().unwrap_or_else(PoisonError::into_inner);
        guard.call(name, arguments)
    }

    fn resolve_name(&self, requested: &str) -> Result<(&'static str, usize), ToolError> {
        for (index, set) in self.shared.sets.iter().enumerate() {
            let guard = set.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(name) = guard.canonical_name(requested)
                && self
                    .shared
                    .tools
                    .iter()
                    .any(|(t, i)| t.name == name && *i == index)
            {
                return Ok((name, index));
            }
        }
        let known: Vec<&str> = self.shared.tools.iter().map(|(t, _)| t.name).collect();
        Err(ToolError::new(format!(
            "unknown tool '{requested}'; this server offers: {}",
            known.join(", ")
        )))
    }

    fn rmcp_tools(&self) -> Vec<Tool> {
        self.shared
            .tools
            .iter()
            .map(|(definition, _)| {
                Tool::new(
                    definition.name,
                    definition.description,
                    Arc::new(definition.input_schema.clone()),
                )
            })
            .collect()
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("refscope", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "refscope answers what Java code does and who depends on it, at the revision \
                 under review. Call code_context once per changed file with the diff's line \
                 ranges; report findings only through the aicr.* tools when they are listed.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.rmcp_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let server = self.clone();
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let started = std::time::Instant::now();
        let outcome = tokio::task::spawn_blocking(move || server.call(&name, &arguments)).await;
        let result = match outcome {
            Ok(Ok(value)) => CallToolResult::structured(value),
            Ok(Err(error)) => {
                tracing::info!(tool = %request.name, error = %error.message, "tool call refused");
                CallToolResult::error(vec![ContentBlock::text(error.message)])
            }
            Err(join_error) => {
                tracing::error!(tool = %request.name, %join_error, "tool call panicked");
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "tool '{}' failed inside refscope ({join_error}); the server keeps running, \
                     but this call cannot be answered: report it as a refscope bug",
                    request.name
                ))])
            }
        };
        tracing::debug!(tool = %request.name, micros = started.elapsed().as_micros() as u64, "tool call");
        Ok(CallToolResponse::Complete(result))
    }
}
