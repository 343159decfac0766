//! Declarations of a real library against javac: commons-lang3 3.12 (main
//! and test sources), fetched from Debian by `corpora/fetch`, indexed as a
//! plain directory and compared with the javac oracle's dump. The floors are
//! the foundation issue's bar: 99.5 % of javac's declarations matched by
//! (file, kind, owner, name, params), and start, end and name lines exact
//! for 99 % of those.

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::{run, workspace_root};

type Key = (String, String, String, String, String);

fn decls(jsonl: &str) -> HashMap<Key, Vec<(u64, u64, u64)>> {
    let mut out: HashMap<Key, Vec<(u64, u64, u64)>> = HashMap::new();
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["t"] != "decl" {
            continue;
        }
        let key = (
            v["file"].as_str().unwrap().to_string(),
            v["kind"].as_str().unwrap().to_string(),
            v["owner"].to_string(),
            v["name"].as_str().unwrap().to_string(),
            v["params"].to_string(),
        );
        let lines = (
            v["start_line"].as_u64().unwrap(),
            v["end_line"].as_u64().unwrap(),
            v["name_line"].as_u64().unwrap(),
        );
        out.entry(key).or_default().push(lines);
    }
    out
}

#[test]
fn commons_lang3_declarations_match_javac() {
    let root = workspace_root();
    let fetch = Command::new("bash")
        .arg(root.join("corpora/fetch"))
        .arg("libcommons-lang3-java")
        .output()
        .unwrap();
    assert!(
        fetch.status.success(),
        "corpora/fetch failed:\n{}",
        String::from_utf8_lossy(&fetch.stderr)
    );
    let corpus = String::from_utf8(fetch.stdout).unwrap().trim().to_string();
    let work = tempfile::tempdir().unwrap();
    let truth_path = work.path().join("truth.jsonl");
    let oracle = Command::new("bash")
        .arg(root.join("../shared/oracle/javac-oracle"))
        .args([
            "--root",
            "src/main/java",
            "--root",
            "src/test/java",
            "--base",
            ".",
        ])
        .arg("--out")
        .arg(&truth_path)
        .current_dir(&corpus)
        .output()
        .unwrap();
    assert!(
        oracle.status.success(),
        "javac-oracle failed:\n{}",
        String::from_utf8_lossy(&oracle.stderr)
    );

    let store = work.path().join("store");
    run(
        work.path(),
        &["index", &corpus, "--store", store.to_str().unwrap()],
    )
    .ok();
    let ours = run(
        work.path(),
        &[
            "export",
            "--decls",
            "--store",
            store.to_str().unwrap(),
            "--repo",
            &corpus,
        ],
    )
    .ok();

    let truth = decls(&std::fs::read_to_string(&truth_path).unwrap());
    let candidate = decls(&ours);
    let n_truth: usize = truth.values().map(Vec::len).sum();
    let mut matched = 0usize;
    let mut lines_exact = 0usize;
    let mut missed = Vec::new();
    for (key, expected) in &truth {
        let got = candidate.get(key).map(Vec::as_slice).unwrap_or(&[]);
        let n = expected.len().min(got.len());
        matched += n;
        lines_exact += expected.iter().filter(|l| got.contains(l)).count().min(n);
        if n < expected.len() && missed.len() < 10 {
            missed.push(format!("{key:?}"));
        }
    }
    let recall = matched as f64 / n_truth as f64;
    let exact = lines_exact as f64 / matched.max(1) as f64;
    eprintln!(
        "commons-lang3: {matched}/{n_truth} declarations matched ({recall:.4}), lines exact {exact:.4}"
    );
    assert!(
        n_truth > 10_000,
        "the oracle reported only {n_truth} declarations"
    );
    assert!(
        recall >= 0.995,
        "recall {recall:.4} below 0.995; missed e.g.:\n{}",
        missed.join("\n")
    );
    assert!(
        exact >= 0.99,
        "lines exact for {exact:.4} of matched, below 0.99"
    );
}
