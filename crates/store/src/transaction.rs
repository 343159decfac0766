//! An index's transaction: everything one revision writes, committed at
//! once with its revision row, so readers see whole revisions only.

use crate::error::Error;
use crate::journal::Journal;
use crate::open::Store;

/// The size of write-ahead log beyond which a commit folds it into the
/// database (see [`IndexTransaction::commit`]).
const FOLD_LOG_BYTES: u64 = 256 << 20;

/// The transaction an index writes a revision in, under the journal
/// [`Store::journal_for_index`] picks. Dropped without
/// [`IndexTransaction::commit`], everything since the last
/// [`IndexTransaction::commit_so_far`] rolls back.
pub struct IndexTransaction<'s> {
    // Declared before the journal, so dropped before it: the journal goes
    // back to WAL once the transaction has ended.
    tx: rusqlite::Transaction<'s>,
    journal: Journal<'s>,
    store: &'s Store,
}

impl Store {
    /// Begins the transaction of an index; the caller holds the write lock
    /// ([`Store::lock_for_writing`]).
    pub fn begin_index(&self) -> Result<IndexTransaction<'_>, Error> {
        let journal = self.journal_for_index()?;
        let tx = self
            .db()
            .unchecked_transaction()
            .map_err(|e| self.sqlite_error(e))?;
        Ok(IndexTransaction {
            tx,
            journal,
            store: self,
        })
    }
}

impl<'s> IndexTransaction<'s> {
    /// The store written.
    pub fn store(&self) -> &'s Store {
        self.store
    }

    pub(crate) fn tx(&self) -> &rusqlite::Transaction<'s> {
        &self.tx
    }

    pub(crate) fn error(&self, e: rusqlite::Error) -> Error {
        self.store.sqlite_error(e)
    }

    /// Commits what was written so far and goes on in a new transaction.
    ///
    /// Only the revision's row makes its files visible (queries reach blobs
    /// through a revision's manifest), so the parsed blobs can commit before
    /// it: readers do not see them, and an index that fails or is killed
    /// during resolution leaves them for the next run, which finds them by
    /// blob id instead of parsing them again. (Committing the stored units
    /// in steps too was measured slower on the JDK: each step writes the
    /// B-tree pages it touched again, 0.4 s more system time in all.)
    pub fn commit_so_far(&self) -> Result<(), Error> {
        self.before_commit()?;
        self.tx
            .execute_batch("COMMIT; BEGIN")
            .map_err(|e| self.error(e))
    }

    /// Readies the pack for a commit: a commit under the rollback journal
    /// is synced, so the pack bytes it refers to are synced first; a
    /// commit to the write-ahead log is not, and the pack is synced before
    /// the log is folded ([`IndexTransaction::commit`]) or the store
    /// closed.
    fn before_commit(&self) -> Result<(), Error> {
        if self.journal.is_rollback() {
            self.store.sync_pack()
        } else {
            self.store.note_pack_unsynced();
            Ok(())
        }
    }

    /// Commits, and goes back to WAL. A commit to the write-ahead log is
    /// not synced to disk, nor are the pack bytes it refers to (WAL with
    /// `synchronous = NORMAL`: a power cut may lose the newest commits,
    /// never a consistent store). The log is folded into the database
    /// only once it holds [`FOLD_LOG_BYTES`], the pack synced first
    /// ([`Store::fold_log`]): folding it after every commit took a fifth
    /// of a commit of a few files (copying its pages and two fsyncs). The
    /// last connection to close folds the rest and removes the log
    /// ([`Store`] syncs the pack before its connection closes).
    pub fn commit(self) -> Result<(), Error> {
        self.before_commit()?;
        let Self { tx, journal, store } = self;
        tx.commit().map_err(|e| store.sqlite_error(e))?;
        journal.finish();
        let log_len = std::fs::metadata(store.wal_path()).map_or(0, |m| m.len());
        if log_len >= FOLD_LOG_BYTES {
            store.fold_log()?;
        }
        Ok(())
    }
}
