//! `refscope prune`: old revisions go, with what only they used; every
//! remaining revision exports exactly as before, a review task's
//! revisions stay, and indexing goes on over what remains.

use refscope_test_support::Change;

use crate::common::{TestRepo, export_from_scratch, export_revision, run};

fn class(name: &str, body: &str) -> String {
    format!(
        "package p;\npublic class {name} {{\n    public int value(int n) {{\n        {body}\n    }}\n}}\n"
    )
}

/// A class of many methods, so that the revisions holding it hold most of
/// the store.
fn big(version: u32) -> String {
    let methods: String = (0..400)
        .map(|k| {
            format!("    int m{k}(Price p) {{\n        return p.value({k}) + {version};\n    }}\n")
        })
        .collect();
    format!("package p;\nclass Big {{\n{methods}}}\n")
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn revision_names(repo: &TestRepo, store: &str) -> Vec<String> {
    run(repo.path(), &["revisions", "--store", store])
        .ok()
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn prune_keeps_what_remaining_revisions_answer_and_frees_the_rest() {
    let repo = TestRepo::new();
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().to_str().unwrap();
    let user = "package p;\nclass User {\n    int use(Price p) {\n        return p.value(1) + new Tax().value(2);\n    }\n}\n";
    let mut commits = vec![repo.commit(
        &[
            ("src/p/Price.java", &class("Price", "return n;")),
            ("src/p/Tax.java", &class("Tax", "return n * 2;")),
            ("src/p/User.java", user),
        ],
        "three classes",
    )];
    // Body edits, added and deleted files, a signature change: each commit
    // leaves units and blobs that later ones no longer use.
    let steps: Vec<Vec<(&str, Option<String>)>> = vec![
        vec![("src/p/Price.java", Some(class("Price", "return n + 1;")))],
        vec![
            ("src/p/Extra.java", Some(class("Extra", "return 7;"))),
            ("src/p/Big.java", Some(big(1))),
        ],
        vec![
            ("src/p/Tax.java", Some(class("Tax", "return n * 3;"))),
            ("src/p/Big.java", Some(big(2))),
        ],
        vec![("src/p/Extra.java", None), ("src/p/Big.java", None)],
        vec![(
            "src/p/Price.java",
            Some(class("Price", "return n + 2;").replace("int n", "long n")),
        )],
    ];
    for (at, step) in steps.iter().enumerate() {
        let changes: Vec<Change<'_>> = step
            .iter()
            .map(|(path, text)| match text {
                Some(text) => Change::write(path, text),
                None => Change::Delete(path),
            })
            .collect();
        commits.push(repo.commit_changes(&changes, &format!("step {at}")));
    }
    let range = format!("{}..{}", commits[0], commits[5]);
    run(
        repo.path(),
        &["index", "--rev", &commits[0], "--store", store],
    )
    .ok();
    run(repo.path(), &["index", "--rev", &range, "--store", store]).ok();
    let exports: Vec<String> = commits
        .iter()
        .map(|c| export_revision(repo.path(), store_dir.path(), c))
        .collect();
    // A review of commit 1 against commit 0 keeps both.
    run(
        repo.path(),
        &[
            "task",
            "add",
            "--id",
            "review",
            "--repo",
            ".",
            "--rev",
            &commits[1],
            "--base",
            &commits[0],
            "--store",
            store,
        ],
    )
    .ok();

    let dry = json(
        &run(
            repo.path(),
            &[
                "prune",
                "--keep",
                "2",
                "--dry-run",
                "--json",
                "--store",
                store,
            ],
        )
        .ok(),
    );
    assert_eq!(dry["removed"].as_array().unwrap().len(), 2, "{dry}");
    assert_eq!(dry["kept_for_tasks"].as_array().unwrap().len(), 2, "{dry}");
    assert_eq!(dry["collected"], serde_json::Value::Null, "{dry}");
    assert_eq!(
        revision_names(&repo, store).len(),
        6,
        "a dry run removes nothing"
    );

    let report = json(
        &run(
            repo.path(),
            &["prune", "--keep", "2", "--json", "--store", store],
        )
        .ok(),
    );
    let removed: Vec<&str> = report["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        removed,
        [commits[3].as_str(), commits[2].as_str()],
        "{report}"
    );
    assert_eq!(report["remaining"], 4, "{report}");
    let collected = &report["collected"];
    assert!(collected["units"].as_u64().unwrap() > 0, "{report}");
    assert!(collected["blobs"].as_u64().unwrap() > 0, "{report}");
    assert!(
        collected["pack_dead_bytes"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert_eq!(
        collected["pack_not_freed"],
        serde_json::Value::Null,
        "{report}"
    );
    assert_eq!(
        collected["database_not_compacted"],
        serde_json::Value::Null,
        "{report}"
    );
    // Big.java's two versions went with the two revisions that had them.
    assert!(
        report["store_bytes_after"].as_u64() < report["store_bytes_before"].as_u64(),
        "{report}"
    );

    let mut remaining = revision_names(&repo, store);
    remaining.sort();
    let mut expected = vec![
        commits[0].clone(),
        commits[1].clone(),
        commits[4].clone(),
        commits[5].clone(),
    ];
    expected.sort();
    assert_eq!(remaining, expected);
    for at in [0, 1, 4, 5] {
        assert_eq!(
            export_revision(repo.path(), store_dir.path(), &commits[at]),
            exports[at],
            "revision {at} answers as before the prune"
        );
    }

    // Indexing goes on over what remains: a layer over the newest. It
    // brings Big.java back, in a version only it has: a record of many
    // pages that the last prune below frees (what the other revisions it
    // removes hold alone is smaller than a page of the pack).
    let next = repo.commit_changes(
        &[
            Change::write("src/p/Tax.java", &class("Tax", "return n * 4;")),
            Change::write("src/p/Big.java", &big(3)),
        ],
        "after the prune",
    );
    let summary = json(
        &run(
            repo.path(),
            &["index", "--rev", &next, "--store", store, "--json"],
        )
        .ok(),
    );
    assert_eq!(summary["parent"], commits[5].as_str(), "{summary}");
    assert_eq!(
        export_revision(repo.path(), store_dir.path(), &next),
        export_from_scratch(repo.path(), &next)
    );

    // Removing every revision the task does not name leaves a store that
    // holds only those two, still answering as before.
    let all = json(
        &run(
            repo.path(),
            &[
                "prune",
                "--before",
                "2999-01-01",
                "--json",
                "--store",
                store,
            ],
        )
        .ok(),
    );
    assert_eq!(all["remaining"], 2, "{all}");
    assert!(
        all["store_bytes_after"].as_u64() < all["store_bytes_before"].as_u64(),
        "{all}"
    );
    for at in [0, 1] {
        assert_eq!(
            export_revision(repo.path(), store_dir.path(), &commits[at]),
            exports[at]
        );
    }
}

#[test]
fn prune_needs_a_rule_and_a_date_it_can_read() {
    let repo = TestRepo::new();
    repo.commit(&[("src/p/A.java", "package p; class A {}")], "one");
    run(repo.path(), &["index"]).ok();
    let no_rule = run(repo.path(), &["prune"]).fails_with(2);
    assert!(no_rule.contains("--keep"), "{no_rule}");
    let bad = run(repo.path(), &["prune", "--before", "last tuesday"]).fails_with(2);
    assert!(
        bad.contains("neither YYYY-MM-DD nor an RFC 3339 time"),
        "{bad}"
    );
    let none = run(repo.path(), &["prune", "--before", "2000-01-01"]).ok();
    assert!(none.contains("0 revisions removed, 1 remain"), "{none}");
}

#[test]
fn a_version_stored_as_a_delta_outlives_the_revision_of_its_base() {
    let repo = TestRepo::new();
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().to_str().unwrap();
    let price = class("Price", "return n;");
    let first = repo.commit(
        &[("src/p/Price.java", &price), ("src/p/Big.java", &big(1))],
        "big",
    );
    // Big.java's second version is stored over the first's record.
    let second = repo.commit(&[("src/p/Big.java", &big(2))], "big again");
    run(repo.path(), &["index", "--rev", &first, "--store", store]).ok();
    run(repo.path(), &["index", "--rev", &second, "--store", store]).ok();
    let before = export_revision(repo.path(), store_dir.path(), &second);
    let report = json(
        &run(
            repo.path(),
            &["prune", "--keep", "1", "--json", "--store", store],
        )
        .ok(),
    );
    assert_eq!(report["removed"][0], first.as_str(), "{report}");
    assert_eq!(report["collected"]["blobs"], 1, "{report}");
    // The first version's record stays (nothing of the pack is dead: the
    // second version is made over it, and the second revision's layers
    // over the first's).
    assert_eq!(report["collected"]["pack_dead_bytes"], 0, "{report}");
    assert_eq!(
        export_revision(repo.path(), store_dir.path(), &second),
        before
    );
    // And a third version is stored over the second.
    let third = repo.commit(&[("src/p/Big.java", &big(3))], "big once more");
    run(repo.path(), &["index", "--rev", &third, "--store", store]).ok();
    assert_eq!(
        export_revision(repo.path(), store_dir.path(), &third),
        export_from_scratch(repo.path(), &third)
    );
}
