//! Code-context JSON: for a file of a task's revision and the line ranges
//! of its diff, the elements owning the ranges and who references them,
//! the methods and fields each line uses, and what each of those elements
//! is — in one answer, linked by short per-answer ids (`E1`, `E2`, ...).
//!
//! [`assemble`] builds an answer from a snapshot; [`tool::ContextTools`]
//! is the `code_context` MCP tool (and what `refscope context` prints):
//! it finds the task, indexes its revisions on first use and applies the
//! [`settings`]. The schema is documented in
//! `docs/code-context.md`.
//!
//! ```no_run
//! use refscope_mcp_bridge::context::settings::ContextSettings;
//! use refscope_mcp_bridge::context::tool::{CodeContextInput, ContextTools};
//!
//! let mut tools = ContextTools::open("/repo/.git/refscope".as_ref(), ContextSettings::default())?;
//! let input = CodeContextInput::new("pr-42", "src/main/java/com/acme/Shop.java", vec![10, 25]);
//! let answer = tools.code_context(&input).map_err(|e| e.message)?;
//! println!("{answer}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod assemble;
mod keys;
pub mod settings;
pub mod tool;

pub use assemble::{ContextError, ContextRequest, ContextSources, assemble};
