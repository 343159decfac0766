//! A `watch` session removes, on each save, the units that only the
//! replaced work-tree revision held, and never one that another revision
//! holds.

use std::path::Path;

use refscope_engine::{
    IndexConfig, IndexSummary, Indexer, Keep, Snapshot, Source, SourceLimits, Store, WorkTree,
};

const PRICE: &str = "package shop;\n\
public class Price {\n\
    public int cents() { return 100; }\n\
}\n";

const CART: &str = "package shop;\n\
public class Cart {\n\
    public int total(Price p) { return p.cents(); }\n\
}\n";

/// A copy of `Price` in another directory: the same unit at two paths.
const PRICE_COPY: &str = PRICE;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// How many units a prune of `store` with nothing to remove would
/// collect, measured on a copy: the units that no revision holds.
fn units_held_by_none(store: &Path) -> u64 {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(store).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    let store = Store::open(copy.path()).unwrap();
    let _lock = store.lock_for_writing(|_| {}).unwrap();
    store.remove_revisions(&[]).unwrap().units
}

/// The ids of the innermost elements at `line` of `path` in revision `rev`.
fn ids_at(store: &Store, rev: &str, path: &str, line: u32) -> Vec<String> {
    let row = store.revision(rev).unwrap().unwrap();
    Snapshot::new(store, row)
        .unwrap()
        .elements_at(path, line, line)
        .unwrap()
        .into_iter()
        .map(|v| v.record.element_id)
        .collect()
}

/// A watch session's indexer and its view of the directory.
struct Session<'s> {
    source: Source,
    tree: WorkTree,
    indexer: Indexer<'s>,
    last: Option<String>,
}

impl<'s> Session<'s> {
    fn start(root: &Path, store: &'s Store) -> Self {
        let indexer = Indexer::new(
            store,
            IndexConfig {
                replace_worktree: true,
                ..crate::common::config()
            },
        );
        Session {
            source: Source::open_directory(root).unwrap(),
            tree: WorkTree::scan(root, &SourceLimits::default()),
            indexer,
            last: None,
        }
    }

    /// Indexes the files as they are now, after changes at `paths`.
    fn save(&mut self, root: &Path, paths: &[&str]) -> IndexSummary {
        let paths: Vec<_> = paths.iter().map(|p| root.join(p)).collect();
        self.tree.refresh(&paths);
        let revision = match &self.last {
            Some(base) => self.tree.changes_since(base),
            None => self.tree.revision(),
        };
        let summary = self
            .indexer
            .index(&self.source, &revision, &mut |_| {})
            .unwrap();
        self.last = Some(summary.revision.clone());
        summary
    }
}

#[test]
fn saves_leave_no_unit_that_no_revision_holds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let store_dir = dir.path().join("store");
    write(&root, "shop/Price.java", PRICE);
    write(&root, "shop/Cart.java", CART);
    write(&root, "copy/shop/Price.java", PRICE_COPY);
    let store = Store::open(&store_dir).unwrap();
    let mut session = Session::start(&root, &store);
    session.save(&root, &[]);
    assert_eq!(units_held_by_none(&store_dir), 0);

    // A body edit; then one at a path whose unit another path holds too
    // (it stays for the copy); then the copy goes as well.
    let steps: [(&str, Option<String>); 5] = [
        (
            "shop/Cart.java",
            Some(CART.replace("p.cents()", "p.cents() + 1")),
        ),
        ("shop/Price.java", Some(PRICE.replace("100", "200"))),
        ("copy/shop/Price.java", None),
        // Back to a content indexed before, then a new file.
        ("shop/Cart.java", Some(CART.to_string())),
        (
            "shop/Tax.java",
            Some(
                "package shop;\nclass Tax { int of(Price p) { return p.cents() / 5; } }\n"
                    .to_string(),
            ),
        ),
    ];
    for (path, text) in steps {
        match &text {
            Some(text) => write(&root, path, text),
            None => std::fs::remove_file(root.join(path)).unwrap(),
        }
        let summary = session.save(&root, &[path]);
        assert!(summary.n_resolved >= 1, "{path}: {summary:?}");
        assert_eq!(
            units_held_by_none(&store_dir),
            0,
            "after the change of {path}"
        );
    }

    // The revision answers as the files are.
    let last = session.last.clone().unwrap();
    assert_eq!(
        ids_at(&store, &last, "shop/Price.java", 3),
        ["shop.Price#cents()"]
    );

    // What the replaced states wrote besides their units (the blobs of
    // the versions saved over, their manifest directories) a prune
    // collects, though it removes no revision.
    let report = refscope_engine::prune(&store, Keep::Newest(1), false, |_| {}).unwrap();
    assert!(report.removed.is_empty());
    let collected = report.collected.unwrap();
    assert_eq!(collected.units, 0);
    assert!(
        collected.blobs >= 2 && collected.trees >= 2,
        "{collected:?}"
    );
    assert_eq!(
        ids_at(&store, &last, "shop/Tax.java", 2),
        ["shop.Tax#of(shop.Price)"]
    );
}

#[test]
fn a_unit_another_revision_holds_stays() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let store_dir = dir.path().join("store");
    write(&root, "shop/Price.java", PRICE);
    write(&root, "shop/Cart.java", CART);
    let store = Store::open(&store_dir).unwrap();
    let mut session = Session::start(&root, &store);
    session.save(&root, &[]);

    // Between two saves another process indexes a commit of the same
    // files: its revision shares the session's units.
    let repo = git2::Repository::init(&root).unwrap();
    let commit = crate::common::commit(
        &repo,
        &[("shop/Price.java", PRICE), ("shop/Cart.java", CART)],
        &[],
        "one",
    );
    let units_before = store.max_unit_id().unwrap();
    let committed = crate::common::index(&root, &store, Some(&commit));
    assert_eq!(committed.n_parsed, 0, "the session's blobs are shared");
    assert_eq!(store.max_unit_id().unwrap(), units_before, "and its units");
    let read_commit = || {
        let row = store.revision(&commit).unwrap().unwrap();
        let units: Vec<_> = store
            .manifest(&row)
            .unwrap()
            .iter()
            .map(|file| {
                let records = store.unit_records(file).unwrap();
                let resolution = store.unit_resolution(file).unwrap();
                (file.path.clone(), records, resolution)
            })
            .collect();
        assert_eq!(units.len(), 2);
        assert!(units.iter().all(|(_, records, _)| !records.is_empty()));
        units
    };
    let before = read_commit();

    write(
        &root,
        "shop/Cart.java",
        &CART.replace("p.cents()", "p.cents() * 2"),
    );
    session.save(&root, &["shop/Cart.java"]);

    // The commit's revision still reads its Cart, whose unit the saved
    // work tree no longer holds.
    assert_eq!(read_commit(), before);
    assert_eq!(
        ids_at(&store, &commit, "shop/Cart.java", 3),
        ["shop.Cart#total(shop.Price)"]
    );
    assert_eq!(units_held_by_none(&store_dir), 0);
}
