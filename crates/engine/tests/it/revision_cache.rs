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

/// `Square` with two lines more above `area()`: its declaration moves.
const SQUARE_MOVED: &str = "package geo;

public class Square implements Shape {
    private final double side;

    // Squares are rectangles
    // with equal sides.

    public Square(double side) {
        this.side = side;
    }

    @Override
    public double area() {
        return side * side;
    }
}
";

#[test]
fn a_snapshot_following_the_next_revision_answers_as_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    // Audit calls Square#area too, and no reader holds its data: the new
    // cache takes it over, and its target's line is read in v2.
    let audit = "package geo;\n\nclass Audit {\n    double of(Square s) {\n        return s.area();\n    }\n}\n";
    let files = [
        ("Audit.java", audit),
        ("Shape.java", SHAPE),
        ("Square.java", SQUARE),
        ("Report.java", REPORT_V1),
    ];
    let v1 = commit(&repo, &files);
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    index(dir.path(), &store, &v1);
    let v2 = commit(&repo, &[("Square.java", SQUARE_MOVED)]);
    let summary = crate::common::index(dir.path(), &store, Some(&v2));
    let written = summary.dirty.expect("v2 is a layer over v1");
    assert_eq!(
        written,
        ["Square.java"],
        "Report and Audit keep their units"
    );

    // Everything the answers below need, decoded on v1.
    let area = "geo.Square#area()";
    let total = "geo.Report#total(geo.Shape,geo.Square)";
    let config = CallersConfig::default();
    let answers = |snapshot: &Snapshot| {
        let report = snapshot.find_element(total).unwrap().declared.unwrap();
        (
            snapshot.callees(&report).unwrap(),
            snapshot.callers(area, &config).unwrap(),
            snapshot.references("geo.Square").unwrap(),
        )
    };
    let first = Snapshot::new(&store, store.revision(&v1).unwrap().unwrap()).unwrap();
    let before = answers(&first);

    // A reader still holding Report's data from v1 still reads v1's line
    // of its target; the new cache reads v2's. Shape's data, held by no
    // one, is taken over as it is.
    let held = first
        .file_data(&first.file("Report.java").unwrap())
        .unwrap();
    let row = store.revision(&v2).unwrap().unwrap();
    let following = Snapshot::following(&store, row.clone(), first.cache(), &written).unwrap();
    let held_lines: Vec<u32> = first
        .file_resolution(&held)
        .unwrap()
        .refs
        .iter()
        .filter(|r| r.target_id().as_deref() == Some(area))
        .map(|r| first.target_line(r))
        .collect();
    assert_eq!(held_lines, [11]);
    let fresh = Snapshot::new(&store, row).unwrap();
    let after = answers(&following);
    assert_eq!(after, answers(&fresh));
    // The callees of Report (unchanged, carried) point at Square#area's
    // new line.
    let line_of_area = |callees: &[refscope_engine::RefHit]| {
        callees
            .iter()
            .filter(|hit| hit.target.as_deref() == Some(area))
            .map(|hit| hit.decl_line)
            .collect::<Vec<_>>()
    };
    assert_eq!(line_of_area(&before.0), [Some(11)]);
    assert_eq!(line_of_area(&after.0), [Some(14)]);
    let audit_hit = |callers: &[refscope_engine::RefHit]| {
        callers
            .iter()
            .find(|hit| hit.path == "Audit.java")
            .map(|hit| hit.decl_line)
    };
    assert_eq!(audit_hit(&before.1), Some(Some(11)));
    assert_eq!(audit_hit(&after.1), Some(Some(14)));
}
