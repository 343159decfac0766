//! What a revision indexed from scratch makes its layers of — each file's
//! declared class keys and the names it looked up — set aside in a file
//! while the files are resolved, and read back once the resolution's
//! memory is freed: held in memory, the JDK's came to about 9 MB at the
//! peak of the index.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use refscope_store::BulkLayer;

use crate::error::Error;

/// Each file's keys and lookups, appended to an unnamed file.
pub(super) struct LayerSpill {
    dir: PathBuf,
    out: BufWriter<File>,
}

impl LayerSpill {
    /// A spill in directory `dir` (the store's), gone when dropped or when
    /// the process ends.
    pub(super) fn new(dir: &Path) -> Result<Self, Error> {
        let file = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
        })
    }

    /// Sets aside path number `path`'s class keys and the names it looked
    /// up, each list sorted and as
    /// [`encode_names`](refscope_store::encode_names) writes it.
    pub(super) fn add(&mut self, path: u32, keys: &[u8], deps: &[u8]) -> Result<(), Error> {
        let mut record = Vec::with_capacity(12 + keys.len() + deps.len());
        record.extend_from_slice(&path.to_le_bytes());
        record.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        record.extend_from_slice(&(deps.len() as u32).to_le_bytes());
        record.extend_from_slice(keys);
        record.extend_from_slice(deps);
        self.out
            .write_all(&record)
            .map_err(|e| Error::io(&self.dir, e))
    }

    /// Reads everything back into `symbols` (keys) and `lookups` (names
    /// looked up), whose path numbers `add` was given.
    pub(super) fn read_into(
        self,
        symbols: &mut BulkLayer,
        lookups: &mut BulkLayer,
    ) -> Result<(), Error> {
        let io = |e| Error::io(&self.dir, e);
        let mut file = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let damaged = || {
            Error::io(
                &self.dir,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the layer spill file reads back differently",
                ),
            )
        };
        let mut at = 0;
        while at < bytes.len() {
            let header = bytes.get(at..at + 12).ok_or_else(damaged)?;
            let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
            let (path, n_keys, n_deps) = (word(0), word(4) as usize, word(8) as usize);
            at += 12;
            let keys = bytes.get(at..at + n_keys).ok_or_else(damaged)?;
            at += n_keys;
            let deps = bytes.get(at..at + n_deps).ok_or_else(damaged)?;
            at += n_deps;
            symbols.add_encoded(path, keys).map_err(|_| damaged())?;
            lookups.add_encoded(path, deps).map_err(|_| damaged())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use refscope_store::{BulkLayer, LayerKind, encode_names};

    use super::LayerSpill;

    #[test]
    fn a_spill_reads_back_into_the_layers_it_was_made_for() {
        let files: [(&str, &[&str], &[&str]); 3] = [
            (
                "a/A.java",
                &["p.A", "p.A$In"],
                &["java.lang.String", "p.B", "p.Missing"],
            ),
            ("b/B.java", &["p.B"], &[]),
            ("c/C.java", &[], &["java.lang.String", "p.A"]),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut spill = LayerSpill::new(dir.path()).unwrap();
        let (mut symbols, mut lookups) = (BulkLayer::default(), BulkLayer::default());
        let (mut direct_symbols, mut direct_lookups) = (BulkLayer::default(), BulkLayer::default());
        for (path, keys, deps) in files {
            let n = symbols.add_path(path);
            lookups.add_path(path);
            direct_symbols.add_path(path);
            direct_lookups.add_path(path);
            spill
                .add(n, &encode_names(keys), &encode_names(deps))
                .unwrap();
            direct_symbols.add(n, keys);
            direct_lookups.add(n, deps);
        }
        spill.read_into(&mut symbols, &mut lookups).unwrap();
        assert_eq!(
            symbols.encode(LayerKind::Symbols),
            direct_symbols.encode(LayerKind::Symbols)
        );
        assert_eq!(
            lookups.encode(LayerKind::Lookups),
            direct_lookups.encode(LayerKind::Lookups)
        );
        // Nothing is left beside the store.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
