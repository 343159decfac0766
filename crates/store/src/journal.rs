//! The journal an index runs under: WAL as a rule, a rollback journal for
//! a store's first revision.

use crate::error::Error;
use crate::open::Store;

impl Store {
    /// Sets the journal mode (`wal` or `delete`) unless another connection
    /// keeps it from changing now; says whether it is set. Does not wait.
    pub(crate) fn try_journal_mode(&self, mode: &str) -> rusqlite::Result<bool> {
        let busy_timeout: i64 = self
            .db()
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
        self.db().execute_batch("PRAGMA busy_timeout = 0")?;
        let set = self
            .db()
            .query_row(&format!("PRAGMA journal_mode = {mode}"), [], |r| {
                r.get::<_, String>(0)
            });
        self.db()
            .execute_batch(&format!("PRAGMA busy_timeout = {busy_timeout}"))?;
        match set {
            Ok(now) => Ok(now.eq_ignore_ascii_case(mode)),
            Err(rusqlite::Error::SqliteFailure(f, _))
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// The journal for indexing a revision; the caller holds the write lock
    /// and has no transaction open.
    ///
    /// A store's first revision writes every page of its database. Through
    /// the write-ahead log each page is written twice: to the log, then to
    /// the database by the checkpoint after the commit (250 MB and 0.4 s on
    /// the JDK, all after the last file is resolved). Under a rollback
    /// journal it is written once, and pages a transaction adds at the end
    /// of the file need no journal entry. So while the store has no revision
    /// and no other connection has it open (leaving WAL needs that; the
    /// switch is refused at once otherwise), the index runs under a rollback
    /// journal with full syncs (a power cut at any point leaves the store
    /// as it was), and the store is back in WAL once the [`Journal`] is
    /// finished or dropped.
    ///
    /// The price is paid by other processes during that first index, which
    /// have nothing to read yet anyway: once the index first spills pages
    /// to the file it locks the database whole until it commits. A process
    /// that opens the store then waits for the commit
    /// ([`Store::open_waiting`]); one that opened it earlier gets
    /// [`Error::Locked`] from a read after the busy timeout; and a reader
    /// in the middle of one statement for longer than the busy timeout
    /// would make the index fail, which WAL rules out.
    ///
    /// Any other index runs in WAL, set here again if a first index that
    /// died left the file in rollback mode.
    pub fn journal_for_index(&self) -> Result<Journal<'_>, Error> {
        let has_revision: bool = self
            .db()
            .query_row("SELECT EXISTS (SELECT 1 FROM revisions)", [], |r| r.get(0))
            .map_err(|e| self.classify(e))?;
        let rollback = !has_revision
            && self
                .try_journal_mode("delete")
                .map_err(|e| self.classify(e))?;
        if rollback {
            self.db()
                .execute_batch("PRAGMA synchronous = FULL")
                .map_err(|e| self.classify(e))?;
        } else {
            self.use_wal()?;
        }
        Ok(Journal {
            store: self,
            rollback,
        })
    }

    /// Sets the store's usual journal: WAL, synchronous NORMAL.
    pub(crate) fn use_wal(&self) -> Result<(), Error> {
        self.db()
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
            .map_err(|e| self.classify(e))
    }
}

/// The journal an index runs under ([`Store::journal_for_index`]). Drop it
/// after the index's transaction ends: WAL comes back then, at the latest.
pub struct Journal<'s> {
    store: &'s Store,
    rollback: bool,
}

impl Journal<'_> {
    /// Whether the index runs under a rollback journal (whose commits are
    /// synced).
    pub(crate) fn is_rollback(&self) -> bool {
        self.rollback
    }

    /// Back to WAL, once the index's transaction has ended. The index is
    /// committed by then, so a failure (a reader in the middle of a
    /// statement keeps the mode from changing) is only logged: the
    /// connection stays under the rollback journal with full syncs, safe
    /// and slower, and the next index or writer to open the store sets WAL.
    pub(crate) fn finish(mut self) {
        if std::mem::take(&mut self.rollback) {
            if let Err(e) = self.store.use_wal() {
                tracing::warn!("the store stays under a rollback journal for now: {e}");
            }
            // The pages cached while the store was filled are of no use
            // to the next revision, whose first read under WAL would
            // discard them one by one: free them now.
            let _ = self.store.db().execute_batch("PRAGMA shrink_memory");
        }
    }
}

impl Drop for Journal<'_> {
    fn drop(&mut self) {
        // An index that failed: its transaction rolled back. If WAL cannot
        // be set now, the next writer to open the store sets it.
        if self.rollback {
            let _ = self.store.use_wal();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DB_FILE, LOCK_FILE};
    use rusqlite::Connection;

    fn journal_mode(store: &Store) -> String {
        store
            .db()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_first_index_runs_under_a_rollback_journal_and_leaves_wal() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(journal_mode(&store), "wal");
        let journal = store.journal_for_index().unwrap();
        assert!(journal.is_rollback());
        assert_eq!(journal_mode(&store), "delete");
        let synchronous: i64 = store
            .db()
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(synchronous, 2, "FULL while under a rollback journal");

        // Another writer opens the store meanwhile, a transaction open
        // here: it cannot set WAL, and neither waits for it nor fails.
        let tx = store.db().unchecked_transaction().unwrap();
        tx.execute("UPDATE meta SET value = '1' WHERE key = 'pack_len'", [])
            .unwrap();
        let other = Store::open(dir.path()).unwrap();
        drop(other);
        tx.commit().unwrap();

        journal.finish();
        assert_eq!(journal_mode(&store), "wal");
        assert_eq!(store.committed_pack_len().unwrap(), 1);
    }

    #[test]
    fn a_busy_database_under_another_writer_says_who_writes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let busy = || {
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                None,
            )
        };
        // Nobody holds the lock: a plain SQLite error.
        let error = crate::lock::sqlite_error(&store.db_path(), busy());
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        // This process holds it: still a plain error.
        let lock = store.lock_for_writing(|_| panic!("free")).unwrap();
        let error = crate::lock::sqlite_error(&store.db_path(), busy());
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        // Another process's pid in the held lock (as if it had taken it).
        std::fs::write(dir.path().join(LOCK_FILE), "4242").unwrap();
        let error = crate::lock::sqlite_error(&store.db_path(), busy());
        assert!(
            matches!(&error, Error::Locked { pid, .. } if pid == "4242"),
            "{error}"
        );
        assert!(error.to_string().contains("pid 4242"), "{error}");
        // Other errors are not about the lock.
        let error =
            crate::lock::sqlite_error(&store.db_path(), rusqlite::Error::QueryReturnedNoRows);
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        drop(lock);
        let error = crate::lock::sqlite_error(&store.db_path(), busy());
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
    }

    #[test]
    fn opening_a_store_another_process_builds_waits_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // As another process's first index holds it: the write lock with
        // its pid, the database under a rollback journal and locked whole
        // (as after its first spill to disk).
        let lock = store.lock_for_writing(|_| panic!("free")).unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "4242").unwrap();
        let journal = store.journal_for_index().unwrap();
        assert!(journal.is_rollback());
        store.db().execute_batch("BEGIN EXCLUSIVE").unwrap();
        store
            .db()
            .execute("UPDATE meta SET value = '7' WHERE key = 'pack_len'", [])
            .unwrap();

        let (told, waited_for) = std::sync::mpsc::channel();
        let opener = std::thread::spawn({
            let dir = dir.path().to_path_buf();
            move || {
                let store = Store::open_waiting(&dir, |pid| told.send(pid.to_string()).unwrap())
                    .expect("opens once the writer is done");
                store.committed_pack_len().unwrap()
            }
        });
        // After SQLite's busy timeout, the opener names the writer and
        // waits for its lock.
        assert_eq!(waited_for.recv().unwrap(), "4242");
        store.db().execute_batch("COMMIT").unwrap();
        journal.finish();
        drop(lock);
        assert_eq!(opener.join().unwrap(), 7, "it sees what was committed");
    }

    #[test]
    fn a_failed_first_index_leaves_wal_too() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let journal = store.journal_for_index().unwrap();
        assert!(journal.is_rollback());
        drop(journal);
        assert_eq!(journal_mode(&store), "wal");
    }

    #[test]
    fn with_a_reader_open_or_a_revision_stored_an_index_runs_in_wal() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let reader = Store::open_existing(dir.path()).unwrap();
        assert!(reader.revisions().unwrap().is_empty());
        let journal = store.journal_for_index().unwrap();
        assert!(!journal.is_rollback());
        assert_eq!(journal_mode(&store), "wal");
        journal.finish();
        drop(reader);

        store
            .db()
            .execute(
                "INSERT INTO revisions (name, kind, indexed_at, n_files, n_elements, n_ref_sites, \
                 n_skipped, n_syntax_errors, seconds, library_digest, tree, symbols_offset, \
                 symbols_len, lookups_offset, lookups_len) \
                 VALUES ('r', 'commit', 0, 0, 0, 0, 0, 0, 0, x'', 0, 0, 0, 0, 0)",
                [],
            )
            .unwrap();
        let journal = store.journal_for_index().unwrap();
        assert!(!journal.is_rollback());
        assert_eq!(journal_mode(&store), "wal");
    }

    #[test]
    fn a_store_left_in_rollback_mode_is_set_back_to_wal() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path()).unwrap());
        // As a first index that died would leave it.
        let db = Connection::open(dir.path().join(DB_FILE)).unwrap();
        db.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))
            .unwrap();
        drop(db);

        let reader = Store::open_existing(dir.path()).unwrap();
        assert_eq!(
            journal_mode(&reader),
            "delete",
            "a reader leaves the mode be"
        );
        drop(reader);
        let writer = Store::open(dir.path()).unwrap();
        assert_eq!(journal_mode(&writer), "wal");
    }
}
