//! Where a store's bytes are: its files, the database's tables and
//! indexes, and the pack by kind of record. What `refscope stats` prints;
//! the figures a smaller store format is measured by.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::chain::LayerChain;
use crate::error::Error;
use crate::layers::LayerKind;
use crate::open::{Store, allocated};
use crate::pack::{PackReader, record_end};

/// A store's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreStats {
    /// Every file of the store directory, largest first.
    pub files: Vec<FileBytes>,
    /// The database's tables and indexes, largest first.
    pub objects: Vec<ObjectBytes>,
    /// The database's page size.
    pub page_size: u64,
    /// Bytes of the database's free pages.
    pub free_bytes: u64,
    /// The pack's records and sections.
    pub pack: PackStats,
}

/// A file of the store directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileBytes {
    pub name: String,
    /// Its length.
    pub bytes: u64,
    /// What the file system holds for it (less than its length where a
    /// prune gave ranges of the pack back).
    pub allocated: u64,
}

/// A table or index of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectBytes {
    pub name: String,
    /// `table` or `index` (an index SQLite makes itself is an `index`).
    pub kind: String,
    /// The table it belongs to (itself for a table).
    pub table: String,
    /// Bytes of its pages.
    pub bytes: u64,
    /// Bytes of what its rows store, without page overhead.
    pub payload: u64,
}

/// The pack, by kind of record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackStats {
    /// The pack's length as the database last committed it.
    pub bytes: u64,
    /// Full records of files' facts: how many, their bytes, and of those
    /// the declarations parts.
    pub records: u64,
    pub record_bytes: u64,
    pub declarations_bytes: u64,
    /// Records stored as a delta over another record.
    pub deltas: u64,
    pub delta_bytes: u64,
    /// Layers of revisions' symbol tables and dependency indexes: how
    /// many distinct ones the revisions' chains reach, and their bytes.
    pub symbol_layers: u64,
    pub symbol_layer_bytes: u64,
    pub lookup_layers: u64,
    pub lookup_layer_bytes: u64,
    /// What nothing refers to any more: layers merged away, records of
    /// removed revisions whose space was not given back, padding.
    pub other_bytes: u64,
}

impl Store {
    /// Where this store's bytes are. Reads every blob's record header and
    /// every revision's layer chains; the database's figures come from
    /// SQLite's `dbstat`.
    pub fn stats(&self) -> Result<StoreStats, Error> {
        let mut files = Vec::new();
        let entries = std::fs::read_dir(self.dir()).map_err(|e| Error::io(self.dir(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(self.dir(), e))?;
            let meta = entry.metadata().map_err(|e| Error::io(&entry.path(), e))?;
            if !meta.is_file() {
                continue;
            }
            files.push(FileBytes {
                name: entry.file_name().to_string_lossy().into_owned(),
                bytes: meta.len(),
                allocated: allocated(&meta),
            });
        }
        files.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
        let (objects, page_size, free_bytes) = self.database_stats()?;
        Ok(StoreStats {
            files,
            objects,
            page_size,
            free_bytes,
            pack: self.pack_stats()?,
        })
    }

    fn database_stats(&self) -> Result<(Vec<ObjectBytes>, u64, u64), Error> {
        let db = self.db();
        let pragma = |name: &str| -> Result<u64, Error> {
            db.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
                .map(|n| n.max(0) as u64)
                .map_err(|e| self.sqlite_error(e))
        };
        let page_size = pragma("page_size")?;
        let free_bytes = pragma("freelist_count")? * page_size;
        let mut select = db
            .prepare(
                "SELECT d.name, coalesce(s.type, 'table'), coalesce(s.tbl_name, d.name), \
                        d.pgsize, d.payload \
                 FROM dbstat AS d LEFT JOIN sqlite_schema AS s ON s.name = d.name \
                 WHERE d.aggregate = TRUE",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = select
            .query_map([], |r| {
                Ok(ObjectBytes {
                    name: r.get(0)?,
                    kind: r.get(1)?,
                    table: r.get(2)?,
                    bytes: r.get::<_, i64>(3)?.max(0) as u64,
                    payload: r.get::<_, i64>(4)?.max(0) as u64,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        let mut objects = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sqlite_error(e))?;
        for object in &mut objects {
            // SQLite's own indexes (a primary key's, a UNIQUE column's)
            // have no row of their own in older schemas' listings.
            if object.name.starts_with("sqlite_autoindex_") {
                object.kind = "index".to_string();
            }
        }
        objects.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
        Ok((objects, page_size, free_bytes))
    }

    fn pack_stats(&self) -> Result<PackStats, Error> {
        let mut stats = PackStats {
            bytes: self.committed_pack_len()?,
            ..PackStats::default()
        };
        let path = self.pack_path();
        if !path.exists() {
            return Ok(stats);
        }
        let pack = Arc::new(PackReader::open(&path)?);
        let locations = self.blob_locations()?;
        for at in locations {
            let (bytes, delta) = pack.record_bytes(at)?;
            if delta {
                stats.deltas += 1;
                stats.delta_bytes += bytes;
            } else {
                stats.records += 1;
                stats.record_bytes += bytes;
                stats.declarations_bytes += at.declarations_len.min(at.len);
            }
        }
        let mut symbols = BTreeSet::new();
        let mut lookups = BTreeSet::new();
        for revision in self.revisions()? {
            for (kind, top, seen) in [
                (LayerKind::Symbols, revision.symbols, &mut symbols),
                (LayerKind::Lookups, revision.lookups, &mut lookups),
            ] {
                // A revision indexed without the incremental data has none.
                if top.len == 0 || seen.contains(&(top.offset, top.len)) {
                    continue;
                }
                let chain = LayerChain::read(&pack, kind, top)?;
                seen.extend(chain.locations().map(|at| (at.offset, at.len)));
            }
        }
        let layer_bytes = |layers: &BTreeSet<(u64, u64)>| {
            layers
                .iter()
                .map(|&(offset, len)| {
                    record_end(crate::PackLocation {
                        offset,
                        len,
                        declarations_len: 0,
                    }) - offset
                })
                .sum::<u64>()
        };
        stats.symbol_layers = symbols.len() as u64;
        stats.symbol_layer_bytes = layer_bytes(&symbols);
        stats.lookup_layers = lookups.len() as u64;
        stats.lookup_layer_bytes = layer_bytes(&lookups);
        stats.other_bytes = stats.bytes.saturating_sub(
            stats.record_bytes
                + stats.delta_bytes
                + stats.symbol_layer_bytes
                + stats.lookup_layer_bytes,
        );
        Ok(stats)
    }
}

impl Store {
    /// Where every blob's record is in the pack.
    fn blob_locations(&self) -> Result<Vec<crate::PackLocation>, Error> {
        let mut select = self
            .db()
            .prepare("SELECT pack_offset, pack_len, declarations_len FROM blobs")
            .map_err(|e| self.sqlite_error(e))?;
        let rows = select
            .query_map([], |r| {
                Ok(crate::PackLocation {
                    offset: r.get::<_, i64>(0)? as u64,
                    len: r.get::<_, i64>(1)? as u64,
                    declarations_len: r.get::<_, i64>(2)? as u64,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
