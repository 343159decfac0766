//! Zip archives (jars, jmods) read with positional reads through a
//! buffer of each reader's own: clones of an opened archive share one file
//! and read at the same time without a lock, and seeking within what was
//! read ahead costs no system call.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

/// How much an archive reader reads at once: most class files fit whole.
const ARCHIVE_READ_AHEAD: usize = 16 << 10;

/// Opens the zip archive that starts `header_len` bytes into the file at
/// `path` (a jmod has a 4-byte header).
pub(crate) fn open_zip(path: &Path, header_len: u64) -> io::Result<zip::ZipArchive<ArchiveReader>> {
    let file = File::open(path)?;
    let file_len = file.metadata()?.len();
    let len = file_len.checked_sub(header_len).ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidData, "not a zip archive: too short")
    })?;
    let reader = ArchiveReader {
        file: Arc::new(file),
        start: header_len,
        len,
        position: 0,
        buffer: Vec::new(),
        buffer_at: 0,
    };
    zip::ZipArchive::new(reader).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Reads a region of a file with positional reads, so clones share one
/// open file and read at the same time without a lock. It reads ahead into
/// a buffer of its own; a clone starts with an empty one.
pub(crate) struct ArchiveReader {
    file: Arc<File>,
    /// Where the region starts in the file.
    start: u64,
    /// The region's length.
    len: u64,
    /// The read position, relative to `start`.
    position: u64,
    buffer: Vec<u8>,
    /// The position of `buffer[0]`.
    buffer_at: u64,
}

impl Clone for ArchiveReader {
    fn clone(&self) -> Self {
        Self {
            file: Arc::clone(&self.file),
            start: self.start,
            len: self.len,
            position: self.position,
            buffer: Vec::new(),
            buffer_at: 0,
        }
    }
}

impl Read for ArchiveReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.position >= self.len {
            return Ok(0);
        }
        let remaining = self.len - self.position;
        let is_buffered = self
            .position
            .checked_sub(self.buffer_at)
            .is_some_and(|offset| offset < self.buffer.len() as u64);
        if !is_buffered {
            if out.len() >= ARCHIVE_READ_AHEAD {
                let want = remaining.min(out.len() as u64) as usize;
                let n = read_at(&self.file, &mut out[..want], self.start + self.position)?;
                self.position += n as u64;
                return Ok(n);
            }
            let want = remaining.min(ARCHIVE_READ_AHEAD as u64) as usize;
            self.buffer.resize(want, 0);
            let n = read_at(&self.file, &mut self.buffer, self.start + self.position)?;
            self.buffer.truncate(n);
            self.buffer_at = self.position;
            if n == 0 {
                return Ok(0);
            }
        }
        let offset = (self.position - self.buffer_at) as usize;
        let available = &self.buffer[offset..];
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for ArchiveReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(delta) => self.len.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the archive",
            )
        })?;
        Ok(self.position)
    }
}

#[cfg(unix)]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, out, offset)
}

#[cfg(windows)]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    // Moves the file's cursor, which no reader relies on.
    std::os::windows::fs::FileExt::seek_read(file, out, offset)
}

#[cfg(not(any(unix, windows)))]
fn read_at(_file: &File, _out: &mut [u8], _offset: u64) -> io::Result<usize> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "positional reads are not supported on this platform",
    ))
}
