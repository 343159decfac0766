//! What every refscope tool set has in common, whichever crate implements
//! it: a definition the server lists ([`ToolDefinition`]), an error the
//! server turns into an error result (never a protocol error, never a
//! crash: [`ToolError`]), the set itself ([`ToolSet`]), and the mapping of
//! the names clients actually send back to canonical ones
//! ([`canonical_tool_name`]).
//!
//! The seam between the tools (the `aicr.*` review tools, the code-context
//! and query tools) and the MCP server: tools know nothing of MCP or
//! JSON-RPC, the server knows tools only through [`ToolSet`].
//!
//! ```
//! use refscope_tool::canonical_tool_name;
//!
//! assert_eq!(
//!     canonical_tool_name("mcp__refscope__code_context", ["code_context"]),
//!     Some("code_context")
//! );
//! ```

#![forbid(unsafe_code)]

mod name;

pub use name::canonical_tool_name;

use serde_json::{Map, Value};

/// A tool as the server lists it: canonical name, description and the JSON
/// Schema of its arguments (an object schema).
#[derive(Debug, Clone)]
pub struct ToolDefinition {
    /// The canonical name, e.g. `aicr.report_problem`.
    pub name: &'static str,
    /// What the tool does, its inputs and output, when to use it, caveats.
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub input_schema: Map<String, Value>,
}

/// A call the server refuses for a reason the caller can fix. The message
/// names the field and the rule it broke, or says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// One line for the caller (an AI agent): what was wrong, what to do.
    pub message: String,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A set of tools the server offers besides its own, e.g. the `aicr.*`
/// review tools bound to one review task. The server lists
/// [`definitions`](Self::definitions), maps each incoming name through
/// [`canonical_name`](Self::canonical_name) and dispatches to
/// [`call`](Self::call); one call at a time.
pub trait ToolSet: Send {
    /// The tools of the set.
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// The canonical name a client's spelling of a tool name stands for, or
    /// `None` when the name is not one of this set's tools. Clients may
    /// prefix the server name and turn dots into underscores; a set
    /// recognises the spellings it supports.
    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        self.definitions()
            .into_iter()
            .map(|definition| definition.name)
            .find(|name| *name == requested)
    }

    /// Runs the tool `name` (canonical) with these arguments: a JSON result
    /// for the caller, or an error saying what to fix.
    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError>;
}
