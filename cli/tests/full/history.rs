//! Incremental indexing on a generated history of real code.

use crate::common::{export_from_scratch, export_revision, parsed_and_resolved, run};

/// The equality test: a 50-commit history generated from real code
/// (commons-lang3's main sources, with body edits, signature changes of
/// widely used methods, files added, deleted, renamed and moved between
/// packages) indexed commit after commit into one store exports, for every
/// commit, exactly what a from-scratch index of that commit exports.
#[test]
fn every_commit_of_a_generated_history_exports_as_from_scratch() {
    let corpus = crate::common::fetch_corpus("libcommons-lang3-java").join("src/main/java");
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    let generated = std::process::Command::new("python3")
        .arg(crate::common::workspace_root().join("corpora/make-history"))
        .args(["--corpus", corpus.to_str().unwrap()])
        .args(["--out", repo.to_str().unwrap()])
        .args(["--commits", "50", "--seed", "11"])
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "corpora/make-history failed:\n{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let log = std::process::Command::new("git")
        .args(["log", "--first-parent", "--reverse", "--format=%H %s"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let commits: Vec<(String, String)> = String::from_utf8(log.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (id, subject) = line.split_once(' ').unwrap();
            (id.to_string(), subject.to_string())
        })
        .collect();
    assert_eq!(commits.len(), 51, "{commits:?}");

    let store = work.path().join("store");
    let store_arg = store.to_str().unwrap();
    let out = run(&repo, &["index", "--branch", "HEAD", "--store", store_arg]).ok();
    let summaries: Vec<&str> = out.lines().collect();
    assert_eq!(summaries.len(), 51, "{out}");
    let mut n_body_only = 0;
    for ((commit, subject), summary) in commits.iter().zip(&summaries) {
        assert!(summary.contains(&commit[..19]), "{summary} for {commit}");
        // A commit that edits bodies only resolves only the files it edits.
        if subject.starts_with("Edit ") {
            let (parsed, resolved) = parsed_and_resolved(summary);
            assert_eq!(parsed, resolved, "{subject}: {summary}");
            n_body_only += 1;
        }
        assert_eq!(
            export_revision(&repo, &store, commit),
            export_from_scratch(&repo, commit),
            "commit {commit} ({subject}): the incremental index differs from a fresh one"
        );
    }
    assert!(n_body_only >= 10, "only {n_body_only} body-edit commits");
}
