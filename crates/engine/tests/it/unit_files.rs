//! The files of a unit in one revision, found among the paths the unit
//! ever had (the first units asked for) or read from the whole manifest
//! (past those): either way exactly the revision's files holding it,
//! after renames, edits, deletions and a prune.

use std::collections::{BTreeMap, BTreeSet};

use refscope_engine::{Keep, Snapshot, Store};

/// Every unit of `snapshot`'s revision with its paths, from its manifest.
fn truth(snapshot: &Snapshot<'_>) -> BTreeMap<i64, Vec<String>> {
    let mut by_unit: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for file in snapshot.files().unwrap() {
        by_unit.entry(file.unit_id).or_default().push(file.path);
    }
    by_unit
}

fn paths_of(snapshot: &Snapshot<'_>, unit: i64) -> Vec<String> {
    let files = snapshot.files_of_unit(unit).unwrap();
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    assert!(files.iter().all(|f| f.unit_id == unit));
    paths
}

/// Asks `units` in order of a fresh snapshot of `revision` and checks each
/// answer against the manifest.
fn check(store: &Store, revision: &str, units: impl IntoIterator<Item = i64>) {
    let row = store.revision(revision).unwrap().unwrap();
    let snapshot = Snapshot::new(store, row.clone()).unwrap();
    let truth = truth(&Snapshot::new(store, row).unwrap());
    for (asked, unit) in units.into_iter().enumerate() {
        let expected = truth.get(&unit).cloned().unwrap_or_default();
        assert_eq!(
            paths_of(&snapshot, unit),
            expected,
            "unit {unit} asked {asked}th"
        );
        // Asked again, from what the first answer kept.
        assert_eq!(paths_of(&snapshot, unit), expected, "unit {unit} again");
    }
}

#[test]
fn a_units_files_are_the_revisions_files_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    // More classes than are looked up one by one, and one file copied to
    // a second path.
    let mut files: Vec<(String, String)> = (0..150)
        .map(|i| {
            let text = format!("package p;\n\nclass C{i} {{\n    int f() {{ return {i}; }}\n}}\n");
            (format!("p/C{i}.java"), text)
        })
        .collect();
    let twin = "package t;\n\nclass Twin {}\n".to_string();
    files.push(("t/Twin.java".into(), twin.clone()));
    files.push(("u/Twin.java".into(), twin));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let v1 = crate::common::commit(&repo, &borrowed, &[], "v1");
    // Moved unchanged, edited, deleted.
    let v2 = crate::common::commit(
        &repo,
        &[
            ("r/C0.java", files[0].1.as_str()),
            (
                "p/C1.java",
                "package p;\n\nclass C1 {\n    int g() { return 1; }\n}\n",
            ),
        ],
        &["p/C0.java", "p/C2.java", "u/Twin.java"],
        "v2",
    );
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    crate::common::index(dir.path(), &store, Some(&v1));
    let summary = crate::common::index(dir.path(), &store, Some(&v2));
    assert!(summary.dirty.is_some(), "v2 is a layer over v1");

    let units_of = |revision: &str| {
        let row = store.revision(revision).unwrap().unwrap();
        truth(&Snapshot::new(&store, row).unwrap())
    };
    let (old, new) = (units_of(&v1), units_of(&v2));
    assert!(
        old.values().any(|paths| paths.len() == 2),
        "the twins share a unit in v1: {old:?}"
    );
    let all: BTreeSet<i64> = old.keys().chain(new.keys()).copied().collect();
    // Units of the other revision first, so that units a revision does not
    // hold are asked one by one; then all of them, up and down, so that
    // every unit is answered both ways.
    for (revision, other) in [(&v1, &new), (&v2, &old)] {
        let absent: Vec<i64> = other.keys().copied().collect();
        check(
            &store,
            revision,
            absent.iter().copied().chain(all.iter().copied()),
        );
        check(&store, revision, all.iter().rev().copied());
    }

    // A prune forgets the paths of the units it removes; the newest
    // revision still answers the same.
    refscope_engine::prune(&store, Keep::Newest(1), false, |_| {}).unwrap();
    for unit in old.keys().filter(|unit| !new.contains_key(unit)) {
        assert_eq!(
            store.unit_paths(*unit).unwrap(),
            Vec::<String>::new(),
            "unit {unit}"
        );
    }
    check(&store, &v2, all.iter().copied());
}
