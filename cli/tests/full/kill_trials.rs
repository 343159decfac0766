//! kill -9 of a range index at 50 random moments: after each, every
//! revision the store lists answers exactly as a clean index of it does,
//! and the next run goes on to complete the range.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use refscope_test_support::Change;

use crate::common::{TestRepo, export_revision, refscope, run};

/// Kills that must land while the index runs.
const TRIALS: usize = 50;

/// A generated class of some size; `version` changes its bodies.
fn class(n: usize, version: usize) -> String {
    let mut text = format!("package gen.p{};\n\npublic class C{n} {{\n", n % 12);
    for m in 0..24 {
        text.push_str(&format!(
            "    public int m{m}(int a) {{ return a + {} + C{}.k(); }}\n",
            m * version,
            (n + 1) % 150
        ));
    }
    text.push_str("    public static int k() { return 1; }\n}\n");
    text
}

fn path(n: usize) -> String {
    format!("gen/p{}/C{n}.java", n % 12)
}

/// A small deterministic generator (the trials print its seed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// 150 classes, then 12 commits editing, adding and deleting a few.
fn history(repo: &TestRepo) -> Vec<String> {
    let files: Vec<(String, String)> = (0..150).map(|n| (path(n), class(n, 1))).collect();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let mut commits = vec![repo.commit(&borrowed, "base")];
    let mut next = 150;
    for c in 0..12 {
        let edited: Vec<(String, String)> = (0..4)
            .map(|k| {
                let n = (c * 7 + k * 13) % 150;
                (path(n), class(n, c + 2))
            })
            .chain(std::iter::once((path(next), class(next, 1))))
            .collect();
        next += 1;
        let deleted = path(next - 3);
        let mut changes: Vec<Change<'_>> =
            edited.iter().map(|(p, t)| Change::write(p, t)).collect();
        if c % 3 == 2 {
            changes.push(Change::Delete(&deleted));
        }
        commits.push(repo.commit_changes(&changes, &format!("change {c}")));
    }
    commits
}

/// The commits the store lists as indexed.
fn indexed(repo: &TestRepo, store: &str) -> Vec<String> {
    run(repo.path(), &["revisions", "--store", store])
        .ok()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn killed_at_random_moments_a_range_index_loses_nothing() {
    let repo = TestRepo::new();
    let commits = history(&repo);
    let range = format!("{}..{}", commits[0], commits.last().unwrap());

    // What each revision answers, indexed cleanly, and how long the whole
    // range takes.
    let reference = tempfile::tempdir().unwrap();
    let reference_arg = reference.path().to_str().unwrap();
    let started = Instant::now();
    run(
        repo.path(),
        &[
            "index",
            "--rev",
            &commits[0],
            "--rev",
            &range,
            "--store",
            reference_arg,
        ],
    )
    .ok();
    let whole = started.elapsed();
    let expected: HashMap<&str, String> = commits
        .iter()
        .map(|c| {
            (
                c.as_str(),
                export_revision(repo.path(), reference.path(), c),
            )
        })
        .collect();

    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut random = Lcg(seed);
    let window = (whole.as_millis() as u64).max(20);
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().join("store");
    let store_arg = store.to_str().unwrap();
    let (mut landed, mut completed_runs, mut mid_range) = (0, 0, 0);
    while landed < TRIALS {
        assert!(
            completed_runs < 5 * TRIALS,
            "seed {seed}: the runs keep finishing before the kill ({landed} kills landed)"
        );
        let mut child = refscope()
            .current_dir(repo.path())
            .args([
                "index",
                "--rev",
                &commits[0],
                "--rev",
                &range,
                "--store",
                store_arg,
            ])
            .args(["--jobs", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(random.below(window)));
        let running = child.try_wait().unwrap().is_none();
        child.kill().unwrap();
        child.wait().unwrap();
        if running {
            landed += 1;
        } else {
            completed_runs += 1;
        }
        let listed = indexed(&repo, store_arg);
        if running && !listed.is_empty() && listed.len() < commits.len() {
            mid_range += 1;
        }
        for commit in &listed {
            let Some(answer) = expected.get(commit.as_str()) else {
                panic!("seed {seed}: the store lists {commit}, which the range does not have");
            };
            assert_eq!(
                &export_revision(repo.path(), &store, commit),
                answer,
                "seed {seed}, kill {landed}: revision {commit} answers otherwise"
            );
        }
        // Once the whole range is in, start over so that later kills land
        // in every part of it.
        if listed.len() == commits.len() {
            std::fs::remove_dir_all(&store).unwrap();
        }
    }
    eprintln!(
        "seed {seed}: {landed} kills landed ({mid_range} within the range's commits), \
         {completed_runs} runs finished first"
    );
    assert!(
        mid_range >= TRIALS / 5,
        "seed {seed}: only {mid_range} kills landed between two commits of the range"
    );
    // The next run completes the range.
    run(
        repo.path(),
        &[
            "index",
            "--rev",
            &commits[0],
            "--rev",
            &range,
            "--store",
            store_arg,
        ],
    )
    .ok();
    let listed = indexed(&repo, store_arg);
    assert_eq!(listed.len(), commits.len(), "seed {seed}");
    for commit in &commits {
        assert_eq!(
            &export_revision(repo.path(), &store, commit),
            &expected[commit.as_str()],
            "seed {seed}: {commit} after the last run"
        );
    }
}
