//! Stream replay: the `aicr.*` tool calls an agent made, read back from its
//! JSON-lines event stream and executed through the review tools, for runs
//! where the calls never reached a server — so no finding, context request
//! or blame request in the stream is silently dropped.
//!
//! Each line is one JSON record; lines that are not JSON are counted and
//! skipped. Anywhere inside a record, an object whose `type` is
//! `tool_call`, `tool_use`, `function_call`, `mcp_tool_call`, `mcpToolCall`
//! or `mcp_call` and that carries a name (`name`, `tool_name` or `tool`) is
//! a tool call; its arguments are the first of `input`, `arguments`, `args`
//! or `parameters`, an object or a string holding a JSON object. So is the
//! `args` of an `mcpToolCall` object (named by `toolName` or `name`, with
//! its arguments in `args`). That covers (one fixture each in
//! `crates/aicr/tests/streams/`):
//!
//! * plain records: `{"type":"tool_call","name":..,"arguments":{..}}` and
//!   `{"type":"tool_use","name":..,"input":{..}}`;
//! * Claude Code's `stream-json`: `{"type":"assistant","message":{"content":
//!   [{"type":"tool_use","id":..,"name":"mcp__aicr-output__aicr_skip","input":{..}}]}}`;
//! * Gemini CLI's `stream-json`: `{"type":"tool_use","tool_name":..,"tool_id":..,"parameters":{..}}`;
//! * Codex's `exec --json`: `{"type":"item.completed","item":{"type":"mcp_tool_call","id":..,"server":..,"tool":..,"arguments":{..}}}`,
//!   and its app server's notifications: `{"method":"item/completed","params":{"item":{"type":"mcpToolCall",..}}}`;
//! * Cursor's `stream-json`: `{"type":"tool_call","subtype":"started","call_id":..,"tool_call":{"mcpToolCall":
//!   {"args":{"name":..,"toolName":..,"providerIdentifier":..,"toolCallId":..,"args":{..}}}}}`;
//! * OpenAI function calls: `{"type":"function_call","call_id":..,"name":..,"arguments":"{..}"}`,
//!   alone or as the `item` of a Responses stream's `response.output_item.done`.
//!
//! A call seen twice under the same id (`id`, `call_id`, `tool_use_id`,
//! `tool_id`, `toolCallId`), as when a stream reports a call when it starts
//! and again when it completes, is executed once. Records that announce a
//! call before its arguments are complete (Claude Code's `stream_event`
//! partial messages, a Responses stream's `response.output_item.added` and
//! argument deltas) are passed over: the complete call follows. A record
//! of a kind none of these clients writes is counted, and searched all the
//! same. Names are mapped through [`normalize_tool_name`]; other tools'
//! calls are counted and ignored.

use std::collections::HashSet;
use std::io::BufRead;

use serde_json::{Map, Value};

use super::names::normalize_tool_name;
use refscope_tool::ToolSet;

/// An `aicr.*` call found in a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamToolCall {
    /// 1-based line of the stream.
    pub line: usize,
    /// The name as the stream spells it.
    pub requested_name: String,
    /// The canonical tool name.
    pub tool: &'static str,
    /// The arguments, or why they could not be read.
    pub arguments: Result<Map<String, Value>, String>,
}

/// What a stream holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamScan {
    /// The `aicr.*` calls, in stream order.
    pub calls: Vec<StreamToolCall>,
    /// Calls of other tools (ignored).
    pub other_tool_calls: usize,
    /// Lines that are not JSON (skipped).
    pub unparsable_lines: usize,
    /// Records of a kind (`type`, or `method` of a JSON-RPC notification)
    /// that no supported client writes: searched for calls all the same.
    pub unknown_records: usize,
}

/// One call that the tools refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayFailure {
    /// 1-based line of the stream.
    pub line: usize,
    /// The canonical tool name.
    pub tool: &'static str,
    /// The tool's error.
    pub message: String,
}

/// What a replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Calls the tools accepted.
    pub recorded: usize,
    /// Calls the tools refused, in stream order.
    pub failures: Vec<ReplayFailure>,
}

/// Event types that denote a tool call.
const TOOL_CALL_TYPES: &[&str] = &[
    "tool_call",
    "tool_use",
    "function_call",
    "mcp_tool_call",
    "mcpToolCall",
    "mcp_call",
];
/// The key of Cursor's MCP call object, whose `args` is the call.
const CURSOR_MCP_CALL: &str = "mcpToolCall";
/// Record kinds that announce a call whose arguments are still to come.
const PARTIAL_RECORD_KINDS: &[&str] = &[
    "stream_event",
    "response.output_item.added",
    "response.function_call_arguments.delta",
];
/// The record kinds the supported clients write: Claude Code, Gemini CLI,
/// Codex (`exec --json`), Cursor, OpenAI's Responses items, plain records.
const KNOWN_RECORD_KINDS: &[&str] = &[
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "init",
    "message",
    "tool_use",
    "tool_result",
    "error",
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "thinking",
    "tool_call",
    "function_call",
    "function_call_output",
    "reasoning",
];
/// Prefixes of known record kinds: a Responses stream's events and the
/// Codex app server's notifications.
const KNOWN_RECORD_KIND_PREFIXES: &[&str] = &["response.", "item/", "turn/", "thread/"];
/// Keys that hold a tool call's name, by preference.
const NAME_KEYS: &[&str] = &["name", "tool_name", "tool"];
/// Keys that hold a tool call's arguments, by preference.
const ARGUMENT_KEYS: &[&str] = &["input", "arguments", "args", "parameters"];
/// Keys that hold a tool call's id.
const ID_KEYS: &[&str] = &["id", "call_id", "tool_use_id", "tool_id", "toolCallId"];

/// Reads a JSON-lines stream and collects its tool calls.
pub fn scan_stream(stream: impl BufRead) -> std::io::Result<StreamScan> {
    let mut scan = StreamScan::default();
    let mut seen_ids = HashSet::new();
    for (index, line) in stream.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Ok(record) = serde_json::from_str::<Value>(&line) else {
            scan.unparsable_lines += 1;
            continue;
        };
        let kind = ["type", "method"]
            .iter()
            .find_map(|key| record.get(*key).and_then(Value::as_str));
        if kind.is_some_and(|kind| PARTIAL_RECORD_KINDS.contains(&kind)) {
            continue;
        }
        let known = kind.is_some_and(|kind| {
            KNOWN_RECORD_KINDS.contains(&kind)
                || KNOWN_RECORD_KIND_PREFIXES
                    .iter()
                    .any(|prefix| kind.starts_with(prefix))
        });
        if !known {
            scan.unknown_records += 1;
        }
        collect_calls(&record, index + 1, &mut seen_ids, &mut scan);
    }
    Ok(scan)
}

/// Executes the calls in order through `tools` (which writes the state
/// after each); refused calls are reported and the replay goes on, as the
/// agent itself went on after an error.
pub fn replay_calls(tools: &mut dyn ToolSet, calls: &[StreamToolCall]) -> ReplayReport {
    let mut report = ReplayReport::default();
    for call in calls {
        let result = match &call.arguments {
            Ok(arguments) => tools
                .call(call.tool, arguments)
                .map_err(|error| error.message),
            Err(reason) => Err(format!("{}: {reason}", call.tool)),
        };
        match result {
            Ok(_) => report.recorded += 1,
            Err(message) => report.failures.push(ReplayFailure {
                line: call.line,
                tool: call.tool,
                message,
            }),
        }
    }
    report
}

/// Walks `value` in document order, taking every tool-call object.
fn collect_calls(
    value: &Value,
    line: usize,
    seen_ids: &mut HashSet<String>,
    scan: &mut StreamScan,
) {
    match value {
        Value::Array(items) => {
            for item in items {
                collect_calls(item, line, seen_ids, scan);
            }
        }
        Value::Object(object) => {
            if let Some(Value::Object(cursor)) = object.get(CURSOR_MCP_CALL)
                && let Some(Value::Object(args)) = cursor.get("args")
                && let Some(name) = ["toolName", "name"]
                    .iter()
                    .find_map(|key| args.get(*key).and_then(Value::as_str))
            {
                let id = args.get("toolCallId").and_then(Value::as_str);
                take_call(name, id, args.get("args"), line, seen_ids, scan);
                return;
            }
            let is_call = object
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|kind| TOOL_CALL_TYPES.contains(&kind));
            let name = NAME_KEYS
                .iter()
                .find_map(|key| object.get(*key).and_then(Value::as_str));
            match (is_call, name) {
                (true, Some(name)) => {
                    let id = ID_KEYS
                        .iter()
                        .find_map(|key| object.get(*key).and_then(Value::as_str));
                    let arguments = ARGUMENT_KEYS.iter().find_map(|key| object.get(*key));
                    take_call(name, id, arguments, line, seen_ids, scan)
                }
                _ => {
                    for child in object.values() {
                        collect_calls(child, line, seen_ids, scan);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Records the call `name` (once per `id`) with these arguments, when it
/// names a review tool.
fn take_call(
    name: &str,
    id: Option<&str>,
    arguments: Option<&Value>,
    line: usize,
    seen_ids: &mut HashSet<String>,
    scan: &mut StreamScan,
) {
    if let Some(id) = id
        && !seen_ids.insert(id.to_string())
    {
        return;
    }
    let Some(tool) = normalize_tool_name(name) else {
        scan.other_tool_calls += 1;
        return;
    };
    let arguments = match arguments {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments.clone()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(arguments)) => Ok(arguments),
            _ => Err(
                "the arguments in the stream are a string that is not a JSON object".to_string(),
            ),
        },
        Some(_) => Err("the arguments in the stream are not a JSON object".to_string()),
    };
    scan.calls.push(StreamToolCall {
        line,
        requested_name: name.to_string(),
        tool,
        arguments,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What fuzzing kept (`fuzz/corpus/replay_stream`) reads without a panic.
    #[test]
    fn the_fuzz_corpus_reads_without_a_panic() {
        for (_, input) in refscope_test_support::paths::fuzz_corpus("replay_stream") {
            let _ = scan_stream(&input[..]);
        }
    }

    fn scanned(stream: &str) -> StreamScan {
        scan_stream(stream.as_bytes()).unwrap()
    }

    #[test]
    fn the_supported_event_shapes_yield_their_calls_in_order() {
        let stream = r#"{"type":"system","subtype":"init","tools":["mcp__aicr-output__aicr_skip"]}
{"type":"tool_call","name":"aicr.publish_summary","arguments":{"markdown":"one"}}
{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"tu1","name":"Read","input":{"file_path":"/x"}},{"type":"tool_use","id":"tu2","name":"mcp__aicr-output__aicr_try_blame","input":{"path":"A.java","reason":"who"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tu2","content":"ok"}]}}
{"type":"tool_use","tool_name":"aicr-output__aicr.fetch_more_context","tool_id":"g1","parameters":{"path":"A.java","reason":"more"}}
{"type":"item.started","item":{"id":"item_3","type":"mcp_tool_call","server":"aicr-output","tool":"aicr.report_problem","arguments":{"file":"A.java"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"aicr-output","tool":"aicr.report_problem","arguments":{"file":"A.java"},"status":"completed"}}
{"type":"function_call","call_id":"c9","name":"aicr_skip","arguments":"{\"reason\":\"lgtm\"}"}
not json at all
{"type":"function_call","call_id":"c10","name":"aicr_skip","arguments":"[1,2]"}
"#;
        let scan = scanned(stream);
        let summary: Vec<(usize, &str, &str)> = scan
            .calls
            .iter()
            .map(|call| (call.line, call.requested_name.as_str(), call.tool))
            .collect();
        assert_eq!(
            summary,
            [
                (2, "aicr.publish_summary", "aicr.publish_summary"),
                (3, "mcp__aicr-output__aicr_try_blame", "aicr.try_blame"),
                (
                    5,
                    "aicr-output__aicr.fetch_more_context",
                    "aicr.fetch_more_context"
                ),
                (6, "aicr.report_problem", "aicr.report_problem"),
                (8, "aicr_skip", "aicr.skip"),
                (10, "aicr_skip", "aicr.skip"),
            ]
        );
        assert_eq!(
            scan.calls[4].arguments,
            Ok(serde_json::json!({"reason": "lgtm"})
                .as_object()
                .unwrap()
                .clone())
        );
        assert_eq!(
            scan.calls[1].arguments.as_ref().unwrap()["path"],
            Value::from("A.java")
        );
        assert!(scan.calls[5].arguments.is_err());
        assert_eq!(scan.other_tool_calls, 1);
        assert_eq!(scan.unparsable_lines, 1);
    }
}
