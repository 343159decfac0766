//! The `aicr.*` review tools and the `.aicr-output-state.json` contract.
//!
//! An AI reviewer reports only through five tools — `aicr.report_problem`,
//! `aicr.publish_summary`, `aicr.skip`, `aicr.fetch_more_context` and
//! `aicr.try_blame` — bound to one review task (repository, revision,
//! optional base revision). After every call the state of the review is
//! written atomically into the agent directory, where the orchestrator
//! reads it back ([`state`]).
//!
//! * [`names`]: canonical tool names and [`normalize_tool_name`] for the
//!   spellings clients send back.
//! * [`ReviewTools`]: the tools as a [`ToolSet`](refscope_tool::ToolSet);
//!   every argument checked against one table per tool that also yields the
//!   input schemas.
//! * [`replay`]: the tool calls of a JSON-lines agent event stream, executed
//!   after the fact when the agent ran without the server.
//! * [`prose`]: "LGTM"-style prose mapped to a skip reason.
//!
//! The tools read a git repository in-process with libgit2, or a
//! Subversion repository URL with the `svn` client, and write only the
//! state file; they need no index, so this crate knows nothing of the
//! engine, the store or MCP (the server serves them through
//! `refscope-tool`'s [`ToolSet`](refscope_tool::ToolSet)).
//!
//! ```no_run
//! use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
//! use refscope_tool::ToolSet;
//!
//! let target = ReviewTarget {
//!     repository: Repository::Git("/src/shop".into()),
//!     revision: "HEAD".into(),
//!     base_revision: Some("HEAD~1".into()),
//! };
//! let mut tools = ReviewTools::open(&target, "/tmp/agent".as_ref()).unwrap();
//! let name = tools.canonical_name("mcp__aicr-output__aicr_skip").unwrap();
//! let arguments = serde_json::json!({"reason": "lgtm"});
//! tools.call(name, arguments.as_object().unwrap()).unwrap();
//! assert_eq!(tools.state().skip_reason.as_deref(), Some("lgtm"));
//! ```

#![forbid(unsafe_code)]

mod arguments;
mod blame;
mod diff;
pub mod names;
pub mod prose;
mod read;
pub mod replay;
mod repository;
pub mod state;
mod svn;
mod target;
mod tools;

pub use arguments::LineRange;
pub use names::normalize_tool_name;
pub use state::{ReviewState, StateError};
pub use svn::svn_revision;
pub use target::{Repository, ReviewTarget, ReviewTargetError};
pub use tools::{MAX_FETCHED_LINES, ReviewTools, ReviewToolsError, review_tool_definitions};
