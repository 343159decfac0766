//! The persistent store: a directory holding the blob pack of per-file
//! facts (`facts.pack`) and a SQLite database in WAL mode
//! (`refscope.sqlite`) with revisions, manifests and elements.
//!
//! Writers take an exclusive lock on `write.lock`; readers never lock and
//! see the last committed revision. (While a store's first revision is
//! being indexed its database is under a rollback journal instead, and
//! opening the store waits for that commit: see
//! [`Store::journal_for_index`].)

pub(crate) mod bulk;
pub(crate) mod manifest;
pub(crate) mod names;
mod pack;
mod writeback;

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

pub use pack::{EncodedFacts, PackLocation, PackReader, PackWriter, encode_facts};
pub use writeback::{File as WritebackFile, Writeback};

use crate::error::Error;

/// The store format this build reads and writes. Bump it whenever the
/// schema, the archived facts or the digests ([`crate::digest`]) change.
pub const FORMAT_VERSION: u32 = 11;

const SCHEMA: &str = include_str!("schema.sql");

/// The index of elements by id, as [`SCHEMA`] makes it.
const ELEMENTS_BY_ID: &str = "CREATE INDEX IF NOT EXISTS elements_by_id ON elements (element_id)";
const DB_FILE: &str = "refscope.sqlite";
const PACK_FILE: &str = "facts.pack";
const LOCK_FILE: &str = "write.lock";

/// An opened store.
pub struct Store {
    dir: PathBuf,
    db: Connection,
}

/// A summary row of an indexed revision.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionRow {
    /// Database id.
    pub id: i64,
    /// Commit id, or `worktree:<digest>`.
    pub name: String,
    /// `commit` or `worktree`.
    pub kind: String,
    /// Branch recorded at indexing time.
    pub branch: Option<String>,
    /// The directory the files were read from.
    pub root: Option<String>,
    /// Unix time of indexing.
    pub indexed_at: i64,
    /// Java files indexed.
    pub n_files: u64,
    /// Elements in those files.
    pub n_elements: u64,
    /// Reference sites in those files.
    pub n_ref_sites: u64,
    /// Files skipped.
    pub n_skipped: u64,
    /// Syntax error nodes over all files.
    pub n_syntax_errors: u64,
    /// Time the indexing took.
    pub seconds: f64,
}

impl Store {
    /// Opens the store in `dir`, creating it if needed.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        Self::open_waiting(dir, |_| {})
    }

    /// [`Store::open`]; while another process builds the store's first
    /// revision, which keeps the database closed to others until it
    /// commits ([`Store::journal_for_index`]), calls `on_wait` with its pid
    /// and waits for it.
    pub fn open_waiting(dir: &Path, on_wait: impl FnMut(&str)) -> Result<Self, Error> {
        retry_after_writer(dir, on_wait, || Self::try_open(dir))
    }

    fn try_open(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let db_path = dir.join(DB_FILE);
        let db = Connection::open(&db_path).map_err(|e| Error::sqlite(&db_path, e))?;
        let store = Self {
            dir: dir.to_path_buf(),
            db,
        };
        store.configure(true)?;
        store.initialise_schema()?;
        Ok(store)
    }

    /// Opens an existing store for reading (waiting, like
    /// [`Store::open_waiting`], for another process's first index of it).
    pub fn open_existing(dir: &Path) -> Result<Self, Error> {
        retry_after_writer(dir, |_| {}, || Self::try_open_existing(dir))
    }

    fn try_open_existing(dir: &Path) -> Result<Self, Error> {
        let db_path = dir.join(DB_FILE);
        if !db_path.is_file() {
            return Err(Error::EmptyStore {
                store: dir.to_path_buf(),
            });
        }
        let db = Connection::open_with_flags(
            &db_path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::sqlite(&db_path, e))?;
        let store = Self {
            dir: dir.to_path_buf(),
            db,
        };
        store.configure(false)?;
        store.check_version()?;
        Ok(store)
    }

    fn configure(&self, writer: bool) -> Result<(), Error> {
        // The page size takes effect when the database is created, and is
        // kept after (an existing store keeps its own). 16 KiB pages made a
        // full JDK index write a quarter as many WAL frames: system time
        // 2.8-3.1 s against 2.9-4.2 s and wall time 0.2-0.4 s shorter in
        // three alternating runs, for a database 7 MiB (3 %) larger; the
        // latency of a `callers` query was unchanged.
        self.db
            .execute_batch("PRAGMA page_size = 16384;")
            .map_err(|e| self.classify(e))?;
        // The journal mode is kept in the file: a reader takes it as it is.
        // A writer asks for WAL, but does not wait for it: while another
        // process builds the store's first revision under a rollback journal
        // ([`Store::journal_for_index`]) the switch is refused, and the
        // writer sets WAL again once it holds the write lock.
        if writer {
            self.try_journal_mode("wal").map_err(|e| self.classify(e))?;
        }
        // Temporary files in memory: a statement that may fail half-way
        // (an insert into a table with a unique index, as `units` has)
        // copies each page it changes that the transaction had already
        // changed to a statement journal first, which on file meant 17,000
        // writes of a 16 KiB page (280 MB) through the kernel for a full
        // JDK index. A statement journal lives for one statement.
        let result = self.db.execute_batch(
            "PRAGMA busy_timeout = 10000;
             PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = OFF;
             PRAGMA cache_size = -65536;
             PRAGMA temp_store = MEMORY;",
        );
        result.map_err(|e| self.classify(e))
    }

    /// Sets the journal mode (`wal` or `delete`) unless another connection
    /// keeps it from changing now; says whether it is set. Does not wait.
    fn try_journal_mode(&self, mode: &str) -> rusqlite::Result<bool> {
        let busy_timeout: i64 = self.db.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
        self.db.execute_batch("PRAGMA busy_timeout = 0")?;
        let set = self
            .db
            .query_row(&format!("PRAGMA journal_mode = {mode}"), [], |r| {
                r.get::<_, String>(0)
            });
        self.db
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
    pub(crate) fn journal_for_index(&self) -> Result<Journal<'_>, Error> {
        let has_revision: bool = self
            .db
            .query_row("SELECT EXISTS (SELECT 1 FROM revisions)", [], |r| r.get(0))
            .map_err(|e| self.classify(e))?;
        let rollback = !has_revision
            && self
                .try_journal_mode("delete")
                .map_err(|e| self.classify(e))?;
        if rollback {
            self.db
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
    fn use_wal(&self) -> Result<(), Error> {
        self.db
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
            .map_err(|e| self.classify(e))
    }

    /// Turns "not a database" into the corrupt-store error that says how to
    /// rebuild.
    fn classify(&self, e: rusqlite::Error) -> Error {
        let not_a_database = matches!(
            &e,
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase
        );
        if not_a_database {
            Error::Corrupt {
                path: self.dir.clone(),
                message: format!("{DB_FILE} is not a SQLite database"),
            }
        } else {
            Error::sqlite(&self.db_path(), e)
        }
    }

    fn initialise_schema(&self) -> Result<(), Error> {
        let has_meta: bool = self
            .db
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| self.classify(e))?
            > 0;
        if has_meta {
            return self.check_version();
        }
        // Two processes may create the same store at once: an immediate
        // transaction serialises them, and the second finds the schema made.
        let tx = rusqlite::Transaction::new_unchecked(
            &self.db,
            rusqlite::TransactionBehavior::Immediate,
        )
        .map_err(|e| self.classify(e))?;
        tx.execute_batch(SCHEMA).map_err(|e| self.classify(e))?;
        tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('format_version', ?1), ('pack_len', '0'), \
             ('next_target_id', '1')",
            params![FORMAT_VERSION.to_string()],
        )
        .map_err(|e| self.classify(e))?;
        tx.commit().map_err(|e| self.classify(e))
    }

    fn check_version(&self) -> Result<(), Error> {
        let found: Option<String> = self
            .db
            .query_row(
                "SELECT value FROM meta WHERE key = 'format_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.classify(e))
            .or_else(|e| match e {
                // A database without our tables is not a refscope store.
                Error::Sqlite { .. } => Ok(None),
                other => Err(other),
            })?;
        let found: u32 = match found {
            Some(v) => v.parse().unwrap_or(0),
            None => {
                return Err(Error::Corrupt {
                    path: self.dir.clone(),
                    message: "the database has no format version".into(),
                });
            }
        };
        if found != FORMAT_VERSION {
            return Err(Error::FormatVersion {
                path: self.dir.clone(),
                found,
                expected: FORMAT_VERSION,
            });
        }
        Ok(())
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The database file.
    pub fn db_path(&self) -> PathBuf {
        self.dir.join(DB_FILE)
    }

    /// The blob pack file.
    pub fn pack_path(&self) -> PathBuf {
        self.dir.join(PACK_FILE)
    }

    /// Starts early writeback ([`Writeback`]) of the files a writer fills:
    /// the pack, the write-ahead log and the database, which a checkpoint
    /// fills from the log (or the index itself, under a rollback journal).
    pub fn start_writeback(&self) -> Writeback {
        let mut wal = self.db_path().into_os_string();
        wal.push("-wal");
        Writeback::start(vec![
            WritebackFile::Plain(self.pack_path()),
            WritebackFile::Plain(PathBuf::from(wal)),
            WritebackFile::Database(self.db_path()),
        ])
    }

    /// The database connection.
    pub fn db(&self) -> &Connection {
        &self.db
    }

    /// A mapped view of the blob pack.
    pub fn pack_reader(&self) -> Result<PackReader, Error> {
        PackReader::open(&self.pack_path())
    }

    /// The committed length of the blob pack.
    pub fn committed_pack_len(&self) -> Result<u64, Error> {
        let value: String = self
            .db
            .query_row("SELECT value FROM meta WHERE key = 'pack_len'", [], |r| {
                r.get(0)
            })
            .map_err(|e| self.classify(e))?;
        value.parse().map_err(|_| Error::Corrupt {
            path: self.dir.clone(),
            message: format!("pack_len '{value}' is not a number"),
        })
    }

    /// Total size of the store's files in bytes.
    pub fn size_on_disk(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }

    /// Takes the write lock, calling `on_wait` with the holder's pid first
    /// if another process has it, then waiting.
    pub fn lock_for_writing(&self, on_wait: impl FnOnce(&str)) -> Result<WriteLock, Error> {
        let path = self.dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                on_wait(holder.trim());
                file.lock().map_err(|e| Error::io(&path, e))?;
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        file.set_len(0).map_err(|e| Error::io(&path, e))?;
        write!(file, "{}", std::process::id()).map_err(|e| Error::io(&path, e))?;
        Ok(WriteLock { _file: file })
    }

    /// The revision with this name, if indexed.
    pub fn revision(&self, name: &str) -> Result<Option<RevisionRow>, Error> {
        self.db
            .query_row(
                &format!("{REVISION_COLUMNS} WHERE name = ?1"),
                params![name],
                revision_row,
            )
            .optional()
            .map_err(|e| self.classify(e))
    }

    /// Every indexed revision, newest first.
    pub fn revisions(&self) -> Result<Vec<RevisionRow>, Error> {
        let mut statement = self
            .db
            .prepare(&format!("{REVISION_COLUMNS} ORDER BY id DESC"))
            .map_err(|e| self.classify(e))?;
        let rows = statement
            .query_map([], revision_row)
            .map_err(|e| self.classify(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.classify(e))
    }

    /// The revision whose name starts with `prefix` (an abbreviated commit
    /// id), if exactly one does.
    pub fn revision_by_prefix(&self, prefix: &str) -> Result<Option<RevisionRow>, Error> {
        let pattern = format!("{}%", prefix.replace(['%', '_'], ""));
        let mut statement = self
            .db
            .prepare(&format!("{REVISION_COLUMNS} WHERE name LIKE ?1 LIMIT 2"))
            .map_err(|e| self.classify(e))?;
        let rows: Vec<RevisionRow> = statement
            .query_map(params![pattern], revision_row)
            .map_err(|e| self.classify(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.classify(e))?;
        Ok(if rows.len() == 1 {
            rows.into_iter().next()
        } else {
            None
        })
    }
}

/// While a store's `elements` table is filled from empty, its index by
/// element id is dropped ([`ElementIndex::defer`]) and made again from all
/// the rows at the end ([`ElementIndex::finish`]): SQLite builds an index
/// from sorted keys far more cheaply than it takes 328 K ids (the JDK)
/// inserted all over it one row at a time. On the JDK the writer's time
/// storing the resolutions went from 1.95-2.13 s to 1.50-1.57 s, for
/// 0.17 s building the index (three alternating runs). Later indexes add
/// few rows to a large table and keep the index.
pub(crate) struct ElementIndex {
    deferred: bool,
}

impl ElementIndex {
    /// Drops the index if the table is empty, in `tx`.
    pub(crate) fn defer(tx: &rusqlite::Transaction) -> rusqlite::Result<Self> {
        let empty: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM elements)", [], |r| {
            r.get(0)
        })?;
        if empty {
            tx.execute_batch("DROP INDEX IF EXISTS elements_by_id")?;
        }
        Ok(Self { deferred: empty })
    }

    /// Makes the index again if [`Self::defer`] dropped it, in the same
    /// transaction. (An index that fails before this rolls the drop back.)
    pub(crate) fn finish(self, tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
        if self.deferred {
            tx.execute_batch(ELEMENTS_BY_ID)?;
        }
        Ok(())
    }
}

/// The journal an index runs under ([`Store::journal_for_index`]). Drop it
/// after the index's transaction ends: WAL comes back then, at the latest.
pub(crate) struct Journal<'s> {
    store: &'s Store,
    rollback: bool,
}

impl Journal<'_> {
    /// Whether the index runs under a rollback journal.
    #[cfg(test)]
    pub(crate) fn is_rollback(&self) -> bool {
        self.rollback
    }

    /// Back to WAL, once the index's transaction has ended. The index is
    /// committed by then, so a failure (a reader in the middle of a
    /// statement keeps the mode from changing) is only logged: the
    /// connection stays under the rollback journal with full syncs, safe
    /// and slower, and the next index or writer to open the store sets WAL.
    pub(crate) fn finish(mut self) {
        if std::mem::take(&mut self.rollback)
            && let Err(e) = self.store.use_wal()
        {
            tracing::warn!("the store stays under a rollback journal for now: {e}");
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

/// Runs `open` until it meets no other process at work on the store
/// ([`Error::Locked`]), waiting for that process each time it does.
fn retry_after_writer(
    dir: &Path,
    mut on_wait: impl FnMut(&str),
    open: impl Fn() -> Result<Store, Error>,
) -> Result<Store, Error> {
    loop {
        match open() {
            Err(Error::Locked { pid, .. }) => {
                on_wait(&pid);
                // Until the writer lets go of the lock.
                if let Ok(lock) = File::open(dir.join(LOCK_FILE)) {
                    let _ = lock.lock_shared();
                }
            }
            other => return other,
        }
    }
}

/// The pid another process recorded in the write lock of the store in
/// `dir`, if it holds the lock now.
pub(crate) fn other_writer(dir: &Path) -> Option<String> {
    let mut file = File::open(dir.join(LOCK_FILE)).ok()?;
    match file.try_lock_shared() {
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            file.read_to_string(&mut pid).ok()?;
            let pid = pid.trim();
            (!pid.is_empty() && pid != std::process::id().to_string()).then(|| pid.to_string())
        }
        // Free (the shared lock goes with the file), or locks unsupported.
        _ => None,
    }
}

/// Held while a process writes to the store; released on drop.
pub struct WriteLock {
    _file: File,
}

const REVISION_COLUMNS: &str = "SELECT id, name, kind, branch, indexed_at, n_files, n_elements, \
     n_ref_sites, n_skipped, n_syntax_errors, seconds, root FROM revisions";

fn revision_row(row: &rusqlite::Row) -> rusqlite::Result<RevisionRow> {
    Ok(RevisionRow {
        id: row.get(0)?,
        name: row.get(1)?,
        kind: row.get(2)?,
        branch: row.get(3)?,
        indexed_at: row.get(4)?,
        n_files: row.get::<_, i64>(5)? as u64,
        n_elements: row.get::<_, i64>(6)? as u64,
        n_ref_sites: row.get::<_, i64>(7)? as u64,
        n_skipped: row.get::<_, i64>(8)? as u64,
        n_syntax_errors: row.get::<_, i64>(9)? as u64,
        seconds: row.get(10)?,
        root: row.get(11)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let error = Error::sqlite(&store.db_path(), busy());
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        // This process holds it: still a plain error.
        let lock = store.lock_for_writing(|_| panic!("free")).unwrap();
        let error = Error::sqlite(&store.db_path(), busy());
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        // Another process's pid in the held lock (as if it had taken it).
        std::fs::write(dir.path().join(LOCK_FILE), "4242").unwrap();
        let error = Error::sqlite(&store.db_path(), busy());
        assert!(
            matches!(&error, Error::Locked { pid, .. } if pid == "4242"),
            "{error}"
        );
        assert!(error.to_string().contains("pid 4242"), "{error}");
        // Other errors are not about the lock.
        let error = Error::sqlite(&store.db_path(), rusqlite::Error::QueryReturnedNoRows);
        assert!(matches!(error, Error::Sqlite { .. }), "{error}");
        drop(lock);
        let error = Error::sqlite(&store.db_path(), busy());
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
                 n_skipped, n_syntax_errors, seconds, context_digest, library_digest) \
                 VALUES ('r', 'commit', 0, 0, 0, 0, 0, 0, 0, x'', x'')",
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
