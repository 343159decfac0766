//! The read API: one indexed revision of a store, as the query language and
//! the bridge see it.
//!
//! This module reads files, facts, records and elements at lines;
//! `graph.rs` follows the global reference index (callers, callees,
//! implementations, references).

mod cache;
mod diff;
mod graph;
mod structure;

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};

use crate::error::Error;
use crate::facts::{Element, ElementKind, FileFacts, NO_ORDINAL};
use crate::records::ElementRecord;
use crate::resolve::{FileResolution, ResolvedRef, StoredResolution};
use crate::source::{BlobId, Source};
use crate::store::manifest::{read_file, read_manifest};
use crate::store::{PackLocation, PackReader, RevisionRow, Store};

pub use cache::{FileData, RevisionCache};
pub use diff::{ChangeKind, Diff, DiffConfig, ElementChange};
pub use graph::{CallersConfig, FoundElement, Implementation, RefHit};
pub use structure::{ElementSearch, glob_matches, id_matches, package_of};

/// How far back HEAD's history is searched for an indexed commit.
const HISTORY_SEARCH_LIMIT: usize = 100_000;

/// One file of a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Repository-relative path.
    pub path: String,
    /// Content id.
    pub blob_id: BlobId,
    /// The unit holding its qualified elements.
    pub unit_id: i64,
}

/// An element with everything known about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementView {
    /// The file it is in.
    pub path: String,
    /// Its qualified record.
    pub record: ElementRecord,
    /// Its facts as extracted (modifiers, annotations, parameter names,
    /// javadoc, types as written).
    pub element: Element,
}

/// A read-only view of one indexed revision.
pub struct Snapshot<'s> {
    store: &'s Store,
    revision: RevisionRow,
    pack: PackReader,
    /// What snapshots of this revision have read and derived so far.
    cache: Arc<RevisionCache>,
}

impl<'s> Snapshot<'s> {
    /// A snapshot of an indexed revision, with a cache of its own.
    pub fn new(store: &'s Store, revision: RevisionRow) -> Result<Self, Error> {
        Self::with_cache(store, Arc::new(RevisionCache::new(revision)))
    }

    /// A snapshot of the revision `cache` belongs to, reading through it
    /// and adding to it: a long-lived reader keeps the cache between
    /// calls, so nothing is decoded twice. The cache must come from the
    /// same store.
    pub fn with_cache(store: &'s Store, cache: Arc<RevisionCache>) -> Result<Self, Error> {
        Ok(Self {
            pack: store.pack_reader()?,
            store,
            revision: cache.revision.clone(),
            cache,
        })
    }

    /// The cache this snapshot reads through, to build the next snapshot
    /// of the revision on.
    pub fn cache(&self) -> &Arc<RevisionCache> {
        &self.cache
    }

    /// Picks the revision to read: `rev` if given (a revision expression
    /// of the repository, or an indexed revision name or prefix), else the
    /// newest indexed commit of HEAD's first-parent history, else (plain
    /// directories) the newest indexed revision.
    pub fn pick_revision(
        store: &Store,
        source: Option<&Source>,
        rev: Option<&str>,
    ) -> Result<RevisionRow, Error> {
        let not_indexed = |revision: &str| Error::NotIndexed {
            store: store.dir().to_path_buf(),
            revision: revision.to_string(),
        };
        match rev {
            Some(rev) => {
                if let Some(row) = store.revision(rev)? {
                    return Ok(row);
                }
                if let Some(source @ Source::Git { .. }) = source {
                    match source.commit_id(rev) {
                        Ok(commit) => {
                            return store.revision(&commit)?.ok_or_else(|| not_indexed(rev));
                        }
                        // Not a revision of the repository: it may still
                        // name an indexed one (a directory snapshot, or a
                        // commit since rewritten away).
                        Err(e) => return store.revision_by_prefix(rev)?.ok_or(e),
                    }
                }
                store
                    .revision_by_prefix(rev)?
                    .ok_or_else(|| not_indexed(rev))
            }
            None => {
                if let Some(source @ Source::Git { .. }) = source {
                    for commit in source.head_history(HISTORY_SEARCH_LIMIT) {
                        if let Some(row) = store.revision(&commit)? {
                            return Ok(row);
                        }
                    }
                    if store.revisions()?.is_empty() {
                        return Err(Error::EmptyStore {
                            store: store.dir().to_path_buf(),
                        });
                    }
                    return Err(not_indexed("HEAD"));
                }
                store
                    .revisions()?
                    .into_iter()
                    .next()
                    .ok_or_else(|| Error::EmptyStore {
                        store: store.dir().to_path_buf(),
                    })
            }
        }
    }

    /// The revision this snapshot reads.
    pub fn revision(&self) -> &RevisionRow {
        &self.revision
    }

    fn db_error(&self, e: rusqlite::Error) -> Error {
        Error::sqlite(&self.store.db_path(), e)
    }

    /// Every file of the revision, sorted by path.
    pub fn files(&self) -> Result<Vec<FileEntry>, Error> {
        read_manifest(self.store.db(), self.revision.id)
            .map_err(|e| self.db_error(e))?
            .map_err(|_| self.bad_manifest())
    }

    /// The files of the revision whose content is `unit` (usually one; a
    /// blob copied to several paths gives several).
    pub fn files_of_unit(&self, unit: i64) -> Result<&[FileEntry], Error> {
        if self.cache.files_by_unit.get().is_none() {
            let mut by_unit: HashMap<i64, Vec<FileEntry>> = HashMap::new();
            for file in self.files()? {
                by_unit.entry(file.unit_id).or_default().push(file);
            }
            let _ = self.cache.files_by_unit.set(by_unit);
        }
        Ok(self
            .cache
            .files_by_unit
            .get()
            .and_then(|by_unit| by_unit.get(&unit))
            .map_or(&[], Vec::as_slice))
    }

    /// One file of the revision.
    pub fn file(&self, path: &str) -> Result<FileEntry, Error> {
        read_file(self.store.db(), self.revision.id, path)
            .map_err(|e| self.db_error(e))?
            .map_err(|_| self.bad_manifest())?
            .ok_or_else(|| Error::FileNotInRevision {
                path: path.to_string(),
                revision: self.revision.name.clone(),
            })
    }

    fn bad_manifest(&self) -> Error {
        Error::Corrupt {
            path: self.store.dir().to_path_buf(),
            message: format!(
                "the manifest of revision {} does not decode",
                self.revision.name
            ),
        }
    }

    /// The facts of a file.
    pub fn facts(&self, file: &FileEntry) -> Result<FileFacts, Error> {
        self.pack.facts(&file.blob_id, self.location(file)?)
    }

    /// Where a file's facts are in the pack.
    fn location(&self, file: &FileEntry) -> Result<PackLocation, Error> {
        self.store
            .db()
            .prepare_cached(
                "SELECT pack_offset, pack_len, declarations_len FROM blobs WHERE blob_id = ?1",
            )
            .map_err(|e| self.db_error(e))?
            .query_row(params![&file.blob_id.0[..]], |r| {
                Ok(PackLocation {
                    offset: r.get::<_, i64>(0)? as u64,
                    len: r.get::<_, i64>(1)? as u64,
                    declarations_len: r.get::<_, i64>(2)? as u64,
                })
            })
            .optional()
            .map_err(|e| self.db_error(e))?
            .ok_or_else(|| Error::Corrupt {
                path: self.store.dir().to_path_buf(),
                message: format!("no facts for blob {} of {}", file.blob_id, file.path),
            })
    }

    /// The name line of signature element `ordinal` of the file at `path`
    /// (see [`FileFacts::signature_ordinals`]); 0 when there is no such
    /// file or element.
    fn signature_line(&self, path: &str, ordinal: u32) -> u32 {
        let known = self.lock_signature_lines().get(path).cloned();
        let lines = match known {
            Some(lines) => lines,
            None => {
                let lines: Arc<Vec<u32>> = Arc::new(self.read_signature_lines(path));
                self.lock_signature_lines()
                    .insert(path.to_string(), lines.clone());
                lines
            }
        };
        lines.get(ordinal as usize).copied().unwrap_or(0)
    }

    fn lock_signature_lines(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Vec<u32>>>> {
        self.cache
            .signature_lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The name lines of the signature elements of the file at `path`, in
    /// ordinal order; empty when there is no such file.
    fn read_signature_lines(&self, path: &str) -> Vec<u32> {
        self.file(path)
            .and_then(|file| self.pack.declarations(&file.blob_id, self.location(&file)?))
            .map(|facts| {
                facts
                    .signature_ordinals()
                    .iter()
                    .zip(&facts.elements)
                    .filter(|&(&ordinal, _)| ordinal != NO_ORDINAL)
                    .map(|(_, element)| element.name_pos.line)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A file's facts, records and (on first use) resolution, decoded once
    /// per revision while the cache keeps them.
    pub fn file_data(&self, file: &FileEntry) -> Result<Arc<FileData>, Error> {
        if let Some(data) = self.cache.file(&file.path)
            && data.entry == *file
        {
            return Ok(data);
        }
        let data = Arc::new(FileData::new(
            file.clone(),
            self.facts(file)?,
            self.records(file)?,
        ));
        self.cache.keep_file(data.clone());
        Ok(data)
    }

    /// The resolution of a file read with [`Self::file_data`], decoded on
    /// first use.
    pub fn file_resolution<'d>(&self, data: &'d FileData) -> Result<&'d FileResolution, Error> {
        if let Some(resolution) = data.resolution.get() {
            return Ok(resolution);
        }
        let resolution = self.resolution(&data.entry)?;
        Ok(data.resolution.get_or_init(|| resolution))
    }

    /// The resolved references of a file, in site order.
    pub fn refs(&self, file: &FileEntry) -> Result<Vec<ResolvedRef>, Error> {
        Ok(self.resolution(file)?.refs)
    }

    /// The resolved references and override links of a file.
    pub fn resolution(&self, file: &FileEntry) -> Result<FileResolution, Error> {
        let bytes: Vec<u8> = self
            .store
            .db()
            .prepare_cached("SELECT refs FROM units WHERE id = ?1")
            .map_err(|e| self.db_error(e))?
            .query_row(params![file.unit_id], |r| r.get(0))
            .map_err(|e| self.db_error(e))?;
        let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
        aligned.extend_from_slice(&bytes);
        rkyv::from_bytes::<StoredResolution, rkyv::rancor::Error>(&aligned)
            .map(|stored| stored.expand(&mut |path, ordinal| self.signature_line(path, ordinal)))
            .map_err(|e| Error::Corrupt {
                path: self.store.dir().to_path_buf(),
                message: format!("references of {} do not validate: {e}", file.path),
            })
    }

    /// The qualified element records of a file, by element index.
    pub fn records(&self, file: &FileEntry) -> Result<Vec<ElementRecord>, Error> {
        let mut statement = self
            .store
            .db()
            .prepare_cached(
                "SELECT idx, element_id, kind, name, owner, params, type, parent_idx, start_line, \
                 end_line, name_line, name_col FROM elements WHERE unit_id = ?1 ORDER BY idx",
            )
            .map_err(|e| self.db_error(e))?;
        let rows = statement
            .query_map(params![file.unit_id], |r| {
                let kind: String = r.get(2)?;
                let kind = ElementKind::parse(&kind).ok_or_else(|| {
                    rusqlite::Error::FromSqlConversionFailure(
                        2,
                        rusqlite::types::Type::Text,
                        format!("unknown element kind '{kind}'").into(),
                    )
                })?;
                let params_text: String = r.get(5)?;
                Ok(ElementRecord {
                    idx: r.get(0)?,
                    element_id: r.get(1)?,
                    kind,
                    name: r.get(3)?,
                    owner: r.get(4)?,
                    params: split_params(&params_text),
                    type_name: r.get(6)?,
                    parent_idx: r.get(7)?,
                    start_line: r.get(8)?,
                    end_line: r.get(9)?,
                    name_line: r.get(10)?,
                    name_col: r.get(11)?,
                })
            })
            .map_err(|e| self.db_error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.db_error(e))
    }

    /// The elements owning lines `start..=end` of a file: the innermost
    /// element of each line (several for a line of several fields). An
    /// enclosing element whose own header lies in the range stands for its
    /// members instead; one hit only through blank or closing lines
    /// between its members is left out.
    pub fn elements_at(&self, path: &str, start: u32, end: u32) -> Result<Vec<ElementView>, Error> {
        let file = self.file(path)?;
        let facts = self.facts(&file)?;
        let records = self.records(&file)?;
        if start > facts.n_lines.max(1) {
            return Err(Error::LineOutOfRange {
                path: path.to_string(),
                line: start,
                n_lines: facts.n_lines,
            });
        }
        let mut owners: Vec<u32> = Vec::new();
        for line in start..=end.min(facts.n_lines.max(start)) {
            for &owner in facts.owners_of_line(line) {
                if !owners.contains(&owner) {
                    owners.push(owner);
                }
            }
        }
        owners.sort_unstable();
        let is_strict_ancestor = |a: u32, b: u32| facts.encloses(a, b);
        // Enclosing elements (outermost first) either absorb their members
        // or drop out.
        let mut kept: Vec<u32> = owners.clone();
        for &candidate in &owners {
            if !kept.contains(&candidate) {
                continue;
            }
            let has_member = kept
                .iter()
                .any(|&other| is_strict_ancestor(candidate, other));
            if !has_member {
                continue;
            }
            let header_line = facts.elements[candidate as usize].name_pos.line;
            if (start..=end).contains(&header_line) {
                kept.retain(|&other| !is_strict_ancestor(candidate, other));
            } else {
                kept.retain(|&other| other != candidate);
            }
        }
        facts.sort_by_appearance(&mut kept);
        Ok(kept
            .into_iter()
            .filter_map(|index| {
                let record = records.get(index as usize)?.clone();
                Some(ElementView {
                    path: path.to_string(),
                    record,
                    element: facts.elements[index as usize].clone(),
                })
            })
            .collect())
    }
}

fn split_params(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        // Lambda parameters without declared types are stored as empty
        // strings, so a parameter list may hold empty entries.
        text.split(',').map(str::to_string).collect()
    }
}
