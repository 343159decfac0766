//! `refscope query` end to end: one query, a batch on standard input, and
//! the exit codes.

use std::io::Write;
use std::process::Stdio;

use crate::common::{TestRepo, refscope};

const SHOP: &str = "package com.acme;

public class Shop {
    int size() {
        return 1;
    }

    void order() {
        size();
    }
}
";

fn indexed_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit(&[("src/com/acme/Shop.java", SHOP)], "one");
    let status = refscope()
        .arg("index")
        .arg(repo.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    repo
}

#[test]
fn one_query_answers_in_text_and_exits_by_error_kind() {
    let repo = indexed_repo();
    let run = |query: &str| {
        refscope()
            .args(["query", query])
            .current_dir(repo.path())
            .output()
            .unwrap()
    };
    let ok = run("com.acme.Shop#size | callers");
    assert!(ok.status.success(), "{ok:?}");
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        "src/com/acme/Shop.java:8  method  com.acme.Shop#order()  call exact src/com/acme/Shop.java:9:9\n"
    );
    let syntax = run("com.acme.Shop | calers");
    assert_eq!(syntax.status.code(), Some(2));
    let stderr = String::from_utf8(syntax.stderr).unwrap();
    assert!(stderr.contains("did you mean 'callers'?"), "{stderr}");
    assert!(stderr.contains("                ^^^^^^"), "{stderr}");
    let unknown = run("com.acme.Shp");
    assert_eq!(unknown.status.code(), Some(1));
}

#[test]
fn a_batch_on_standard_input_answers_one_json_line_per_query() {
    let repo = indexed_repo();
    let mut child = refscope()
        .args(["query", "-", "--format", "json"])
        .current_dir(repo.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"com.acme.Shop | members | count\n\ncom.acme.Shop#size | calers\ncom.acme.Shop#order | callees\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    // One query failed: the exit code says so, the others answered.
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0]["count"], 2);
    assert_eq!(lines[0]["elements"], serde_json::Value::Null);
    assert_eq!(lines[1]["error"]["stage"], "syntax");
    assert_eq!(lines[1]["error"]["column"], 22);
    assert_eq!(lines[1]["error"]["suggestion"], "callers");
    assert_eq!(lines[2]["elements"][0]["id"], "com.acme.Shop#size()");
    assert_eq!(lines[2]["elements"][0]["element"]["name_line"], 4);
    assert_eq!(lines[2]["elements"][0]["edge"]["site"]["line"], 9);
}
