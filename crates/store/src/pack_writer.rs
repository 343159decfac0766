//! Appending to the blob pack (see `pack.rs` for its records, `delta.rs`
//! for the records stored over an earlier one).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::blob::BlobId;
use crate::delta;
use crate::error::Error;
use crate::pack::{
    ALIGN, DeltaFrame, EncodedFacts, HEADER_LEN, MAGIC, PackLocation, SECTION_MAGIC,
};

/// Appends records to the pack.
pub struct PackWriter {
    path: PathBuf,
    out: BufWriter<File>,
    position: u64,
}

impl crate::open::Store {
    /// Cuts the pack back to its committed length: what a run that failed
    /// appended after it is referenced by nothing. The caller holds the
    /// write lock.
    pub fn discard_uncommitted_pack(&self) -> Result<(), Error> {
        // Opening a writer at the committed length cuts off the rest.
        PackWriter::open(&self.pack_path(), self.committed_pack_len()?).map(drop)
    }
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
    pub fn append(
        &mut self,
        blob_id: &BlobId,
        encoded: &EncodedFacts,
    ) -> Result<PackLocation, Error> {
        let payload = encoded.bytes();
        let declarations = &payload[..encoded.declarations_len()];
        let offset = self.position;
        debug_assert_eq!(offset % ALIGN, 0);
        let mut header = [0u8; HEADER_LEN as usize];
        header[0..4].copy_from_slice(MAGIC);
        header[4..8].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        header[8..12].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
        header[12..16].copy_from_slice(&(declarations.len() as u32).to_le_bytes());
        header[16..36].copy_from_slice(&blob_id.0);
        header[36..40].copy_from_slice(&crc32fast::hash(declarations).to_le_bytes());
        self.write_record(&header, payload)?;
        Ok(PackLocation {
            offset,
            len: payload.len() as u64,
            declarations_len: declarations.len() as u64,
        })
    }

    /// Appends `encoded` as the delta `delta` made of it
    /// ([`PackReader::delta_over`](crate::PackReader::delta_over)); where
    /// it is.
    pub fn append_delta(
        &mut self,
        blob_id: &BlobId,
        encoded: &EncodedFacts,
        delta: &DeltaFrame,
    ) -> Result<PackLocation, Error> {
        let header = delta::header(
            blob_id,
            &delta.frame,
            encoded.bytes().len(),
            encoded.declarations_len(),
            delta.base_offset,
        );
        let offset = self.write_record(&header, &delta.frame)?;
        Ok(PackLocation {
            offset,
            len: delta.frame.len() as u64,
            declarations_len: encoded.declarations_len() as u64,
        })
    }

    /// Writes a record's header and payload and pads to the next record;
    /// where the record starts.
    pub(crate) fn write_record(
        &mut self,
        header: &[u8; HEADER_LEN as usize],
        payload: &[u8],
    ) -> Result<u64, Error> {
        self.write_record_pieces(header, std::iter::once(payload))
    }

    /// [`Self::write_record`] of a payload given as the pieces it is made
    /// of, in order.
    fn write_record_pieces<'p>(
        &mut self,
        header: &[u8; HEADER_LEN as usize],
        payload: impl Iterator<Item = &'p [u8]>,
    ) -> Result<u64, Error> {
        let offset = self.position;
        let io = |e| Error::io(&self.path, e);
        self.out.write_all(header).map_err(io)?;
        let mut len = 0;
        for piece in payload {
            self.out.write_all(piece).map_err(io)?;
            len += piece.len() as u64;
        }
        let padding = (ALIGN - (len % ALIGN)) % ALIGN;
        self.out
            .write_all(&[0u8; ALIGN as usize][..padding as usize])
            .map_err(io)?;
        self.position += HEADER_LEN + len + padding;
        Ok(offset)
    }

    /// Appends a section: a record of the store's own (a layer of a
    /// revision's symbol table or dependency index, see `layers.rs`),
    /// with a header of magic `RSS1`, payload length, CRC-32 and `kind`.
    pub fn append_section(&mut self, kind: u32, payload: &[u8]) -> Result<PackLocation, Error> {
        self.append_section_pieces(kind, std::iter::once(payload))
    }

    /// [`Self::append_section`] of a payload given as the pieces it is
    /// made of, in order (walked twice: for the header, then to write).
    pub(crate) fn append_section_pieces<'p>(
        &mut self,
        kind: u32,
        payload: impl Iterator<Item = &'p [u8]> + Clone,
    ) -> Result<PackLocation, Error> {
        let mut crc = crc32fast::Hasher::new();
        let mut len = 0usize;
        for piece in payload.clone() {
            crc.update(piece);
            len += piece.len();
        }
        let mut header = [0u8; HEADER_LEN as usize];
        header[0..4].copy_from_slice(SECTION_MAGIC);
        header[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        header[8..12].copy_from_slice(&crc.finalize().to_le_bytes());
        header[12..16].copy_from_slice(&kind.to_le_bytes());
        let offset = self.write_record_pieces(&header, payload)?;
        Ok(PackLocation {
            offset,
            len: len as u64,
            declarations_len: 0,
        })
    }

    /// Flushes everything appended to the file; returns the new length.
    /// The bytes are not synced to disk here: the store syncs the pack
    /// before the database that refers to them is synced
    /// ([`Store::sync_pack`](crate::Store::sync_pack)).
    pub fn finish(mut self) -> Result<u64, Error> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta::MAX_DELTA_DEPTH;
    use crate::pack::{PackReader, body_start, encode_facts};
    use refscope_syntax::facts::FileFacts;

    const SOURCE: &str = "package p;\n\
        import java.util.List;\n\
        class A {\n\
            List<String> names;\n\
            int size() { return names.size(); }\n\
        }\n";

    /// A pack with one record of [`SOURCE`]'s facts, and the facts.
    fn one_record(dir: &Path) -> (PathBuf, BlobId, PackLocation, FileFacts) {
        let facts = refscope_syntax::extract(SOURCE.as_bytes());
        let blob_id = BlobId::of_bytes(SOURCE.as_bytes());
        let path = dir.join("facts.pack");
        let mut writer = PackWriter::open(&path, 0).unwrap();
        let at = writer
            .append(&blob_id, &encode_facts(facts.clone(), SOURCE.len()))
            .unwrap();
        writer.finish().unwrap();
        (path, blob_id, at, facts)
    }

    #[test]
    fn facts_and_declarations_read_back_from_their_parts() {
        let dir = tempfile::tempdir().unwrap();
        let (path, blob_id, at, facts) = one_record(dir.path());
        assert!(at.declarations_len > 0 && at.declarations_len < at.len);
        assert!(!facts.ref_sites.is_empty());
        let expected_declarations = FileFacts {
            package: facts.package.clone(),
            imports: facts.imports.clone(),
            elements: facts.elements.clone(),
            n_lines: facts.n_lines,
            ..FileFacts::default()
        };
        for reader in [
            PackReader::open(&path).unwrap(),
            PackReader::open_unmapped(&path).unwrap(),
        ] {
            assert_eq!(reader.facts(&blob_id, at).unwrap(), facts);
            assert_eq!(
                reader.declarations(&blob_id, at).unwrap(),
                expected_declarations
            );
        }
    }

    /// A record holds every name its facts spell, short or long, so that
    /// a record without a name rules its file out.
    #[test]
    fn a_record_holds_every_name_its_facts_spell() {
        let dir = tempfile::tempdir().unwrap();
        let (path, blob_id, at, facts) = one_record(dir.path());
        let spelled = |name: &str| {
            refscope_syntax::mentions::mentions_any(&facts, &[name.to_string()].into())
        };
        for reader in [
            PackReader::open(&path).unwrap(),
            PackReader::open_unmapped(&path).unwrap(),
        ] {
            let holds = |names: &[&str]| {
                reader
                    .holds_any(&blob_id, at, &crate::Needles::new(names.iter().copied()))
                    .unwrap()
            };
            for name in ["java", "util", "List", "A", "names", "size", "String"] {
                assert!(spelled(name), "{name}");
                assert!(holds(&[name]), "{name}");
            }
            for name in ["length", "Map", "B"] {
                assert!(!spelled(name), "{name}");
                assert!(!holds(&[name]), "{name}");
            }
            assert!(holds(&["length", "size"]));
            assert!(!holds(&[]));
            assert!(!holds(&[""]));
        }
    }

    #[test]
    fn facts_whose_indices_do_not_hold_are_refused() {
        // Written by a writer that knew the format (checksums right), with
        // a body whose site names an element the file does not have.
        let dir = tempfile::tempdir().unwrap();
        let mut facts = refscope_syntax::extract(SOURCE.as_bytes());
        facts.ref_sites[0].enclosing = facts.elements.len() as u32 + 3;
        let blob_id = BlobId::of_bytes(SOURCE.as_bytes());
        let path = dir.path().join("facts.pack");
        let mut writer = PackWriter::open(&path, 0).unwrap();
        let at = writer
            .append(&blob_id, &encode_facts(facts, SOURCE.len()))
            .unwrap();
        writer.finish().unwrap();
        let reader = PackReader::open(&path).unwrap();
        match reader.facts(&blob_id, at) {
            Err(Error::Corrupt { message, .. }) => {
                assert!(message.contains("reference site 0"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        // The declarations alone still hold.
        assert!(reader.declarations(&blob_id, at).is_ok());
    }

    #[test]
    fn each_part_is_checked_on_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (path, blob_id, at, _) = one_record(dir.path());
        let pristine = std::fs::read(&path).unwrap();
        let payload = (at.offset + HEADER_LEN) as usize;
        let flip = |at: usize| {
            let mut bytes = pristine.clone();
            bytes[at] ^= 0x5a;
            std::fs::write(&path, bytes).unwrap();
        };
        let is_corrupt = |r: Result<FileFacts, Error>| matches!(r, Err(Error::Corrupt { .. }));

        // A byte of the body: the whole facts fail, the declarations
        // (which do not include it) still read.
        flip(payload + body_start(at.declarations_len as usize) + 4);
        let reader = PackReader::open_unmapped(&path).unwrap();
        assert!(is_corrupt(reader.facts(&blob_id, at)));
        assert!(reader.declarations(&blob_id, at).is_ok());

        // A byte of the declarations: both fail.
        flip(payload + 4);
        let reader = PackReader::open_unmapped(&path).unwrap();
        assert!(is_corrupt(reader.facts(&blob_id, at)));
        assert!(is_corrupt(reader.declarations(&blob_id, at)));

        // A location whose declarations length disagrees with the header.
        std::fs::write(&path, &pristine).unwrap();
        let reader = PackReader::open_unmapped(&path).unwrap();
        let wrong = PackLocation {
            declarations_len: at.declarations_len - 16,
            ..at
        };
        assert!(is_corrupt(reader.declarations(&blob_id, wrong)));
        assert!(reader.declarations(&blob_id, at).is_ok());
    }

    fn java(n_methods: usize, edited: usize) -> String {
        let mut text = String::from("package p;\nclass A {\n");
        for i in 0..n_methods {
            let body = if i == edited {
                "return 2;"
            } else {
                "return 1;"
            };
            text.push_str(&format!("    int m{i}(int x) {{ {body} }}\n"));
        }
        text.push_str("}\n");
        text
    }

    fn append_versions(path: &Path, versions: &[String]) -> Vec<(BlobId, PackLocation)> {
        let mut out = Vec::new();
        let mut committed = 0;
        for text in versions {
            let facts = refscope_syntax::extract(text.as_bytes());
            let blob_id = BlobId::of_bytes(text.as_bytes());
            let encoded = encode_facts(facts, text.len());
            let delta = out.last().and_then(|&(_, at)| {
                PackReader::open(path)
                    .unwrap()
                    .delta_over(at, &encoded)
                    .unwrap()
            });
            let mut writer = PackWriter::open(path, committed).unwrap();
            let at = match &delta {
                Some(delta) => writer.append_delta(&blob_id, &encoded, delta).unwrap(),
                None => writer.append(&blob_id, &encoded).unwrap(),
            };
            committed = writer.finish().unwrap();
            out.push((blob_id, at));
        }
        out
    }

    #[test]
    fn versions_stored_over_each_other_read_back_whole_and_chains_stay_short() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("facts.pack");
        let versions: Vec<String> = (0..MAX_DELTA_DEPTH as usize + 3)
            .map(|edited| java(200, edited))
            .collect();
        let records = append_versions(&path, &versions);
        let reader = PackReader::open(&path).unwrap();
        for ((blob_id, at), text) in records.iter().zip(&versions) {
            let expected = refscope_syntax::extract(text.as_bytes());
            assert_eq!(reader.facts(blob_id, *at).unwrap(), expected);
            let declarations = reader.declarations(blob_id, *at).unwrap();
            assert_eq!(declarations.elements, expected.elements);
        }
        // The second version is a small delta over the first.
        assert!(records[1].1.len * 10 < records[0].1.len, "{records:?}");
        // No chain is longer than the bound: the record after it is full.
        let depths: Vec<usize> = records
            .iter()
            .map(|&(_, at)| reader.delta_bases(at).unwrap().len())
            .collect();
        assert_eq!(depths[..3], [0, 1, 2]);
        assert!(
            depths.iter().all(|&d| d <= MAX_DELTA_DEPTH as usize),
            "{depths:?}"
        );
        assert!(depths.contains(&(MAX_DELTA_DEPTH as usize)), "{depths:?}");
        assert_eq!(depths[MAX_DELTA_DEPTH as usize + 1], 0, "{depths:?}");
    }

    #[test]
    fn a_damaged_base_makes_its_deltas_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("facts.pack");
        let records = append_versions(&path, &[java(50, 0), java(50, 1)]);
        let mut bytes = std::fs::read(&path).unwrap();
        // A byte of the first (base) record's payload.
        bytes[HEADER_LEN as usize + 40] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let reader = PackReader::open(&path).unwrap();
        let (blob_id, at) = records[1];
        let error = reader.facts(&blob_id, at).unwrap_err().to_string();
        assert!(error.contains("checksum"), "{error}");
    }
}
