//! Removing units that the work-tree revision just replaced held alone.
//!
//! `watch` replaces its work-tree revision on every save. The units of the
//! replaced version of a saved file would otherwise stay until a `prune`,
//! each with its element rows, postings and override links: over a long
//! session those rows pile up where every later save of the same file
//! writes (its element ids, its targets), and each save costs more. The
//! caller knows which units no revision holds any more; removing one
//! costs what its own rows are, whatever the store's size.

use rusqlite::{OptionalExtension, params};

use crate::error::Error;
use crate::open::Store;
use crate::transaction::IndexTransaction;
use crate::units::decode_resolution;

impl Store {
    /// The largest unit id given so far (0 when there is none): a unit
    /// stored after this call has a larger one.
    pub fn max_unit_id(&self) -> Result<i64, Error> {
        self.db()
            .query_row("SELECT coalesce(max(id), 0) FROM units", [], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))
    }

    /// The id of the newest revision row, if any: a revision written after
    /// this call has a larger one.
    pub fn newest_revision_id(&self) -> Result<Option<i64>, Error> {
        self.db()
            .query_row("SELECT max(id) FROM revisions", [], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))
    }
}

impl IndexTransaction<'_> {
    /// Removes the units `units` with their element rows, postings and
    /// override links; the caller knows that no revision holds them, once
    /// this transaction commits. Returns how many went.
    ///
    /// Two are left for [`Store::remove_revisions`] to collect: the newest
    /// unit, because SQLite gives a new row the largest id plus one, and
    /// keeping it means that no id is ever given twice, so whoever keeps
    /// units by id ([`Store::prunes`]) need forget none; and a unit whose
    /// references do not decode, since its postings cannot be found.
    pub fn remove_units(&self, units: &[i64]) -> Result<u64, Error> {
        self.remove_units_rows(units).map_err(|e| self.error(e))
    }

    fn remove_units_rows(&self, units: &[i64]) -> rusqlite::Result<u64> {
        let tx = self.tx();
        let newest: i64 =
            tx.query_row("SELECT coalesce(max(id), 0) FROM units", [], |r| r.get(0))?;
        let mut select_refs = tx.prepare_cached("SELECT refs FROM units WHERE id = ?1")?;
        let mut target_id = tx.prepare_cached("SELECT id FROM targets WHERE name = ?1")?;
        let mut delete_posting =
            tx.prepare_cached("DELETE FROM ref_postings WHERE target_id = ?1 AND unit_id = ?2")?;
        let mut delete_overrides =
            tx.prepare_cached("DELETE FROM overrides WHERE target_id = ?1 AND unit_id = ?2")?;
        let mut delete_elements = tx.prepare_cached("DELETE FROM elements WHERE unit_id = ?1")?;
        let mut delete_paths = tx.prepare_cached("DELETE FROM unit_paths WHERE unit_id = ?1")?;
        let mut delete_unit = tx.prepare_cached("DELETE FROM units WHERE id = ?1")?;
        let mut removed = 0;
        for &unit in units {
            if unit >= newest {
                continue;
            }
            let Some(refs) = select_refs
                .query_row(params![unit], |r| r.get::<_, Vec<u8>>(0))
                .optional()?
            else {
                continue;
            };
            let Ok(resolution) = decode_resolution(&refs) else {
                continue;
            };
            let overridden = resolution
                .overrides()
                .iter()
                .flat_map(|o| o.targets.iter().cloned());
            for (name, posted) in resolution
                .target_ids()
                .into_iter()
                .map(|name| (name, true))
                .chain(overridden.map(|name| (name, false)))
            {
                let Some(target) = target_id
                    .query_row(params![name], |r| r.get::<_, i64>(0))
                    .optional()?
                else {
                    continue;
                };
                if posted {
                    delete_posting.execute(params![target, unit])?;
                } else {
                    delete_overrides.execute(params![target, unit])?;
                }
            }
            delete_elements.execute(params![unit])?;
            delete_paths.execute(params![unit])?;
            removed += delete_unit.execute(params![unit])? as u64;
        }
        Ok(removed)
    }
}
