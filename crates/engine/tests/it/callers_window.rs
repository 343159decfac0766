//! A window of an element's callers, counted from the reference index and
//! read only where it falls, is exactly that window of the full list, for
//! every element a corpus declares or references, polymorphic or not,
//! with test sources shown or left out.

use std::collections::BTreeSet;
use std::path::Path;

use refscope_engine::{CallersConfig, RefHit, Snapshot, Store};
use refscope_test_support::paths::fixture_dir;

/// Calls of every kind a polymorphic caller can be: through an interface,
/// an abstract class, on `super`, on `this` written and implicit (also
/// from an inner class and a lambda), on other receivers, and from a test
/// directory.
const SHAPES: &[(&str, &str)] = &[
    (
        "src/p/Shape.java",
        "package p;\n\npublic interface Shape {\n    double area();\n}\n",
    ),
    (
        "src/p/Base.java",
        "package p;\n\npublic abstract class Base implements Shape {\n    double twice() {\n        return area() * 2;\n    }\n\n    public double area() {\n        return 0;\n    }\n}\n",
    ),
    (
        "src/p/Square.java",
        "package p;\n\npublic class Square extends Base {\n    public double area() {\n        return super.area() + 1;\n    }\n\n    double self() {\n        Runnable r = () -> area();\n        return this.area();\n    }\n\n    class Inner {\n        double f() {\n            return area();\n        }\n    }\n}\n",
    ),
    (
        "src/p/Circle.java",
        "package p;\n\npublic class Circle extends Base {\n    public double area() {\n        return 3;\n    }\n\n    double other(Square s) {\n        return s.area() + area();\n    }\n}\n",
    ),
    // They inherit area(): their calls on `this` (one written, one
    // implicit, each the only call of its file) reach Base's and Shape's
    // but never Circle's.
    (
        "src/p/Triangle.java",
        "package p;\n\npublic class Triangle extends Base {\n    double g() {\n        return this.area();\n    }\n}\n",
    ),
    (
        "src/p/Hexagon.java",
        "package p;\n\npublic class Hexagon extends Base {\n    double h() {\n        return area();\n    }\n}\n",
    ),
    (
        "src/p/User.java",
        "package p;\n\nclass User {\n    double use(Shape s, Base b, Square q) {\n        return s.area() + b.area() + q.area() + new Circle().area() + b.twice();\n    }\n}\n",
    ),
    (
        "test/p/UserTest.java",
        "package p;\n\nclass UserTest {\n    double t(Shape s, Square q) {\n        return s.area() + q.area();\n    }\n}\n",
    ),
];

/// Every element id the revision declares or its references target.
fn element_ids(snapshot: &Snapshot<'_>) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for file in snapshot.files().unwrap() {
        let data = snapshot.file_data(&file).unwrap();
        ids.extend(data.records.iter().map(|r| r.element_id.clone()));
        let resolution = snapshot.file_resolution(&data).unwrap();
        ids.extend(resolution.refs.iter().filter_map(|r| r.target_id()));
    }
    ids
}

fn is_test(path: &str) -> bool {
    path.split('/').any(|part| part == "test")
}

/// Checks every window of every element's callers in the store's newest
/// revision; how many elements had callers.
fn check_windows(store: &Store) -> usize {
    let row = store.revisions().unwrap().into_iter().next().unwrap();
    let full = Snapshot::new(store, row.clone()).unwrap();
    let mut with_callers = 0;
    for id in element_ids(&full) {
        for polymorphic in [true, false] {
            let config = CallersConfig { polymorphic };
            let all = full.callers(&id, &config).unwrap();
            with_callers += usize::from(polymorphic && !all.is_empty());
            let everything: &dyn Fn(&str) -> bool = &|_| true;
            let no_tests: &dyn Fn(&str) -> bool = &|path| !is_test(path);
            // A snapshot of its own: windows are counted, not cut from a
            // full list the cache already holds.
            let fresh = Snapshot::new(store, row.clone()).unwrap();
            for (shown, name) in [(everything, "all"), (no_tests, "no tests")] {
                let listed: Vec<&RefHit> = all.iter().filter(|hit| shown(&hit.path)).collect();
                let n = listed.len();
                for range in [
                    0..1,
                    0..3,
                    0..n,
                    1..4,
                    2..2,
                    n.saturating_sub(1)..n + 5,
                    n + 3..n + 9,
                ] {
                    let (hits, total) = fresh
                        .callers_window(&id, &config, shown, range.clone())
                        .unwrap();
                    let expected: Vec<RefHit> = listed
                        .iter()
                        .skip(range.start)
                        .take(range.end.saturating_sub(range.start))
                        .map(|&hit| hit.clone())
                        .collect();
                    let what = format!("{id}, polymorphic {polymorphic}, {name}, {range:?}");
                    assert_eq!(total, n, "{what}: total");
                    assert_eq!(hits, expected, "{what}");
                }
            }
        }
    }
    with_callers
}

fn index_dir(dir: &Path) -> (tempfile::TempDir, Store) {
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    crate::common::index(dir, &store, None);
    (store_dir, store)
}

#[test]
fn a_window_of_callers_is_that_window_of_the_list() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in SHAPES {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let (_dir, store) = index_dir(dir.path());
    // Shape#area, Base#area, Square#area, Circle#area, Base#twice, and the
    // constructors.
    assert!(check_windows(&store) >= 5);
}

#[test]
fn windows_of_callers_in_the_fixtures() {
    for fixture in ["shop", "zoo", "resolve"] {
        let (_dir, store) = index_dir(&fixture_dir(fixture));
        assert!(check_windows(&store) > 0, "{fixture}");
    }
}

/// The callers gained and lost between two revisions, reading only the
/// files that differ, are those of the full lists' difference.
#[test]
fn callers_gained_and_lost_are_the_difference_of_the_lists() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let v1 = crate::common::commit(&repo, SHAPES, &[], "v1");
    let v2 = crate::common::commit(
        &repo,
        &[
            // Calls moved between methods, one dropped, one added.
            (
                "src/p/User.java",
                "package p;\n\nclass User {\n    double use(Shape s, Base b) {\n        return s.area() + b.twice();\n    }\n\n    double more(Square q) {\n        return q.area() + new Circle().area();\n    }\n}\n",
            ),
            // A new caller, and a class that no longer inherits area().
            (
                "src/p/Audit.java",
                "package p;\n\nclass Audit {\n    double of(Base b) {\n        return b.area();\n    }\n}\n",
            ),
            (
                "src/p/Hexagon.java",
                "package p;\n\npublic class Hexagon {\n    double h() {\n        return 6;\n    }\n}\n",
            ),
        ],
        &["src/p/Triangle.java"],
        "v2",
    );
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    crate::common::index(dir.path(), &store, Some(&v1));
    crate::common::index(dir.path(), &store, Some(&v2));
    let row = |rev: &str| store.revision(rev).unwrap().unwrap();
    let (old, new) = (
        Snapshot::new(&store, row(&v1)).unwrap(),
        Snapshot::new(&store, row(&v2)).unwrap(),
    );
    let mut ids = element_ids(&old);
    ids.extend(element_ids(&new));
    let site = |hit: &RefHit| (hit.path.clone(), hit.enclosing_named.clone());
    let mut differed = 0;
    for id in ids {
        let config = CallersConfig::default();
        let everything: &dyn Fn(&str) -> bool = &|_| true;
        let no_tests: &dyn Fn(&str) -> bool = &|path| !is_test(path);
        for shown in [everything, no_tests] {
            let listed = |snapshot: &Snapshot<'_>| -> Vec<RefHit> {
                let all = snapshot.callers(&id, &config).unwrap();
                all.into_iter().filter(|hit| shown(&hit.path)).collect()
            };
            let (head, base) = (listed(&new), listed(&old));
            let gained: Vec<RefHit> = head
                .iter()
                .filter(|h| !base.iter().any(|b| site(b) == site(h)))
                .cloned()
                .collect();
            let lost: Vec<RefHit> = base
                .iter()
                .filter(|b| !head.iter().any(|h| site(h) == site(b)))
                .cloned()
                .collect();
            differed += usize::from(!gained.is_empty() || !lost.is_empty());
            let fresh_new = Snapshot::new(&store, row(&v2)).unwrap();
            let fresh_old = Snapshot::new(&store, row(&v1)).unwrap();
            let found = fresh_new
                .callers_gained_and_lost(&fresh_old, &id, &config, shown)
                .unwrap();
            assert_eq!(found, (gained, lost), "{id}");
        }
    }
    assert!(differed >= 4, "{differed} elements gained or lost callers");
}
