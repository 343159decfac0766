//! The store end to end: a real git repository, a real SQLite file and blob
//! pack in a temporary directory.

use std::path::Path;

use refscope_engine::{Error, Snapshot, Source, SourceLimits, Store, StoreError};

fn commit(repo: &git2::Repository, files: &[(&str, &str)], message: &str) -> String {
    crate::common::commit(repo, files, &[], message)
}

const SHOP: &str = "package com.acme;\n\
import java.util.List;\n\
public class Shop {\n\
    private final List<String> items = new java.util.ArrayList<>();\n\
    public void order(String item, int qty) {\n\
        items.add(item);\n\
    }\n\
}\n";

const ORDER: &str = "package com.acme;\n\
record Order(Shop shop, int total) {}\n";

fn index_head(dir: &Path, store: &Store) -> refscope_engine::IndexSummary {
    crate::common::index(dir, store, None)
}

#[test]
fn second_revision_parses_only_new_blobs_and_reindexing_does_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let first = commit(
        &repo,
        &[
            ("src/com/acme/Shop.java", SHOP),
            ("src/com/acme/Order.java", ORDER),
        ],
        "one",
    );
    let store = Store::open(&dir.path().join(".git/refscope")).unwrap();

    let summary = index_head(dir.path(), &store);
    assert_eq!((summary.n_files, summary.n_parsed), (2, 2));
    assert!(!summary.already_indexed);

    let again = index_head(dir.path(), &store);
    assert!(again.already_indexed);
    assert_eq!(again.n_parsed, 0);

    let changed = SHOP.replace("int qty", "long qty");
    let second = commit(&repo, &[("src/com/acme/Shop.java", &changed)], "two");
    let summary = index_head(dir.path(), &store);
    assert_eq!(
        (summary.n_files, summary.n_parsed),
        (2, 1),
        "only the changed blob is parsed"
    );

    // Both revisions stay queryable, each with its own answer.
    let source = Source::open(dir.path()).unwrap();
    for (rev, expected) in [(&first, "int"), (&second, "long")] {
        let row = Snapshot::pick_revision(&store, Some(&source), Some(rev)).unwrap();
        let snapshot = Snapshot::new(&store, row).unwrap();
        let views = snapshot
            .elements_at("src/com/acme/Shop.java", 6, 6)
            .unwrap();
        let ids: Vec<&str> = views.iter().map(|v| v.record.element_id.as_str()).collect();
        assert_eq!(
            ids,
            [format!("com.acme.Shop#order(java.lang.String,{expected})")]
        );
    }
    // Without --rev: the newest indexed commit of the branch.
    let row = Snapshot::pick_revision(&store, Some(&source), None).unwrap();
    assert_eq!(row.name, second);

    // A third revision references a target no earlier one did: it gets an
    // id of its own, after those given before.
    let calling = SHOP.replace(
        "items.add(item);",
        "items.add(item);\n        items.clear();",
    );
    commit(&repo, &[("src/com/acme/Shop.java", &calling)], "three");
    index_head(dir.path(), &store);
    let db = rusqlite_connection(&dir.path().join(".git/refscope"));
    let (n, distinct, max): (i64, i64, i64) = db
        .query_row(
            "SELECT count(*), count(DISTINCT id), max(id) FROM targets",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((distinct, max), (n, n), "ids 1..=n, each once");
    let next: String = db
        .query_row(
            "SELECT value FROM meta WHERE key = 'next_target_id'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(next, (n + 1).to_string());
    let clear: i64 = db
        .query_row(
            "SELECT id FROM targets WHERE name = 'java.util.List#clear()'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(clear, n, "the newest target has the newest id");
}

/// Tables and indexes of the store in `dir`, with their SQL.
fn schema_of(dir: &Path) -> Vec<(String, String, Option<String>)> {
    rusqlite_connection(dir)
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn indexing_leaves_the_schema_of_a_new_store_and_its_journal() {
    let fresh = tempfile::tempdir().unwrap();
    drop(Store::open(fresh.path()).unwrap());
    let expected = schema_of(fresh.path());
    assert!(
        expected.iter().any(|(_, name, _)| name == "elements_by_id"),
        "{expected:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    commit(&repo, &[("src/com/acme/Shop.java", SHOP)], "one");
    let store_dir = dir.path().join(".git/refscope");
    let store = Store::open(&store_dir).unwrap();
    // The first index (elements_by_id made after the rows are in), then a
    // second one into a table that has rows.
    index_head(dir.path(), &store);
    assert_eq!(schema_of(&store_dir), expected);
    commit(&repo, &[("src/com/acme/Order.java", ORDER)], "two");
    index_head(dir.path(), &store);
    assert_eq!(schema_of(&store_dir), expected);

    let mode: String = rusqlite_connection(&store_dir)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // The element index answers.
    let plan: String = rusqlite_connection(&store_dir)
        .query_row(
            "EXPLAIN QUERY PLAN SELECT unit_id FROM elements WHERE element_id = 'com.acme.Shop'",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("elements_by_id"), "{plan}");
}

#[test]
fn unknown_revision_and_missing_file_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    commit(&repo, &[("A.java", "class A {}")], "one");
    let source = Source::open(dir.path()).unwrap();
    let error = source
        .resolve_revision(Some("no-such-branch"), &SourceLimits::default())
        .unwrap_err();
    assert!(matches!(error, Error::RevisionNotFound { .. }), "{error}");
    assert!(error.to_string().contains("no-such-branch"));

    let store = Store::open(&dir.path().join("store")).unwrap();
    index_head(dir.path(), &store);
    let row = Snapshot::pick_revision(&store, Some(&source), None).unwrap();
    let snapshot = Snapshot::new(&store, row).unwrap();
    let error = snapshot.elements_at("B.java", 1, 1).unwrap_err();
    assert!(matches!(error, Error::FileNotInRevision { .. }), "{error}");
}

#[test]
fn corrupt_blob_pack_is_detected_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    commit(&repo, &[("A.java", SHOP)], "one");
    let store_dir = dir.path().join("store");
    let store = Store::open(&store_dir).unwrap();
    index_head(dir.path(), &store);
    drop(store);

    // Flip bytes in the middle of the only record's payload.
    let pack = store_dir.join("facts.pack");
    let mut bytes = std::fs::read(&pack).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 8] {
        *b ^= 0x5a;
    }
    std::fs::write(&pack, bytes).unwrap();

    let store = Store::open_existing(&store_dir).unwrap();
    let source = Source::open(dir.path()).unwrap();
    let row = Snapshot::pick_revision(&store, Some(&source), None).unwrap();
    let snapshot = Snapshot::new(&store, row).unwrap();
    let error = snapshot.elements_at("A.java", 5, 5).unwrap_err();
    assert!(
        matches!(error, Error::Store(StoreError::Corrupt { .. })),
        "{error}"
    );
    assert!(error.to_string().contains("rebuild"), "{error}");
}

#[test]
fn plain_directory_with_symlink_loop_and_oversized_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    std::fs::create_dir_all(root.join("p")).unwrap();
    std::fs::write(root.join("p/A.java"), "package p; class A { void m() {} }").unwrap();
    std::fs::write(
        root.join("p/Big.java"),
        format!("class Big {{ /* {} */ }}", "x".repeat(5000)),
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&root, root.join("p/loop")).unwrap();
    let source = Source::open(&root).unwrap();
    let limits = SourceLimits {
        max_file_bytes: 1000,
        ..SourceLimits::default()
    };
    let revision = source.resolve_revision(None, &limits).unwrap();
    let (files, skipped) = listing(&revision);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["p/A.java"]);
    let reasons: Vec<&str> = skipped.iter().map(|(_, r)| r.as_str()).collect();
    assert!(
        reasons.iter().any(|r| r.contains("larger than")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("symlink loop")),
        "{reasons:?}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"p/B\xff.java");
        std::fs::write(root.join(bad), "class B {}").unwrap();
    }
    let revision = source.resolve_revision(None, &limits).unwrap();
    let reasons: Vec<&str> = listing(&revision)
        .1
        .iter()
        .map(|(_, r)| r.as_str())
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("not UTF-8")),
        "{reasons:?}"
    );
    // A directory revision is named by its content: the same files are the
    // same revision.
    let again = source.resolve_revision(None, &limits).unwrap();
    assert_eq!(revision.name, again.name);
    assert!(matches!(
        source.resolve_revision(Some("HEAD"), &limits),
        Err(Error::RevisionOnDirectory { .. })
    ));
}

#[test]
fn a_directory_is_indexed_as_it_was_listed() {
    use refscope_engine::{Indexer, WorkTree};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    std::fs::create_dir_all(root.join("p")).unwrap();
    let listed = "package p; class A { void m() {} void n() {} }";
    std::fs::write(root.join("p/A.java"), listed).unwrap();
    std::fs::write(root.join("p/B.java"), "package p; class B {}").unwrap();
    let source = Source::open(&root).unwrap();
    let limits = SourceLimits::default();

    // Listing a directory reads its files to hash them; the index parses
    // those contents, not the files as they are by then.
    let revision = source.resolve_revision(None, &limits).unwrap();
    let prefetched = revision.prefetched.as_ref().expect("contents kept");
    assert_eq!(prefetched.len(), 2);
    std::fs::write(root.join("p/A.java"), "package p; class A {}").unwrap();
    let store = Store::open(&dir.path().join("store")).unwrap();
    let summary = Indexer::new(&store, crate::common::config())
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    assert_eq!((summary.n_parsed, summary.n_skipped), (2, 0));
    // A, m, n and B.
    assert_eq!(summary.n_elements, 4);
    // Each content is handed out once.
    let a = &listing(&revision).0[0];
    assert!(prefetched.take(&a.blob_id).is_none());

    // Contents of blobs indexed before are not parsed, and are freed
    // after the parse all the same.
    std::fs::write(root.join("p/A.java"), listed).unwrap();
    std::fs::write(root.join("p/C.java"), "package p; class C {}").unwrap();
    let revision = source.resolve_revision(None, &limits).unwrap();
    let prefetched = revision.prefetched.as_ref().expect("contents kept");
    assert_eq!(prefetched.len(), 3);
    let summary = Indexer::new(&store, crate::common::config())
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    assert_eq!(summary.n_parsed, 1, "only C is new");
    for file in listing(&revision).0 {
        assert!(prefetched.take(&file.blob_id).is_none(), "{}", file.path);
    }

    // Without kept contents the file is read again, and a file that
    // changed since it was listed is left out rather than stored under
    // the id of content it no longer has.
    std::fs::write(root.join("p/A.java"), listed).unwrap();
    std::fs::write(root.join("p/B.java"), "package p; class B { int f; }").unwrap();
    let revision = WorkTree::scan(&root, &limits).revision();
    assert!(revision.prefetched.is_none());
    std::fs::write(root.join("p/B.java"), "package p; class B { long f; }").unwrap();
    let summary = Indexer::new(&store, crate::common::config())
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    assert_eq!((summary.n_parsed, summary.n_skipped), (0, 1));
}

#[test]
fn repository_without_commits() {
    let dir = tempfile::tempdir().unwrap();
    git2::Repository::init(dir.path()).unwrap();
    let source = Source::open(dir.path()).unwrap();
    let error = source
        .resolve_revision(None, &SourceLimits::default())
        .unwrap_err();
    assert!(matches!(error, Error::NoCommits { .. }), "{error}");
    assert!(error.to_string().contains("--files"), "{error}");
}

#[test]
fn not_a_repository_or_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(Source::open(&file), Err(Error::NotASource { .. })));
    assert!(matches!(
        Source::open(&dir.path().join("missing")),
        Err(Error::NotASource { .. })
    ));
}

fn rusqlite_connection(store_dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(store_dir.join("refscope.sqlite")).unwrap()
}

/// The files and the files left out of a directory's revision.
fn listing(
    revision: &refscope_engine::Revision,
) -> (&[refscope_engine::SourceFile], &[(String, String)]) {
    match &revision.files {
        refscope_engine::Files::All { files, skipped } => (files, skipped),
        other => panic!("a directory's revision lists every file: {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_a_directory_are_not_followed() {
    use refscope_engine::WorkTree;
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(root.join("p")).unwrap();
    std::fs::create_dir_all(outside.join("q")).unwrap();
    std::fs::write(root.join("p/A.java"), "package p; class A {}").unwrap();
    std::fs::write(outside.join("Secret.java"), "class Secret {}").unwrap();
    std::fs::write(outside.join("q/S.java"), "package q; class S {}").unwrap();
    // Out of the tree: a file, a directory, an absolute and a relative link.
    symlink(outside.join("Secret.java"), root.join("p/Secret.java")).unwrap();
    symlink("../../elsewhere/q", root.join("p/q")).unwrap();
    // Inside it: followed.
    symlink("A.java", root.join("p/Alias.java")).unwrap();

    let source = Source::open(&root).unwrap();
    let limits = SourceLimits::default();
    let revision = source.resolve_revision(None, &limits).unwrap();
    let (files, skipped) = listing(&revision);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["p/A.java", "p/Alias.java"]);
    let out: Vec<&str> = skipped
        .iter()
        .filter(|(_, why)| why.contains("leads out of the tree"))
        .map(|(path, _)| path.as_str())
        .collect();
    assert_eq!(out, ["p/Secret.java", "p/q"]);

    // A link made later, as `watch` sees it: the same rule.
    let mut tree = WorkTree::scan(&root, &limits);
    symlink(outside.join("q/S.java"), root.join("p/S.java")).unwrap();
    assert_eq!(tree.refresh(&[root.join("p/S.java")]), 0);
    let (files, skipped) = match tree.revision().files {
        refscope_engine::Files::All { files, skipped } => (files, skipped),
        other => panic!("{other:?}"),
    };
    assert!(files.iter().all(|f| f.path != "p/S.java"));
    assert!(
        skipped
            .iter()
            .any(|(path, why)| path == "p/S.java" && why.contains("leads out of the tree")),
        "{skipped:?}"
    );
}
