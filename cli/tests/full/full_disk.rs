//! An index into a store on a file system that fills up: a tmpfs mounted
//! small (the opt-in suite runs as root; mounting needs it), then grown.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{TestRepo, export_from_scratch, export_revision, run};

/// A tmpfs mounted on a temporary directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let options = format!("size={size}");
        mount(&["-t", "tmpfs", "-o", &options, "tmpfs", path_str(dir.path())]);
        Self { dir }
    }

    fn grow(&self, size: &str) {
        let options = format!("remount,size={size}");
        mount(&["-o", &options, path_str(self.dir.path())]);
    }

    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn mount(args: &[&str]) {
    let output = Command::new("mount").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "`mount {}` failed (this test mounts a tmpfs, which needs root): {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Classes enough to need a few megabytes of store.
fn generated() -> Vec<(String, String)> {
    (0..300)
        .map(|i| {
            let fields: String = (0..5)
                .map(|j| format!("    public static int f{j} = {j};\n"))
                .collect();
            let methods: String = (0..40)
                .map(|j| {
                    format!(
                        "    public int m{j}(int x) {{ return x + {j} + C{}.f{}; }}\n",
                        (i + 1) % 300,
                        j % 5
                    )
                })
                .collect();
            (
                format!("src/gen/C{i}.java"),
                format!("package gen;\npublic class C{i} {{\n{fields}{methods}}}\n"),
            )
        })
        .collect()
}

#[test]
fn a_full_disk_loses_no_revision_and_the_next_run_completes() {
    let repo = TestRepo::new();
    let first = repo.commit(
        &[(
            "src/shop/Shop.java",
            "package shop;\npublic class Shop { int total() { return 1; } }\n",
        )],
        "one",
    );
    let files = generated();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let second = repo.commit(&borrowed, "two");

    let disk = Tmpfs::mount("1m");
    let store = disk.path().join("store");
    let store_arg = path_str(&store);
    run(
        repo.path(),
        &["index", "--rev", &first, "--store", store_arg],
    )
    .ok();
    let before = export_revision(repo.path(), &store, &first);
    let pack_before = std::fs::metadata(store.join("facts.pack")).unwrap().len();

    let err = run(
        repo.path(),
        &["index", "--rev", &second, "--store", store_arg],
    )
    .fails_with(1);
    assert!(
        err.contains(&format!("the file system of store {store_arg} is full"))
            && err.contains("no indexed revision was lost"),
        "{err}"
    );
    assert!(
        !err.contains("os error 28): No space"),
        "a cause said twice: {err}"
    );
    // The revision indexed before answers as it did, and what the failed
    // run wrote is given back.
    assert_eq!(export_revision(repo.path(), &store, &first), before);
    let pack_after = std::fs::metadata(store.join("facts.pack")).unwrap().len();
    assert_eq!(pack_after, pack_before);
    let revisions = run(repo.path(), &["revisions", "--store", store_arg]).ok();
    assert!(!revisions.contains(&second), "{revisions}");

    disk.grow("32m");
    run(
        repo.path(),
        &["index", "--rev", &second, "--store", store_arg],
    )
    .ok();
    assert_eq!(
        export_revision(repo.path(), &store, &second),
        export_from_scratch(repo.path(), &second)
    );
    assert_eq!(export_revision(repo.path(), &store, &first), before);
}
