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

/// `--limit` pages an answer, `--cursor` continues it (and only it), and a
/// query out of budget answers with what it found, marked partial.
#[test]
fn answers_come_a_page_at_a_time_and_within_a_budget() {
    let repo = TestRepo::new();
    let fixture = crate::common::workspace_root().join("corpora/fixtures/shop");
    let mut files = Vec::new();
    crate::common::java_files(&fixture, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|path| {
            (
                path.strip_prefix(&fixture)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read_to_string(path).unwrap(),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    repo.commit(&borrowed, "shop");
    crate::common::run(repo.path(), &["index"]).ok();
    let query = |args: &[&str]| -> (Option<i32>, serde_json::Value, String) {
        let mut all = vec!["query", "--format", "json"];
        all.extend(args);
        let done = crate::common::run(repo.path(), &all);
        let json = serde_json::from_str(&done.stdout()).unwrap_or(serde_json::Value::Null);
        (done.code(), json, done.stderr())
    };
    let ids = |answer: &serde_json::Value| -> Vec<String> {
        answer["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["id"].as_str().unwrap().to_string())
            .collect()
    };
    let text = "methods in com.acme.shop";
    let (_, whole, _) = query(&[text]);
    let all = ids(&whole);
    assert!(all.len() > 5, "{all:?}");
    assert!(
        whole.get("total").is_none(),
        "an answer not paged says nothing of pages"
    );

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec![text, "--limit", "4"];
        if let Some(cursor) = &cursor {
            args.extend(["--cursor", cursor.as_str()]);
        }
        let (code, page, _) = query(&args);
        assert_eq!(code, Some(0));
        assert_eq!(page["total"], all.len());
        assert!(page["count"].as_u64().unwrap() <= 4);
        seen.extend(ids(&page));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => {
                assert!(page["next_cursor"].is_null());
                break;
            }
        }
    }
    assert_eq!(seen, all, "the pages hold the answer, once, in order");

    let (_, first, _) = query(&[text, "--limit", "2"]);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let (code, _, refused) = query(&["fields in com.acme.shop", "--cursor", &cursor]);
    assert_eq!(code, Some(1));
    assert!(
        refused.contains("another query, revision or store"),
        "{refused}"
    );

    let (code, partial, said) = query(&[
        "com.acme.shop.Money#plus | callers depth 5",
        "--budget-ms",
        "0",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(partial["partial"], true, "{partial}");
    assert!(said.contains("budget"), "{said}");
    let (_, complete, _) = query(&["com.acme.shop.Money#plus | callers depth 5"]);
    assert!(complete.get("partial").is_none(), "{complete}");
}
