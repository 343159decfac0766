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
//! Elsewhere than on Linux, it does nothing.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often writeback is started.
const PERIOD: Duration = Duration::from_millis(100);

/// Starts writeback of some files every [`PERIOD`] until dropped.
pub struct Writeback {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Writeback {
    /// Starts writeback of `paths`, each opened when it first exists.
    pub fn start(paths: Vec<PathBuf>) -> Self {
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
                let mut files: Vec<(PathBuf, Option<std::fs::File>)> =
                    paths.into_iter().map(|path| (path, None)).collect();
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(PERIOD) {
                    for (path, file) in &mut files {
                        if file.is_none() {
                            *file = std::fs::File::open(&*path).ok();
                        }
                        if let Some(file) = file {
                            start_writeback(file);
                        }
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
        let writeback = Writeback::start(vec![early.clone(), late.clone()]);
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
