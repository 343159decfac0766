//! The review tools on a Subversion repository: a real one, made with
//! Debian's `subversion` package (`svnadmin create`, a `file://` URL) and
//! three authors' commits, reviewed through a task added with `--svn` —
//! the tools' answers in process, the task and a replay from the command
//! line. Without `svn` these tests fail, saying how to install it.
//!
//! History of `trunk` (the URL reviewed):
//! * r2, alice: `Order.java` (30 lines, line N reads `// line N`), the
//!   symbolic links `src/alias` (→ `main`, inside) and `escape`
//!   (→ `../outside`, out of the URL);
//! * r3, bob: line 5 of `Order.java` (the **base**);
//! * r4, carol: lines 20-21 of `Order.java`, `Added.java` (the
//!   **revision**).

use std::path::Path;
use std::process::Command;

use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
use refscope_tool::ToolSet;
use serde_json::{Value, json};

use crate::common::run;

const ORDER: &str = "src/main/java/com/acme/Order.java";
const ADDED: &str = "src/main/java/com/acme/Added.java";

/// Runs `svn` (or `svnadmin`) in `cwd` as `user`, which must succeed.
fn svn(program: &str, cwd: &Path, user: Option<&str>, args: &[&str]) {
    let mut command = Command::new(program);
    command.current_dir(cwd).env("LC_ALL", "C").args(args);
    if let Some(user) = user {
        command.args(["--non-interactive", "--username", user]);
    }
    let output = command.output().unwrap_or_else(|e| {
        panic!("cannot run {program} ({e}): install Debian's subversion package (.ci/run does)")
    });
    assert!(
        output.status.success(),
        "{program} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn order_java(changed: &[(u32, &str)]) -> String {
    (1..=30)
        .map(|n| match changed.iter().find(|(line, _)| *line == n) {
            Some((_, text)) => format!("{text}\n"),
            None => format!("// line {n}\n"),
        })
        .collect()
}

/// The repository, its `trunk` URL and a working copy of it at r4.
struct SvnFixture {
    dir: tempfile::TempDir,
    url: String,
}

impl SvnFixture {
    fn build() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        svn(
            "svnadmin",
            dir.path(),
            None,
            &["create", repo.to_str().unwrap()],
        );
        let root = format!("file://{}", repo.display());
        let url = format!("{root}/trunk");
        svn(
            "svn",
            dir.path(),
            Some("alice"),
            &["mkdir", "-m", "Layout", &url],
        );
        svn("svn", dir.path(), Some("alice"), &["checkout", &url, "wc"]);
        let wc = dir.path().join("wc");
        let java = wc.join("src/main/java/com/acme");
        std::fs::create_dir_all(&java).unwrap();
        std::fs::write(java.join("Order.java"), order_java(&[])).unwrap();
        std::os::unix::fs::symlink("main", wc.join("src/alias")).unwrap();
        std::os::unix::fs::symlink("../outside", wc.join("escape")).unwrap();
        svn("svn", &wc, None, &["add", "src", "escape"]);
        svn(
            "svn",
            &wc,
            Some("alice"),
            &["commit", "-m", "Order and links\n\nThe first."],
        );
        std::fs::write(
            java.join("Order.java"),
            order_java(&[(5, "// line 5 by Bob")]),
        )
        .unwrap();
        svn("svn", &wc, Some("bob"), &["commit", "-m", "Bob's line 5"]);
        std::fs::write(
            java.join("Order.java"),
            order_java(&[
                (5, "// line 5 by Bob"),
                (20, "// line 20 by Carol"),
                (21, "// line 21 by Carol"),
            ]),
        )
        .unwrap();
        std::fs::write(java.join("Added.java"), "class Added {\n}\n").unwrap();
        svn("svn", &wc, None, &["add", ADDED]);
        svn(
            "svn",
            &wc,
            Some("carol"),
            &["commit", "-m", "Carol's change under review"],
        );
        svn("svn", &wc, None, &["update"]);
        Self { dir, url }
    }

    fn working_copy(&self) -> std::path::PathBuf {
        self.dir.path().join("wc")
    }

    fn tools(&self) -> (ReviewTools, tempfile::TempDir) {
        let agent_dir = tempfile::tempdir().unwrap();
        let target = ReviewTarget {
            repository: Repository::Svn(self.url.clone()),
            revision: "4".into(),
            base_revision: Some("3".into()),
        };
        (
            ReviewTools::open(&target, agent_dir.path()).unwrap(),
            agent_dir,
        )
    }
}

fn call(tools: &mut ReviewTools, name: &'static str, arguments: Value) -> Result<Value, String> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    tools.call(name, &arguments).map_err(|error| error.message)
}

fn refused(tools: &mut ReviewTools, name: &'static str, arguments: Value) -> String {
    match call(tools, name, arguments.clone()) {
        Err(message) => message,
        Ok(answer) => panic!("{name} {arguments} answered {answer}"),
    }
}

#[test]
fn the_review_tools_read_a_subversion_revision() {
    let fixture = SvnFixture::build();
    let (mut tools, _agent_dir) = fixture.tools();

    let fetched = call(
        &mut tools,
        "aicr.fetch_more_context",
        json!({"path": ORDER, "range": {"start_line": 19, "end_line": 21}, "reason": "the change"}),
    )
    .unwrap();
    assert_eq!(fetched["revision"], "r4");
    assert_eq!(
        fetched["content"],
        "// line 19\n// line 20 by Carol\n// line 21 by Carol\n"
    );
    let through_link = call(
        &mut tools,
        "aicr.fetch_more_context",
        json!({"path": "src/alias/java/com/acme/Order.java", "range": {"start_line": 5, "end_line": 5}, "reason": "a link inside"}),
    )
    .unwrap();
    assert_eq!(through_link["resolved_path"], ORDER);
    assert_eq!(through_link["content"], "// line 5 by Bob\n");

    let blamed = call(
        &mut tools,
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 4, "end_line": 5}, "reason": "who"}),
    )
    .unwrap();
    assert_eq!(blamed["status"], "ok");
    let lines: Vec<(u64, &str, &str, &str)> = blamed["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["line"].as_u64().unwrap(),
                line["revision"].as_str().unwrap(),
                line["author"].as_str().unwrap(),
                line["summary"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (4, "r2", "alice", "Order and links"),
            (5, "r3", "bob", "Bob's line 5")
        ]
    );
    let time = blamed["lines"][0]["author_time"].as_str().unwrap();
    assert!(time.ends_with("+00:00") && time.len() == 25, "{time}");
    let carol = call(
        &mut tools,
        "aicr.try_blame",
        json!({"path": ORDER, "range": {"start_line": 21, "end_line": 21}, "reason": "who"}),
    )
    .unwrap();
    assert_eq!(carol["lines"][0]["author"], "carol");

    // Findings go on the lines of the diff r3..r4 only.
    let report = |line: u32| {
        json!({"file": ORDER, "line": line, "severity": "high", "category": "correctness",
               "message": "the total ignores the discount"})
    };
    assert!(call(&mut tools, "aicr.report_problem", report(20)).is_ok());
    let outside_diff = refused(&mut tools, "aicr.report_problem", report(5));
    assert!(outside_diff.contains("17-24"), "{outside_diff}");
    let unchanged = refused(
        &mut tools,
        "aicr.report_problem",
        json!({"file": "escape", "line": 1, "severity": "low", "category": "style", "message": "m"}),
    );
    assert!(
        unchanged.contains("is not changed by the diff") && unchanged.contains(ADDED),
        "{unchanged}"
    );

    // Paths stay inside the URL.
    for (path, expected) in [
        ("../trunk/src/main/java/com/acme/Order.java", "'..'"),
        ("/etc/passwd", "absolute"),
        (
            "escape/x",
            "leads out of the repository through the symbolic link escape -> ../outside",
        ),
        ("escape", "leads out of the repository"),
        ("src/a\0b", "NUL"),
        ("src/missing.java", "does not exist at revision r4"),
        ("src", "is a directory at revision r4"),
    ] {
        let message = refused(
            &mut tools,
            "aicr.fetch_more_context",
            json!({"path": path, "reason": "escape"}),
        );
        assert!(message.contains(expected), "{path:?}: {message}");
    }
    let long = format!("src/{}", "a".repeat(4100));
    let too_long = refused(
        &mut tools,
        "aicr.fetch_more_context",
        json!({"path": long, "reason": "long"}),
    );
    assert!(too_long.contains("at most 4096 characters"), "{too_long}");
}

#[test]
fn a_subversion_task_is_added_and_replayed_from_the_command_line() {
    let fixture = SvnFixture::build();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let wc = fixture.working_copy();
    let added = run(
        &wc,
        &[
            "task",
            "add",
            "--id",
            "svn-pr",
            "--svn",
            &fixture.url,
            "--rev",
            "HEAD",
            "--base",
            "3",
            "--repo",
            wc.to_str().unwrap(),
            "--store",
            store_arg,
        ],
    )
    .ok();
    assert!(
        added.contains(&format!("\tsvn {} r4\tbase r3", fixture.url)),
        "{added}"
    );
    let stream = store.path().join("events.jsonl");
    let calls = [
        json!({"type": "tool_use", "id": "t1", "name": "mcp__aicr-output__aicr_report_problem",
               "input": {"file": ORDER, "line": 21, "severity": "high", "category": "correctness", "message": "m"}}),
        json!({"type": "tool_use", "id": "t2", "name": "aicr_try_blame",
               "input": {"path": ORDER, "range": {"start_line": 20, "end_line": 20}, "reason": "who"}}),
    ];
    let text: String = calls.iter().map(|call| format!("{call}\n")).collect();
    std::fs::write(&stream, text).unwrap();
    let agent_dir = store.path().join("agent");
    let replayed = run(
        &wc,
        &[
            "aicr",
            "replay",
            "--stream",
            stream.to_str().unwrap(),
            "--agent-dir",
            agent_dir.to_str().unwrap(),
            "--task",
            "svn-pr",
            "--store",
            store_arg,
        ],
    )
    .ok();
    assert!(replayed.contains("2 recorded, 0 refused"), "{replayed}");
    let state: Value =
        serde_json::from_slice(&std::fs::read(agent_dir.join(".aicr-output-state.json")).unwrap())
            .unwrap();
    assert_eq!(state["revision"], "r4");
    assert_eq!(state["baseRevision"], "r3");
    assert_eq!(state["problems"][0]["location"], format!("{ORDER}:21"));
    assert_eq!(state["attributionRequests"][0]["status"], "ok");

    // The code context reads the working copy's files, indexed when the
    // task was added.
    let context = run(
        &wc,
        &[
            "context", "--task", "svn-pr", "--store", store_arg, "--file", ORDER, "--lines",
            "20-21",
        ],
    );
    let answer: Value = serde_json::from_str(&context.ok()).unwrap();
    assert!(answer.is_object(), "{answer}");
}

#[test]
fn bad_subversion_targets_are_clear_errors() {
    let fixture = SvnFixture::build();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let wc = fixture.working_copy();
    let add = |url: &str, rev: &str| {
        run(
            &wc,
            &[
                "task",
                "add",
                "--id",
                "bad",
                "--svn",
                url,
                "--rev",
                rev,
                "--repo",
                wc.to_str().unwrap(),
                "--store",
                store_arg,
            ],
        )
    };
    let nowhere = format!("file://{}/nowhere", fixture.dir.path().display());
    let unreachable = add(&nowhere, "1").fails_with(1);
    assert!(
        unreachable.contains(&format!("cannot read the Subversion repository {nowhere}")),
        "{unreachable}"
    );
    let out_of_range = add(&fixture.url, "99").fails_with(1);
    assert!(
        out_of_range.contains("revision `99` is not a revision of"),
        "{out_of_range}"
    );
    let not_a_number = add(&fixture.url, "main").fails_with(1);
    assert!(not_a_number.contains("revision `main`"), "{not_a_number}");
    let file_url = format!("{}/{ORDER}", fixture.url);
    let not_a_directory = add(&file_url, "4").fails_with(1);
    assert!(
        not_a_directory.contains("not a directory"),
        "{not_a_directory}"
    );
    // A server that accepts the connection and never answers: the svn
    // command is stopped after its time limit, with an error saying so.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || silent.accept().map(|(stream, _)| stream));
    let mute = format!("svn://127.0.0.1:{port}/repo");
    let timed_out = add(&mute, "1").fails_with(1);
    assert!(timed_out.contains("did not answer within"), "{timed_out}");
    drop(held);
    // Nothing was added.
    let listed = run(&wc, &["task", "list", "--store", store_arg]).ok();
    assert!(listed.trim().is_empty(), "{listed}");
}
