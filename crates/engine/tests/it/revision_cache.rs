//! Snapshots built on one `RevisionCache` share what earlier ones read and
//! derived, and answer exactly what a fresh snapshot answers — also after
//! later revisions are indexed into the same store.

use std::path::Path;
use std::sync::Arc;

use refscope_engine::CallersConfig;
use refscope_engine::{Snapshot, Store};

fn commit(repo: &git2::Repository, files: &[(&str, &str)]) -> String {
    crate::common::commit(repo, files, &[], "change")
}

fn index(dir: &Path, store: &Store, rev: &str) {
    crate::common::index(dir, store, Some(rev));
}

const SHAPE: &str = "package geo;

public interface Shape {
    double area();
}
";

const SQUARE: &str = "package geo;

public class Square implements Shape {
    private final double side;

    public Square(double side) {
        this.side = side;
    }

    @Override
    public double area() {
        return side * side;
    }
}
";

const REPORT_V1: &str = "package geo;

public class Report {
    double total(Shape a, Square b) {
        return a.area() + b.area();
    }
}
";

const REPORT_V2: &str = "package geo;

public class Report {
    double total(Shape a, Square b) {
        return a.area() + b.area() + new Square(2).area();
    }
}
";

#[test]
fn snapshots_on_one_cache_share_answers_and_match_fresh_ones() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let v1 = commit(
        &repo,
        &[
            ("Shape.java", SHAPE),
            ("Square.java", SQUARE),
            ("Report.java", REPORT_V1),
        ],
    );
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    index(dir.path(), &store, &v1);

    let row = store.revision(&v1).unwrap().unwrap();
    let config = CallersConfig::default();
    let area = "geo.Square#area()";
    let first = Snapshot::new(&store, row.clone()).unwrap();
    let callers = first.callers_shared(area, &config).unwrap();
    // One direct call and one through Shape#area.
    assert_eq!(callers.len(), 2, "{callers:#?}");
    assert_eq!(
        callers.iter().filter(|hit| hit.via.is_some()).count(),
        1,
        "{callers:#?}"
    );

    let second = Snapshot::with_cache(&store, first.cache().clone()).unwrap();
    let again = second.callers_shared(area, &config).unwrap();
    assert!(
        Arc::ptr_eq(&callers, &again),
        "the second snapshot recomputed"
    );
    let file = second.file("Report.java").unwrap();
    assert!(Arc::ptr_eq(
        &first.file_data(&file).unwrap(),
        &second.file_data(&file).unwrap()
    ));

    // Later revisions in the store change nothing the cache answers.
    let v2 = commit(&repo, &[("Report.java", REPORT_V2)]);
    index(dir.path(), &store, &v2);
    let third = Snapshot::with_cache(&store, first.cache().clone()).unwrap();
    let fresh = Snapshot::new(&store, row).unwrap();
    assert_eq!(
        third.callers(area, &config).unwrap(),
        fresh.callers(area, &config).unwrap()
    );
    let total = fresh
        .find_element("geo.Report#total")
        .unwrap()
        .declared
        .unwrap();
    assert_eq!(
        third.callees(&total).unwrap(),
        fresh.callees(&total).unwrap()
    );
    assert_eq!(fresh.callees(&total).unwrap().len(), 2);

    // The new revision has its own answer: the constructor call adds a
    // third direct caller.
    let newer = Snapshot::new(&store, store.revision(&v2).unwrap().unwrap()).unwrap();
    assert_eq!(newer.callers(area, &config).unwrap().len(), 3);
}
