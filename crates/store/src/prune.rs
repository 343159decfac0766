//! Removing revisions, and everything no remaining revision uses.
//!
//! Revisions share almost everything: manifest nodes, units, blobs and the
//! layers of their symbol tables and dependency indexes. What a removed
//! revision alone used is found by walking what the remaining ones reach
//! (their manifests, and the layer chains above their tables) and removing
//! the rest: rows from the database, and bytes from the pack. The pack's
//! records do not move: the space of dead ones is given back to the file
//! system as holes, so every offset the database holds stays valid and a
//! reader that has the pack mapped keeps reading it.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use rusqlite::params;

use crate::chain::LayerChain;
use crate::error::Error;
use crate::layers::LayerKind;
use crate::open::Store;
use crate::pack::{PackLocation, PackReader, free_ranges, record_end};
use crate::revisions::tree_error;
use crate::tree::{NodeCache, Trees};

/// What [`Store::remove_revisions`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removed {
    /// Revisions removed.
    pub revisions: u64,
    /// Manifest nodes no remaining revision reaches.
    pub trees: u64,
    /// Units no remaining revision's files use.
    pub units: u64,
    /// Blobs (per-file facts) no remaining revision's files have.
    pub blobs: u64,
    /// Bytes of the pack no remaining revision reads.
    pub pack_dead_bytes: u64,
    /// Why the pack's dead bytes stay allocated, when the file system
    /// could not take them back.
    pub pack_not_freed: Option<String>,
    /// Why the database file was not compacted, when it was not.
    pub database_not_compacted: Option<String>,
}

impl Store {
    /// Removes the revisions named `names` (names not indexed are
    /// ignored), then every manifest node, unit, blob and layer that no
    /// remaining revision uses, in one transaction: readers see the store
    /// before or after, and a crash leaves it as it was. Then gives the
    /// pack's dead bytes back to the file system and compacts the
    /// database. The caller holds the write lock
    /// ([`Store::lock_for_writing`]).
    pub fn remove_revisions(&self, names: &[String]) -> Result<Removed, Error> {
        let mut removed = Removed::default();
        let tx = self
            .db()
            .unchecked_transaction()
            .map_err(|e| self.sqlite_error(e))?;
        let sql = |e| self.sqlite_error(e);
        for name in names {
            tx.execute(
                "DELETE FROM skipped_files WHERE revision_id IN \
                 (SELECT id FROM revisions WHERE name = ?1)",
                params![name],
            )
            .map_err(sql)?;
            removed.revisions += tx
                .execute("DELETE FROM revisions WHERE name = ?1", params![name])
                .map_err(sql)? as u64;
        }
        let remaining = self.revisions()?;

        let reached = Trees::new(&tx, &mut NodeCache::new())
            .reachable(remaining.iter().map(|r| r.tree))
            .map_err(|e| tree_error(self, e))?;
        tx.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS live_trees (id INTEGER PRIMARY KEY);
             CREATE TEMP TABLE IF NOT EXISTS live_units (id INTEGER PRIMARY KEY);
             CREATE TEMP TABLE IF NOT EXISTS live_blobs (id BLOB PRIMARY KEY) WITHOUT ROWID;
             DELETE FROM live_trees; DELETE FROM live_units; DELETE FROM live_blobs;",
        )
        .map_err(sql)?;
        {
            let mut insert = tx
                .prepare("INSERT INTO temp.live_trees (id) VALUES (?1)")
                .map_err(sql)?;
            for id in &reached.nodes {
                insert.execute(params![id]).map_err(sql)?;
            }
            let mut insert = tx
                .prepare("INSERT INTO temp.live_units (id) VALUES (?1)")
                .map_err(sql)?;
            for id in &reached.units {
                insert.execute(params![id]).map_err(sql)?;
            }
            let mut insert = tx
                .prepare("INSERT INTO temp.live_blobs (id) VALUES (?1)")
                .map_err(sql)?;
            for blob in &reached.blobs {
                insert.execute(params![&blob.0[..]]).map_err(sql)?;
            }
        }
        let delete = |statement: &str| tx.execute(statement, []).map(|n| n as u64).map_err(sql);
        removed.trees =
            delete("DELETE FROM trees WHERE id NOT IN (SELECT id FROM temp.live_trees)")?;
        for table in ["elements", "ref_postings", "overrides", "unit_paths"] {
            delete(&format!(
                "DELETE FROM {table} WHERE unit_id NOT IN (SELECT id FROM temp.live_units)"
            ))?;
        }
        removed.units =
            delete("DELETE FROM units WHERE id NOT IN (SELECT id FROM temp.live_units)")?;
        // A unit's id may be given again once its row is gone: whoever
        // keeps units by id ([`Store::prunes`]) must forget them.
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('prunes', '1') \
             ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            [],
        )
        .map_err(sql)?;
        removed.blobs =
            delete("DELETE FROM blobs WHERE blob_id NOT IN (SELECT id FROM temp.live_blobs)")?;
        tx.execute_batch(
            "DROP TABLE temp.live_trees; DROP TABLE temp.live_units; DROP TABLE temp.live_blobs;",
        )
        .map_err(sql)?;

        // What the pack must keep: the remaining blobs' records, the
        // records they are stored as deltas over (a removed version's, it
        // may be), and every layer of the remaining revisions' chains (a
        // chain may run through layers a removed revision wrote).
        let mut live: Vec<Range<u64>> = Vec::new();
        let pack = Arc::new(PackReader::open(&self.pack_path())?);
        {
            let mut statement = tx
                .prepare("SELECT pack_offset, pack_len FROM blobs")
                .map_err(sql)?;
            let rows = statement
                .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                .map_err(sql)?;
            for row in rows {
                let (offset, len) = row.map_err(sql)?;
                let record = PackLocation {
                    offset: offset as u64,
                    len: len as u64,
                    declarations_len: 0,
                };
                live.push(extent(record));
                live.extend(pack.delta_bases(record)?.into_iter().map(extent));
            }
        }
        let mut tops = HashSet::new();
        for revision in &remaining {
            for (kind, top) in [
                (LayerKind::Symbols, revision.symbols),
                (LayerKind::Lookups, revision.lookups),
            ] {
                if tops.insert(top.offset) {
                    live.extend(LayerChain::read(&pack, kind, top)?.locations().map(extent));
                }
            }
        }
        drop(pack);
        let dead = gaps(live, self.committed_pack_len()?);
        removed.pack_dead_bytes = dead.iter().map(|r| r.end - r.start).sum();
        tx.commit().map_err(sql)?;

        // Nothing committed refers to the dead bytes any more, and the
        // write lock keeps writers out until they are gone.
        if let Err(e) = free_ranges(&self.pack_path(), &dead) {
            removed.pack_not_freed = Some(e.to_string());
        }
        if let Err(e) = self.sync_pack().and_then(|()| {
            self.db()
                .execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
                .map_err(sql)
        }) {
            removed.database_not_compacted = Some(e.to_string());
        }
        Ok(removed)
    }
}

fn extent(at: PackLocation) -> Range<u64> {
    at.offset..record_end(at)
}

/// The parts of `0..len` that no range of `live` covers, in order.
fn gaps(mut live: Vec<Range<u64>>, len: u64) -> Vec<Range<u64>> {
    live.sort_unstable_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut at = 0;
    for range in live {
        if range.start > at {
            out.push(at..range.start.min(len));
        }
        at = at.max(range.end);
    }
    if at < len {
        out.push(at..len);
    }
    out.retain(|r| r.end > r.start);
    out
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::gaps;

    #[test]
    fn gaps_are_what_no_live_range_covers() {
        let whole: Range<u64> = 0..100;
        assert_eq!(gaps(vec![], 100), std::slice::from_ref(&whole));
        assert_eq!(gaps(Vec::from(std::slice::from_ref(&whole)), 100), []);
        assert_eq!(
            gaps(vec![64..80, 0..16, 10..32, 96..100], 100),
            vec![32..64, 80..96]
        );
        // Ranges reaching past the committed length (never written so)
        // leave nothing beyond it.
        assert_eq!(gaps(vec![0..16, 48..128], 100), vec![16..48]);
    }

    #[test]
    fn each_removal_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(dir.path()).unwrap();
        assert_eq!(store.prunes().unwrap(), 0);
        let _lock = store.lock_for_writing(|_| {}).unwrap();
        store.remove_revisions(&[]).unwrap();
        assert_eq!(store.prunes().unwrap(), 1);
        store
            .remove_revisions(&["never indexed".to_string()])
            .unwrap();
        assert_eq!(store.prunes().unwrap(), 2);
    }
}
