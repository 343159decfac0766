//! Revisions: the catalog of what is indexed.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use crate::blob::BlobId;
use crate::error::Error;
use crate::manifest::{
    BadChunk, FileEntry, delete_manifest, read_file, read_manifest, write_manifest,
};
use crate::open::Store;
use crate::transaction::IndexTransaction;

/// A summary row of an indexed revision.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionRow {
    /// Database id.
    pub id: i64,
    /// Commit id, or `worktree:<digest>`.
    pub name: String,
    /// `commit` or `worktree`.
    pub kind: String,
    /// Branch recorded at indexing time.
    pub branch: Option<String>,
    /// The directory the files were read from.
    pub root: Option<String>,
    /// Unix time of indexing.
    pub indexed_at: i64,
    /// Java files indexed.
    pub n_files: u64,
    /// Elements in those files.
    pub n_elements: u64,
    /// Reference sites in those files.
    pub n_ref_sites: u64,
    /// Files skipped.
    pub n_skipped: u64,
    /// Syntax error nodes over all files.
    pub n_syntax_errors: u64,
    /// Time the indexing took.
    pub seconds: f64,
}

impl Store {
    /// The revision with this name, if indexed.
    pub fn revision(&self, name: &str) -> Result<Option<RevisionRow>, Error> {
        self.db()
            .query_row(
                &format!("{REVISION_COLUMNS} WHERE name = ?1"),
                params![name],
                revision_row,
            )
            .optional()
            .map_err(|e| self.classify(e))
    }

    /// Every indexed revision, newest first.
    pub fn revisions(&self) -> Result<Vec<RevisionRow>, Error> {
        let mut statement = self
            .db()
            .prepare(&format!("{REVISION_COLUMNS} ORDER BY id DESC"))
            .map_err(|e| self.classify(e))?;
        let rows = statement
            .query_map([], revision_row)
            .map_err(|e| self.classify(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.classify(e))
    }

    /// The revision whose name starts with `prefix` (an abbreviated commit
    /// id), if exactly one does.
    pub fn revision_by_prefix(&self, prefix: &str) -> Result<Option<RevisionRow>, Error> {
        let pattern = format!("{}%", prefix.replace(['%', '_'], ""));
        let mut statement = self
            .db()
            .prepare(&format!("{REVISION_COLUMNS} WHERE name LIKE ?1 LIMIT 2"))
            .map_err(|e| self.classify(e))?;
        let rows: Vec<RevisionRow> = statement
            .query_map(params![pattern], revision_row)
            .map_err(|e| self.classify(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.classify(e))?;
        Ok(if rows.len() == 1 {
            rows.into_iter().next()
        } else {
            None
        })
    }
}

const REVISION_COLUMNS: &str = "SELECT id, name, kind, branch, indexed_at, n_files, n_elements, \
     n_ref_sites, n_skipped, n_syntax_errors, seconds, root FROM revisions";

fn revision_row(row: &rusqlite::Row) -> rusqlite::Result<RevisionRow> {
    Ok(RevisionRow {
        id: row.get(0)?,
        name: row.get(1)?,
        kind: row.get(2)?,
        branch: row.get(3)?,
        indexed_at: row.get(4)?,
        n_files: row.get::<_, i64>(5)? as u64,
        n_elements: row.get::<_, i64>(6)? as u64,
        n_ref_sites: row.get::<_, i64>(7)? as u64,
        n_skipped: row.get::<_, i64>(8)? as u64,
        n_syntax_errors: row.get::<_, i64>(9)? as u64,
        seconds: row.get(10)?,
        root: row.get(11)?,
    })
}

/// A revision about to be written ([`IndexTransaction::insert_revision`]).
#[derive(Debug, Clone)]
pub struct NewRevision<'a> {
    /// Commit id, or `worktree:<digest>`.
    pub name: &'a str,
    /// `commit` or `worktree`.
    pub kind: &'a str,
    /// Branch recorded at indexing time.
    pub branch: Option<&'a str>,
    /// The directory the files were read from.
    pub root: &'a str,
    /// Digest of everything resolution depends on besides a file's own
    /// content: the libraries and every file's path and signature digest.
    pub context_digest: [u8; 16],
    /// Digest of the libraries alone (JDK, class path).
    pub library_digest: [u8; 16],
}

/// A revision's counts, set once its files are written
/// ([`IndexTransaction::set_revision_totals`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RevisionTotals {
    /// Java files indexed.
    pub n_files: u64,
    /// Elements in those files.
    pub n_elements: u64,
    /// Reference sites in those files.
    pub n_ref_sites: u64,
    /// Files skipped.
    pub n_skipped: u64,
    /// Syntax error nodes over all files.
    pub n_syntax_errors: u64,
    /// Time the indexing took.
    pub seconds: f64,
}

/// Which earlier revision a new one may share units with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Donor {
    /// The newest with the same resolution context: an unchanged file
    /// resolves as there, no questions asked.
    SameContext,
    /// The newest with the same libraries: an unchanged file resolves as
    /// there if every name it looked up leads to the same thing.
    SameLibraries,
}

impl IndexTransaction<'_> {
    /// Adds the row of a revision, with zero counts; its id. The revision
    /// becomes visible when the transaction commits.
    pub fn insert_revision(&self, revision: &NewRevision) -> Result<i64, Error> {
        self.tx()
            .execute(
                "INSERT INTO revisions (name, kind, branch, indexed_at, n_files, n_elements, \
                 n_ref_sites, n_skipped, n_syntax_errors, seconds, root, context_digest, \
                 library_digest) VALUES (?1, ?2, ?3, ?4, 0, 0, 0, 0, 0, 0, ?5, ?6, ?7)",
                params![
                    revision.name,
                    revision.kind,
                    revision.branch,
                    unix_now(),
                    revision.root,
                    &revision.context_digest[..],
                    &revision.library_digest[..],
                ],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.tx().last_insert_rowid())
    }

    /// Sets the counts of revision `revision_id`.
    pub fn set_revision_totals(
        &self,
        revision_id: i64,
        totals: &RevisionTotals,
    ) -> Result<(), Error> {
        self.tx()
            .execute(
                "UPDATE revisions SET n_files = ?2, n_elements = ?3, n_ref_sites = ?4, \
                 n_skipped = ?5, n_syntax_errors = ?6, seconds = ?7 WHERE id = ?1",
                params![
                    revision_id,
                    totals.n_files as i64,
                    totals.n_elements as i64,
                    totals.n_ref_sites as i64,
                    totals.n_skipped as i64,
                    totals.n_syntax_errors as i64,
                    totals.seconds,
                ],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }

    /// Records the files of revision `revision_id` that were not indexed,
    /// as (path, why).
    pub fn insert_skipped(
        &self,
        revision_id: i64,
        skipped: &[(String, String)],
    ) -> Result<(), Error> {
        let mut insert = self
            .tx()
            .prepare_cached(
                "INSERT OR REPLACE INTO skipped_files (revision_id, path, reason) VALUES (?1, ?2, ?3)",
            )
            .map_err(|e| self.error(e))?;
        for (path, reason) in skipped {
            insert
                .execute(params![revision_id, path, reason])
                .map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// Removes the work-tree revisions of directory `root` other than
    /// `keep`. Their units stay: other revisions may share them.
    pub fn remove_other_worktrees(&self, keep: i64, root: &str) -> Result<(), Error> {
        self.remove_worktrees_except(keep, root)
            .map_err(|e| self.error(e))
    }

    fn remove_worktrees_except(&self, keep: i64, root: &str) -> rusqlite::Result<()> {
        let tx = self.tx();
        let others: Vec<i64> = tx
            .prepare_cached(
                "SELECT id FROM revisions WHERE kind = 'worktree' AND root = ?1 AND id != ?2",
            )?
            .query_map(params![root, keep], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for &other in &others {
            delete_manifest(tx, other)?;
        }
        let others = "SELECT id FROM revisions WHERE kind = 'worktree' AND root = ?1 AND id != ?2";
        tx.execute(
            &format!("DELETE FROM skipped_files WHERE revision_id IN ({others})"),
            params![root, keep],
        )?;
        tx.execute(
            "DELETE FROM revisions WHERE kind = 'worktree' AND root = ?1 AND id != ?2",
            params![root, keep],
        )?;
        Ok(())
    }

    /// The files of the newest indexed revision sharing `digest` (see
    /// [`Donor`]), as path → (blob, unit); empty when there is none. A
    /// damaged manifest only costs the sharing.
    pub fn donor_files(
        &self,
        donor: Donor,
        digest: &[u8; 16],
    ) -> Result<HashMap<String, (BlobId, i64)>, Error> {
        let column = match donor {
            Donor::SameContext => "context_digest",
            Donor::SameLibraries => "library_digest",
        };
        let tx = self.tx();
        let donor: Option<i64> = tx
            .prepare_cached(&format!(
                "SELECT id FROM revisions WHERE {column} = ?1 ORDER BY id DESC LIMIT 1"
            ))
            .and_then(|mut find| {
                find.query_row(params![&digest[..]], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| self.error(e))?;
        let Some(donor) = donor else {
            return Ok(HashMap::new());
        };
        Ok(read_manifest(tx, donor)
            .map_err(|e| self.error(e))?
            .unwrap_or_default()
            .into_iter()
            .map(|file| (file.path, (file.blob_id, file.unit_id)))
            .collect())
    }

    /// Writes the manifest of revision `revision_id`: `files` as (path,
    /// blob, unit), in any order.
    pub fn write_manifest<'p>(
        &self,
        revision_id: i64,
        files: impl IntoIterator<Item = (&'p str, BlobId, i64)>,
    ) -> Result<(), Error> {
        write_manifest(self.tx(), revision_id, files).map_err(|e| self.error(e))
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Every file of `revision`, sorted by path.
    pub fn manifest(&self, revision: &RevisionRow) -> Result<Vec<FileEntry>, Error> {
        read_manifest(self.db(), revision.id)
            .map_err(|e| self.sqlite_error(e))?
            .map_err(|BadChunk| self.bad_manifest(revision))
    }

    /// The file of `revision` at `path`, if it has one.
    pub fn manifest_file(
        &self,
        revision: &RevisionRow,
        path: &str,
    ) -> Result<Option<FileEntry>, Error> {
        read_file(self.db(), revision.id, path)
            .map_err(|e| self.sqlite_error(e))?
            .map_err(|BadChunk| self.bad_manifest(revision))
    }

    fn bad_manifest(&self, revision: &RevisionRow) -> Error {
        Error::Corrupt {
            path: self.dir().to_path_buf(),
            message: format!("the manifest of revision {} does not decode", revision.name),
        }
    }
}
