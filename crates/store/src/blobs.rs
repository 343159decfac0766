//! Blobs: where each blob's facts are in the pack, with the counts and the
//! signature digest the indexer needs without decoding them.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use crate::blob::BlobId;
use crate::error::Error;
use crate::open::Store;
use crate::pack::PackLocation;
use crate::transaction::IndexTransaction;

/// What the store keeps of a blob besides its facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlobStats {
    /// Where its facts are in the pack (`None` until appended).
    pub location: Option<PackLocation>,
    /// Elements declared.
    pub n_elements: u64,
    /// Reference sites.
    pub n_ref_sites: u64,
    /// Syntax error nodes.
    pub n_syntax_errors: u64,
    /// Bytes that were not UTF-8.
    pub n_invalid_utf8_bytes: u64,
    /// `FileFacts::signature_digest`: what other files' resolution sees.
    pub signature_digest: [u8; 16],
}

impl Store {
    /// Where the facts of blob `blob_id` are in the pack, if it has them.
    pub fn blob_location(&self, blob_id: &BlobId) -> Result<Option<PackLocation>, Error> {
        self.db()
            .prepare_cached(
                "SELECT pack_offset, pack_len, declarations_len FROM blobs WHERE blob_id = ?1",
            )
            .map_err(|e| self.sqlite_error(e))?
            .query_row(params![&blob_id.0[..]], |r| {
                Ok(PackLocation {
                    offset: r.get::<_, i64>(0)? as u64,
                    len: r.get::<_, i64>(1)? as u64,
                    declarations_len: r.get::<_, i64>(2)? as u64,
                })
            })
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }
}

impl IndexTransaction<'_> {
    /// The stats of those of `blob_ids` the store has already.
    pub fn known_blobs<'b>(
        &self,
        blob_ids: impl IntoIterator<Item = &'b BlobId>,
    ) -> Result<HashMap<BlobId, BlobStats>, Error> {
        let mut blobs = HashMap::new();
        let mut lookup = self
            .tx()
            .prepare_cached(
                "SELECT pack_offset, pack_len, n_elements, n_ref_sites, n_syntax_errors, \
                 n_invalid_utf8_bytes, signature_digest, declarations_len \
                 FROM blobs WHERE blob_id = ?1",
            )
            .map_err(|e| self.error(e))?;
        for blob_id in blob_ids {
            if blobs.contains_key(blob_id) {
                continue;
            }
            let known = lookup
                .query_row(params![&blob_id.0[..]], |r| {
                    Ok(BlobStats {
                        location: Some(PackLocation {
                            offset: r.get::<_, i64>(0)? as u64,
                            len: r.get::<_, i64>(1)? as u64,
                            declarations_len: r.get::<_, i64>(7)? as u64,
                        }),
                        n_elements: r.get::<_, i64>(2)? as u64,
                        n_ref_sites: r.get::<_, i64>(3)? as u64,
                        n_syntax_errors: r.get::<_, i64>(4)? as u64,
                        n_invalid_utf8_bytes: r.get::<_, i64>(5)? as u64,
                        signature_digest: r.get(6)?,
                    })
                })
                .optional()
                .map_err(|e| self.error(e))?;
            if let Some(stats) = known {
                blobs.insert(*blob_id, stats);
            }
        }
        Ok(blobs)
    }

    /// Records a blob appended to the pack at `stats.location`.
    pub fn insert_blob(&self, blob_id: &BlobId, stats: &BlobStats) -> Result<(), Error> {
        let location = stats
            .location
            .expect("a blob is recorded once its facts are in the pack");
        self.tx()
            .prepare_cached(
                "INSERT INTO blobs (blob_id, pack_offset, pack_len, n_elements, n_ref_sites, \
                 n_syntax_errors, n_invalid_utf8_bytes, signature_digest, declarations_len) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .and_then(|mut insert| {
                insert.execute(params![
                    &blob_id.0[..],
                    location.offset as i64,
                    location.len as i64,
                    stats.n_elements as i64,
                    stats.n_ref_sites as i64,
                    stats.n_syntax_errors as i64,
                    stats.n_invalid_utf8_bytes as i64,
                    &stats.signature_digest[..],
                    location.declarations_len as i64,
                ])
            })
            .map(drop)
            .map_err(|e| self.error(e))
    }

    /// Records the pack's committed length (what a later writer keeps).
    pub fn set_pack_len(&self, len: u64) -> Result<(), Error> {
        self.tx()
            .execute(
                "UPDATE meta SET value = ?1 WHERE key = 'pack_len'",
                params![len.to_string()],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }
}
