//! Opening a store: format versions, files that are not a store, and the
//! write lock, on real files in a temporary directory.

use std::path::Path;

use refscope_store::{Error, FORMAT_VERSION, Store};

#[test]
fn store_of_another_format_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    drop(Store::open(&store_dir).unwrap());
    let db = rusqlite_connection(&store_dir);
    db.execute(
        "UPDATE meta SET value = '999' WHERE key = 'format_version'",
        [],
    )
    .unwrap();
    drop(db);
    let error = Store::open(&store_dir).err().expect("refused");
    match &error {
        Error::FormatVersion {
            found, expected, ..
        } => {
            assert_eq!((*found, *expected), (999, FORMAT_VERSION));
        }
        other => panic!("unexpected error: {other}"),
    }
    assert!(error.to_string().contains("refscope index"), "{error}");
}

#[test]
fn a_database_that_is_not_sqlite_is_reported_as_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    std::fs::write(store_dir.join("refscope.sqlite"), vec![b'x'; 4096]).unwrap();
    let error = Store::open_existing(&store_dir).err().expect("refused");
    assert!(matches!(error, Error::Corrupt { .. }), "{error}");
}

#[test]
fn second_writer_waits_for_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let store = Store::open(&store_dir).unwrap();
    let held = store
        .lock_for_writing(|_| panic!("nobody holds it yet"))
        .unwrap();
    let (told_tx, told_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn({
        let store_dir = store_dir.clone();
        move || {
            let store = Store::open(&store_dir).unwrap();
            let _lock = store
                .lock_for_writing(|pid| told_tx.send(pid.to_string()).unwrap())
                .unwrap();
        }
    });
    let holder = told_rx
        .recv()
        .expect("the waiter is told who holds the lock");
    assert_eq!(holder, std::process::id().to_string());
    drop(held);
    waiter.join().unwrap();
}

fn rusqlite_connection(store_dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(store_dir.join("refscope.sqlite")).unwrap()
}

#[test]
fn a_store_whose_making_was_cut_short_is_empty_until_the_next_index() {
    let dir = tempfile::tempdir().unwrap();
    // A process killed between creating the database file and committing
    // its schema leaves a database without any table.
    rusqlite::Connection::open(dir.path().join("refscope.sqlite"))
        .unwrap()
        .execute_batch("PRAGMA user_version = 0;")
        .unwrap();
    assert!(matches!(
        Store::open_existing(dir.path()),
        Err(Error::EmptyStore { .. })
    ));
    Store::open(dir.path()).unwrap();
    assert!(Store::open_existing(dir.path()).is_ok());

    // Another program's database is not taken for an empty store.
    let other = tempfile::tempdir().unwrap();
    rusqlite::Connection::open(other.path().join("refscope.sqlite"))
        .unwrap()
        .execute_batch("CREATE TABLE notes (text TEXT);")
        .unwrap();
    assert!(matches!(
        Store::open_existing(other.path()),
        Err(Error::Corrupt { .. })
    ));
}
