//! Opening a store: the directory, the database's settings and schema,
//! and the format version check.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::error::Error;
use crate::lock::{WriteLock, lock_for_writing, sqlite_error, wait_for_writer};
use crate::pack::PackReader;
use crate::writeback::{File as WritebackFile, Writeback};
use crate::{DB_FILE, FORMAT_VERSION, PACK_FILE, SCHEMA};

/// An opened store.
pub struct Store {
    dir: PathBuf,
    db: Connection,
    /// This connection committed revisions whose pack bytes may not be on
    /// disk yet: the pack is synced before the connection closes (closing
    /// the last connection folds the write-ahead log into the database,
    /// and syncs it).
    pack_unsynced: AtomicBool,
}

impl Drop for Store {
    fn drop(&mut self) {
        if *self.pack_unsynced.get_mut()
            && let Err(e) = self.sync_pack()
        {
            tracing::warn!("the blob pack could not be synced: {e}");
        }
    }
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
        let db = Connection::open(&db_path).map_err(|e| sqlite_error(&db_path, e))?;
        let store = Self {
            dir: dir.to_path_buf(),
            db,
            pack_unsynced: AtomicBool::new(false),
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
        .map_err(|e| sqlite_error(&db_path, e))?;
        let store = Self {
            dir: dir.to_path_buf(),
            db,
            pack_unsynced: AtomicBool::new(false),
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
        //
        // SQLite's own folds of the write-ahead log into the database are
        // off: a fold syncs the database, which then refers for good to
        // pack bytes that only the store knows to sync first. A commit of
        // a few files writes a few hundred pages (new rows land on pages
        // all over the element, target and posting B-trees); the store
        // folds the log once it holds 256 MiB (`IndexTransaction::commit`),
        // and a fold that readers keep from completing goes as far as it
        // can and is tried again at the next commit.
        let result = self.db.execute_batch(
            "PRAGMA busy_timeout = 10000;
             PRAGMA wal_autocheckpoint = 0;
             PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = OFF;
             PRAGMA cache_size = -65536;
             PRAGMA temp_store = MEMORY;",
        );
        result.map_err(|e| self.classify(e))
    }

    /// Turns "not a database" into the corrupt-store error that says how to
    /// rebuild.
    pub(crate) fn classify(&self, e: rusqlite::Error) -> Error {
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
            sqlite_error(&self.db_path(), e)
        }
    }

    /// A SQLite error of the store's database.
    pub(crate) fn sqlite_error(&self, e: rusqlite::Error) -> Error {
        sqlite_error(&self.db_path(), e)
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

    fn has_no_tables(&self) -> Result<bool, Error> {
        self.db
            .query_row("SELECT count(*) = 0 FROM sqlite_master", [], |r| r.get(0))
            .map_err(|e| self.classify(e))
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
            .or_else(|e| match e {
                // A database without our tables is not a refscope store.
                rusqlite::Error::SqliteFailure(_, Some(message))
                    if message.starts_with("no such table") =>
                {
                    Ok(None)
                }
                other => Err(self.classify(other)),
            })?;
        let found: u32 = match found {
            Some(v) => v.parse().unwrap_or(0),
            // No table at all: a process making the store was stopped
            // before its schema committed, and the next index makes it.
            None if self.has_no_tables()? => {
                return Err(Error::EmptyStore {
                    store: self.dir.clone(),
                });
            }
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

    /// Opens the store of `dir` for a writer's own lookups, beside its
    /// writing connection and for as long as one revision takes: pages
    /// are read through a memory map (many pages here and there, such as
    /// the symbols of the units a commit's files use, without a read call
    /// each), and closing it leaves the write-ahead log alone (as the
    /// last connection to close, it would fold the whole log into the
    /// database after every commit).
    pub fn open_for_lookups(dir: &Path) -> Result<Self, Error> {
        let store = Self::open_existing(dir)?;
        store
            .db
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .and_then(|_| store.db.execute_batch("PRAGMA mmap_size = 68719476736"))
            .map_err(|e| store.sqlite_error(e))?;
        Ok(store)
    }

    /// Syncs the blob pack to disk: everything appended so far (by any
    /// writer of this process) survives a power cut from now on. Called
    /// before the database is synced to refer to new pack bytes.
    pub fn sync_pack(&self) -> Result<(), Error> {
        let path = self.pack_path();
        match std::fs::File::open(&path) {
            Ok(file) => file.sync_data().map_err(|e| Error::io(&path, e))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
        self.pack_unsynced.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Notes that a commit referred to pack bytes not synced yet.
    pub(crate) fn note_pack_unsynced(&self) {
        self.pack_unsynced.store(true, Ordering::Relaxed);
    }

    /// Folds the write-ahead log into the database, the pack synced
    /// first: the folded database refers for good to the pack bytes its
    /// revisions name. Readers on older snapshots make it stop short, not
    /// wait.
    pub(crate) fn fold_log(&self) -> Result<(), Error> {
        self.sync_pack()?;
        let _ = self.db.execute_batch(
            "PRAGMA busy_timeout = 0; PRAGMA wal_checkpoint(TRUNCATE); \
             PRAGMA busy_timeout = 10000;",
        );
        Ok(())
    }

    /// The database's write-ahead log.
    pub(crate) fn wal_path(&self) -> PathBuf {
        let mut wal = self.db_path().into_os_string();
        wal.push("-wal");
        PathBuf::from(wal)
    }

    /// The blob pack file.
    pub fn pack_path(&self) -> PathBuf {
        self.dir.join(PACK_FILE)
    }

    /// Takes the write lock, calling `on_wait` with the holder's pid first
    /// if another process has it, then waiting.
    pub fn lock_for_writing(&self, on_wait: impl FnOnce(&str)) -> Result<WriteLock, Error> {
        lock_for_writing(&self.dir, on_wait)
    }

    /// Starts early writeback ([`Writeback`]) of the files a writer fills:
    /// the pack, the write-ahead log and the database, which a checkpoint
    /// fills from the log (or the index itself, under a rollback journal).
    pub fn start_writeback(&self) -> Writeback {
        Writeback::start(vec![
            WritebackFile::Plain(self.pack_path()),
            WritebackFile::Plain(self.wal_path()),
            WritebackFile::Database(self.db_path()),
        ])
    }

    /// The database connection.
    pub(crate) fn db(&self) -> &Connection {
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

    /// How many times revisions were removed from the store: a unit id
    /// read before a removal may name another unit after it (a removed
    /// unit's id is given again), so what is kept by unit id across
    /// transactions is kept only while this stays the same.
    pub fn prunes(&self) -> Result<u64, Error> {
        let value: Option<String> = self
            .db
            .query_row("SELECT value FROM meta WHERE key = 'prunes'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.classify(e))?;
        match value {
            None => Ok(0),
            Some(value) => value.parse().map_err(|_| Error::Corrupt {
                path: self.dir.clone(),
                message: format!("prunes '{value}' is not a number"),
            }),
        }
    }

    /// The extraction passes the store's facts were made with, by name
    /// (`frameworks` or `syntax`), or `None` before the first index, which
    /// decides it ([`Self::claim_passes`]): the facts of a blob are kept
    /// once, so every revision of a store is extracted the same way.
    pub fn passes(&self) -> Result<Option<String>, Error> {
        self.db
            .query_row("SELECT value FROM meta WHERE key = 'passes'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.classify(e))
    }

    /// Records `passes` as the store's extraction passes unless it has
    /// some already; the ones it has.
    pub fn claim_passes(&self, passes: &str) -> Result<String, Error> {
        self.db
            .execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('passes', ?1)",
                [passes],
            )
            .map_err(|e| self.classify(e))?;
        Ok(self.passes()?.unwrap_or_else(|| passes.to_string()))
    }

    /// Total size of the store's files in bytes: the space they take on
    /// disk where the file system says (holes a prune left in the pack
    /// take none), else their lengths.
    pub fn size_on_disk(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| allocated(&m))
                    .sum()
            })
            .unwrap_or(0)
    }
}

/// The bytes the file system holds for a file.
#[cfg(unix)]
pub(crate) fn allocated(metadata: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    // st_blocks counts 512-byte units whatever the file system's block.
    metadata.blocks() * 512
}

#[cfg(not(unix))]
pub(crate) fn allocated(metadata: &std::fs::Metadata) -> u64 {
    metadata.len()
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
                wait_for_writer(dir);
            }
            other => return other,
        }
    }
}
