//! kill -9 at 50 random moments, of a range index and of a `watch`
//! session: after each, every revision the store holds answers exactly as
//! a clean index of it does, and the next run goes on to complete.

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
    /// A generator seeded from the clock, and its seed.
    fn seeded() -> (u64, Self) {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        (seed, Self(seed))
    }

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
    let listed = run(repo.path(), &["revisions", "--store", store]);
    // Killed before its first commit, a run leaves a store without any.
    if listed.code() == Some(1) && listed.stderr().contains("holds no indexed revision") {
        return Vec::new();
    }
    listed
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
    let index_range = |store: &str| {
        [
            "index".to_string(),
            "--rev".to_string(),
            commits[0].clone(),
            "--rev".to_string(),
            range.clone(),
            "--store".to_string(),
            store.to_string(),
        ]
    };
    run(
        repo.path(),
        &index_range(reference_arg).each_ref().map(String::as_str),
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

    let (seed, mut random) = Lcg::seeded();
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
            .args(index_range(store_arg))
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
        mid_range >= TRIALS / 10,
        "seed {seed}: only {mid_range} kills landed between two commits of the range"
    );
    // The next run completes the range.
    run(
        repo.path(),
        &index_range(store_arg).each_ref().map(String::as_str),
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

/// A watched class: version `version` declares a method `v<version>`, so
/// that an export tells which version of each file a revision holds.
fn watched_class(n: usize, version: usize) -> String {
    format!(
        "package w;\n\npublic class W{n} {{\n    public int v{version}() {{ return {version} + W{}.base(); }}\n    public static int base() {{ return {n}; }}\n}}\n",
        (n + 1) % WATCHED
    )
}

/// Files under `watch` in the trials.
const WATCHED: usize = 30;

fn watched_path(n: usize) -> String {
    format!("w/W{n}.java")
}

/// Replaces a file the way editors save: a temporary file renamed over it.
fn save(root: &std::path::Path, path: &str, text: &str) {
    let target = root.join(path);
    let temporary = target.with_extension("java.saving");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, &target).unwrap();
}

/// The version of each file an export's declarations show.
fn versions_in(export: &str) -> HashMap<String, usize> {
    let mut versions = HashMap::new();
    for line in export.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        if record["t"] == "decl"
            && record["kind"] == "method"
            && let Some(version) = record["name"]
                .as_str()
                .and_then(|name| name.strip_prefix('v'))
                .and_then(|v| v.parse().ok())
        {
            let file = record["file"].as_str().unwrap().to_string();
            assert!(
                versions.insert(file.clone(), version).is_none(),
                "{file} twice"
            );
        }
    }
    versions
}

/// The export of a plain directory holding the files at `versions`,
/// indexed from scratch.
fn export_of_versions(versions: &HashMap<String, usize>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    for (path, &version) in versions {
        let n: usize = path
            .trim_start_matches("w/W")
            .trim_end_matches(".java")
            .parse()
            .unwrap();
        let file = tree.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, watched_class(n, version)).unwrap();
    }
    let store = dir.path().join("store");
    let (tree_arg, store_arg) = (tree.to_str().unwrap(), store.to_str().unwrap());
    run(dir.path(), &["index", tree_arg, "--store", store_arg]).ok();
    worktree_export(&tree, &store)
}

fn worktree_export(tree: &std::path::Path, store: &std::path::Path) -> String {
    run(
        tree,
        &[
            "export",
            "--decls",
            "--refs",
            "--rev",
            "worktree",
            "--repo",
            tree.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    )
    .ok()
}

/// Starts `refscope watch` on `tree` and waits for its first update.
fn start_watch(
    tree: &std::path::Path,
    store: &str,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead as _;
    let mut child = refscope()
        .args([
            "watch",
            tree.to_str().unwrap(),
            "--store",
            store,
            "--jobs",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, updates) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let first = updates
        .recv_timeout(Duration::from_secs(120))
        .expect("watch's first update");
    assert!(first.starts_with("worktree:"), "{first}");
    (child, updates)
}

#[test]
fn killed_at_random_moments_a_watch_session_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    let store = dir.path().join("store");
    let store_arg = store.to_str().unwrap();
    let mut on_disk: HashMap<String, usize> = HashMap::new();
    for n in 0..WATCHED {
        save_version(&tree, &mut on_disk, n, 1);
    }
    let (seed, mut random) = Lcg::seeded();
    let mut version = 1;
    let mut states_seen = Vec::new();
    for trial in 0..TRIALS {
        let (mut watcher, _updates) = start_watch(&tree, store_arg);
        let mut saved = std::collections::HashSet::new();
        for _ in 0..1 + random.below(12) {
            version += 1;
            let n = random.below(WATCHED as u64) as usize;
            save_version(&tree, &mut on_disk, n, version);
            saved.insert(watched_path(n));
            std::thread::sleep(Duration::from_millis(random.below(20)));
        }
        std::thread::sleep(Duration::from_millis(random.below(8)));
        watcher.kill().unwrap();
        watcher.wait().unwrap();

        // The revision in the store is whole: exactly what indexing the
        // versions it holds from scratch gives.
        let export = worktree_export(&tree, &store);
        let versions = versions_in(&export);
        // A file saved while an update read it is left out of that
        // revision (`changed while being indexed`) until the next update;
        // any other file must be there.
        let missing: Vec<&String> = on_disk
            .keys()
            .filter(|path| !versions.contains_key(*path))
            .collect();
        assert!(
            missing.iter().all(|path| saved.contains(*path)),
            "seed {seed}, trial {trial}: {missing:?} missing from the revision, not all saved meanwhile"
        );
        for (path, held) in &versions {
            assert!(
                *held <= on_disk[path],
                "seed {seed}, trial {trial}: {path} at version {held}, never written"
            );
        }
        assert_eq!(
            export,
            export_of_versions(&versions),
            "seed {seed}, trial {trial}: the revision differs from a clean index of its files"
        );
        states_seen.push(versions == on_disk);
    }
    // The next session catches up with the files as they are.
    let (mut watcher, updates) = start_watch(&tree, store_arg);
    version += 1;
    save_version(&tree, &mut on_disk, 0, version);
    let line = updates
        .recv_timeout(Duration::from_secs(60))
        .expect("an update after the save");
    assert!(line.contains("1 files changed"), "{line}");
    watcher.kill().unwrap();
    watcher.wait().unwrap();
    let export = worktree_export(&tree, &store);
    assert_eq!(versions_in(&export), on_disk, "seed {seed}");
    assert_eq!(export, export_of_versions(&on_disk), "seed {seed}");
    let behind = states_seen.iter().filter(|current| !**current).count();
    eprintln!("seed {seed}: {TRIALS} kills; {behind} left the revision behind the files on disk");
    assert!(
        behind >= TRIALS / 10,
        "seed {seed}: only {behind} kills landed before the session caught up"
    );
}

/// Saves version `version` of watched file `n`.
fn save_version(
    tree: &std::path::Path,
    on_disk: &mut HashMap<String, usize>,
    n: usize,
    version: usize,
) {
    let path = watched_path(n);
    std::fs::create_dir_all(tree.join("w")).unwrap();
    save(tree, &path, &watched_class(n, version));
    on_disk.insert(path, version);
}
