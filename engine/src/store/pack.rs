//! The blob pack: an append-only file of per-file facts, content-addressed
//! by git blob id, read through a memory map and validated on every read.
//!
//! Record layout (little-endian), each record starting at a multiple of 16:
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | magic `RSF1` |
//! | 4 | payload length |
//! | 4 | CRC-32 of the payload |
//! | 4 | reserved, zero |
//! | 20 | git blob id |
//! | 12 | padding to 48 |
//! | n | payload: [`FileFacts`] archived with rkyv |
//! | 0–15 | padding to the next multiple of 16 |
//!
//! Offsets and lengths live in SQLite; bytes past the last committed record
//! (left by a run that died before committing) are cut off by the next
//! writer.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rkyv::rancor;

use crate::error::Error;
use crate::facts::{ArchivedFileFacts, Element, FileFacts, Import};
use crate::source::BlobId;

const MAGIC: &[u8; 4] = b"RSF1";
const HEADER_LEN: u64 = 48;
const ALIGN: u64 = 16;

/// Where a record is in the pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackLocation {
    /// Offset of the record header.
    pub offset: u64,
    /// Length of the payload.
    pub len: u64,
}

/// Serializes facts into an aligned payload, for a file of `source_len`
/// bytes. The buffer starts at the size facts usually come to (1.5 times
/// their source: the JDK's 202 MB of sources give 294 MB of facts), so it
/// seldom grows: growing by doubling copied about nine times per file.
pub fn encode_facts(facts: &FileFacts, source_len: usize) -> rkyv::util::AlignedVec {
    let buffer = rkyv::util::AlignedVec::with_capacity(source_len + source_len / 2);
    rkyv::api::high::to_bytes_in::<_, rancor::Error>(facts, buffer)
        .expect("facts serialize: they hold only plain data")
}

/// Appends records to the pack.
pub struct PackWriter {
    path: PathBuf,
    out: BufWriter<File>,
    position: u64,
}

impl PackWriter {
    /// Opens the pack for appending at `committed_len`, cutting off anything
    /// after it.
    pub fn open(path: &Path, committed_len: u64) -> Result<Self, Error> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let actual = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if actual < committed_len {
            return Err(Error::Corrupt {
                path: path.parent().unwrap_or(path).to_path_buf(),
                message: format!(
                    "blob pack is {actual} bytes but the database references {committed_len}"
                ),
            });
        }
        if actual > committed_len {
            file.set_len(committed_len)
                .map_err(|e| Error::io(path, e))?;
        }
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.seek(SeekFrom::Start(committed_len))
            .map_err(|e| Error::io(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            out,
            position: committed_len,
        })
    }

    /// Appends one record and returns where it is.
    pub fn append(&mut self, blob_id: &BlobId, payload: &[u8]) -> Result<PackLocation, Error> {
        let offset = self.position;
        debug_assert_eq!(offset % ALIGN, 0);
        let mut header = [0u8; HEADER_LEN as usize];
        header[0..4].copy_from_slice(MAGIC);
        header[4..8].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        header[8..12].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
        header[16..36].copy_from_slice(&blob_id.0);
        let padding = (ALIGN - (payload.len() as u64 % ALIGN)) % ALIGN;
        let io = |e| Error::io(&self.path, e);
        self.out.write_all(&header).map_err(io)?;
        self.out.write_all(payload).map_err(io)?;
        self.out
            .write_all(&[0u8; ALIGN as usize][..padding as usize])
            .map_err(io)?;
        self.position += HEADER_LEN + payload.len() as u64 + padding;
        Ok(PackLocation {
            offset,
            len: payload.len() as u64,
        })
    }

    /// Flushes and syncs everything appended; returns the new length.
    pub fn finish(mut self) -> Result<u64, Error> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| Error::io(&self.path, e))?;
        Ok(self.position)
    }
}

thread_local! {
    /// The bytes of the record last read on this thread by an unmapped
    /// reader ([`PackReader::open_unmapped`]), aligned like a map so the
    /// payload (after a 16-aligned header) is too. It keeps the size of the
    /// largest record read.
    static READ_BUFFER: std::cell::RefCell<rkyv::util::AlignedVec<16>> =
        std::cell::RefCell::new(rkyv::util::AlignedVec::new());
}

/// A read-only view of the pack.
pub struct PackReader {
    path: PathBuf,
    bytes: PackBytes,
}

enum PackBytes {
    Mapped(Mmap),
    /// Fallback where mapping fails (some network file systems); the
    /// buffer is 16-aligned like a map would be.
    Read(rkyv::util::AlignedVec),
    /// Records read one at a time ([`PackReader::open_unmapped`]).
    Unmapped(File),
}

impl PackReader {
    /// Maps the pack file.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self {
                    path: path.to_path_buf(),
                    bytes: PackBytes::Read(rkyv::util::AlignedVec::new()),
                });
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        // SAFETY: the pack is append-only while any reader may have it
        // mapped: writers only append, and the one truncation (of bytes no
        // committed record references) happens under the store's write
        // lock, beyond every offset a reader can have read from the
        // database. Every read below is bounds-checked against the map and
        // validated (CRC and rkyv's bytecheck) before use, so a file changed
        // behind our back yields an error, not undefined behaviour of our
        // own making.
        let bytes = match unsafe { Mmap::map(&file) } {
            Ok(map) => PackBytes::Mapped(map),
            Err(_) => {
                let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
                let mut aligned = rkyv::util::AlignedVec::with_capacity(data.len());
                aligned.extend_from_slice(&data);
                PackBytes::Read(aligned)
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            bytes,
        })
    }

    /// A reader that reads each record from the file when asked, without
    /// mapping the pack: for a pass over many records, such as a full
    /// index, which reads every record two or three times. Mapped, every
    /// page read would stay in the process's resident memory (about
    /// 300 MiB for the JDK) until the reader is dropped.
    pub fn open_unmapped(path: &Path) -> Result<Self, Error> {
        match File::open(path) {
            Ok(file) => Ok(Self {
                path: path.to_path_buf(),
                bytes: PackBytes::Unmapped(file),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                path: path.to_path_buf(),
                bytes: PackBytes::Read(rkyv::util::AlignedVec::new()),
            }),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Calls `read` with the validated archived facts of `blob_id`'s record
    /// at `at`.
    fn with_archived<R>(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
        read: impl FnOnce(&ArchivedFileFacts) -> R,
    ) -> Result<R, Error> {
        let corrupt = |message: String| Error::Corrupt {
            path: self.path.parent().unwrap_or(&self.path).to_path_buf(),
            message,
        };
        let start = at.offset as usize;
        let end = start
            .saturating_add(HEADER_LEN as usize)
            .saturating_add(at.len as usize);
        let outside = || {
            corrupt(format!(
                "record of blob {blob_id} at offset {start} lies outside the blob pack"
            ))
        };
        if !start.is_multiple_of(ALIGN as usize) {
            return Err(outside());
        }
        match &self.bytes {
            PackBytes::Mapped(map) => {
                let record = map.get(start..end).ok_or_else(outside)?;
                self.validated(blob_id, at, record, read)
            }
            PackBytes::Read(vec) => {
                let record = vec.get(start..end).ok_or_else(outside)?;
                self.validated(blob_id, at, record, read)
            }
            PackBytes::Unmapped(file) => READ_BUFFER.with(|buffer| {
                use std::os::unix::fs::FileExt;
                // A record's bytes are read into this thread's buffer: a
                // fresh zeroed allocation per record cost more than the read
                // (large ones come as new pages from the system each time).
                // A nested read on this thread gets a buffer of its own.
                let mut own = None;
                let mut shared = buffer.try_borrow_mut();
                let buffer = match &mut shared {
                    Ok(buffer) => &mut **buffer,
                    Err(_) => own.insert(rkyv::util::AlignedVec::<16>::new()),
                };
                if buffer.len() < end - start {
                    buffer.resize(end - start, 0);
                }
                let record = &mut buffer[..end - start];
                file.read_exact_at(record, at.offset)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::UnexpectedEof => outside(),
                        _ => Error::io(&self.path, e),
                    })?;
                self.validated(blob_id, at, record, read)
            }),
        }
    }

    /// Checks `record` (header and payload) against what the database says
    /// is at `at`, then calls `read` with its archived facts.
    fn validated<R>(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
        record: &[u8],
        read: impl FnOnce(&ArchivedFileFacts) -> R,
    ) -> Result<R, Error> {
        let corrupt = |message: String| Error::Corrupt {
            path: self.path.parent().unwrap_or(&self.path).to_path_buf(),
            message,
        };
        let start = at.offset;
        let (header, payload) = record.split_at(HEADER_LEN as usize);
        let stored_len = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes")) as u64;
        let stored_crc = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        if &header[0..4] != MAGIC || stored_len != at.len || header[16..36] != blob_id.0 {
            return Err(corrupt(format!(
                "record header of blob {blob_id} at offset {start} does not match"
            )));
        }
        if crc32fast::hash(payload) != stored_crc {
            return Err(corrupt(format!(
                "record of blob {blob_id} at offset {start} fails its checksum"
            )));
        }
        let archived = rkyv::access::<ArchivedFileFacts, rancor::Error>(payload)
            .map_err(|e| corrupt(format!("record of blob {blob_id} does not validate: {e}")))?;
        Ok(read(archived))
    }

    /// The declarations of a record: package, imports and elements, without
    /// reference sites, locals or the line table. Much cheaper than
    /// [`Self::facts`] where only names are needed.
    pub fn declarations(&self, blob_id: &BlobId, at: PackLocation) -> Result<FileFacts, Error> {
        let deserialize_error = |e: rancor::Error| Error::Corrupt {
            path: self.path.parent().unwrap_or(&self.path).to_path_buf(),
            message: format!("record of blob {blob_id} does not deserialize: {e}"),
        };
        self.with_archived(blob_id, at, |archived| {
            Ok(FileFacts {
                package: rkyv::deserialize::<Option<String>, rancor::Error>(&archived.package)
                    .map_err(deserialize_error)?,
                imports: rkyv::deserialize::<Vec<Import>, rancor::Error>(&archived.imports)
                    .map_err(deserialize_error)?,
                elements: rkyv::deserialize::<Vec<Element>, rancor::Error>(&archived.elements)
                    .map_err(deserialize_error)?,
                n_lines: archived.n_lines.to_native(),
                ..FileFacts::default()
            })
        })?
    }

    /// The facts of a record, deserialized.
    pub fn facts(&self, blob_id: &BlobId, at: PackLocation) -> Result<FileFacts, Error> {
        self.with_archived(blob_id, at, |archived| {
            rkyv::deserialize::<FileFacts, rancor::Error>(archived)
                .expect("validated archives deserialize")
        })
    }
}
