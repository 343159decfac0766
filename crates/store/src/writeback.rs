//! Early writeback of the store's files while an index writes them.
//!
//! A full index appends hundreds of megabytes to the pack and to SQLite's
//! write-ahead log, and makes them durable at the end: the fsyncs of the
//! commit and its checkpoint then wait for the disk to take everything the
//! kernel still holds dirty, while every other thread is done. A
//! [`Writeback`] asks the kernel, every [`PERIOD`], to start writing the
//! dirty pages of those files out (`sync_file_range` with
//! `SYNC_FILE_RANGE_WRITE`, which does not wait and guarantees nothing),
//! so the disk works alongside the index and the final fsyncs find little
//! left to do. Durability still rests on those fsyncs alone.
//!
//! A SQLite database is never opened here the way the other files are: on
//! POSIX systems, closing any descriptor of a file drops every lock the
//! process holds on it, SQLite's included. A reader in another process
//! could then take itself for the last user of the database and delete its
//! write-ahead log under a live connection, losing what that connection
//! commits next. A database gets one descriptor per process, never closed
//! ([`File::Database`]).
//!
//! Elsewhere than on Linux, it does nothing.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

/// A file to write back.
pub enum File {
    /// Opened (once it exists) for as long as the [`Writeback`] runs.
    Plain(PathBuf),
    /// A SQLite database: see the module's documentation.
    Database(PathBuf),
}

/// How often writeback is started.
const PERIOD: Duration = Duration::from_millis(100);

/// Starts writeback of some files every [`PERIOD`] until dropped.
pub struct Writeback {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Writeback {
    /// Starts writeback of `files`, each opened when it first exists.
    pub fn start(files: Vec<File>) -> Self {
        if !cfg!(target_os = "linux") {
            return Self {
                stop: None,
                thread: None,
            };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("refscope-writeback".into())
            .spawn(move || {
                let mut open: Vec<(File, Option<Opened>)> =
                    files.into_iter().map(|file| (file, None)).collect();
                loop {
                    for (file, opened) in &mut open {
                        if opened.is_none() {
                            *opened = Opened::open(file);
                        }
                        if let Some(opened) = opened {
                            start_writeback(opened.file());
                        }
                    }
                    if let Err(mpsc::RecvTimeoutError::Disconnected) = stopped.recv_timeout(PERIOD)
                    {
                        break;
                    }
                }
            })
            .ok();
        Self {
            stop: Some(stop),
            thread,
        }
    }
}

impl Drop for Writeback {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // The thread only issues hints; a panic in it changes nothing
            // for the index.
            let _ = thread.join();
        }
    }
}

/// A file opened for writeback.
enum Opened {
    /// Closed with the [`Writeback`].
    Plain(std::fs::File),
    /// The process's descriptor of a database.
    Database(&'static std::fs::File),
}

impl Opened {
    fn open(file: &File) -> Option<Self> {
        match file {
            File::Plain(path) => std::fs::File::open(path).ok().map(Self::Plain),
            File::Database(path) => database_descriptor(path).map(Self::Database),
        }
    }

    fn file(&self) -> &std::fs::File {
        match self {
            Self::Plain(file) => file,
            Self::Database(file) => file,
        }
    }
}

/// The descriptor of the database at `path` this process keeps open for
/// good (opened on first use).
fn database_descriptor(path: &std::path::Path) -> Option<&'static std::fs::File> {
    static OPEN: Mutex<Option<HashMap<PathBuf, &'static std::fs::File>>> = Mutex::new(None);
    let mut open = OPEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let open = open.get_or_insert_with(HashMap::new);
    if let Some(&file) = open.get(path) {
        return Some(file);
    }
    let file: &'static std::fs::File = Box::leak(Box::new(std::fs::File::open(path).ok()?));
    open.insert(path.to_path_buf(), file);
    Some(file)
}

#[cfg(target_os = "linux")]
fn start_writeback(file: &std::fs::File) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for as long as `file` is borrowed, and
    // sync_file_range reads no memory of ours. With offset 0 and length 0
    // it covers the whole file; SYNC_FILE_RANGE_WRITE only starts writeback
    // of pages dirty now. An error (a file system without support) leaves
    // the work to the fsyncs, as without this.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &std::fs::File) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_written_while_it_runs_stay_intact() {
        // Writeback only hints the kernel: what is written through other
        // handles, before and after the file first exists, reads back
        // whole, and dropping the guard ends the thread.
        let dir = tempfile::tempdir().unwrap();
        let early = dir.path().join("early");
        let late = dir.path().join("late");
        std::fs::write(&early, b"").unwrap();
        let writeback =
            Writeback::start(vec![File::Plain(early.clone()), File::Plain(late.clone())]);
        let chunk = vec![7u8; 1 << 20];
        let mut out = std::fs::OpenOptions::new()
            .append(true)
            .open(&early)
            .unwrap();
        for round in 0..4 {
            std::io::Write::write_all(&mut out, &chunk).unwrap();
            if round == 1 {
                std::fs::write(&late, &chunk).unwrap();
            }
            std::thread::sleep(PERIOD);
        }
        drop(writeback);
        assert_eq!(std::fs::read(&early).unwrap(), vec![7u8; 4 << 20]);
        assert_eq!(std::fs::read(&late).unwrap(), chunk);
    }
}

/// Another process reading the database while this one writes: Python's
/// SQLite client, so in the opt-in suite only.
#[cfg(all(test, feature = "full-tests"))]
mod other_process {
    use std::path::Path;

    use crate::Store;

    /// Runs Python's sqlite3 on the database `db` in a process of its own
    /// (so the opt-in suite only: Python is needed):
    /// `code` sees it as `c`; returns what it prints.
    fn python_sqlite(db: &Path, code: &str) -> String {
        let script = format!("import sqlite3\nc = sqlite3.connect({db:?})\n{code}\nc.close()\n");
        let out = std::process::Command::new("python3")
            .args(["-c", &script])
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn writeback_keeps_sqlite_locks_so_another_process_cannot_drop_the_log() {
        // Closing any descriptor of the database would drop this process's
        // locks on it: a reader elsewhere would then take itself for the last
        // user and delete the write-ahead log under our live connection, and
        // what we commit next would be lost.
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let db = store.db_path();
        store
            .db()
            .execute("INSERT INTO meta (key, value) VALUES ('before', '1')", [])
            .unwrap();
        let writeback = store.start_writeback();
        // Let it open the files (it does at once) and issue a round.
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(writeback);
        python_sqlite(&db, "c.execute('SELECT count(*) FROM meta').fetchone()");
        store
            .db()
            .execute("INSERT INTO meta (key, value) VALUES ('after', '1')", [])
            .unwrap();
        let seen = python_sqlite(
            &db,
            "print(c.execute(\"SELECT count(*) FROM meta WHERE key IN ('before', 'after')\").fetchone()[0])",
        );
        assert_eq!(seen.trim(), "2");
    }
}
