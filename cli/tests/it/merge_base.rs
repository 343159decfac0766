//! Reviews against a merge base: `changed A...B` and a task's `--base`
//! diff a branch from where it left its base, so what the base gained
//! since does not show as the branch taking it out.

use crate::common::{SHOP, STOCK, TestRepo, git, run};

const LEDGER: &str = "package p;
public class Ledger {
    int total() {
        return 0;
    }
}
";

/// `main` and `feature` made off it at the returned commit; `main` then
/// gained `Ledger` and a changed `Stock#take`, `feature` changed
/// `Shop#order`.
fn diverged() -> (TestRepo, String) {
    let repo = TestRepo::new();
    let fork = repo.commit(
        &[("src/p/Stock.java", STOCK), ("src/p/Shop.java", SHOP)],
        "stock and shop",
    );
    git(repo.path(), &["branch", "-M", "main"]);
    git(repo.path(), &["checkout", "-q", "-b", "feature"]);
    commit_on_branch(
        &repo,
        &[("src/p/Shop.java", &SHOP.replace("1);", "2);"))],
        "order two",
    );
    git(repo.path(), &["checkout", "-q", "main"]);
    commit_on_branch(
        &repo,
        &[
            ("src/p/Ledger.java", LEDGER),
            (
                "src/p/Stock.java",
                &STOCK.replace("return n;", "return n - 0;"),
            ),
        ],
        "a ledger",
    );
    (repo, fork)
}

/// Writes `files` and commits them with git itself, on the branch checked
/// out (git's checkouts change the index under libgit2's open handle).
fn commit_on_branch(repo: &TestRepo, files: &[(&str, &str)], message: &str) {
    for (path, text) in files {
        std::fs::write(repo.path().join(path), text).unwrap();
    }
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", message]);
}

#[test]
fn three_dots_diff_from_the_merge_base_and_two_dots_from_the_base() {
    let (repo, fork) = diverged();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    for rev in [fork.as_str(), "main", "feature"] {
        run(repo.path(), &["index", "--rev", rev, "--store", store_arg]).ok();
    }
    let query = |q: &str| run(repo.path(), &["query", q, "--store", store_arg]).ok();

    let branch_only = query("changed main...feature");
    assert!(
        branch_only.contains("p.Shop#order(p.Stock)"),
        "{branch_only}"
    );
    assert!(
        !branch_only.contains("Ledger") && !branch_only.contains("Stock#take"),
        "{branch_only}"
    );
    // Two dots compare the tips: main's new work shows as taken out.
    let tips = query("changed main..feature");
    assert!(
        tips.contains("p.Shop#order(p.Stock)")
            && tips.contains("p.Ledger")
            && tips.contains("p.Stock#take"),
        "{tips}"
    );
    // `A...` reads up to the revision the query reads.
    let up_to_read = run(
        repo.path(),
        &[
            "query",
            "changed main...",
            "--rev",
            "feature",
            "--store",
            store_arg,
        ],
    )
    .ok();
    assert_eq!(up_to_read, branch_only);
}

#[test]
fn a_merge_base_not_indexed_is_indexed_by_the_query_that_names_it() {
    let (repo, fork) = diverged();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    for rev in ["main", "feature"] {
        run(repo.path(), &["index", "--rev", rev, "--store", store_arg]).ok();
    }
    let revisions = || run(repo.path(), &["revisions", "--store", store_arg]).ok();
    assert!(!revisions().contains(&fork), "{}", revisions());

    let branch_only = run(
        repo.path(),
        &["query", "changed main...feature", "--store", store_arg],
    )
    .ok();
    assert!(
        branch_only.contains("p.Shop#order(p.Stock)")
            && !branch_only.contains("Ledger")
            && !branch_only.contains("Stock#take"),
        "{branch_only}"
    );
    assert!(revisions().contains(&fork), "{}", revisions());
    // Two dots name no merge base: a tip not indexed is still refused.
    git(repo.path(), &["checkout", "-q", "feature"]);
    commit_on_branch(&repo, &[("src/p/Ledger.java", LEDGER)], "a ledger too");
    let refused = run(
        repo.path(),
        &["query", "changed main..HEAD", "--store", store_arg],
    );
    let message = refused.fails_with(1);
    assert!(message.contains("not indexed"), "{message}");
}

#[test]
fn a_merge_base_is_not_indexed_by_a_query_against_other_libraries() {
    let (repo, fork) = diverged();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    // A jar with no classes: a class path all the same, which a query
    // does not know of.
    let jar = store.path().join("empty.jar");
    let mut empty_zip = b"PK\x05\x06".to_vec();
    empty_zip.resize(22, 0);
    std::fs::write(&jar, empty_zip).unwrap();
    let jar_arg = jar.to_str().unwrap();
    let index_with_jar = |rev: &str| {
        let args = [
            "index",
            "--rev",
            rev,
            "--classpath",
            jar_arg,
            "--store",
            store_arg,
        ];
        run(repo.path(), &args).ok();
    };
    let three_dots = || {
        run(
            repo.path(),
            &["query", "changed main...feature", "--store", store_arg],
        )
    };
    index_with_jar("main");
    index_with_jar("feature");
    let refused = three_dots().fails_with(1);
    assert!(
        refused.contains(&format!("the merge base {fork} is not indexed"))
            && refused.contains("--classpath"),
        "{refused}"
    );
    let revisions = run(repo.path(), &["revisions", "--store", store_arg]).ok();
    assert!(!revisions.contains(&fork), "{revisions}");

    // Indexed as the others were, it is used.
    index_with_jar(&fork);
    let branch_only = three_dots().ok();
    assert!(
        branch_only.contains("p.Shop#order(p.Stock)"),
        "{branch_only}"
    );
}

#[test]
fn a_task_reviews_its_branch_against_the_merge_base() {
    let (repo, fork) = diverged();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let repo_arg = repo.path().to_str().unwrap();
    run(
        repo.path(),
        &[
            "task", "add", "--id", "pr", "--repo", repo_arg, "--rev", "feature", "--base", "main",
            "--store", store_arg,
        ],
    )
    .ok();
    let listed = run(repo.path(), &["task", "list", "--store", store_arg]).ok();
    let short: String = fork.chars().take(19).collect();
    assert!(
        listed.contains(&format!("\tbase main (merge base {short})")),
        "{listed}"
    );
    // Not indexed yet: the merge base is indexed on first use.
    let context: serde_json::Value = serde_json::from_str(
        &run(
            repo.path(),
            &[
                "context",
                "--task",
                "pr",
                "--file",
                "src/p/Shop.java",
                "--lines",
                "3-5",
                "--store",
                store_arg,
            ],
        )
        .ok(),
    )
    .unwrap();
    assert_eq!(context["base_revision"], fork.as_str());
    let change = &context["element_relations"]["owning_elements"]["3_5"][0]["change"];
    assert_eq!(change["status"], "body_changed", "{change}");
}

#[test]
fn histories_with_no_common_commit_are_diffed_as_given_and_say_so() {
    let (repo, _) = diverged();
    git(repo.path(), &["checkout", "-q", "--orphan", "alone"]);
    git(repo.path(), &["commit", "-q", "-m", "alone"]);
    let main = std::process::Command::new("git")
        .args(["rev-parse", "main"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    let main = String::from_utf8(main.stdout).unwrap().trim().to_string();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let repo_arg = repo.path().to_str().unwrap();
    let added = run(
        repo.path(),
        &[
            "task", "add", "--id", "pr", "--repo", repo_arg, "--rev", "alone", "--base", "main",
            "--store", store_arg,
        ],
    );
    let stdout = added.ok();
    let short: String = main.chars().take(19).collect();
    assert!(
        stdout.contains(&format!(
            "\tbase main ({short}; no common ancestor, diffed as given)"
        )),
        "{stdout}"
    );
    let stderr = added.stderr();
    assert!(stderr.contains("no common ancestor"), "{stderr}");
    for rev in ["main", "alone"] {
        run(repo.path(), &["index", "--rev", rev, "--store", store_arg]).ok();
    }
    // As git does for `main...alone`, the query refuses.
    let query = run(
        repo.path(),
        &["query", "changed main...alone", "--store", store_arg],
    )
    .fails_with(1);
    assert!(query.contains("no common ancestor"), "{query}");
}
