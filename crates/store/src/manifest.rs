//! Revision manifests (path → blob, unit), stored so that revisions share
//! what they have in common.
//!
//! A manifest is split by directory: the files directly in one directory,
//! sorted by name, encoded as one *chunk* and stored once by content digest.
//! A revision holds one row per directory naming its chunk. A commit that
//! changes three files in two directories adds two chunks and a row per
//! directory, instead of a row per file of the repository.
//!
//! Chunk encoding (little-endian): `u32` entry count, then per entry a `u16`
//! name length, the UTF-8 name, the 20-byte blob id and the `i64` unit id.

use refscope_syntax::Digest128;
use rusqlite::{Connection, OptionalExtension, params};

use crate::blob::BlobId;

/// A file of an indexed revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Repository-relative path.
    pub path: String,
    /// Content id.
    pub blob_id: BlobId,
    /// The unit holding its qualified elements.
    pub unit_id: i64,
}

/// A chunk that does not decode: the store is damaged.
#[derive(Debug)]
pub(crate) struct BadChunk;

/// Writes the manifest of revision `revision_id`: `files` as (path, blob,
/// unit), in any order.
pub(crate) fn write_manifest<'p>(
    tx: &rusqlite::Transaction,
    revision_id: i64,
    files: impl IntoIterator<Item = (&'p str, BlobId, i64)>,
) -> rusqlite::Result<()> {
    let mut by_dir: std::collections::BTreeMap<&str, Vec<(&str, BlobId, i64)>> = Default::default();
    for (path, blob_id, unit) in files {
        let (dir, name) = split_path(path);
        by_dir.entry(dir).or_default().push((name, blob_id, unit));
    }
    let mut find = tx.prepare_cached("SELECT id FROM manifest_chunks WHERE digest = ?1")?;
    let mut insert =
        tx.prepare_cached("INSERT INTO manifest_chunks (digest, entries) VALUES (?1, ?2)")?;
    let mut link = tx.prepare_cached(
        "INSERT INTO revision_dirs (revision_id, dir, chunk_id) VALUES (?1, ?2, ?3)",
    )?;
    for (dir, mut entries) in by_dir {
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let bytes = encode(&entries);
        let mut digest = Digest128::new(b"manifest chunk");
        digest.write(&bytes);
        let digest = digest.finish();
        let chunk = match find
            .query_row(params![&digest[..]], |r| r.get::<_, i64>(0))
            .optional()?
        {
            Some(id) => id,
            None => {
                insert.execute(params![&digest[..], bytes])?;
                tx.last_insert_rowid()
            }
        };
        link.execute(params![revision_id, dir, chunk])?;
    }
    Ok(())
}

/// Removes the manifest rows of a revision (chunks stay: other revisions
/// may share them).
pub(crate) fn delete_manifest(
    tx: &rusqlite::Transaction,
    revision_id: i64,
) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM revision_dirs WHERE revision_id = ?1",
        params![revision_id],
    )?;
    Ok(())
}

/// Every file of a revision, sorted by path.
pub(crate) fn read_manifest(
    db: &Connection,
    revision_id: i64,
) -> rusqlite::Result<Result<Vec<FileEntry>, BadChunk>> {
    let mut statement = db.prepare_cached(
        "SELECT d.dir, c.entries FROM revision_dirs d JOIN manifest_chunks c ON c.id = d.chunk_id \
         WHERE d.revision_id = ?1",
    )?;
    let mut rows = statement.query(params![revision_id])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let dir: String = row.get(0)?;
        let bytes = row.get_ref(1)?.as_blob()?;
        if decode(&dir, bytes, &mut out).is_err() {
            return Ok(Err(BadChunk));
        }
    }
    out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(Ok(out))
}

/// One file of a revision, if it has it.
pub(crate) fn read_file(
    db: &Connection,
    revision_id: i64,
    path: &str,
) -> rusqlite::Result<Result<Option<FileEntry>, BadChunk>> {
    let (dir, _) = split_path(path);
    let bytes: Option<Vec<u8>> = db
        .prepare_cached(
            "SELECT c.entries FROM revision_dirs d JOIN manifest_chunks c ON c.id = d.chunk_id \
             WHERE d.revision_id = ?1 AND d.dir = ?2",
        )?
        .query_row(params![revision_id, dir], |r| r.get(0))
        .optional()?;
    let Some(bytes) = bytes else {
        return Ok(Ok(None));
    };
    let mut entries = Vec::new();
    if decode(dir, &bytes, &mut entries).is_err() {
        return Ok(Err(BadChunk));
    }
    Ok(Ok(entries.into_iter().find(|entry| entry.path == path)))
}

/// `a/b/C.java` → (`a/b`, `C.java`); a top-level file's directory is ``.
fn split_path(path: &str) -> (&str, &str) {
    match path.rsplit_once('/') {
        Some((dir, name)) => (dir, name),
        None => ("", path),
    }
}

fn encode(entries: &[(&str, BlobId, i64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + entries.len() * 64);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (name, blob_id, unit) in entries {
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&blob_id.0);
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out
}

fn decode(dir: &str, bytes: &[u8], out: &mut Vec<FileEntry>) -> Result<(), BadChunk> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], BadChunk> {
        let slice = bytes.get(at..at + n).ok_or(BadChunk)?;
        at += n;
        Ok(slice)
    };
    let count = u32::from_le_bytes(take(4)?.try_into().map_err(|_| BadChunk)?);
    for _ in 0..count {
        let len = u16::from_le_bytes(take(2)?.try_into().map_err(|_| BadChunk)?) as usize;
        let name = std::str::from_utf8(take(len)?).map_err(|_| BadChunk)?;
        let path = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        let blob_id = BlobId(take(20)?.try_into().map_err(|_| BadChunk)?);
        let unit_id = i64::from_le_bytes(take(8)?.try_into().map_err(|_| BadChunk)?);
        out.push(FileEntry {
            path,
            blob_id,
            unit_id,
        });
    }
    if at == bytes.len() {
        Ok(())
    } else {
        Err(BadChunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip_and_reject_damage() {
        let blob = BlobId([7; 20]);
        let bytes = encode(&[("A.java", blob, 3), ("Bé.java", blob, -1)]);
        let mut out = Vec::new();
        decode("p/q", &bytes, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                FileEntry {
                    path: "p/q/A.java".into(),
                    blob_id: blob,
                    unit_id: 3
                },
                FileEntry {
                    path: "p/q/Bé.java".into(),
                    blob_id: blob,
                    unit_id: -1
                },
            ]
        );
        for cut in 0..bytes.len() {
            assert!(
                decode("", &bytes[..cut], &mut Vec::new()).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode("", &longer, &mut Vec::new()).is_err());
        assert_eq!(split_path("Top.java"), ("", "Top.java"));
    }
}
