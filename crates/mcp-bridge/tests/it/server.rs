//! The MCP server in process, over `tokio::io::duplex`, with an rmcp
//! client: listing, name normalisation, error results, panics, and calls
//! into a tool set one at a time. A small tool set of the test's own stands
//! in for the review tools, through the same seam.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::server::Server;
use refscope_tool::{ToolDefinition, ToolError, ToolSet};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

/// `probe.echo` answers its arguments, `probe.refuse` refuses, `probe.panic`
/// panics; every call records how many calls were inside the set at once.
struct ProbeTools {
    inside: Arc<AtomicUsize>,
    most_inside: Arc<AtomicUsize>,
}

impl ToolSet for ProbeTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        let schema = |required: &[&str]| {
            let mut map = Map::new();
            map.insert("type".into(), json!("object"));
            map.insert("required".into(), json!(required));
            map
        };
        vec![
            ToolDefinition {
                name: "probe.echo",
                description: "Answers its arguments.",
                input_schema: schema(&[]),
            },
            ToolDefinition {
                name: "probe.refuse",
                description: "Always refuses.",
                input_schema: schema(&["why"]),
            },
            ToolDefinition {
                name: "probe.panic",
                description: "Panics.",
                input_schema: schema(&[]),
            },
        ]
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        refscope_tool::canonical_tool_name(requested, ["probe.echo", "probe.refuse", "probe.panic"])
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_inside.fetch_max(now, Ordering::SeqCst);
        // Stay inside long enough for concurrent calls to overlap if the
        // server let them.
        std::thread::sleep(Duration::from_millis(20));
        self.inside.fetch_sub(1, Ordering::SeqCst);
        match name {
            "probe.echo" => Ok(json!({"tool": name, "arguments": arguments})),
            "probe.refuse" => Err(ToolError::new(format!(
                "refused: {}",
                arguments
                    .get("why")
                    .and_then(Value::as_str)
                    .unwrap_or("no reason")
            ))),
            _ => panic!("probe.panic was called"),
        }
    }
}

struct Harness {
    client: RunningService<RoleClient, ()>,
    most_inside: Arc<AtomicUsize>,
    _store: tempfile::TempDir,
}

async fn start() -> Harness {
    let store = tempfile::tempdir().unwrap();
    let context = ContextTools::open(store.path(), ContextSettings::default()).unwrap();
    let most_inside = Arc::new(AtomicUsize::new(0));
    let probe = ProbeTools {
        inside: Arc::new(AtomicUsize::new(0)),
        most_inside: most_inside.clone(),
    };
    let sets: Vec<Box<dyn ToolSet>> = vec![Box::new(context), Box::new(probe)];
    let server = Server::new(sets).unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_side).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = ().serve(client_side).await.unwrap();
    Harness {
        client,
        most_inside,
        _store: store,
    }
}

async fn call(harness: &Harness, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    harness
        .client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{name}: a protocol error instead of a result: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lists_the_context_tool_and_the_supplied_set() {
    let harness = start().await;
    let names: Vec<String> = harness
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        ["code_context", "probe.echo", "probe.refuse", "probe.panic"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn client_spellings_reach_the_canonical_tool() {
    let harness = start().await;
    for spelling in [
        "probe.echo",
        "probe_echo",
        "srv_probe_echo",
        "mcp__srv__probe_echo",
    ] {
        let result = call(&harness, spelling, json!({"n": 1})).await;
        assert_eq!(
            result.is_error,
            Some(false),
            "{spelling}: {}",
            text(&result)
        );
        assert_eq!(
            result.structured_content,
            Some(json!({"tool": "probe.echo", "arguments": {"n": 1}})),
            "{spelling}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refusals_unknown_tools_and_panics_are_error_results() {
    let harness = start().await;
    let refused = call(&harness, "probe.refuse", json!({"why": "line 0"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(text(&refused), "refused: line 0");

    let unknown = call(&harness, "probe.nothing", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(
        text(&unknown),
        "unknown tool 'probe.nothing'; this server offers: code_context, probe.echo, probe.refuse, probe.panic"
    );

    let panicked = call(&harness, "probe.panic", json!({})).await;
    assert_eq!(panicked.is_error, Some(true));
    assert!(
        text(&panicked).contains("failed inside refscope"),
        "{}",
        text(&panicked)
    );

    // The set survives its panic, and the server keeps serving.
    let echoed = call(&harness, "probe.echo", json!({})).await;
    assert_eq!(echoed.is_error, Some(false), "{}", text(&echoed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn context_errors_are_error_results() {
    let harness = start().await;
    let unknown_task = call(
        &harness,
        "code_context",
        json!({"task_id": "nope", "file_path": "A.java", "diff_lines": [1, 2]}),
    )
    .await;
    assert_eq!(unknown_task.is_error, Some(true));
    assert!(
        text(&unknown_task).starts_with("no task 'nope' in store "),
        "{}",
        text(&unknown_task)
    );
    let bad_arguments = call(
        &harness,
        "code_context",
        json!({"task_id": "nope", "file_path": "A.java", "diff_lines": "1-2"}),
    )
    .await;
    assert_eq!(bad_arguments.is_error, Some(true));
    assert!(
        text(&bad_arguments).starts_with("code_context arguments are not valid: "),
        "{}",
        text(&bad_arguments)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_into_a_set_run_one_at_a_time() {
    let harness = Arc::new(start().await);
    let mut calls = Vec::new();
    for n in 0..8 {
        let harness = harness.clone();
        calls.push(tokio::spawn(async move {
            call(&harness, "probe.echo", json!({"n": n})).await
        }));
    }
    for call in calls {
        assert_eq!(call.await.unwrap().is_error, Some(false));
    }
    assert_eq!(harness.most_inside.load(Ordering::SeqCst), 1);
}
