//! Incremental indexing on a generated history of real code.

use std::process::Child;

use crate::common::{export_revision, refscope, run};

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
    crate::common::run_ok(
        "corpora/make-history",
        std::process::Command::new("python3")
            .arg(crate::common::workspace_root().join("corpora/make-history"))
            .args(["--corpus", corpus.to_str().unwrap()])
            .args(["--out", repo.to_str().unwrap()])
            .args(["--commits", &COMMITS.to_string(), "--seed", "11"]),
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
    // A reader queries the store all the while the history is indexed:
    // each revision it reads must be whole (its answer then is its answer
    // after the index is done) and no read may fail.
    let mut indexing = refscope()
        .current_dir(&repo)
        .args(["index", "--branch", "HEAD", "--json", "--store"])
        .arg(&layered)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Drained as it goes, so that the writer never waits on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let stdout = drain(Box::new(indexing.stdout.take().unwrap()));
    let stderr = drain(Box::new(indexing.stderr.take().unwrap()));
    let read_while_indexing = read_all_the_while(&repo, &layered, &indexing);
    let status = indexing.wait().unwrap();
    let out = stdout.join().unwrap();
    assert!(
        status.success(),
        "index --branch HEAD failed: {}",
        stderr.join().unwrap()
    );
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
    for (commit, read) in &read_while_indexing {
        assert_eq!(
            read,
            &export_revision(&repo, &layered, commit),
            "commit {commit}: read while the history was indexed, it answered otherwise"
        );
    }
    assert!(
        read_while_indexing.len() >= 10,
        "the reader read only {} revisions while the history was indexed",
        read_while_indexing.len()
    );
    assert!(n_body_only >= 50, "only {n_body_only} body-edit commits");
    assert!(
        n_layered >= COMMITS * 9 / 10,
        "only {n_layered} of {COMMITS} commits were written as layers"
    );
}

/// Exports the newest revision of `store`, again and again, until
/// `writer` exits; every read must succeed once the first revision is
/// there. The exports read, by commit.
fn read_all_the_while(
    repo: &std::path::Path,
    store: &std::path::Path,
    writer: &Child,
) -> Vec<(String, String)> {
    let store_arg = store.to_str().unwrap();
    let running = || {
        // The writer's state without reaping it: /proc says whether the
        // process still runs (a zombie has exited).
        std::fs::read_to_string(format!("/proc/{}/stat", writer.id()))
            .is_ok_and(|stat| stat.split_whitespace().nth(2).is_none_or(|s| s != "Z"))
    };
    let mut read = Vec::new();
    let mut started = false;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    while running() {
        assert!(
            std::time::Instant::now() < deadline,
            "the history was still being indexed after 10 minutes"
        );
        let listed = refscope()
            .args(["revisions", "--store", store_arg])
            .output()
            .unwrap();
        if !listed.status.success() {
            assert!(
                !started,
                "listing the revisions failed while the history was indexed: {}",
                String::from_utf8_lossy(&listed.stderr)
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
            continue;
        }
        let listed = String::from_utf8(listed.stdout).unwrap();
        let Some(newest) = listed
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().next())
        else {
            continue;
        };
        started = true;
        let newest = newest.to_string();
        if read.iter().any(|(commit, _)| *commit == newest) {
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        }
        let export = refscope()
            .current_dir(repo)
            .args([
                "export", "--decls", "--refs", "--rev", &newest, "--store", store_arg,
            ])
            .output()
            .unwrap();
        assert!(
            export.status.success(),
            "reading revision {newest} while the history was indexed failed: {}",
            String::from_utf8_lossy(&export.stderr)
        );
        read.push((newest, String::from_utf8(export.stdout).unwrap()));
    }
    read
}
