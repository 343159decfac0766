//! The blob pack: an append-only file of per-file facts, content-addressed
//! by git blob id, read through a memory map and validated on every read.
//!
//! Record layout (little-endian), each record starting at a multiple of 16:
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | magic `RSF2` |
//! | 4 | payload length |
//! | 4 | CRC-32 of the payload |
//! | 4 | length of the payload's declarations part |
//! | 20 | git blob id |
//! | 4 | CRC-32 of the declarations part |
//! | 8 | padding to 48 |
//! | n | payload: the declarations part, zeros to a multiple of 16, the body part |
//! | 0–15 | padding to the next multiple of 16 |
//!
//! The two parts of a payload are each a [`FileFacts`]' fields archived
//! with rkyv: the declarations part holds the package, imports, elements
//! and line count, all that signatures and the type universe read
//! ([`PackReader::declarations`]), and is read, checked and validated
//! without the rest; the body part holds the reference sites and the rest.
//! A file that a commit changed may instead have a delta record (magic
//! `RSD1`, see `delta.rs`): the same payload, compressed over the record of
//! its previous version, and decompressed whole when read. Layers are
//! sections (magic `RSS1`, [`PackReader::section`]).
//!
//! Offsets and lengths live in SQLite; bytes past the last committed record
//! (left by a run that died before committing) are cut off by the next
//! writer.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rkyv::rancor;

use crate::blob::BlobId;
use crate::delta::{self, DELTA_MAGIC};
use crate::error::Error;
use refscope_syntax::facts::{
    Diagnostics, Element, Expr, FileFacts, Import, LineRun, LocalVar, Note, RefSite,
};

pub(crate) const MAGIC: &[u8; 4] = b"RSF2";
pub(crate) const SECTION_MAGIC: &[u8; 4] = b"RSS1";
pub(crate) const HEADER_LEN: u64 = 48;
pub(crate) const ALIGN: u64 = 16;

/// Where a record is in the pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackLocation {
    /// Offset of the record header.
    pub offset: u64,
    /// Length of the payload.
    pub len: u64,
    /// Length of the payload's declarations part, which comes first.
    pub declarations_len: u64,
}

/// The fields of [`FileFacts`] that [`PackReader::declarations`] reads.
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
struct DeclarationsPart {
    package: Option<String>,
    imports: Vec<Import>,
    elements: Vec<Element>,
    n_lines: u32,
}

/// The other fields of [`FileFacts`].
#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize, Default)]
struct BodyPart {
    ref_sites: Vec<RefSite>,
    locals: Vec<LocalVar>,
    exprs: Vec<Expr>,
    returns: Vec<(u32, u32)>,
    line_runs: Vec<LineRun>,
    line_owners: Vec<u32>,
    diagnostics: Diagnostics,
    notes: Vec<Note>,
}

/// The facts whose parts these are; a declarations read passes an empty
/// body. (The inverse of the split in [`encode_facts`].)
fn join(declarations: DeclarationsPart, body: BodyPart) -> FileFacts {
    let DeclarationsPart {
        package,
        imports,
        elements,
        n_lines,
    } = declarations;
    let BodyPart {
        ref_sites,
        locals,
        exprs,
        returns,
        line_runs,
        line_owners,
        diagnostics,
        notes,
    } = body;
    FileFacts {
        package,
        imports,
        elements,
        ref_sites,
        locals,
        exprs,
        returns,
        line_runs,
        line_owners,
        n_lines,
        diagnostics,
        notes,
    }
}

/// A record's payload ([`encode_facts`]), ready for [`PackWriter::append`](crate::PackWriter::append).
pub struct EncodedFacts {
    bytes: rkyv::util::AlignedVec,
    declarations_len: usize,
}

impl EncodedFacts {
    /// The payload.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether it is empty (it never is: a record has its parts' headers).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The length of its declarations part.
    pub(crate) fn declarations_len(&self) -> usize {
        self.declarations_len
    }
}

/// Where the body part starts, after a declarations part of `len` bytes.
pub(crate) fn body_start(declarations_len: usize) -> usize {
    declarations_len.next_multiple_of(ALIGN as usize)
}

/// Serializes facts into an aligned payload, for a file of `source_len`
/// bytes. The buffer starts at the size facts usually come to (1.5 times
/// their source: the JDK's 202 MB of sources give 294 MB of facts), so it
/// seldom grows: growing by doubling copied about nine times per file.
pub fn encode_facts(facts: FileFacts, source_len: usize) -> EncodedFacts {
    // Every field goes to one part or the other: a new field fails here.
    let FileFacts {
        package,
        imports,
        elements,
        ref_sites,
        locals,
        exprs,
        returns,
        line_runs,
        line_owners,
        n_lines,
        diagnostics,
        notes,
    } = facts;
    let declarations = DeclarationsPart {
        package,
        imports,
        elements,
        n_lines,
    };
    let body = BodyPart {
        ref_sites,
        locals,
        exprs,
        returns,
        line_runs,
        line_owners,
        diagnostics,
        notes,
    };
    let serialize_error = "facts serialize: they hold only plain data";
    let buffer = rkyv::util::AlignedVec::with_capacity(source_len + source_len / 2);
    let mut bytes = rkyv::api::high::to_bytes_in::<_, rancor::Error>(&declarations, buffer)
        .expect(serialize_error);
    let declarations_len = bytes.len();
    // Relative pointers make an archive valid wherever it starts, given
    // its alignment: the body part is archived after the first.
    bytes.resize(body_start(declarations_len), 0);
    let bytes =
        rkyv::api::high::to_bytes_in::<_, rancor::Error>(&body, bytes).expect(serialize_error);
    EncodedFacts {
        bytes,
        declarations_len,
    }
}

/// Where the record or section at `at` ends in the pack: after its
/// header, its payload and the padding to the next record.
pub(crate) fn record_end(at: PackLocation) -> u64 {
    at.offset + HEADER_LEN + at.len.next_multiple_of(ALIGN)
}

/// Gives the file system back the space of the byte `ranges` of the pack
/// at `path` (a hole reads as zeros; the file keeps its length, so every
/// other record stays where it is). Fails where the file system cannot
/// punch holes.
#[cfg(target_os = "linux")]
pub(crate) fn free_ranges(path: &Path, ranges: &[std::ops::Range<u64>]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let file = OpenOptions::new().write(true).open(path)?;
    for range in ranges.iter().filter(|r| r.end > r.start) {
        let (Ok(start), Ok(len)) = (
            libc::off_t::try_from(range.start),
            libc::off_t::try_from(range.end - range.start),
        ) else {
            return Err(std::io::Error::other(
                "pack range beyond the file system's offsets",
            ));
        };
        // SAFETY: fallocate takes a descriptor we own for the call and
        // plain integers; it touches no memory of ours.
        let done = unsafe {
            libc::fallocate(
                file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                start,
                len,
            )
        };
        if done != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn free_ranges(_path: &Path, _ranges: &[std::ops::Range<u64>]) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
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
    /// The mapped file's device, inode and creation time (nanoseconds
    /// since the epoch: an inode number is reused once its file is
    /// removed), which name its sections in [`CHECKED_SECTIONS`].
    file_id: Option<(u64, u64, u128)>,
}

/// A section of a file: the file (see [`PackReader::file_id`]), its
/// offset, length and the checksum its header gives.
type SectionKey = ((u64, u64, u128), u64, u64, u32);

/// Sections whose checksum this process has checked. A revision's layers
/// are read by every later commit of a range or a `watch`, and checking
/// the full layers each time (tens of megabytes faulted in and hashed)
/// was a tenth of a small commit's time. Sections never change where
/// they are (see [`PackReader::open`]): a section removed since reads as
/// zeros and fails its header check.
static CHECKED_SECTIONS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashSet<SectionKey>>,
> = std::sync::LazyLock::new(Default::default);

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
                    file_id: None,
                });
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        let file_id = {
            use std::os::unix::fs::MetadataExt;
            file.metadata().ok().and_then(|m| {
                let created = m
                    .created()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?;
                Some((m.dev(), m.ino(), created.as_nanos()))
            })
        };
        // SAFETY: the pack keeps its records where they are while any
        // reader may have it mapped: writers only append; the one
        // truncation (of bytes no committed record references) happens
        // under the store's write lock, beyond every offset a reader can
        // have read from the database; and removing revisions punches holes
        // (zeros, the length unchanged) only where no remaining revision
        // has a record. Every read below is bounds-checked against the map and
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
            file_id,
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
                file_id: None,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                path: path.to_path_buf(),
                bytes: PackBytes::Read(rkyv::util::AlignedVec::new()),
                file_id: None,
            }),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Calls `read` with the payload of `blob_id`'s record at `at`, or
    /// with its declarations part alone, once the header matches `at` and
    /// the bytes their checksum.
    pub(crate) fn with_payload<R>(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
        part: Part,
        read: impl FnOnce(&[u8]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let start = at.offset as usize;
        let wanted = match part {
            Part::Whole => at.len,
            Part::Declarations => at.declarations_len.min(at.len),
        };
        let end = start
            .saturating_add(HEADER_LEN as usize)
            .saturating_add(wanted as usize);
        let outside = || {
            self.corrupt(format!(
                "record of blob {blob_id} at offset {start} lies outside the blob pack"
            ))
        };
        if !start.is_multiple_of(ALIGN as usize) {
            return Err(outside());
        }
        // A delta record (see delta.rs) is decompressed whole.
        let is_delta = |bytes: &[u8]| bytes.get(start..start + 4) == Some(&DELTA_MAGIC[..]);
        match &self.bytes {
            PackBytes::Mapped(map) if is_delta(map) => {
                read(part.of(&self.delta_payload(blob_id, at)?, at))
            }
            PackBytes::Read(vec) if is_delta(vec) => {
                read(part.of(&self.delta_payload(blob_id, at)?, at))
            }
            PackBytes::Mapped(map) => {
                let record = map.get(start..end).ok_or_else(outside)?;
                read(self.checked(blob_id, at, part, record)?)
            }
            PackBytes::Read(vec) => {
                let record = vec.get(start..end).ok_or_else(outside)?;
                read(self.checked(blob_id, at, part, record)?)
            }

            PackBytes::Unmapped(file) => READ_BUFFER.with(|buffer| {
                use std::os::unix::fs::FileExt;
                // A `read` that reads the pack again on this thread gets a
                // buffer of its own.
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
                // A delta record's stored payload may be shorter than the
                // part wanted, up to the end of the file.
                let delta = match file.read_exact_at(record, at.offset) {
                    Ok(()) => record[0..4] == DELTA_MAGIC[..],
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                        if self.header_at(at.offset)?[0..4] != DELTA_MAGIC[..] {
                            return Err(outside());
                        }
                        true
                    }
                    Err(e) => return Err(Error::io(&self.path, e)),
                };
                if delta {
                    return read(part.of(&self.delta_payload(blob_id, at)?, at));
                }
                read(self.checked(blob_id, at, part, record)?)
            }),
        }
    }

    /// The payload of `record` (header and payload, or header and
    /// declarations part), once its header matches what the database says
    /// is at `at` and the bytes their checksum.
    fn checked<'r>(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
        part: Part,
        record: &'r [u8],
    ) -> Result<&'r [u8], Error> {
        let start = at.offset;
        let (header, payload) = record.split_at(HEADER_LEN as usize);
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        if &header[0..4] != MAGIC
            || u64::from(word(4)) != at.len
            || u64::from(word(12)) != at.declarations_len
            || at.declarations_len > at.len
            || header[16..36] != blob_id.0
        {
            return Err(self.corrupt(format!(
                "record header of blob {blob_id} at offset {start} does not match"
            )));
        }
        let stored_crc = match part {
            Part::Whole => word(8),
            Part::Declarations => word(36),
        };
        if crc32fast::hash(payload) != stored_crc {
            return Err(self.corrupt(format!(
                "record of blob {blob_id} at offset {start} fails its checksum"
            )));
        }
        Ok(payload)
    }

    /// The payload of the section of `kind` at `at` (see
    /// [`PackWriter::append_section`](crate::PackWriter::append_section)), checked against its header and
    /// checksum; `what` names it in errors. Borrowed from the map when the
    /// pack is mapped.
    pub fn section(
        &self,
        kind: u32,
        at: PackLocation,
        what: &str,
    ) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        self.read_section(kind, at, what, true)
    }

    /// [`Self::section`] without the checksum, for a section whose
    /// checksum was checked before by this reader: a mapped section read
    /// again and again.
    pub fn section_again(
        &self,
        kind: u32,
        at: PackLocation,
        what: &str,
    ) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        self.read_section(kind, at, what, false)
    }

    fn read_section(
        &self,
        kind: u32,
        at: PackLocation,
        what: &str,
        checksum: bool,
    ) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        let start = at.offset as usize;
        let end = start
            .saturating_add(HEADER_LEN as usize)
            .saturating_add(at.len as usize);
        let outside = || self.corrupt(format!("{what} at offset {start} lies outside the pack"));
        if !start.is_multiple_of(ALIGN as usize) {
            return Err(outside());
        }
        let record: std::borrow::Cow<'_, [u8]> = match &self.bytes {
            PackBytes::Mapped(map) => map.get(start..end).ok_or_else(outside)?.into(),
            PackBytes::Read(vec) => vec.get(start..end).ok_or_else(outside)?.into(),
            PackBytes::Unmapped(file) => {
                use std::os::unix::fs::FileExt;
                let mut bytes = vec![0u8; end - start];
                file.read_exact_at(&mut bytes, at.offset)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::UnexpectedEof => outside(),
                        _ => Error::io(&self.path, e),
                    })?;
                bytes.into()
            }
        };
        let header = &record[..HEADER_LEN as usize];
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        if &header[0..4] != SECTION_MAGIC || u64::from(word(4)) != at.len || word(12) != kind {
            return Err(self.corrupt(format!(
                "the header of {what} at offset {start} does not match"
            )));
        }
        if checksum {
            let key = self.file_id.map(|file| (file, at.offset, at.len, word(8)));
            let checked = |key| {
                CHECKED_SECTIONS
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .contains(&key)
            };
            if !key.is_some_and(checked) {
                if crc32fast::hash(&record[HEADER_LEN as usize..]) != word(8) {
                    return Err(
                        self.corrupt(format!("{what} at offset {start} fails its checksum"))
                    );
                }
                if let Some(key) = key {
                    CHECKED_SECTIONS
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(key);
                }
            }
        }
        Ok(match record {
            std::borrow::Cow::Borrowed(bytes) => bytes[HEADER_LEN as usize..].into(),
            std::borrow::Cow::Owned(mut bytes) => {
                bytes.drain(..HEADER_LEN as usize);
                bytes.into()
            }
        })
    }

    /// `bytes` validated as an archived `T`.
    fn access<'b, T>(&self, blob_id: &BlobId, bytes: &'b [u8]) -> Result<&'b T, Error>
    where
        T: rkyv::Portable
            + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, rancor::Error>>,
    {
        rkyv::access::<T, rancor::Error>(bytes)
            .map_err(|e| self.corrupt(format!("record of blob {blob_id} does not validate: {e}")))
    }

    /// `len` bytes of the pack from `offset`, borrowed from the map when
    /// it is mapped; `what` names them in errors.
    pub(crate) fn read_range(
        &self,
        offset: u64,
        len: usize,
        what: &str,
    ) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        let outside = || self.corrupt(format!("{what} at offset {offset} lies outside the pack"));
        let start = usize::try_from(offset).map_err(|_| outside())?;
        let end = start.checked_add(len).ok_or_else(outside)?;
        match &self.bytes {
            PackBytes::Mapped(map) => Ok(map.get(start..end).ok_or_else(outside)?.into()),
            PackBytes::Read(vec) => Ok(vec.get(start..end).ok_or_else(outside)?.into()),
            PackBytes::Unmapped(file) => {
                use std::os::unix::fs::FileExt;
                let mut bytes = vec![0u8; len];
                file.read_exact_at(&mut bytes, offset)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::UnexpectedEof => outside(),
                        _ => Error::io(&self.path, e),
                    })?;
                Ok(bytes.into())
            }
        }
    }

    pub(crate) fn corrupt(&self, message: String) -> Error {
        Error::Corrupt {
            path: self.path.parent().unwrap_or(&self.path).to_path_buf(),
            message,
        }
    }

    /// The declarations of a record: package, imports and elements, without
    /// reference sites, locals or the line table. Much cheaper than
    /// [`Self::facts`] where only names are needed: only the record's
    /// declarations part is read.
    pub fn declarations(&self, blob_id: &BlobId, at: PackLocation) -> Result<FileFacts, Error> {
        self.with_payload(blob_id, at, Part::Declarations, |payload| {
            let archived = self.access::<ArchivedDeclarationsPart>(blob_id, payload)?;
            let declarations = rkyv::deserialize::<DeclarationsPart, rancor::Error>(archived)
                .expect("validated archives deserialize");
            let facts = join(declarations, BodyPart::default());
            facts
                .check_declarations()
                .map_err(|e| self.does_not_hold(blob_id, e))?;
            Ok(facts)
        })
    }

    /// The facts of a record, deserialized.
    pub fn facts(&self, blob_id: &BlobId, at: PackLocation) -> Result<FileFacts, Error> {
        self.with_payload(blob_id, at, Part::Whole, |payload| {
            let declarations_len = at.declarations_len as usize;
            let body = payload.get(body_start(declarations_len)..).ok_or_else(|| {
                self.corrupt(format!("record of blob {blob_id} has no body part"))
            })?;
            let declarations =
                self.access::<ArchivedDeclarationsPart>(blob_id, &payload[..declarations_len])?;
            let body = self.access::<ArchivedBodyPart>(blob_id, body)?;
            let declarations = rkyv::deserialize::<DeclarationsPart, rancor::Error>(declarations)
                .expect("validated archives deserialize");
            let body = rkyv::deserialize::<BodyPart, rancor::Error>(body)
                .expect("validated archives deserialize");
            let facts = join(declarations, body);
            facts.check().map_err(|e| self.does_not_hold(blob_id, e))?;
            Ok(facts)
        })
    }

    /// Facts whose indices do not hold (see [`FileFacts::check`]): bytes
    /// that validate as an archive may still point outside their lists.
    fn does_not_hold(&self, blob_id: &BlobId, bad: refscope_syntax::BadFacts) -> Error {
        self.corrupt(format!("record of blob {blob_id} does not hold: {bad}"))
    }
}

/// A file's new facts compressed over an earlier record (see `delta.rs`),
/// made where the file was parsed, for [`PackWriter::append_delta`](crate::PackWriter::append_delta).
pub struct DeltaFrame {
    pub(crate) base_offset: u64,
    pub(crate) frame: Vec<u8>,
}

/// Delta records (see `delta.rs`): their chains, read through any record.
impl PackReader {
    /// `encoded` compressed over the record at `base` (a previous version
    /// of the same file), when that pays: the chain under it stays within
    /// [`MAX_DELTA_DEPTH`](crate::MAX_DELTA_DEPTH) and the frame is at most
    /// half the payload. `None`: store it as a full record.
    pub fn delta_over(
        &self,
        base: PackLocation,
        encoded: &EncodedFacts,
    ) -> Result<Option<DeltaFrame>, Error> {
        let (payload, depth) = self.raw_payload(base.offset, 0)?;
        if depth >= delta::MAX_DELTA_DEPTH {
            return Ok(None);
        }
        Ok(
            delta::compress(&payload, encoded.bytes()).map(|frame| DeltaFrame {
                base_offset: base.offset,
                frame,
            }),
        )
    }

    /// The payload of the delta record at `at`, decompressed and aligned;
    /// its header must say what the database says is there.
    fn delta_payload(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
    ) -> Result<rkyv::util::AlignedVec<16>, Error> {
        let header = self.header_at(at.offset)?;
        let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
        if &header[0..4] != DELTA_MAGIC
            || u64::from(word(4)) != at.len
            || u64::from(word(12)) != at.declarations_len
            || header[16..36] != blob_id.0
            || at.declarations_len as usize > delta::payload_len(&header)
        {
            return Err(self.corrupt(format!(
                "delta record header of blob {blob_id} at offset {} does not match",
                at.offset
            )));
        }
        let (payload, _) = self.raw_payload(at.offset, 0)?;
        let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(payload.len());
        aligned.extend_from_slice(&payload);
        Ok(aligned)
    }

    /// The records the record at `at` is compressed over, nearest first
    /// (none for a full record): a prune must keep them with it.
    pub(crate) fn delta_bases(&self, at: PackLocation) -> Result<Vec<PackLocation>, Error> {
        let mut bases = Vec::new();
        let mut offset = at.offset;
        loop {
            let header = self.header_at(offset)?;
            if &header[0..4] != DELTA_MAGIC {
                return Ok(bases);
            }
            let base = delta::base_offset(&header);
            if base >= offset || bases.len() as u32 >= delta::MAX_READ_DEPTH {
                return Err(self.corrupt(format!(
                    "delta record at offset {offset} names a base at {base}"
                )));
            }
            let base_header = self.header_at(base)?;
            let len = u32::from_le_bytes(base_header[4..8].try_into().expect("4 bytes"));
            bases.push(PackLocation {
                offset: base,
                len: u64::from(len),
                declarations_len: 0,
            });
            offset = base;
        }
    }

    /// The 48-byte header of the record at `offset`.
    pub(crate) fn header_at(&self, offset: u64) -> Result<[u8; HEADER_LEN as usize], Error> {
        let bytes = self.read_range(offset, HEADER_LEN as usize, "record header")?;
        Ok(bytes[..].try_into().expect("a header's length"))
    }

    /// The payload of the record at `offset` (full or delta), decompressed,
    /// checked against its checksum, with the length of the chain under it.
    fn raw_payload(&self, offset: u64, depth: u32) -> Result<(Cow<'_, [u8]>, u32), Error> {
        if !offset.is_multiple_of(ALIGN) || depth > delta::MAX_READ_DEPTH {
            return Err(self.corrupt(format!("no record at offset {offset}")));
        }
        let header = self.header_at(offset)?;
        let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
        let stored = self.read_range(offset + HEADER_LEN, word(4) as usize, "record")?;
        if crc32fast::hash(&stored) != word(8) {
            return Err(self.corrupt(format!("record at offset {offset} fails its checksum")));
        }
        if &header[0..4] == MAGIC {
            return Ok((stored, 0));
        }
        let base = delta::base_offset(&header);
        if &header[0..4] != DELTA_MAGIC || base >= offset {
            return Err(self.corrupt(format!("no record at offset {offset}")));
        }
        let (base_payload, base_depth) = self.raw_payload(base, depth + 1)?;
        match delta::decompress(&base_payload, &stored, delta::payload_len(&header)) {
            Some(payload) => Ok((payload.into(), base_depth + 1)),
            None => Err(self.corrupt(format!(
                "delta record at offset {offset} does not decompress"
            ))),
        }
    }
}

/// Which bytes of a record a read needs.
#[derive(Clone, Copy)]
pub(crate) enum Part {
    /// The whole payload.
    Whole,
    /// Its declarations part.
    Declarations,
}

impl Part {
    /// This part of the whole `payload` of the record at `at`.
    fn of(self, payload: &[u8], at: PackLocation) -> &[u8] {
        match self {
            Part::Whole => payload,
            Part::Declarations => &payload[..at.declarations_len as usize],
        }
    }
}
