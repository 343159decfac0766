//! `refscope aicr clean | replay | normalize-prose` from the command line,
//! against the review-tool fixture repository.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use refscope_test_support::review::{ORDER, ReviewRepo};
use serde_json::{Value, json};

const STATE_FILE: &str = ".aicr-output-state.json";

/// Runs `refscope` with `stdin`, showing everything when `expect_success`
/// does not hold.
fn refscope(args: &[&str], stdin: &str, expect_success: bool) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_refscope"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.success(),
        expect_success,
        "refscope {}\nstatus: {}\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn state(agent_dir: &Path) -> Option<Value> {
    std::fs::read(agent_dir.join(STATE_FILE))
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).unwrap())
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `aicr replay` of `stream` into `agent_dir`, bound to the fixture's
/// revision and base; it must succeed.
fn replay_against(repo: &ReviewRepo, stream: &Path, agent_dir: &Path) -> Output {
    refscope(
        &[
            "aicr",
            "replay",
            "--stream",
            text(stream),
            "--agent-dir",
            text(agent_dir),
            "--repo",
            text(repo.path()),
            "--rev",
            &repo.revision,
            "--base",
            &repo.base,
        ],
        "",
        true,
    )
}

/// A Claude Code stream-json run that reported through tools the server
/// never saw, mixed with a Codex item and a plain event.
fn agent_stream() -> String {
    let events = [
        json!({"type": "system", "subtype": "init", "tools": ["Read", "mcp__aicr-output__aicr_report_problem"]}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "text", "text": "Looking at the change."},
            {"type": "tool_use", "id": "t1", "name": "mcp__aicr-output__aicr_fetch_more_context",
             "input": {"path": ORDER, "range": {"start_line": 18, "end_line": 22}, "reason": "the change"}},
        ]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "..."}]}}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t2", "name": "mcp__aicr-output__aicr_fetch_more_context",
             "input": {"path": "escape/x", "reason": "outside"}},
            {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": "/etc/hosts"}},
        ]}}),
        json!({"type": "item.completed", "item": {"id": "item_1", "type": "mcp_tool_call", "server": "aicr-output",
            "tool": "aicr.try_blame", "arguments": {"path": ORDER, "range": {"start_line": 20, "end_line": 20}, "reason": "who"}}}),
        json!({"type": "tool_call", "name": "aicr_report_problem", "arguments": {
            "file": ORDER, "line": 20, "severity": "medium", "category": "correctness",
            "message": "line 20 overwrites the total"}}),
        json!({"type": "tool_use", "name": "aicr.skip", "input": {"reason": "lgtm"}}),
    ];
    let mut stream: String = events.iter().map(|event| format!("{event}\n")).collect();
    stream.push_str("plain text the agent printed\n");
    stream
}

#[test]
fn replay_executes_the_streams_aicr_calls_once_and_only_without_a_state() {
    let repo = ReviewRepo::build();
    let agent_dir = tempfile::tempdir().unwrap();
    let stream_file = agent_dir.path().join("events.jsonl");
    std::fs::write(&stream_file, agent_stream()).unwrap();
    let output = replay_against(&repo, &stream_file, agent_dir.path());
    assert_eq!(
        stdout(&output).trim_end(),
        format!(
            "replayed 5 aicr calls: 3 recorded, 2 refused (1 other tool calls ignored, 1 lines not JSON); state in {}",
            text(&agent_dir.path().join(STATE_FILE))
        )
    );
    let errors = stderr(&output);
    assert!(
        errors.contains(":4: refused: aicr.fetch_more_context: field `path`"),
        "{errors}"
    );
    assert!(errors.contains(":7: refused: aicr.skip"), "{errors}");
    let written = state(agent_dir.path()).unwrap();
    assert_eq!(written["revision"], repo.revision.as_str());
    assert_eq!(written["problems"].as_array().unwrap().len(), 1);
    assert_eq!(written["problems"][0]["location"], format!("{ORDER}:20"));
    assert_eq!(written["skipReason"], Value::Null);
    assert_eq!(
        written["contextRequests"],
        json!([{"path": ORDER, "range": {"start_line": 18, "end_line": 22}, "reason": "the change"}])
    );
    assert_eq!(
        written["attributionRequests"],
        json!([{"path": ORDER, "range": {"start_line": 20, "end_line": 20}, "reason": "who", "status": "ok"}])
    );

    // A second replay finds the state and leaves it alone.
    let output = replay_against(&repo, &stream_file, agent_dir.path());
    assert!(
        stderr(&output).contains("nothing replayed"),
        "{}",
        stderr(&output)
    );
    assert_eq!(state(agent_dir.path()).unwrap(), written);

    // Clean removes it; clean again says there is none.
    let output = refscope(
        &["aicr", "clean", "--agent-dir", text(agent_dir.path())],
        "",
        true,
    );
    assert!(stderr(&output).contains("removed"), "{}", stderr(&output));
    assert_eq!(state(agent_dir.path()), None);
    let output = refscope(
        &["aicr", "clean", "--agent-dir", text(agent_dir.path())],
        "",
        true,
    );
    assert!(stderr(&output).contains("no state"), "{}", stderr(&output));
}

#[test]
fn replay_of_a_stream_without_aicr_calls_writes_nothing_and_bad_targets_fail() {
    let repo = ReviewRepo::build();
    let agent_dir = tempfile::tempdir().unwrap();
    let stream_file = agent_dir.path().join("events.jsonl");
    std::fs::write(
        &stream_file,
        "{\"type\":\"tool_use\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}\n",
    )
    .unwrap();
    let mut args = vec![
        "aicr",
        "replay",
        "--stream",
        text(&stream_file),
        "--agent-dir",
        text(agent_dir.path()),
        "--repo",
        text(repo.path()),
        "--rev",
        &repo.revision,
    ];
    let output = refscope(&args, "", true);
    assert!(
        stderr(&output).contains("no aicr tool calls"),
        "{}",
        stderr(&output)
    );
    assert_eq!(state(agent_dir.path()), None);

    std::fs::write(&stream_file, agent_stream()).unwrap();
    args[9] = "no-such-revision";
    let output = refscope(&args, "", false);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("`no-such-revision` is not a commit"),
        "{}",
        stderr(&output)
    );
    assert_eq!(state(agent_dir.path()), None);
    let missing = agent_dir.path().join("missing.jsonl");
    let output = refscope(
        &[
            "aicr",
            "replay",
            "--stream",
            text(&missing),
            "--agent-dir",
            text(agent_dir.path()),
            "--rev",
            "HEAD",
        ],
        "",
        false,
    );
    assert!(
        stderr(&output).contains("cannot open the stream"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn normalize_prose_writes_a_skip_reason_but_never_over_problems() {
    let agent_dir = tempfile::tempdir().unwrap();
    let dir = text(agent_dir.path());
    let output = refscope(
        &["aicr", "normalize-prose", "--agent-dir", dir],
        "I reviewed the change: LGTM.\n",
        true,
    );
    assert_eq!(stdout(&output), "lgtm\n");
    let written = state(agent_dir.path()).unwrap();
    assert_eq!(written["skipReason"], "lgtm");
    assert_eq!(written["revision"], Value::Null);
    assert_eq!(written["problems"], json!([]));

    // Already concluded: unchanged.
    let output = refscope(
        &["aicr", "normalize-prose", "--agent-dir", dir],
        "没有可审查的代码",
        true,
    );
    assert_eq!(stdout(&output), "lgtm\n");
    assert!(stderr(&output).contains("already has skipReason lgtm"));

    // From a file, Chinese.
    let fresh = tempfile::tempdir().unwrap();
    let prose_file = fresh.path().join("answer.md");
    std::fs::write(&prose_file, "本次变更没有可审查的代码。").unwrap();
    let output = refscope(
        &[
            "aicr",
            "normalize-prose",
            "--agent-dir",
            text(fresh.path()),
            "--file",
            text(&prose_file),
        ],
        "",
        true,
    );
    assert_eq!(stdout(&output), "no_reviewable_code\n");
    assert_eq!(
        state(fresh.path()).unwrap()["skipReason"],
        "no_reviewable_code"
    );

    // Hedged prose: nothing written, exit 1.
    let empty = tempfile::tempdir().unwrap();
    let output = refscope(
        &["aicr", "normalize-prose", "--agent-dir", text(empty.path())],
        "LGTM, but the loop on line 3 never ends.",
        false,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("nothing written"),
        "{}",
        stderr(&output)
    );
    assert_eq!(state(empty.path()), None);

    // A state with problems is never overridden.
    let repo = ReviewRepo::build();
    let with_problems = tempfile::tempdir().unwrap();
    let stream_file = with_problems.path().join("events.jsonl");
    std::fs::write(&stream_file, agent_stream()).unwrap();
    replay_against(&repo, &stream_file, with_problems.path());
    let before = state(with_problems.path()).unwrap();
    let output = refscope(
        &[
            "aicr",
            "normalize-prose",
            "--agent-dir",
            text(with_problems.path()),
        ],
        "LGTM",
        true,
    );
    assert!(
        stderr(&output).contains("1 problem(s); left unchanged"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), "");
    assert_eq!(state(with_problems.path()).unwrap(), before);
}

#[test]
fn replay_binds_the_calls_to_a_stored_task() {
    let repo = ReviewRepo::build();
    let store = tempfile::tempdir().unwrap();
    let agent_dir = tempfile::tempdir().unwrap();
    refscope(
        &[
            "task",
            "add",
            "--id",
            "pr-7",
            "--repo",
            text(repo.path()),
            "--rev",
            &repo.revision,
            "--base",
            &repo.base,
            "--store",
            text(store.path()),
        ],
        "",
        true,
    );
    let stream_file = agent_dir.path().join("events.jsonl");
    std::fs::write(&stream_file, agent_stream()).unwrap();
    let output = refscope(
        &[
            "aicr",
            "replay",
            "--stream",
            text(&stream_file),
            "--agent-dir",
            text(agent_dir.path()),
            "--task",
            "pr-7",
            "--store",
            text(store.path()),
        ],
        "",
        true,
    );
    assert!(
        stdout(&output).contains("3 recorded, 2 refused"),
        "{}",
        stdout(&output)
    );
    let written = state(agent_dir.path()).unwrap();
    assert_eq!(written["revision"], repo.revision.as_str());
    assert_eq!(written["baseRevision"], repo.base.as_str());
    // --task and --rev are alternatives.
    let output = refscope(
        &[
            "aicr",
            "replay",
            "--stream",
            text(&stream_file),
            "--task",
            "pr-7",
            "--rev",
            "HEAD",
        ],
        "",
        false,
    );
    assert_eq!(output.status.code(), Some(2));
}

/// Each client's recorded stream (`crates/aicr/tests/streams/`) replayed
/// against the fixture repository: its two review calls recorded in the
/// state, the other tool's call ignored.
#[test]
fn every_client_formats_stream_replays_into_a_state() {
    let streams = refscope_test_support::paths::workspace_root().join("crates/aicr/tests/streams");
    let repo = ReviewRepo::build();
    for client in [
        "claude-code",
        "gemini-cli",
        "codex-exec",
        "codex-app-server",
        "cursor",
        "openai-responses",
        "plain",
    ] {
        let agent_dir = tempfile::tempdir().unwrap();
        let stream = streams.join(format!("{client}.jsonl"));
        let output = replay_against(&repo, &stream, agent_dir.path());
        let (unparsable, unknown) = if client == "plain" {
            (1, ", 1 records of unknown kinds")
        } else {
            (0, "")
        };
        assert_eq!(
            stdout(&output).trim_end(),
            format!(
                "replayed 2 aicr calls: 2 recorded, 0 refused (1 other tool calls ignored, {unparsable} lines not JSON{unknown}); state in {}",
                text(&agent_dir.path().join(STATE_FILE))
            ),
            "{client}"
        );
        let written = state(agent_dir.path()).unwrap();
        assert_eq!(
            written["problems"][0]["location"],
            format!("{ORDER}:20"),
            "{client}"
        );
        assert_eq!(
            written["contextRequests"],
            json!([{"path": ORDER, "range": {"start_line": 18, "end_line": 22}, "reason": "the change"}]),
            "{client}"
        );
    }
}
