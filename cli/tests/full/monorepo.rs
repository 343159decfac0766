//! A repository of relocated copies of a real corpus, as
//! `corpora/make-monorepo` makes the repositories of `benches/monorepo`:
//! every whole copy declares and resolves what the corpus does, under its
//! own package prefix, and the calls from one copy into the one before
//! resolve there.

use std::process::Command;

use serde_json::Value;

use crate::common::{export_of, fetch_corpus, run_ok, workspace_root};

/// The export lines of `export` whose file lies under `dir` (but for the
/// calls into the copy before), with `dir` and the package prefix `prefix`
/// taken out of them: what the corpus itself exports, if the copy is
/// faithful. Sorted.
fn copy_lines(export: &str, dir: &str, prefix: &str) -> Vec<String> {
    let mut lines: Vec<String> = export
        .lines()
        .filter(|line| line.contains(&format!("\"file\":\"{dir}")))
        .filter(|line| !line.contains(&format!("\"file\":\"{dir}crossref/")))
        .map(|line| line.replace(dir, "").replace(prefix, ""))
        .collect();
    lines.sort_unstable();
    lines
}

#[test]
fn relocated_copies_resolve_as_their_corpus_and_into_each_other() {
    let corpus = fetch_corpus("libcommons-lang3-java").join("src/main/java");
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    // Two whole copies of the 215 files and a part of a third.
    run_ok(
        "corpora/make-monorepo",
        Command::new("python3")
            .arg(workspace_root().join("corpora/make-monorepo"))
            .args(["--files", "500", "--cross-refs", "300"])
            .args(["--sources", corpus.to_str().unwrap()])
            .args(["--out", repo.to_str().unwrap()]),
    );
    let mut original: Vec<String> = export_of(&corpus, &[]).lines().map(String::from).collect();
    original.sort_unstable();
    assert!(original.len() > 10_000, "{} lines", original.len());
    let relocated = export_of(&repo, &[]);
    for copy in ["m0", "m1"] {
        let lines = copy_lines(
            &relocated,
            &format!("{copy}-java/src/main/java/{copy}/"),
            &format!("{copy}."),
        );
        assert!(
            lines == original,
            "copy {copy} differs from its corpus: {} lines against {}; first difference: {:?}",
            lines.len(),
            original.len(),
            lines.iter().zip(&original).find(|(a, b)| a != b)
        );
    }
    // The calls of each copy's Links resolve, exactly, into the copy
    // before it.
    let mut calls = 0;
    for line in relocated
        .lines()
        .filter(|line| line.contains("/crossref/Links.java"))
    {
        let r: Value = serde_json::from_str(line).unwrap();
        if r["t"] != "ref" || r["kind"] != "call" {
            continue;
        }
        let file = r["file"].as_str().unwrap();
        let copy: usize = file[1..file.find('-').unwrap()].parse().unwrap();
        let before = format!("m{}.", copy - 1);
        assert_eq!(r["confidence"], "exact", "{line}");
        assert!(r["owner"].as_str().unwrap().starts_with(&before), "{line}");
        calls += 1;
    }
    // 300 calls over the two copies after the first.
    assert_eq!(calls, 300, "{relocated}");
}
