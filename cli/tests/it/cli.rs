//! The `refscope` command line, end to end, on real git repositories.

use crate::common::{TestRepo, run};

const SHOP: &str = "package com.acme;

import java.util.List;

/** A shop. */
public class Shop {
    private final List<String> items = new java.util.ArrayList<>();

    /**
     * Orders an item.
     */
    @Deprecated
    public void order(String item, int qty) {
        items.add(item);
    }
}
";

#[test]
fn index_then_at_then_export() {
    let repo = TestRepo::new();
    let commit = repo.commit(&[("src/com/acme/Shop.java", SHOP)], "one");
    let cwd = repo.path();

    let summary = run(cwd, &["index"]).ok();
    assert!(summary.starts_with(&commit[..19]), "{summary}");
    for word in ["1 files", "elements", "reference sites", " s,", "store"] {
        assert!(summary.contains(word), "summary lacks '{word}': {summary}");
    }
    assert!(
        cwd.join(".git/refscope/refscope.sqlite").is_file(),
        "store inside .git"
    );

    // Javadoc, annotation and body lines all belong to the method.
    for line in ["9", "12", "14"] {
        let text = run(cwd, &["at", &format!("src/com/acme/Shop.java:{line}")]).ok();
        assert!(
            text.starts_with("method      com.acme.Shop#order(java.lang.String,int)"),
            "line {line}: {text}"
        );
    }
    let text = run(cwd, &["at", "src/com/acme/Shop.java:14"]).ok();
    assert!(text.contains("src/com/acme/Shop.java:12-15"), "{text}");
    assert!(text.contains("javadoc   9-11"), "{text}");

    let json = run(cwd, &["at", "src/com/acme/Shop.java:7", "--json"]).ok();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["revision"], commit.as_str());
    assert_eq!(value["elements"][0]["element_id"], "com.acme.Shop#items");
    assert_eq!(value["elements"][0]["type_erased"], "java.util.List");

    let with_source = run(cwd, &["at", "src/com/acme/Shop.java:14", "--source"]).ok();
    assert!(with_source.contains("items.add(item);"), "{with_source}");

    // A range over the whole class is the class.
    let json = run(cwd, &["at", "src/com/acme/Shop.java:5-16", "--json"]).ok();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["elements"].as_array().unwrap().len(), 1);
    assert_eq!(value["elements"][0]["element_id"], "com.acme.Shop");

    let export = run(cwd, &["export", "--decls"]).ok();
    let kinds: Vec<String> = export
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {}",
                v["kind"].as_str().unwrap(),
                v["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(kinds, ["class Shop", "field items", "method order"]);

    let again = run(cwd, &["index"]).ok();
    assert!(again.contains("already indexed"), "{again}");
}

#[test]
fn at_resolves_paths_given_on_disk_and_revisions() {
    let repo = TestRepo::new();
    let first = repo.commit(&[("Shop.java", SHOP)], "one");
    let changed = SHOP.replace("int qty", "long qty");
    repo.commit(&[("Shop.java", &changed)], "two");
    let cwd = repo.path();
    run(cwd, &["index", "--rev", &first, "--rev", "HEAD"]).ok();

    let absolute = cwd.join("Shop.java");
    let head = run(cwd, &["at", &format!("{}:14", absolute.display())]).ok();
    assert!(head.contains("order(java.lang.String,long)"), "{head}");
    let old = run(cwd, &["at", "Shop.java:14", "--rev", "HEAD~1"]).ok();
    assert!(old.contains("order(java.lang.String,int)"), "{old}");
    let revisions = run(cwd, &["revisions"]).ok();
    assert_eq!(revisions.lines().count(), 2, "{revisions}");
}

#[test]
fn bad_input_gives_one_line_errors() {
    let repo = TestRepo::new();
    repo.commit(&[("Shop.java", SHOP)], "one");
    let cwd = repo.path();

    let error = run(cwd, &["at", "Shop.java:3"]).fails_with(1);
    assert!(error.contains("run `refscope index` first"), "{error}");

    let error = run(cwd, &["index", "--rev", "no-such-rev"]).fails_with(1);
    assert!(
        error.contains("revision 'no-such-rev' not found"),
        "{error}"
    );
    assert_eq!(error.trim_end().lines().count(), 1, "{error}");

    let missing = cwd.join("missing");
    let error = run(cwd, &["index", missing.to_str().unwrap()]).fails_with(1);
    assert!(
        error.contains("not a git repository or a directory"),
        "{error}"
    );

    run(cwd, &["index"]).ok();
    let error = run(cwd, &["at", "Shop.java"]).fails_with(2);
    assert!(error.contains("FILE:LINE"), "{error}");
    let error = run(cwd, &["at", "Nope.java:1"]).fails_with(1);
    assert!(error.contains("is not a file of revision"), "{error}");
    let error = run(cwd, &["at", "Shop.java:1", "--rev", "0000000"]).fails_with(1);
    assert!(error.contains("not"), "{error}");
    let error = run(cwd, &["export"]).fails_with(2);
    assert!(error.contains("--decls"), "{error}");

    let error = run(cwd, &["at", "Shop.java:999"]).fails_with(1);
    assert!(error.contains("line 999 is beyond its end"), "{error}");

    let outside = run(cwd, &["at", "Shop.java:1"]).ok();
    assert!(outside.contains("no element"), "{outside}");
}

#[test]
fn help_has_examples_everywhere() {
    let cwd = std::env::temp_dir();
    for command in [
        vec!["--help"],
        vec!["index", "--help"],
        vec!["at", "--help"],
        vec!["export", "--help"],
        vec!["revisions", "--help"],
    ] {
        let text = run(&cwd, &command).ok();
        assert!(text.contains("Examples:"), "{command:?}: {text}");
    }
}

#[test]
fn directory_store_is_read_from_anywhere_inside_it() {
    // `index --files` inside a repository: the store goes beside the files
    // and readers find it, from a subdirectory too.
    let repo = TestRepo::new();
    repo.commit(&[("README", "x")], "one");
    let project = repo.path().join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/A.java"), "class A {\n  void m() {}\n}\n").unwrap();
    run(&project, &["index", "--files", "."]).ok();
    assert!(project.join(".refscope/refscope.sqlite").is_file());
    let from_root = run(&project, &["at", "src/A.java:2"]).ok();
    assert!(from_root.contains("A#m()"), "{from_root}");
    let store = project.join(".refscope");
    let from_subdir = run(
        &project.join("src"),
        &["at", "A.java:2", "--store", store.to_str().unwrap()],
    )
    .ok();
    assert!(from_subdir.contains("A#m()"), "{from_subdir}");
}

#[test]
fn a_plain_directorys_store_is_found_from_inside_it_and_from_above() {
    // No git repository anywhere: the store is the indexed directory's
    // `.refscope`, found from its subdirectories, and a path names the
    // file from where the command runs.
    let outer = tempfile::tempdir().unwrap();
    let project = outer.path().join("project");
    std::fs::create_dir_all(project.join("src/p")).unwrap();
    std::fs::write(
        project.join("src/p/A.java"),
        "package p;\nclass A {\n  void m() {}\n}\n",
    )
    .unwrap();
    run(&project, &["index", "--files", "."]).ok();
    for (cwd, path) in [
        (project.clone(), "src/p/A.java:3"),
        (project.join("src/p"), "A.java:3"),
        (project.join("src"), "p/A.java:3"),
        (outer.path().to_path_buf(), "project/src/p/A.java:3"),
    ] {
        let at = run(&cwd, &["at", path]).ok();
        assert!(
            at.contains("p.A#m()") && at.contains("src/p/A.java:3"),
            "{path} from {}: {at}",
            cwd.display()
        );
    }
}

#[test]
fn rev_worktree_without_a_work_tree_revision_says_how_to_make_one() {
    let repo = TestRepo::new();
    repo.commit(&[("src/A.java", "class A {\n  void m() {}\n}\n")], "one");
    run(repo.path(), &["index"]).ok();
    let refused = run(repo.path(), &["at", "src/A.java:2", "--rev", "worktree"]).fails_with(1);
    assert!(
        refused.contains("no single work-tree revision") && refused.contains("refscope watch"),
        "{refused}"
    );
    assert!(!refused.contains("git rev-parse"), "{refused}");
}

#[test]
fn revisions_label_commits_with_their_branch_and_work_trees_with_their_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("A.java"), "class A {}\n").unwrap();
    run(dir.path(), &["index", "--files", "."]).ok();
    let listed = run(dir.path(), &["revisions"]).ok();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let line = listed.lines().next().unwrap();
    assert!(line.starts_with("worktree:"), "{listed}");
    assert!(line.ends_with(root.to_str().unwrap()), "{line:?}");
}

#[test]
fn mcp_over_http_refuses_a_missing_or_empty_token_beyond_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let err = run(cwd, &["mcp", "--http", "0.0.0.0:0"]).fails_with(1);
    assert!(
        err.contains("refusing to listen on 0.0.0.0:0 without a token"),
        "{err}"
    );
    let empty = cwd.join("token");
    std::fs::write(&empty, "\n").unwrap();
    let token_file = empty.to_str().unwrap();
    let err = run(
        cwd,
        &["mcp", "--http", "0.0.0.0:0", "--token-file", token_file],
    )
    .fails_with(1);
    assert!(err.contains("holds no token"), "{err}");
    let err = run(
        cwd,
        &[
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--token-file",
            "/nonexistent/token",
        ],
    )
    .fails_with(1);
    assert!(err.contains("cannot read the token file"), "{err}");
}
