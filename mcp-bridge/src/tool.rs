//! What every MCP tool of the bridge has in common, whichever module
//! implements it: a definition the server lists, and an error the server
//! turns into an MCP error result (never a protocol error, never a crash).

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
