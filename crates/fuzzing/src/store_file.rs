//! `store_file`: a whole store whose database or pack was changed on disk
//! — bytes overwritten, the file cut short — opened and read through every
//! kind of answer: the export of each revision (every file's facts and
//! references) and queries that walk the reference index, the hierarchy
//! and the layers.
//!
//! The pack checks a CRC-32 on every record it reads, so most changes to
//! it stop there. An input may ask for the checksums to be made right
//! again after its changes, as a file changed by someone who knew the
//! format would be: then the bytes reach the decoders behind the checks
//! (rkyv's validation, the layers, the delta decompression).
//!
//! Input: one flags byte (bit 0: change the pack, else the database; bit
//! 1: repair the pack's checksums), then changes, each a 4-byte
//! little-endian offset (taken modulo the file's length), a length byte
//! and that many bytes to write there; a length of 0 cuts the file at the
//! offset.

use std::path::PathBuf;
use std::sync::OnceLock;

use refscope_engine::{Snapshot, Store};
use refscope_query::export::{ExportConfig, export};
use refscope_query::lang::{Evaluator, run};

use crate::fixture;

const DATABASE: &str = "refscope.sqlite";
const PACK: &str = "facts.pack";

/// Queries that read the store in different ways.
const QUERIES: &[&str] = &[
    "com.acme.shop.Money#plus | callers depth 3",
    "com.acme.shop.Priced | subtypes",
    "com.acme.shop.Order#total | callees",
    "types in com.acme.shop | members | count",
    "src/main/java/com/acme/shop/Order.java:12 | refs",
];

/// How many revisions are read.
const MAX_REVISIONS: usize = 3;

/// The fixture store's files as indexed, and where changed copies go.
struct Pristine {
    files: Vec<(String, Vec<u8>)>,
    scratch: PathBuf,
}

fn pristine() -> &'static Pristine {
    static PRISTINE: OnceLock<Pristine> = OnceLock::new();
    PRISTINE.get_or_init(|| {
        let dir = &fixture::shop().store_dir;
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).expect("the fixture's store") {
            let entry = entry.expect("a directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            // The lock and SQLite's shared-memory index belong to the
            // processes that have the store open.
            if name == "write.lock" || name.ends_with("-shm") {
                continue;
            }
            let bytes = std::fs::read(entry.path()).expect("a store file reads");
            files.push((name, bytes));
        }
        files.sort();
        assert!(
            files.iter().any(|(name, _)| name == DATABASE)
                && files.iter().any(|(name, _)| name == PACK),
            "the fixture's store has a database and a pack"
        );
        let scratch = tempfile::tempdir().expect("a temporary directory").keep();
        Pristine { files, scratch }
    })
}

/// Writes the fixture's store with the changes of `data` and reads it.
pub fn store_file(data: &[u8]) {
    write_and_read(data);
}

/// [`store_file`]: how many reads answered and how many were tried.
fn write_and_read(data: &[u8]) -> (usize, usize) {
    let Some((&flags, changes)) = data.split_first() else {
        return (0, 0);
    };
    let pristine = pristine();
    let target = if flags & 1 == 1 { PACK } else { DATABASE };
    let scratch = tempfile::tempdir_in(&pristine.scratch).expect("a scratch store directory");
    for (name, bytes) in &pristine.files {
        let mut bytes = bytes.clone();
        if name == target {
            apply(&mut bytes, changes);
            if target == PACK && flags & 2 == 2 {
                repair_checksums(&mut bytes);
            }
        }
        std::fs::write(scratch.path().join(name), bytes).expect("a scratch store file");
    }
    read_everything(scratch.path())
}

/// Applies the changes of `changes` to `bytes`.
fn apply(bytes: &mut Vec<u8>, mut changes: &[u8]) {
    while changes.len() >= 5 && !bytes.is_empty() {
        let offset = u32::from_le_bytes(changes[..4].try_into().expect("4 bytes")) as usize;
        let offset = offset % bytes.len();
        let len = usize::from(changes[4]);
        changes = &changes[5..];
        if len == 0 {
            bytes.truncate(offset);
            continue;
        }
        let written = &changes[..len.min(changes.len())];
        changes = &changes[written.len()..];
        let end = (offset + written.len()).min(bytes.len());
        bytes[offset..end].copy_from_slice(&written[..end - offset]);
    }
}

/// Rewrites the CRC-32 of every record of the pack that still starts with
/// a record magic, as `facts.pack`'s layout says (see the store crate's
/// `pack.rs`): the payload's at bytes 8..12 of the 48-byte header, and for
/// a file record the declarations part's at 36..40.
fn repair_checksums(pack: &mut [u8]) {
    const HEADER: usize = 48;
    let word = |bytes: &[u8], at: usize| {
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize
    };
    let mut offset = 0;
    while offset + HEADER <= pack.len() {
        let magic = &pack[offset..offset + 4];
        if ![&b"RSF2"[..], b"RSD1", b"RSS1"].contains(&magic) {
            offset += 16;
            continue;
        }
        let is_file = magic == b"RSF2";
        let start = offset + HEADER;
        let end = start.saturating_add(word(pack, offset + 4)).min(pack.len());
        let crc = crc32fast::hash(&pack[start..end]);
        pack[offset + 8..offset + 12].copy_from_slice(&crc.to_le_bytes());
        if is_file {
            let declarations_end = start.saturating_add(word(pack, offset + 12)).min(end);
            let crc = crc32fast::hash(&pack[start..declarations_end]);
            pack[offset + 36..offset + 40].copy_from_slice(&crc.to_le_bytes());
        }
        offset = (end + 15) & !15;
    }
}

/// Reads every revision of the store in `dir` every way the harness
/// knows: how many reads answered and how many were tried.
fn read_everything(dir: &std::path::Path) -> (usize, usize) {
    let mut answered = 0;
    let mut tried = 1;
    let Ok(store) = Store::open_existing(dir) else {
        return (answered, tried);
    };
    let Ok(revisions) = store.revisions() else {
        return (answered, tried);
    };
    answered += 1;
    let config = ExportConfig {
        decls: true,
        refs: true,
        under: None,
    };
    for row in revisions.into_iter().take(MAX_REVISIONS) {
        tried += 1 + QUERIES.len();
        let Ok(snapshot) = Snapshot::new(&store, row.clone()) else {
            continue;
        };
        answered += usize::from(export(&snapshot, &config, &mut std::io::sink()).is_ok());
        let Ok(snapshot) = Snapshot::new(&store, row) else {
            continue;
        };
        let evaluator = Evaluator::new(&store, None, snapshot);
        for query in QUERIES {
            answered += usize::from(run(&evaluator, query).is_ok());
        }
    }
    (answered, tried)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store as indexed, written out by the harness.
    fn unchanged(flags: u8) -> (usize, usize) {
        write_and_read(&[flags])
    }

    #[test]
    fn an_unchanged_store_answers_every_read() {
        let (answered, tried) = unchanged(0);
        assert_eq!(answered, tried);
        assert_eq!(tried, 1 + 1 + QUERIES.len(), "one revision is read");
    }

    #[test]
    fn repairing_the_checksums_of_an_unchanged_pack_changes_nothing() {
        let (_, pack) = pristine()
            .files
            .iter()
            .find(|(name, _)| name == PACK)
            .unwrap();
        let mut repaired = pack.clone();
        repair_checksums(&mut repaired);
        assert!(repaired == *pack, "the repair rewrote a correct checksum");
        let (answered, tried) = unchanged(3);
        assert_eq!(answered, tried);
    }

    #[test]
    fn a_repaired_change_reaches_past_the_checksums() {
        // A record's payload changed: without the repair its checksum
        // fails; with it, the bytes reach the decoders.
        let (_, pack) = pristine()
            .files
            .iter()
            .find(|(name, _)| name == PACK)
            .unwrap();
        let mut changed = pack.clone();
        let payload_byte = 48 + 20;
        changed[payload_byte] ^= 0xff;
        let mut repaired = changed.clone();
        repair_checksums(&mut repaired);
        assert_ne!(
            repaired[8..12],
            changed[8..12],
            "the first record's checksum is rewritten"
        );
    }

    #[test]
    fn changes_overwrite_and_cut() {
        let mut bytes = vec![0u8; 10];
        apply(&mut bytes, &[12, 0, 0, 0, 2, 7, 7, 4, 0, 0, 0, 0]);
        assert_eq!(bytes, [0, 0, 7, 7]);
    }
}
