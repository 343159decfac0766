//! A store changed behind refscope's back, in the rows that pair with a
//! file's facts by index (its element records, its references): every read
//! through the snapshot answers an error naming the store and the file,
//! never a panic or a wrong element.

use refscope_engine::{Error, Indexer, Snapshot, Source, SourceLimits, Store};

use crate::common::config;

const SHOP: &str = "package p;
class Shop {
    int stock;
    int order(int n) {
        return take(n) + stock;
    }
    int take(int n) {
        return n;
    }
}
";

const PATH: &str = "src/p/Shop.java";

/// A store of one directory snapshot holding [`SHOP`], then `damage` run on
/// its database.
fn damaged(damage: &str) -> (tempfile::TempDir, Store) {
    let work = tempfile::tempdir().unwrap();
    let tree = work.path().join("tree");
    std::fs::create_dir_all(tree.join("src/p")).unwrap();
    std::fs::write(tree.join(PATH), SHOP).unwrap();
    let store_dir = work.path().join("store");
    {
        let store = Store::open(&store_dir).unwrap();
        let source = Source::open_directory(&tree).unwrap();
        let revision = source
            .resolve_revision(None, &SourceLimits::default())
            .unwrap();
        Indexer::new(&store, config())
            .index(&source, &revision, &mut |_| {})
            .unwrap();
    }
    let db = rusqlite::Connection::open(store_dir.join("refscope.sqlite")).unwrap();
    assert!(db.execute(damage, []).unwrap() > 0, "{damage} changes rows");
    drop(db);
    let store = Store::open_existing(&store_dir).unwrap();
    (work, store)
}

fn is_damage_of_the_file(result: Result<impl std::fmt::Debug, Error>) -> bool {
    match result {
        Err(Error::Store(refscope_engine::StoreError::Corrupt { message, .. })) => {
            assert!(message.contains(PATH), "{message}");
            true
        }
        other => panic!("expected the file's damage, got {other:?}"),
    }
}

#[test]
fn element_records_that_do_not_fit_the_facts_are_damage() {
    for damage in [
        "UPDATE elements SET idx = idx + 40 WHERE name = 'take'",
        "DELETE FROM elements WHERE name = 'stock'",
        "UPDATE elements SET parent_idx = NULL WHERE name = 'order'",
    ] {
        let (_work, store) = damaged(damage);
        let snapshot =
            Snapshot::new(&store, Snapshot::pick_revision(&store, None, None).unwrap()).unwrap();
        assert!(
            is_damage_of_the_file(snapshot.elements_of_file(PATH)),
            "{damage}"
        );
        assert!(
            is_damage_of_the_file(snapshot.elements_at(PATH, 5, 5)),
            "{damage}"
        );
        assert!(
            is_damage_of_the_file(snapshot.element_declared_on_line(PATH, 4)),
            "{damage}"
        );
    }
}

#[test]
fn the_undamaged_store_reads_the_same_rows() {
    // The same reads on the store as indexed answer, so the errors above
    // come from the damage.
    let (_work, store) = damaged("UPDATE elements SET name = name");
    let snapshot =
        Snapshot::new(&store, Snapshot::pick_revision(&store, None, None).unwrap()).unwrap();
    assert_eq!(snapshot.elements_of_file(PATH).unwrap().len(), 4);
    assert_eq!(snapshot.elements_at(PATH, 5, 5).unwrap().len(), 1);
    assert!(snapshot.element_declared_on_line(PATH, 4).is_ok());
}
