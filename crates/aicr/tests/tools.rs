//! The five review tools against a real git repository (see
//! `refscope_test_support::review`): every tool with valid and invalid input, and the state
//! file read back from disk after every call.

use refscope_aicr::state::{STATE_FILE_NAME, state_path};
use refscope_aicr::{Repository, ReviewTarget, ReviewTools, normalize_tool_name};
use refscope_test_support::review::{
    ADDED, AMOUNT, LEGACY, MONEY, OLD, ORDER, RENAMED, ReviewRepo,
};
use refscope_tool::ToolSet;
use serde_json::{Value, json};

/// The tools of one review and its agent directory; every call checks the
/// state file against what the call should have done to it.
struct Session {
    tools: ReviewTools,
    agent_dir: tempfile::TempDir,
}

impl Session {
    fn open(repo: &ReviewRepo, base: Option<&str>) -> Self {
        let agent_dir = tempfile::tempdir().unwrap();
        let target = ReviewTarget {
            repository: Repository::Git(repo.path_buf()),
            revision: repo.revision.clone(),
            base_revision: base.map(str::to_string),
        };
        let tools = ReviewTools::open(&target, agent_dir.path()).unwrap();
        Self { tools, agent_dir }
    }

    fn state_on_disk(&self) -> Option<Value> {
        std::fs::read(state_path(self.agent_dir.path()))
            .ok()
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
    }

    fn call(&mut self, requested: &str, arguments: Value) -> Result<Value, String> {
        let name = self
            .tools
            .canonical_name(requested)
            .unwrap_or_else(|| panic!("{requested} is not a review tool"));
        self.tools
            .call(name, arguments.as_object().unwrap())
            .map_err(|error| error.message)
    }

    /// A call that must succeed: the state on disk afterwards is the tools'
    /// state, and differs from the one before.
    fn ok(&mut self, requested: &str, arguments: Value) -> Value {
        let before = self.state_on_disk();
        let answer = self
            .call(requested, arguments.clone())
            .unwrap_or_else(|error| panic!("{requested} {arguments}: {error}"));
        let after = self.state_on_disk().expect("a call writes the state");
        assert_eq!(after, serde_json::to_value(self.tools.state()).unwrap());
        assert_ne!(Some(&after), before.as_ref(), "{requested} changed nothing");
        answer
    }

    /// A call that must be refused, with a message containing each of
    /// `expected`, leaving the state as it was.
    fn refused(&mut self, requested: &str, arguments: Value, expected: &[&str]) -> String {
        let before = serde_json::to_value(self.tools.state()).unwrap();
        let error = self
            .call(requested, arguments.clone())
            .expect_err(&format!("{requested} {arguments} should be refused"));
        for part in expected {
            assert!(error.contains(part), "{error:?} should contain {part:?}");
        }
        assert!(!error.contains('\n'), "one line: {error:?}");
        assert_eq!(serde_json::to_value(self.tools.state()).unwrap(), before);
        assert_eq!(self.state_on_disk(), Some(before));
        error
    }
}

fn problem(file: &str, line: u32) -> Value {
    json!({
        "file": file,
        "line": line,
        "severity": "high",
        "category": "correctness",
        "message": "the total is wrong when the order is empty",
    })
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

fn without(mut value: Value, key: &str) -> Value {
    value.as_object_mut().unwrap().remove(key);
    value
}

#[test]
fn report_problem_takes_only_commentable_lines_of_the_diff() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    // The hunk of Order.java: lines 20-21 changed, 17-24 with context.
    let answer = session.ok(
        "aicr.report_problem",
        with(
            with(problem(ORDER, 20), "end_line", json!(21)),
            "suggestion",
            json!("```diff\n-// line 20 by Carol\n+// line 20\n```"),
        ),
    );
    assert_eq!(answer["id"], "P1");
    assert_eq!(answer["location"], format!("{ORDER}:20-21"));
    session.ok(
        "aicr_report_problem",
        with(
            problem(ORDER, 17),
            "fingerprint",
            json!("order-empty-total"),
        ),
    );
    session.ok("mcp__aicr-output__aicr_report_problem", problem(ADDED, 1));
    // A file renamed in the diff is known by its new path; its changed line
    // is line 2. Found as a rename, it has one hunk, lines 1-5 (not the
    // whole 8-line file, as if it had been added).
    session.ok("aicr.report_problem", problem(AMOUNT, 2));
    session.refused(
        "aicr.report_problem",
        problem(AMOUNT, 8),
        &["field `line` (8)", "are 1-5"],
    );
    let state = session.state_on_disk().unwrap();
    let locations: Vec<&str> = state["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| problem["location"].as_str().unwrap())
        .collect();
    assert_eq!(
        locations,
        [
            format!("{ORDER}:20-21"),
            format!("{ORDER}:17"),
            format!("{ADDED}:1"),
            format!("{AMOUNT}:2"),
        ]
    );
    assert_eq!(state["problems"][1]["fingerprint"], "order-empty-total");
    assert_eq!(state["problems"][1]["end_line"], Value::Null);
    assert_eq!(state["revision"], repo.revision.as_str());
    assert_eq!(state["baseRevision"], repo.base.as_str());

    // Lines outside the hunks, files outside the diff, spans leaving a hunk.
    session.refused(
        "aicr.report_problem",
        problem(ORDER, 5),
        &["field `line` (5)", "17-24"],
    );
    session.refused(
        "aicr.report_problem",
        problem(ORDER, 25),
        &["field `line` (25)"],
    );
    session.refused(
        "aicr.report_problem",
        problem("README.md", 1),
        &["field `file`", "not changed by the diff", ORDER],
    );
    session.refused(
        "aicr.report_problem",
        problem(LEGACY, 1),
        &["field `file`", "not changed by the diff"],
    );
    session.refused(
        "aicr.report_problem",
        problem(MONEY, 2),
        &["field `file`", "not changed by the diff"],
    );
    // Renamed before the base: not part of this diff.
    session.refused(
        "aicr.report_problem",
        problem(RENAMED, 3),
        &["field `file`", "not changed by the diff"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "end_line", json!(26)),
        &["field `end_line` (26)", "hunk 17-24"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "end_line", json!(19)),
        &["field `end_line` (19) must be at least `line` (20)"],
    );
    session.refused(
        "aicr.report_problem",
        with(
            problem(ORDER, 18),
            "fingerprint",
            json!("order-empty-total"),
        ),
        &["field `fingerprint`", "already reported as P2"],
    );
    // Field rules from the table.
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "author", json!("Carol")),
        &["unknown field `author`", "aicr.try_blame"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "attribution", json!("Carol")),
        &["unknown field `attribution`"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "severity", json!("blocker")),
        &[
            "field `severity`",
            "info, low, medium, high, critical",
            "\"blocker\"",
        ],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "category", json!("Correctness Issue")),
        &["field `category`", "short code"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "line", json!("20")),
        &["field `line`", "integer"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "line", json!(0)),
        &["field `line`", "1 or more"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 20), "message", json!("   ")),
        &["field `message`", "non-empty"],
    );
    session.refused(
        "aicr.report_problem",
        without(problem(ORDER, 20), "file"),
        &["field `file` is required"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem("../Order.java", 20), "line", json!(20)),
        &["field `file`", "'..'", "stop retrying"],
    );
    assert_eq!(session.tools.state().problems.len(), 4);
}

#[test]
fn without_a_base_any_line_of_an_existing_file_is_commentable() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, None);
    session.ok("aicr.report_problem", problem(ORDER, 5));
    session.ok(
        "aicr.report_problem",
        with(problem("README.md", 1), "severity", json!("info")),
    );
    session.ok(
        "aicr.report_problem",
        with(problem(ORDER, 29), "end_line", json!(30)),
    );
    session.refused(
        "aicr.report_problem",
        problem(ORDER, 31),
        &["field `line` (31) is past the end", "30 lines"],
    );
    session.refused(
        "aicr.report_problem",
        with(problem(ORDER, 29), "end_line", json!(31)),
        &["field `end_line` (31) is past the end"],
    );
    session.refused(
        "aicr.report_problem",
        problem(LEGACY, 1),
        &[
            "field `file`",
            "does not exist at revision",
            "stop retrying",
        ],
    );
    assert_eq!(
        session.state_on_disk().unwrap()["baseRevision"],
        Value::Null
    );
}

#[test]
fn summary_and_skip_are_recorded_and_skip_never_stands_beside_problems() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    session.refused(
        "aicr.publish_summary",
        json!({"title": "Review"}),
        &["aicr.publish_summary: field `markdown` is required"],
    );
    session.refused(
        "aicr.publish_summary",
        json!({"markdown": ""}),
        &["field `markdown`", "non-empty"],
    );
    session.refused(
        "aicr.publish_summary",
        json!({"markdown": "x", "author": "me"}),
        &["unknown field `author`"],
    );
    let answer = session.ok(
        "aicr.publish_summary",
        json!({"title": "Review", "markdown": "# Fine\nNothing serious."}),
    );
    assert_eq!(answer["replaced_earlier_summary"], false);
    let answer = session.ok("aicr.publish_summary", json!({"markdown": "Second take."}));
    assert_eq!(answer["replaced_earlier_summary"], true);
    assert_eq!(
        session.state_on_disk().unwrap()["summary"],
        json!({"title": null, "markdown": "Second take."})
    );

    session.refused("aicr.skip", json!({}), &["field `reason` is required"]);
    session.refused(
        "aicr.skip",
        json!({"reason": "Looks good to me!"}),
        &["field `reason`", "short code"],
    );
    session.ok("aicr.skip", json!({"reason": "lgtm"}));
    assert_eq!(session.state_on_disk().unwrap()["skipReason"], "lgtm");
    // A problem after a skip withdraws the skip; a skip after a problem is
    // refused.
    let answer = session.ok("aicr.report_problem", problem(ORDER, 21));
    assert!(answer["note"].as_str().unwrap().contains("withdrawn"));
    assert_eq!(session.state_on_disk().unwrap()["skipReason"], Value::Null);
    session.refused(
        "aicr.skip",
        json!({"reason": "no_reviewable_code"}),
        &["already reported"],
    );
}

#[test]
fn fetch_more_context_reads_the_revision_and_refuses_paths_outside_it() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    let whole = session.ok(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "reason": "the whole class"}),
    );
    assert_eq!(whole["total_lines"], 30);
    assert_eq!(whole["start_line"], 1);
    assert_eq!(whole["end_line"], 30);
    assert_eq!(whole["truncated"], false);
    assert_eq!(whole["revision"], repo.revision.as_str());
    assert!(
        whole["content"]
            .as_str()
            .unwrap()
            .contains("// line 20 by Carol\n")
    );
    let range = session.ok(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 19, "end_line": 21}, "reason": "around the change"}),
    );
    assert_eq!(
        range["content"],
        "// line 19\n// line 20 by Carol\n// line 21 by Carol\n"
    );
    // A range past the end is cut at the end.
    let tail = session.ok(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 29, "end_line": 40}, "reason": "the end"}),
    );
    assert_eq!(tail["content"], "// line 29\n// line 30\n");
    assert_eq!(tail["end_line"], 30);
    // A symbolic link inside the repository is followed.
    let aliased = session.ok(
        "aicr.fetch_more_context",
        json!({"path": "src/alias/java/com/acme/Added.java", "reason": "via the link"}),
    );
    assert_eq!(aliased["resolved_path"], ADDED);
    assert_eq!(aliased["total_lines"], 4);
    let state = session.state_on_disk().unwrap();
    assert_eq!(state["contextRequests"].as_array().unwrap().len(), 4);
    assert_eq!(
        state["contextRequests"][1],
        json!({"path": ORDER, "range": {"start_line": 19, "end_line": 21}, "reason": "around the change"})
    );
    assert_eq!(state["contextRequests"][0]["range"], Value::Null);

    let stop = "stop retrying this path";
    let too_long = format!("src/{}.java", "a".repeat(4100));
    session.refused(
        "aicr.fetch_more_context",
        json!({"path": too_long, "reason": "try"}),
        &[
            "aicr.fetch_more_context: field `path`",
            "at most 4096 characters",
        ],
    );
    // Every way out of the repository that a caller might try.
    for (path, rule) in [
        ("//etc/passwd", "is absolute"),
        ("C:/Windows/win.ini", "absolute Windows path"),
        ("src\\..\\..\\etc\\passwd", "'\\'"),
        ("..", "'..'"),
        ("./../outside.java", "'..'"),
        ("src/main/../../../etc/passwd", "'..'"),
        ("src/main/java/com/acme/Order.java\0../../etc/passwd", "NUL"),
        ("escape/../escape/secret.txt", "'..'"),
        ("%2e%2e/%2e%2e/etc/passwd", "does not exist at revision"),
        // And paths that are wrong in other ways.
        (LEGACY, "does not exist at revision"),
        (
            "src/main/java/com/acme/Nope.java",
            "does not exist at revision",
        ),
        ("/etc/passwd", "is absolute"),
        ("src/../../etc/passwd", "'..'"),
        ("escape/secret.txt", "leads out of the repository"),
        ("escape", "leads out of the repository"),
        ("loop/a", "loop of symbolic links"),
        ("src/main", "is a directory"),
        ("logo.png", "binary"),
        (OLD, "does not exist at revision"),
    ] {
        session.refused(
            "aicr.fetch_more_context",
            json!({"path": path, "reason": "try"}),
            &["aicr.fetch_more_context: field `path`", rule, stop],
        );
    }
    session.refused(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 31, "end_line": 40}, "reason": "x"}),
        &["field `range` starts at line 31", "30 lines", "1-30"],
    );
    session.refused(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 9, "end_line": 3}, "reason": "x"}),
        &["field `range`", "start_line <= end_line"],
    );
    session.refused(
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 1, "end_line": 3, "extra": 1}, "reason": "x"}),
        &["field `range`"],
    );
    session.refused(
        "aicr.fetch_more_context",
        json!({"path": ORDER}),
        &["field `reason` is required"],
    );
}

#[test]
fn try_blame_attributes_lines_across_authors_and_a_rename_without_source_text() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    let answer = session.ok(
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 4, "end_line": 6}, "reason": "who wrote line 5"}),
    );
    assert_eq!(answer["status"], "ok");
    let authors: Vec<(u64, &str, &str)> = answer["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["line"].as_u64().unwrap(),
                line["author"].as_str().unwrap(),
                line["revision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        authors,
        [
            (4, "Alice", repo.first.as_str()),
            (5, "Bob", repo.base.as_str()),
            (6, "Alice", repo.first.as_str()),
        ]
    );
    let bob = &answer["lines"][1];
    assert_eq!(bob["author_email"], "bob@example.com");
    assert_eq!(bob["author_time"], "2024-03-09T11:00:00-05:00");
    assert_eq!(bob["summary"], "Rename Old to Renamed");
    // Never the source text.
    assert!(!answer.to_string().contains("// line"), "{answer}");

    let whole = session.ok(
        "aicr.try_blame",
        json!({"path": ORDER, "reason": "everything"}),
    );
    assert_eq!(whole["lines"].as_array().unwrap().len(), 30);
    assert_eq!(whole["lines"][19]["author"], "Carol");
    assert_eq!(
        whole["lines"][19]["author_time"],
        "2024-07-03T09:46:40+00:00"
    );

    // The rename is followed: lines Alice wrote in Old.java are hers.
    let renamed = session.ok(
        "aicr.try_blame",
        json!({"path": RENAMED, "reason": "history of the renamed file"}),
    );
    assert_eq!(renamed["status"], "ok");
    let renamed_lines: Vec<(&str, Option<&str>)> = renamed["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["author"].as_str().unwrap(),
                line["original_path"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        renamed_lines,
        [
            ("Alice", Some(OLD)),
            ("Alice", Some(OLD)),
            ("Bob", None),
            ("Alice", Some(OLD)),
            ("Alice", Some(OLD)),
        ]
    );

    // A range running past the end: partial. A deleted file: not found.
    let partial = session.ok(
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 29, "end_line": 35}, "reason": "end"}),
    );
    assert_eq!(partial["status"], "partial");
    assert_eq!(partial["lines"].as_array().unwrap().len(), 2);
    let deleted = session.ok(
        "aicr.try_blame",
        json!({"path": LEGACY, "reason": "deleted here"}),
    );
    assert_eq!(deleted["status"], "not_found");
    assert_eq!(deleted["lines"], json!([]));
    let past_end = session.ok(
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 40, "end_line": 41}, "reason": "nothing there"}),
    );
    assert_eq!(past_end["status"], "not_found");

    let statuses: Vec<String> = session.state_on_disk().unwrap()["attributionRequests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|request| request["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        statuses,
        ["ok", "ok", "ok", "partial", "not_found", "not_found"]
    );

    session.refused(
        "aicr.try_blame",
        json!({"path": "escape/x", "reason": "out"}),
        &["aicr.try_blame: field `path`", "leads out", "stop retrying"],
    );
    session.refused(
        "aicr.try_blame",
        json!({"path": "/etc/passwd", "reason": "out"}),
        &["is absolute"],
    );
    session.refused(
        "aicr.try_blame",
        json!({"path": ORDER, "reason": "x", "author": "Bob"}),
        &["unknown field `author`"],
    );
    session.refused(
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 0, "end_line": 2}, "reason": "x"}),
        &["field `range`"],
    );
}

#[test]
fn a_state_is_continued_for_the_same_revision_and_refused_for_another() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    session.ok("aicr.report_problem", problem(ORDER, 20));
    let same = ReviewTarget {
        repository: Repository::Git(repo.path_buf()),
        revision: repo.revision.clone(),
        base_revision: Some(repo.base.clone()),
    };
    let reopened = ReviewTools::open(&same, session.agent_dir.path()).unwrap();
    assert_eq!(reopened.state().problems.len(), 1);
    let other = ReviewTarget {
        revision: repo.base.clone(),
        base_revision: None,
        ..same.clone()
    };
    let error = ReviewTools::open(&other, session.agent_dir.path())
        .err()
        .expect("another revision's state is refused")
        .to_string();
    assert!(error.contains("refscope aicr clean --agent-dir"), "{error}");
    let missing = ReviewTarget {
        revision: "no-such-branch".into(),
        ..same
    };
    let error = ReviewTools::open(&missing, session.agent_dir.path())
        .err()
        .expect("an unknown revision is refused")
        .to_string();
    assert!(
        error.contains("`no-such-branch` is not a commit"),
        "{error}"
    );
}

#[test]
fn an_invalid_first_call_leaves_an_empty_state() {
    let repo = ReviewRepo::build();
    let mut session = Session::open(&repo, Some(&repo.base));
    assert_eq!(session.state_on_disk(), None);
    session
        .call("aicr.skip", json!({"reason": "No!"}))
        .unwrap_err();
    let state = session.state_on_disk().unwrap();
    assert_eq!(state["problems"], json!([]));
    assert_eq!(state["skipReason"], Value::Null);
    let names: Vec<String> = std::fs::read_dir(session.agent_dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, [STATE_FILE_NAME]);
}

#[test]
fn the_listed_schemas_hold_the_issues_field_names_exactly() {
    let repo = ReviewRepo::build();
    let session = Session::open(&repo, None);
    let surface: Vec<(String, Vec<String>, Vec<String>)> = session
        .tools
        .definitions()
        .into_iter()
        .map(|definition| {
            let schema = Value::Object(definition.input_schema);
            assert_eq!(schema["additionalProperties"], false);
            let mut fields: Vec<String> = schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            fields.sort();
            for field in &fields {
                assert!(
                    schema["properties"][field]["description"].is_string(),
                    "{} {field} has a description",
                    definition.name
                );
            }
            let required = schema["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|name| name.as_str().unwrap().to_string())
                .collect();
            assert_eq!(normalize_tool_name(definition.name), Some(definition.name));
            (definition.name.to_string(), fields, required)
        })
        .collect();
    let strings = |names: &[&str]| {
        names
            .iter()
            .map(|name| name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        surface,
        [
            (
                "aicr.report_problem".to_string(),
                strings(&[
                    "category",
                    "end_line",
                    "file",
                    "fingerprint",
                    "line",
                    "message",
                    "severity",
                    "suggestion"
                ]),
                strings(&["file", "line", "severity", "category", "message"]),
            ),
            (
                "aicr.publish_summary".to_string(),
                strings(&["markdown", "title"]),
                strings(&["markdown"]),
            ),
            (
                "aicr.skip".to_string(),
                strings(&["reason"]),
                strings(&["reason"])
            ),
            (
                "aicr.fetch_more_context".to_string(),
                strings(&["path", "range", "reason"]),
                strings(&["path", "reason"]),
            ),
            (
                "aicr.try_blame".to_string(),
                strings(&["path", "range", "reason"]),
                strings(&["path", "reason"]),
            ),
        ]
    );
}
