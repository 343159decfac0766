//! What Lombok generates, as the command line answers it, without Lombok's
//! jar: generated members are elements marked as such, and the calls to
//! them are their callers. (The opt-in suite compares the same fixture
//! with javac running Lombok's processor.)

use std::path::PathBuf;

use crate::common::{index_files_into, run, workspace_root};

fn fixture() -> PathBuf {
    workspace_root().join("corpora/fixtures/lombok")
}

/// The callers of `element` as (caller id, line of the site).
fn callers(store: &str, element: &str) -> Vec<(String, u64)> {
    let query = format!("{element} | callers");
    let out = run(
        &fixture(),
        &["query", "--format", "json", "--store", store, &query],
    )
    .ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut found: Vec<(String, u64)> = answer["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["edge"]["site"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn calls_to_generated_members_are_their_callers() {
    let store = tempfile::tempdir().unwrap();
    index_files_into(&fixture(), store.path());
    let store = store.path().to_str().unwrap();
    let deposit = "com.acme.ledger.Teller#deposit(java.lang.String,long)".to_string();
    assert_eq!(
        callers(store, "com.acme.ledger.Account#getBalance()"),
        [(deposit.clone(), 21)],
        "a getter of @Data"
    );
    assert_eq!(
        callers(store, "com.acme.ledger.Entry#of"),
        [(deposit, 14)],
        "the static factory of @AllArgsConstructor(staticName)"
    );
    assert_eq!(
        callers(store, "com.acme.ledger.Transfer$TransferBuilder#make()"),
        [(
            "com.acme.ledger.Teller#move(com.acme.ledger.Account,java.lang.String)".to_string(),
            40
        )],
        "a builder's renamed build method"
    );
    assert!(
        callers(store, "com.acme.ledger.Entry#hidden").is_empty(),
        "no accessor was generated for it, and nothing else uses it"
    );
}

#[test]
fn generated_members_say_so_and_written_ones_do_not() {
    let store = tempfile::tempdir().unwrap();
    index_files_into(&fixture(), store.path());
    let out = run(
        &fixture(),
        &[
            "at",
            "src/main/java/com/acme/ledger/Account.java:12",
            "--json",
            "--store",
            store.path().to_str().unwrap(),
        ],
    )
    .ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let elements = answer["elements"].as_array().unwrap();
    let by: Vec<(&str, Option<&str>)> = elements
        .iter()
        .map(|e| {
            (
                e["element_id"].as_str().unwrap(),
                e.get("generated_by").map(|g| g.as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(
        by,
        [
            ("com.acme.ledger.Account#id", None),
            ("com.acme.ledger.Account#getId()", Some("lombok")),
        ]
    );
}

/// The element ids `at` answers for a line of the fixture.
fn at(store: &str, location: &str) -> Vec<String> {
    let out = run(&fixture(), &["at", location, "--json", "--store", store]).ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    answer["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["element_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn no_frameworks_reads_the_syntax_alone_and_a_store_keeps_one_setting() {
    let store = tempfile::tempdir().unwrap();
    let store = store.path().to_str().unwrap();
    let fixture = fixture();
    let index = |extra: &[&str]| {
        let mut args = vec![
            "index",
            "--files",
            fixture.to_str().unwrap(),
            "--store",
            store,
        ];
        args.extend_from_slice(extra);
        run(&std::env::temp_dir(), &args)
    };
    index(&["--no-frameworks"]).ok();
    assert_eq!(
        at(store, "src/main/java/com/acme/ledger/Account.java:12"),
        ["com.acme.ledger.Account#id"],
        "no getter without the Lombok pass"
    );
    assert!(
        callers(store, "com.acme.ledger.Account#post").len() == 1,
        "written code resolves as before"
    );
    let refused = index(&[]).fails_with(1);
    assert!(
        refused.contains("indexed with --no-frameworks") && refused.contains("another --store"),
        "{refused}"
    );
    let other = tempfile::tempdir().unwrap();
    let other = other.path().to_str().unwrap();
    run(
        &std::env::temp_dir(),
        &[
            "index",
            "--files",
            fixture.to_str().unwrap(),
            "--store",
            other,
        ],
    )
    .ok();
    let refused = run(
        &std::env::temp_dir(),
        &[
            "index",
            "--files",
            workspace_root()
                .join("corpora/fixtures/shop")
                .to_str()
                .unwrap(),
            "--store",
            other,
            "--no-frameworks",
        ],
    )
    .fails_with(1);
    assert!(
        refused.contains("indexed without --no-frameworks"),
        "{refused}"
    );
}

#[test]
fn a_reference_to_a_generated_member_says_so() {
    let store = tempfile::tempdir().unwrap();
    index_files_into(&fixture(), store.path());
    let out = run(
        &fixture(),
        &[
            "callees",
            "com.acme.ledger.Teller#deposit",
            "--json",
            "--store",
            store.path().to_str().unwrap(),
        ],
    )
    .ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let by_target: Vec<(&str, Option<&str>)> = answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["target"].as_str().unwrap(),
                h.get("target_generated_by").map(|g| g.as_str().unwrap()),
            )
        })
        .collect();
    for (target, by) in [
        ("com.acme.ledger.Account#getBalance()", Some("lombok")),
        ("com.acme.ledger.Teller#log", Some("lombok")),
        ("com.acme.ledger.Account#post(com.acme.ledger.Entry)", None),
        ("com.acme.ledger.Teller#cash", None),
    ] {
        assert!(
            by_target.contains(&(target, by)),
            "{target} {by:?} in {by_target:?}"
        );
    }
}

#[test]
fn an_annotation_that_is_not_modelled_is_noted_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/p");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("A.java"),
        "package p;\n\nimport java.util.List;\nimport lombok.Builder;\nimport lombok.Singular;\n\n@Builder\nclass A {\n    @Singular\n    List<String> names;\n}\n",
    )
    .unwrap();
    let store = dir.path().join("store");
    index_files_into(dir.path(), &store);
    let out = run(
        dir.path(),
        &[
            "at",
            "src/p/A.java:9",
            "--store",
            store.to_str().unwrap(),
            "--repo",
            dir.path().to_str().unwrap(),
        ],
    )
    .ok();
    assert!(
        out.contains(
            "note      @Singular is not modelled: the builder has no setter for this field"
        ),
        "{out}"
    );
}
