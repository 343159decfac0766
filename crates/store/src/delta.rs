//! Delta records: a changed file's facts stored compressed over the facts
//! of the file's previous version.
//!
//! A commit that edits a method changes a few bytes of its file's facts,
//! yet every version of the file needs its whole record. A delta record
//! keeps the new payload as a zstd frame made with the previous version's
//! payload as its dictionary (a raw-content prefix): on the generated JDK
//! histories the changed files' records shrink about thirtyfold, where
//! zstd alone gives four. A delta may be over another delta; the writer
//! keeps chains at most [`MAX_DELTA_DEPTH`] long, so a read decompresses at
//! most that many frames. A full index writes no deltas.
//!
//! Delta record layout (little-endian), beside the full records of
//! `pack.rs` and with the same 48-byte header size:
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | magic `RSD1` |
//! | 4 | stored (compressed) payload length |
//! | 4 | CRC-32 of the stored payload |
//! | 4 | length of the payload's declarations part |
//! | 20 | git blob id |
//! | 4 | payload length once decompressed |
//! | 8 | pack offset of the record it is compressed over (lower) |
//!
//! A base record stays in the pack as long as a delta over it does: a
//! prune keeps both (`PackReader::delta_bases` names them).

use std::cell::RefCell;

use crate::blob::BlobId;

/// The magic of a delta record.
pub(crate) const DELTA_MAGIC: &[u8; 4] = b"RSD1";

/// The longest chain of deltas the writer makes: a read decompresses at
/// most this many frames.
pub const MAX_DELTA_DEPTH: u32 = 8;

/// How far a reader follows a chain before calling the pack damaged (the
/// writer stops at [`MAX_DELTA_DEPTH`]; each base lies below its delta, so
/// a chain cannot loop).
pub(crate) const MAX_READ_DEPTH: u32 = 64;

/// zstd's level for deltas: the dictionary does the work, not the level.
const LEVEL: i32 = 3;

/// The header of a delta record of `blob_id` holding `frame`, a payload of
/// `len` bytes (`declarations_len` of them its declarations part) over the
/// record at `base_offset`.
pub(crate) fn header(
    blob_id: &BlobId,
    frame: &[u8],
    len: usize,
    declarations_len: usize,
    base_offset: u64,
) -> [u8; 48] {
    let mut header = [0u8; 48];
    header[0..4].copy_from_slice(DELTA_MAGIC);
    header[4..8].copy_from_slice(&(frame.len() as u32).to_le_bytes());
    header[8..12].copy_from_slice(&crc32fast::hash(frame).to_le_bytes());
    header[12..16].copy_from_slice(&(declarations_len as u32).to_le_bytes());
    header[16..36].copy_from_slice(&blob_id.0);
    header[36..40].copy_from_slice(&(len as u32).to_le_bytes());
    header[40..48].copy_from_slice(&base_offset.to_le_bytes());
    header
}

/// The offset of the record a delta record's header names as its base.
pub(crate) fn base_offset(header: &[u8; 48]) -> u64 {
    u64::from_le_bytes(header[40..48].try_into().expect("8 bytes"))
}

/// The payload length a delta record's header gives.
pub(crate) fn payload_len(header: &[u8; 48]) -> usize {
    u32::from_le_bytes(header[36..40].try_into().expect("4 bytes")) as usize
}

thread_local! {
    /// Each thread's compression and decompression contexts: making one
    /// costs more than a small delta (tables to clear, and the processor
    /// asked what it supports, a trap on a virtual machine).
    static CCTX: RefCell<Option<zstd::zstd_safe::CCtx<'static>>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<zstd::zstd_safe::DCtx<'static>>> = const { RefCell::new(None) };
}

/// `payload` as a zstd frame with `base` as its dictionary (raw content,
/// as a prefix), when the frame is at most half the payload (else a full
/// record pays better).
pub(crate) fn compress(base: &[u8], payload: &[u8]) -> Option<Vec<u8>> {
    let mut frame = vec![0u8; zstd::zstd_safe::compress_bound(payload.len())];
    let n = CCTX.with(|cctx| {
        let mut cctx = cctx.borrow_mut();
        let cctx = cctx.get_or_insert_with(zstd::zstd_safe::CCtx::create);
        cctx.compress_using_dict(&mut frame[..], payload, base, LEVEL)
            .ok()
    })?;
    (n <= payload.len() / 2).then(|| {
        frame.truncate(n);
        frame
    })
}

/// The `len` bytes `frame` holds over `base`; `None` when it does not
/// decompress to exactly that.
pub(crate) fn decompress(base: &[u8], frame: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut payload = vec![0u8; len];
    let n = DCTX.with(|dctx| {
        let mut dctx = dctx.borrow_mut();
        let dctx = dctx.get_or_insert_with(zstd::zstd_safe::DCtx::create);
        dctx.decompress_using_dict(&mut payload[..], frame, base)
            .ok()
    })?;
    (n == len).then_some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_comes_back_only_over_its_own_base() {
        let base: Vec<u8> = (0..20_000u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
        let mut payload = base.clone();
        payload[1234] ^= 1;
        payload.extend_from_slice(b"a few more bytes");
        let frame = compress(&base, &payload).expect("a small change compresses");
        assert!(frame.len() * 100 < payload.len(), "{}", frame.len());
        assert_eq!(
            decompress(&base, &frame, payload.len()),
            Some(payload.clone())
        );
        let mut other = base.clone();
        other[5000] ^= 0xff;
        assert_ne!(
            decompress(&other, &frame, payload.len()),
            Some(payload.clone())
        );
        assert_eq!(decompress(&base, &frame, payload.len() - 1), None);
        // Unrelated bytes do not pay as a delta.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 56) as u8
            })
            .collect();
        assert_eq!(compress(&base, &noise), None);
    }

    /// Stores hold frames made with `base` referenced as a prefix; read
    /// with `base` as a raw-content dictionary they come back the same.
    #[test]
    fn a_frame_made_over_a_prefix_comes_back() {
        let base: Vec<u8> = (0..30_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut payload = base.clone();
        payload[777] ^= 0x55;
        let mut frame = vec![0u8; zstd::zstd_safe::compress_bound(payload.len())];
        let mut cctx = zstd::zstd_safe::CCtx::create();
        let n = cctx
            .set_parameter(zstd::zstd_safe::CParameter::CompressionLevel(LEVEL))
            .and_then(|_| cctx.ref_prefix(&base))
            .and_then(|_| cctx.compress2(&mut frame[..], &payload))
            .unwrap();
        frame.truncate(n);
        assert_eq!(
            decompress(&base, &frame, payload.len()),
            Some(payload.clone())
        );
        // And a frame of this build reads over a prefix as before.
        let ours = compress(&base, &payload).unwrap();
        let mut back = vec![0u8; payload.len()];
        let mut dctx = zstd::zstd_safe::DCtx::create();
        let n = dctx
            .ref_prefix(&base)
            .and_then(|_| dctx.decompress(&mut back[..], &ours))
            .unwrap();
        assert_eq!(&back[..n], &payload[..]);
    }
}
