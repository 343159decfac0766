//! One recorded stream per client format (`tests/streams/`, sources in
//! its README): each yields the same two review calls with their whole
//! arguments, once each, and counts what it passes over.

use refscope_aicr::replay::{StreamScan, scan_stream};
use serde_json::{Value, json};

const ORDER: &str = "src/main/java/com/acme/Order.java";

fn scan(fixture: &str) -> StreamScan {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/streams")
        .join(fixture);
    scan_stream(std::io::BufReader::new(std::fs::File::open(path).unwrap())).unwrap()
}

/// The calls of `fixture` as (tool, arguments).
fn calls(scan: &StreamScan) -> Vec<(&'static str, Value)> {
    scan.calls
        .iter()
        .map(|call| {
            let arguments = call.arguments.clone().expect("the arguments are an object");
            (call.tool, Value::Object(arguments))
        })
        .collect()
}

fn the_two_review_calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "aicr.fetch_more_context",
            json!({"path": ORDER, "range": {"start_line": 18, "end_line": 22}, "reason": "the change"}),
        ),
        (
            "aicr.report_problem",
            json!({"file": ORDER, "line": 20, "severity": "high", "category": "correctness",
                   "message": "the total ignores the discount"}),
        ),
    ]
}

#[test]
fn every_client_format_yields_its_review_calls_once_with_whole_arguments() {
    // (fixture, lines not JSON, records of unknown kinds)
    let formats = [
        ("claude-code.jsonl", 0, 0),
        ("gemini-cli.jsonl", 0, 0),
        ("codex-exec.jsonl", 0, 0),
        ("codex-app-server.jsonl", 0, 0),
        ("cursor.jsonl", 0, 0),
        ("openai-responses.jsonl", 0, 0),
        ("plain.jsonl", 1, 1),
    ];
    for (fixture, unparsable, unknown) in formats {
        let scan = scan(fixture);
        assert_eq!(calls(&scan), the_two_review_calls(), "{fixture}");
        assert_eq!(scan.other_tool_calls, 1, "{fixture}: the other tool's call");
        assert_eq!(scan.unparsable_lines, unparsable, "{fixture}");
        assert_eq!(scan.unknown_records, unknown, "{fixture}");
    }
}

#[test]
fn cursor_calls_are_named_by_their_tool_and_found_on_their_first_line() {
    let scan = scan("cursor.jsonl");
    let found: Vec<(usize, &str)> = scan
        .calls
        .iter()
        .map(|call| (call.line, call.requested_name.as_str()))
        .collect();
    assert_eq!(
        found,
        [(6, "aicr_fetch_more_context"), (10, "aicr_report_problem")]
    );
}

#[test]
fn a_call_announced_before_its_arguments_is_taken_when_complete() {
    // Claude Code's partial messages and a Responses stream's added item
    // carry the call's id with empty arguments first.
    for fixture in ["claude-code.jsonl", "openai-responses.jsonl"] {
        let scan = scan(fixture);
        let first = &scan.calls[0];
        assert_eq!(
            first.arguments.as_ref().unwrap()["range"]["end_line"],
            22,
            "{fixture}"
        );
    }
    assert_eq!(scan("claude-code.jsonl").calls[0].line, 4);
    assert_eq!(scan("openai-responses.jsonl").calls[0].line, 5);
}
