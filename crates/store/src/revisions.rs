//! Revisions: the catalog of what is indexed.

use rusqlite::{OptionalExtension, params};

use crate::blob::BlobId;
use crate::error::Error;
use crate::open::Store;
use crate::pack::PackLocation;
use crate::transaction::IndexTransaction;
use crate::tree::{FileEntry, FileValue, NodeCache, TreeChange, TreeError, Trees};

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
    /// Files with bytes that are not UTF-8.
    pub n_invalid_utf8_files: u64,
    /// Time the indexing took.
    pub seconds: f64,
    /// Digest of the libraries it was resolved with.
    pub library_digest: [u8; 16],
    /// The revision it was written as a layer over, if any.
    pub parent: Option<String>,
    /// The root of its manifest tree.
    pub tree: i64,
    /// The newest layer of its symbol table.
    pub symbols: PackLocation,
    /// The newest layer of its dependency index.
    pub lookups: PackLocation,
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
     n_ref_sites, n_skipped, n_syntax_errors, seconds, root, library_digest, parent, tree, \
     symbols_offset, symbols_len, lookups_offset, lookups_len, n_invalid_utf8_files FROM revisions";

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
        library_digest: digest_column(row, 12)?,
        parent: row.get(13)?,
        tree: row.get(14)?,
        symbols: location_columns(row, 15)?,
        lookups: location_columns(row, 17)?,
        n_invalid_utf8_files: row.get::<_, i64>(19)? as u64,
    })
}

fn digest_column(row: &rusqlite::Row, at: usize) -> rusqlite::Result<[u8; 16]> {
    let bytes: Vec<u8> = row.get(at)?;
    bytes.try_into().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(
            at,
            rusqlite::types::Type::Blob,
            "a digest is 16 bytes".into(),
        )
    })
}

fn location_columns(row: &rusqlite::Row, at: usize) -> rusqlite::Result<PackLocation> {
    Ok(PackLocation {
        offset: row.get::<_, i64>(at)? as u64,
        len: row.get::<_, i64>(at + 1)? as u64,
        declarations_len: 0,
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
    /// Digest of the libraries alone (JDK, class path).
    pub library_digest: [u8; 16],
    /// The revision it is written as a layer over, if any.
    pub parent: Option<&'a str>,
    /// The root of its manifest tree.
    pub tree: i64,
    /// The newest layer of its symbol table.
    pub symbols: PackLocation,
    /// The newest layer of its dependency index.
    pub lookups: PackLocation,
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
    /// Files with bytes that are not UTF-8.
    pub n_invalid_utf8_files: u64,
    /// Time the indexing took.
    pub seconds: f64,
}

impl IndexTransaction<'_> {
    /// Adds the row of a revision, with zero counts; its id. The revision
    /// becomes visible when the transaction commits.
    pub fn insert_revision(&self, revision: &NewRevision) -> Result<i64, Error> {
        self.tx()
            .execute(
                "INSERT INTO revisions (name, kind, branch, indexed_at, n_files, n_elements, \
                 n_ref_sites, n_skipped, n_syntax_errors, seconds, root, library_digest, parent, \
                 tree, symbols_offset, symbols_len, lookups_offset, lookups_len) \
                 VALUES (?1, ?2, ?3, ?4, 0, 0, 0, 0, 0, 0, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    revision.name,
                    revision.kind,
                    revision.branch,
                    unix_now(),
                    revision.root,
                    &revision.library_digest[..],
                    revision.parent,
                    revision.tree,
                    revision.symbols.offset as i64,
                    revision.symbols.len as i64,
                    revision.lookups.offset as i64,
                    revision.lookups.len as i64,
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
                 n_skipped = ?5, n_syntax_errors = ?6, seconds = ?7, n_invalid_utf8_files = ?8 \
                 WHERE id = ?1",
                params![
                    revision_id,
                    totals.n_files as i64,
                    totals.n_elements as i64,
                    totals.n_ref_sites as i64,
                    totals.n_skipped as i64,
                    totals.n_syntax_errors as i64,
                    totals.seconds,
                    totals.n_invalid_utf8_files as i64,
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

    /// Writes the manifest of `files` (path, blob, unit; any order) as a
    /// tree; its root.
    pub fn write_tree<'p>(
        &self,
        files: impl IntoIterator<Item = (&'p str, BlobId, i64)>,
    ) -> Result<i64, Error> {
        Trees::new(self.tx(), &mut NodeCache::new())
            .write(files)
            .map_err(|e| self.tree_error(e))
    }

    /// The manifest `root` with `changes` applied (a path's new blob and
    /// unit, or `None` to remove it); its root. Writes only the
    /// directories on the changed paths.
    pub fn update_tree(
        &self,
        root: i64,
        changes: &[(&str, Option<FileValue>)],
    ) -> Result<i64, Error> {
        Trees::new(self.tx(), &mut NodeCache::new())
            .update(root, changes)
            .map_err(|e| self.tree_error(e))
    }

    fn tree_error(&self, e: TreeError) -> Error {
        tree_error(self.store(), e)
    }
}

pub(crate) fn tree_error(store: &Store, e: TreeError) -> Error {
    match e {
        TreeError::Sqlite(e) => store.sqlite_error(e),
        TreeError::Damaged(node) => Error::Corrupt {
            path: store.dir().to_path_buf(),
            message: format!("manifest tree node {node} does not decode"),
        },
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
        self.tree_files(revision.tree)
    }

    /// Every file of the manifest tree `root`, sorted by path.
    pub fn tree_files(&self, root: i64) -> Result<Vec<FileEntry>, Error> {
        Trees::new(self.db(), &mut NodeCache::new())
            .files(root)
            .map_err(|e| tree_error(self, e))
    }

    /// The file of `revision` at `path`, if it has one.
    pub fn manifest_file(
        &self,
        revision: &RevisionRow,
        path: &str,
    ) -> Result<Option<FileEntry>, Error> {
        let found = Trees::new(self.db(), &mut NodeCache::new())
            .file(revision.tree, path)
            .map_err(|e| tree_error(self, e))?;
        Ok(found.map(|(blob_id, unit_id)| FileEntry {
            path: path.to_string(),
            blob_id,
            unit_id,
        }))
    }

    /// Every path a manifest ever put `unit` at, sorted: where to look for
    /// the unit's files in one revision (each still to be checked against
    /// its manifest).
    pub fn unit_paths(&self, unit: i64) -> Result<Vec<String>, Error> {
        let mut statement = self
            .db()
            .prepare_cached("SELECT path FROM unit_paths WHERE unit_id = ?1 ORDER BY path")
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![unit], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// The files of `revision` that were not indexed, with why.
    pub fn skipped_files(&self, revision: &RevisionRow) -> Result<Vec<(String, String)>, Error> {
        let mut statement = self
            .db()
            .prepare_cached(
                "SELECT path, reason FROM skipped_files WHERE revision_id = ?1 ORDER BY path",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![revision.id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}

/// Reads manifest trees, keeping the directories it decoded: for many
/// lookups in one or a few revisions.
#[derive(Default)]
pub struct TreeReader {
    nodes: NodeCache,
}

impl TreeReader {
    /// The blob and unit at `path` in the tree `root` of `store`, if it has
    /// the file.
    pub fn file(
        &mut self,
        store: &Store,
        root: i64,
        path: &str,
    ) -> Result<Option<FileValue>, Error> {
        Trees::new(store.db(), &mut self.nodes)
            .file(root, path)
            .map_err(|e| tree_error(store, e))
    }

    /// The files that differ between the trees `old` and `new` of `store`,
    /// by path.
    pub fn diff(&mut self, store: &Store, old: i64, new: i64) -> Result<Vec<TreeChange>, Error> {
        Trees::new(store.db(), &mut self.nodes)
            .diff(old, new)
            .map_err(|e| tree_error(store, e))
    }

    /// Every file of the tree `root` of `store`, by path.
    pub fn files(&mut self, store: &Store, root: i64) -> Result<Vec<FileEntry>, Error> {
        Trees::new(store.db(), &mut self.nodes)
            .files(root)
            .map_err(|e| tree_error(store, e))
    }
}
