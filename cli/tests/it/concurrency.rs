//! One store, several processes at once: a second writer waits for the
//! first and neither loses its revision, and a reader querying all the
//! while never sees a partly written revision or a store error.

use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::{TestRepo, export_from_scratch, export_revision, refscope, run};
use crate::crash::{commit_generated_files, generated_file};

/// Starts `refscope index --rev REV --store STORE` in `cwd`.
fn spawn_index(cwd: &std::path::Path, store: &str, rev: &str) -> Child {
    refscope()
        .current_dir(cwd)
        .args(["index", "--rev", rev, "--store", store, "--jobs", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The pid in the store's write lock, once a writer holds it.
fn lock_holder(store: &std::path::Path, writer: &mut Child) -> String {
    for _ in 0..30_000 {
        assert!(
            writer.try_wait().unwrap().is_none(),
            "the first writer finished before a second one could start; make the input larger"
        );
        let pid = std::fs::read_to_string(store.join("write.lock")).unwrap_or_default();
        if pid.trim() == writer.id().to_string() {
            return pid.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("the first writer never took the write lock");
}

#[test]
fn a_second_writer_waits_and_readers_see_only_whole_revisions() {
    let repo = TestRepo::new();
    let cwd = repo.path();
    let small = repo.commit(&[("Small.java", "class Small { void m() {} }\n")], "small");
    let big = commit_generated_files(&repo);
    let edited = format!(
        "{}\nclass Extra {{ int e() {{ return new C7().m0(1, \"x\"); }} }}\n",
        generated_file(7)
    );
    let edit = repo.commit(&[("gen/p7/C7.java", edited.as_str())], "edit");

    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().to_str().unwrap();
    run(cwd, &["index", "--rev", &small, "--store", store]).ok();
    let small_export = export_revision(cwd, store_dir.path(), &small);

    // Readers ask about the indexed revision, and about every revision the
    // store lists, for as long as the writers run.
    let writing = AtomicBool::new(true);
    let reads = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut reads = 0;
            while writing.load(Ordering::Relaxed) {
                assert_eq!(
                    export_revision(cwd, store_dir.path(), &small),
                    small_export,
                    "an indexed revision changed while others were written"
                );
                let listed = run(cwd, &["revisions", "--store", store]).ok();
                for line in listed.lines() {
                    let name = line.split_whitespace().next().unwrap();
                    if name == big || name == edit {
                        // Listed means whole: it answers about any file.
                        let answer = run(
                            cwd,
                            &["at", "gen/p3/C3.java:6", "--rev", name, "--store", store],
                        )
                        .ok();
                        assert!(
                            answer.contains("gen.p3.C3#m0(int,java.lang.String)"),
                            "{answer}"
                        );
                    } else {
                        assert_eq!(name, small, "{listed}");
                    }
                }
                reads += 1;
            }
            reads
        });

        let mut first = spawn_index(cwd, store, &big);
        let holder = lock_holder(store_dir.path(), &mut first);
        let second = spawn_index(cwd, store, &edit);
        let first = first.wait_with_output().unwrap();
        let second = second.wait_with_output().unwrap();
        writing.store(false, Ordering::Relaxed);
        let reads = reader.join().unwrap();

        let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(first.status.success(), "{}", stderr(&first));
        assert!(second.status.success(), "{}", stderr(&second));
        assert!(
            stderr(&second).contains(&format!("being written by process {holder}; waiting")),
            "the second writer did not say whom it waits for: {}",
            stderr(&second)
        );
        reads
    });
    assert!(reads > 0);

    // Neither writer lost anything: both revisions answer as from scratch.
    for rev in [&small, &big, &edit] {
        assert_eq!(
            export_revision(cwd, store_dir.path(), rev),
            export_from_scratch(cwd, rev),
            "{rev} differs from its from-scratch index"
        );
    }
}
