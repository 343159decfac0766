//! Incremental indexing on a generated history of real code.

use crate::common::{export_revision, run};

/// Commits of the generated history after its first.
const COMMITS: usize = 200;

/// A 200-commit history generated from real code (commons-lang3's main
/// sources, with body edits, signature changes of widely used methods,
/// files added, deleted, renamed and moved between packages) indexed
/// commit after commit into one store, each commit a layer over its
/// parent, exports for every commit exactly what indexing that commit from
/// scratch exports.
#[test]
fn every_commit_of_a_generated_history_exports_as_from_scratch() {
    let corpus = crate::common::fetch_corpus("libcommons-lang3-java").join("src/main/java");
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    let generated = std::process::Command::new("python3")
        .arg(crate::common::workspace_root().join("corpora/make-history"))
        .args(["--corpus", corpus.to_str().unwrap()])
        .args(["--out", repo.to_str().unwrap()])
        .args(["--commits", &COMMITS.to_string(), "--seed", "11"])
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
    assert_eq!(commits.len(), COMMITS + 1, "{commits:?}");

    let layered = work.path().join("layered");
    let out = run(
        &repo,
        &[
            "index",
            "--branch",
            "HEAD",
            "--json",
            "--store",
            layered.to_str().unwrap(),
        ],
    )
    .ok();
    let summaries: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(summaries.len(), COMMITS + 1, "{out}");
    // Every commit indexed from scratch, in a store of its own kind: the
    // pack's parsed files are shared, every file of every commit resolved.
    let scratch = work.path().join("scratch");
    let out = run(
        &repo,
        &[
            "index",
            "--branch",
            "HEAD",
            "--json",
            "--from-scratch",
            "--store",
            scratch.to_str().unwrap(),
        ],
    )
    .ok();
    assert_eq!(out.lines().count(), COMMITS + 1, "{out}");
    let mut n_body_only = 0;
    let mut n_layered = 0;
    for ((commit, subject), summary) in commits.iter().zip(&summaries) {
        assert_eq!(summary["revision"], commit.as_str(), "{summary}");
        if summary["parent"].is_string() {
            n_layered += 1;
        }
        // A commit that edits bodies only resolves only the files it edits.
        if subject.starts_with("Edit ") {
            assert_eq!(
                summary["parsed"], summary["resolved"],
                "{subject}: {summary}"
            );
            n_body_only += 1;
        }
    }
    // Exports, two processes at a time: most of this test's time.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some((commit, subject)) =
                    commits.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    assert_eq!(
                        export_revision(&repo, &layered, commit),
                        export_revision(&repo, &scratch, commit),
                        "commit {commit} ({subject}): the incremental index differs from a fresh one"
                    );
                }
            });
        }
    });
    assert!(n_body_only >= 50, "only {n_body_only} body-edit commits");
    assert!(
        n_layered >= COMMITS * 9 / 10,
        "only {n_layered} of {COMMITS} commits were written as layers"
    );
}
