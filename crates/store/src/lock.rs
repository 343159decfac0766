//! The write lock: one process writes a store at a time, and others
//! wait for it or learn who holds it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

use crate::LOCK_FILE;
use crate::error::Error;
use crate::open::Store;

impl Store {
    /// Takes the write lock, calling `on_wait` with the holder's pid first
    /// if another process has it, then waiting.
    pub fn lock_for_writing(&self, on_wait: impl FnOnce(&str)) -> Result<WriteLock, Error> {
        let path = self.dir().join(LOCK_FILE);
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
}

/// Runs `open` until it meets no other process at work on the store
/// ([`Error::Locked`]), waiting for that process each time it does.
pub(crate) fn retry_after_writer(
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
