//! Pull requests reviewed against their merge base on a generated history
//! with branches and merges: `benches/pr-merge-base` with 5 pull requests.

use crate::common::{fetch_corpus, workspace_root};

/// A task's changed elements (`refscope query 'changed A...B'`, the task's
/// `code_query` and `context`) are those of `git diff A...B` on 5 branches
/// of a history generated over commons-lang3 (some forked at merge
/// commits, one that merged `main` in), and the self-check shows the
/// comparison fails for a diff from the wrong base (`A..B`, the fork point).
#[test]
fn a_tasks_changed_elements_are_those_of_git_diff_from_the_merge_base() {
    let corpus = fetch_corpus("libcommons-lang3-java").join("src");
    let work = tempfile::tempdir().unwrap();
    let output = std::process::Command::new("python3")
        .arg(workspace_root().join("benches/pr-merge-base"))
        .args(["--prs", "5", "--self-check"])
        .args(["--binary", env!("CARGO_BIN_EXE_refscope")])
        .arg("--corpus")
        .arg(&corpus)
        .arg("--work")
        .arg(work.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "benches/pr-merge-base failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("\n5/5 equal"), "{stdout}");
    assert!(
        stdout.contains("the two-dot diff A..B differs from the oracle in 5/5"),
        "{stdout}"
    );
    // With the default seed one branch merges `main` in: its merge base lies
    // past its fork point, and a diff from the fork point fails too.
    assert!(
        stdout.contains("the diff from the fork point differs from the oracle in 1/1"),
        "{stdout}"
    );
}
