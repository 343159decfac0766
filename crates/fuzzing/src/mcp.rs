//! `mcp_tools`: any text as an MCP tool call — a tool name as a client may
//! spell it on the first line, its JSON arguments after — on a server
//! with every tool set: `code_context` and `code_query` over the
//! fixture's store (task `shop`), the `aicr.*` review tools over the
//! review fixture's git repository.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use refscope_aicr::state::remove_state;
use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::query_tool::QueryTools;
use refscope_mcp_bridge::server::Server;
use refscope_test_support::review::ReviewRepo;
use refscope_tool::{ToolDefinition, ToolError, ToolSet};
use serde_json::{Map, Value};

use crate::fixture;

/// A tool set shared by the servers of all inputs: the store's tools
/// keep what they read of a revision between calls, as in a running
/// server.
struct Shared(Arc<Mutex<Box<dyn ToolSet>>>);

impl ToolSet for Shared {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.lock().definitions()
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        self.lock().canonical_name(requested)
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        self.lock().call(name, arguments)
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn ToolSet>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the servers are made of.
struct Parts {
    context: Arc<Mutex<Box<dyn ToolSet>>>,
    query: Arc<Mutex<Box<dyn ToolSet>>>,
    review: ReviewTarget,
    agent_dir: PathBuf,
    _repo: ReviewRepo,
}

fn parts() -> &'static Parts {
    static PARTS: OnceLock<Parts> = OnceLock::new();
    PARTS.get_or_init(|| {
        let store_dir = &fixture::shop().store_dir;
        let context = ContextTools::open(store_dir, ContextSettings::default())
            .expect("the context tools open");
        let query = QueryTools::open(store_dir).expect("the query tools open");
        let repo = ReviewRepo::build();
        let review = ReviewTarget {
            repository: Repository::Git(repo.path_buf()),
            revision: repo.revision.clone(),
            base_revision: Some(repo.base.clone()),
        };
        Parts {
            context: Arc::new(Mutex::new(Box::new(context))),
            query: Arc::new(Mutex::new(Box::new(query))),
            review,
            agent_dir: tempfile::tempdir().expect("a temporary directory").keep(),
            _repo: repo,
        }
    })
}

/// Calls the tool `data` names with the arguments it gives. The review
/// tools start from an empty state for each input, so that what earlier
/// inputs reported does not pile up.
pub fn mcp_tools(data: &[u8]) {
    if let Some(Ok(answer)) = call(data) {
        serde_json::to_string(&answer).expect("an answer serializes");
    }
}

/// The answer to the call `data` makes, if it makes one.
fn call(data: &[u8]) -> Option<Result<Value, ToolError>> {
    let text = std::str::from_utf8(data).ok()?;
    let (name, arguments) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(Value::Object(arguments)) = serde_json::from_str::<Value>(arguments) else {
        return None;
    };
    let parts = parts();
    remove_state(&parts.agent_dir).expect("the review state is removed");
    let review = ReviewTools::open(&parts.review, &parts.agent_dir).expect("the review tools open");
    let sets: Vec<Box<dyn ToolSet>> = vec![
        Box::new(Shared(parts.context.clone())),
        Box::new(Shared(parts.query.clone())),
        Box::new(review),
    ];
    let server = Server::new(sets).expect("tool names are unique");
    Some(server.call(name, &arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(name: &str, arguments: Value) -> Value {
        let input = format!("{name}\n{arguments}");
        match call(input.as_bytes()) {
            Some(Ok(answer)) => answer,
            Some(Err(error)) => panic!("{name} fails: {}", error.message),
            None => panic!("{input} is not a call"),
        }
    }

    #[test]
    fn every_tool_set_answers() {
        let context = answer(
            "code_context",
            serde_json::json!({"task_id": fixture::TASK,
                "file_path": "src/main/java/com/acme/shop/Order.java", "diff_lines": [12, 12]}),
        );
        assert!(context.to_string().contains("Order"), "{context}");
        let query = answer(
            "code_query",
            serde_json::json!({"task_id": fixture::TASK, "query": "com.acme.shop.Priced | subtypes"}),
        );
        assert!(query.to_string().contains("com.acme.shop"), "{query}");
        let fetched = answer(
            "aicr.fetch_more_context",
            serde_json::json!({"path": refscope_test_support::review::ORDER, "reason": "read it"}),
        );
        assert!(
            fetched.to_string().contains("line 20 by Carol"),
            "{fetched}"
        );
    }

    #[test]
    fn an_escaping_path_is_refused() {
        let input = "aicr.fetch_more_context\n{\"path\": \"../outside\", \"reason\": \"x\"}";
        assert!(matches!(call(input.as_bytes()), Some(Err(_))));
    }
}
