//! The write lock: one process writes a store at a time, and others
//! wait for it or learn who holds it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::LOCK_FILE;
use crate::error::Error;
/// Takes the write lock of the store in `dir`, calling `on_wait` with the
/// holder's pid first if another process has it, then waiting.
pub(crate) fn lock_for_writing(dir: &Path, on_wait: impl FnOnce(&str)) -> Result<WriteLock, Error> {
    let path = dir.join(LOCK_FILE);
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
    // Written only when another pid is there: cutting a file and writing
    // it again makes some file systems (ext4's `auto_da_alloc`) flush it
    // on close, which waits behind any sync under way, and a range of
    // commits takes the lock once per commit.
    let pid = std::process::id().to_string();
    let mut holder = String::new();
    let _ = file.read_to_string(&mut holder);
    if holder != pid {
        file.set_len(0).map_err(|e| Error::io(&path, e))?;
        file.seek(std::io::SeekFrom::Start(0))
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(pid.as_bytes())
            .map_err(|e| Error::io(&path, e))?;
    }
    Ok(WriteLock { _file: file })
}

/// Waits until the process holding the write lock of the store in `dir`
/// lets go of it (at once when none does).
pub(crate) fn wait_for_writer(dir: &Path) {
    if let Ok(lock) = File::open(dir.join(LOCK_FILE)) {
        let _ = lock.lock_shared();
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

/// A SQLite error about the database at `path`. A database kept busy past
/// the busy timeout while another process holds the store's write lock is
/// that process at work (a store's first index keeps readers out until it
/// commits): [`Error::Locked`], with its pid.
pub(crate) fn sqlite_error(path: &Path, source: rusqlite::Error) -> Error {
    let busy = matches!(
        &source,
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy
    );
    if busy
        && let Some(dir) = path.parent()
        && let Some(pid) = other_writer(dir)
    {
        return Error::Locked {
            path: dir.to_path_buf(),
            pid,
        };
    }
    Error::sqlite(path, source)
}
