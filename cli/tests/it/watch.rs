//! `refscope watch`: saves, creates, deletes, renames and branch switches
//! in a real git work tree each become one update, readable with
//! `--rev worktree`, and the store then answers what a from-scratch index
//! of the same files answers.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use crate::common::{SHOP, STOCK, TestRepo, git, refscope, run};

/// Only guards against a hang (an update that never comes); it bounds
/// nothing about speed.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// A running `refscope watch` with its update lines, and what it said on
/// standard error (for failure messages).
struct Watching {
    child: Child,
    lines: Receiver<String>,
    errors: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Watching {
    fn start(repo: &Path, store: &Path) -> Self {
        let mut child = refscope()
            .args([
                "watch",
                repo.to_str().unwrap(),
                "--store",
                store.to_str().unwrap(),
            ])
            .args(["--jobs", "2"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let collected = errors.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                collected.lock().unwrap().push(line);
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            errors,
        }
    }

    /// What the watcher printed on standard error so far.
    fn errors(&self) -> String {
        self.errors.lock().unwrap().join("\n")
    }

    /// The next update line.
    fn next_update(&self, after: &str) -> String {
        self.lines.recv_timeout(HANG_GUARD).unwrap_or_else(|_| {
            panic!("no update from refscope watch after {after} (hang guard, not a speed check)")
        })
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Exports the current work-tree revision of `store`.
fn export_worktree(repo: &Path, store: &Path) -> String {
    run(
        repo,
        &[
            "export",
            "--decls",
            "--refs",
            "--rev",
            "worktree",
            "--store",
            store.to_str().unwrap(),
        ],
    )
    .ok()
}

/// Indexes the files on disk into a fresh store and exports them.
fn export_files_from_scratch(repo: &Path) -> String {
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(repo, &["index", "--files", ".", "--store", store_arg]).ok();
    export_worktree(repo, store.path())
}

/// A repository of [`STOCK`] and [`SHOP`] under `refscope watch` with a
/// fresh store, and the watcher's first update.
fn watching_stock_and_shop() -> (TestRepo, tempfile::TempDir, Watching, String) {
    let repo = TestRepo::new();
    repo.commit(
        &[("src/p/Stock.java", STOCK), ("src/p/Shop.java", SHOP)],
        "stock and shop",
    );
    let store = tempfile::tempdir().unwrap();
    let watching = Watching::start(repo.path(), store.path());
    let first = watching.next_update("starting");
    (repo, store, watching, first)
}

#[test]
fn watch_follows_saves_creates_deletes_renames_and_branch_switches() {
    let (repo, store, watching, first) = watching_stock_and_shop();
    assert!(
        first.contains("2 files changed, 2 parsed, 2 resolved"),
        "{first}"
    );
    let src = repo.path().join("src/p");

    // A body edit: one file parsed and resolved, the other shares its unit.
    std::fs::write(
        src.join("Stock.java"),
        STOCK.replace("return n;", "int left = n;\n        return left;"),
    )
    .unwrap();
    let update = watching.next_update("a body edit");
    assert!(
        update.contains("1 files changed, 1 parsed, 1 resolved"),
        "{update}"
    );
    let at = run(
        repo.path(),
        &[
            "at",
            "src/p/Stock.java:5",
            "--rev",
            "worktree",
            "--store",
            store.path().to_str().unwrap(),
        ],
    )
    .ok();
    assert!(at.contains("p.Stock#take(java.lang.String,int)"), "{at}");
    assert_eq!(
        export_worktree(repo.path(), store.path()),
        export_files_from_scratch(repo.path())
    );

    // A new file.
    std::fs::write(
        src.join("Report.java"),
        "package p;\nclass Report {\n    int all(Shop shop) { return shop.order(new Stock()); }\n}\n",
    )
    .unwrap();
    let update = watching.next_update("a new file");
    assert!(
        update.contains("1 files changed") && update.contains(", 3 files,"),
        "{update}"
    );
    assert_eq!(
        export_worktree(repo.path(), store.path()),
        export_files_from_scratch(repo.path())
    );

    // A rename: the old path goes, the new one comes.
    std::fs::rename(src.join("Report.java"), src.join("Summary.java")).unwrap();
    let update = watching.next_update("a rename");
    assert!(update.contains(", 3 files,"), "{update}");
    let files = export_worktree(repo.path(), store.path());
    assert!(files.contains("src/p/Summary.java") && !files.contains("src/p/Report.java"));
    assert_eq!(files, export_files_from_scratch(repo.path()));

    // A delete.
    std::fs::remove_file(src.join("Summary.java")).unwrap();
    let update = watching.next_update("a delete");
    assert!(
        update.contains("1 files changed") && update.contains(", 2 files,"),
        "{update}"
    );
    assert_eq!(
        export_worktree(repo.path(), store.path()),
        export_files_from_scratch(repo.path())
    );

    // A branch switch rewrites the files git tracks.
    git(repo.path(), &["checkout", "-q", "--", "."]);
    let update = watching.next_update("restoring the committed Stock");
    assert!(update.contains("1 files changed"), "{update}");
    git(repo.path(), &["checkout", "-q", "-b", "other"]);
    std::fs::write(src.join("Stock.java"), STOCK.replace("take", "takeSome")).unwrap();
    std::fs::write(src.join("Shop.java"), SHOP.replace("take", "takeSome")).unwrap();
    git(repo.path(), &["commit", "-q", "-am", "rename take"]);
    // The writes above may come as one update or two.
    let mut update = watching.next_update("writes on a branch");
    if !update.contains("2 files changed") {
        update = watching.next_update("the rest of the writes on a branch");
    }
    git(repo.path(), &["checkout", "-q", "-"]);
    let update_back = watching.next_update("switching back");
    assert!(
        update_back.contains("2 files changed"),
        "{update} then {update_back}; standard error:\n{}",
        watching.errors()
    );
    assert_eq!(
        export_worktree(repo.path(), store.path()),
        export_files_from_scratch(repo.path())
    );

    // Exactly one work-tree revision is kept.
    let revisions = run(
        repo.path(),
        &["revisions", "--store", store.path().to_str().unwrap()],
    )
    .ok();
    assert_eq!(revisions.matches("worktree:").count(), 1, "{revisions}");
}

/// Long enough that a watcher going by the quiet period alone would have
/// started an update in the middle; a pause, not a bound on speed.
const PAUSE: Duration = Duration::from_millis(300);

#[test]
fn a_write_left_open_and_a_git_operation_each_wait_to_become_one_update() {
    use std::io::Write;

    let (repo, store, watching, _) = watching_stock_and_shop();
    let src = repo.path().join("src/p");

    // Saved in place in two writes with a pause between them, as an editor
    // writing a large file or a slow disk may: one update, of the whole
    // file. (On platforms whose watcher does not report closes, the pause
    // may split it; the update after it is still the whole file.)
    let edited = STOCK.replace("return n;", "int left = n;\n        return left;");
    let (head, tail) = edited.split_at(edited.len() / 2);
    let mut file = std::fs::File::create(src.join("Stock.java")).unwrap();
    file.write_all(head.as_bytes()).unwrap();
    file.flush().unwrap();
    std::thread::sleep(PAUSE);
    file.write_all(tail.as_bytes()).unwrap();
    drop(file);
    let update = watching.next_update("a save in two writes");
    assert!(update.contains("1 files changed"), "{update}");

    // Git holds its index lock while it writes a branch's files: the
    // update waits for the lock to go, and both files come in one update.
    let lock = repo.path().join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    std::fs::write(src.join("Stock.java"), STOCK.replace("take", "takeSome")).unwrap();
    std::thread::sleep(PAUSE);
    std::fs::write(src.join("Shop.java"), SHOP.replace("take", "takeSome")).unwrap();
    std::thread::sleep(PAUSE);
    std::fs::remove_file(&lock).unwrap();
    let update = watching.next_update("writes under git's index lock");
    if cfg!(target_os = "linux") {
        // The first update after the split save above would show here
        // if that save had become two.
        assert!(update.contains("2 files changed"), "{update}");
    }
    assert_eq!(
        export_worktree(repo.path(), store.path()),
        export_files_from_scratch(repo.path())
    );
}
