//! The read API: one indexed revision of a store, as the query language and
//! the bridge see it.
//!
//! This module reads files, facts, records and elements at lines;
//! `graph.rs` follows the global reference index (callers, callees,
//! implementations, references); `follow.rs` carries a reader's cache
//! from one work-tree revision to the next.

mod answers;
mod beans;
mod cache;
mod data;
mod diff;
mod follow;
mod graph;
mod plan;
mod spring;
mod structure;
mod walk;
mod window;

use std::collections::HashMap;
use std::sync::Arc;

use refscope_resolve::records::ElementRecord;
use refscope_resolve::{FileResolution, ResolvedRef};
use refscope_store::{FileEntry, PackLocation, PackReader, RevisionRow, Store};
use refscope_syntax::facts::{FileFacts, NO_ORDINAL, Origin};

use crate::error::Error;
use crate::source::Source;

pub use answers::{CallersConfig, FoundElement, Implementation, Injection, RefHit};
pub use cache::RevisionCache;
use cache::{SignatureSpot, UNITS_ONE_BY_ONE, lock};
pub use data::{ElementView, FileData};
pub use diff::{ChangeKind, Diff, DiffConfig, ElementChange};
pub use structure::{ElementSearch, glob_matches, id_matches, package_of};

/// How far back HEAD's history is searched for an indexed commit.
const HISTORY_SEARCH_LIMIT: usize = 100_000;

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
                // Work-tree revisions are named by the store, not by git.
                if rev == "worktree" || rev.starts_with("worktree:") {
                    return store.revision_by_prefix(rev)?.ok_or_else(|| {
                        Error::NoWorkTreeRevision {
                            store: store.dir().to_path_buf(),
                            revision: rev.to_string(),
                        }
                    });
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
                        return Err(Error::empty_store(store.dir()));
                    }
                    return Err(not_indexed("HEAD"));
                }
                store
                    .revisions()?
                    .into_iter()
                    .next()
                    .ok_or_else(|| Error::empty_store(store.dir()))
            }
        }
    }

    /// The revision this snapshot reads.
    pub fn revision(&self) -> &RevisionRow {
        &self.revision
    }

    /// Every file of the revision, sorted by path.
    pub fn files(&self) -> Result<Vec<FileEntry>, Error> {
        Ok(self.store.manifest(&self.revision)?)
    }

    /// The files of the revision whose content is `unit` (usually one; a
    /// blob copied to several paths gives several), sorted by path.
    ///
    /// The first units asked for are found among the paths each has had
    /// in any manifest, each checked against this revision's; past
    /// [`UNITS_ONE_BY_ONE`] of them, the whole manifest is read once into
    /// a map by unit.
    pub fn files_of_unit(&self, unit: i64) -> Result<Arc<[FileEntry]>, Error> {
        if let Some(by_unit) = self.cache.files_by_unit.get() {
            return Ok(by_unit.get(&unit).cloned().unwrap_or_else(|| Arc::new([])));
        }
        {
            let mut reads = lock(&self.cache.manifest);
            if let Some(files) = reads.units.get(&unit) {
                return Ok(files.clone());
            }
            if reads.units.len() < UNITS_ONE_BY_ONE {
                let mut files = Vec::new();
                for path in self.store.unit_paths(unit)? {
                    let found = reads.trees.file(self.store, self.revision.tree, &path)?;
                    if let Some((blob_id, unit_id)) = found
                        && unit_id == unit
                    {
                        files.push(FileEntry {
                            path,
                            blob_id,
                            unit_id,
                        });
                    }
                }
                let files: Arc<[FileEntry]> = files.into();
                reads.units.insert(unit, files.clone());
                return Ok(files);
            }
        }
        let mut by_unit: HashMap<i64, Vec<FileEntry>> = HashMap::new();
        for file in self.files()? {
            by_unit.entry(file.unit_id).or_default().push(file);
        }
        let by_unit = by_unit
            .into_iter()
            .map(|(unit, files)| (unit, Arc::from(files)))
            .collect();
        let by_unit = self.cache.files_by_unit.get_or_init(|| by_unit);
        Ok(by_unit.get(&unit).cloned().unwrap_or_else(|| Arc::new([])))
    }

    /// The files whose qualification and resolution looked `name` up (a
    /// class key such as `java.util.List`, or a package-qualified name
    /// that was not found), sorted: the files a new, removed or changed
    /// declaration of `name` makes the next revision resolve again. Read
    /// from each file's recorded lookups, one unit at a time.
    pub fn dependents(&self, name: &str) -> Result<Vec<String>, Error> {
        let mut looked_up: HashMap<i64, bool> = HashMap::new();
        let mut out = Vec::new();
        for file in self.files()? {
            let hit = match looked_up.get(&file.unit_id) {
                Some(&hit) => hit,
                None => {
                    let deps = self.store.unit_deps(file.unit_id)?;
                    let hit = deps.binary_search_by(|d| d.as_str().cmp(name)).is_ok();
                    looked_up.insert(file.unit_id, hit);
                    hit
                }
            };
            if hit {
                out.push(file.path);
            }
        }
        Ok(out)
    }

    /// One file of the revision.
    pub fn file(&self, path: &str) -> Result<FileEntry, Error> {
        let found = lock(&self.cache.manifest)
            .trees
            .file(self.store, self.revision.tree, path)?;
        match found {
            Some((blob_id, unit_id)) => Ok(FileEntry {
                path: path.to_string(),
                blob_id,
                unit_id,
            }),
            None => Err(Error::FileNotInRevision {
                path: path.to_string(),
                revision: self.revision.name.clone(),
            }),
        }
    }

    /// The facts of a file.
    pub fn facts(&self, file: &FileEntry) -> Result<FileFacts, Error> {
        Ok(self.pack.facts(&file.blob_id, self.location(file)?)?)
    }

    /// The declarations of a file (package, imports, elements): its facts
    /// without the bodies.
    pub(super) fn declarations(&self, file: &FileEntry) -> Result<FileFacts, Error> {
        Ok(self
            .pack
            .declarations(&file.blob_id, self.location(file)?)?)
    }

    /// Whether the store was indexed with `--no-frameworks`: then no
    /// framework's reading of the code is added to answers either.
    pub(super) fn frameworks_off(&self) -> Result<bool, Error> {
        if let Some(&off) = self.cache.frameworks_off.get() {
            return Ok(off);
        }
        let off = self.store.passes()?.as_deref() == Some(crate::index::PASSES_SYNTAX);
        Ok(*self.cache.frameworks_off.get_or_init(|| off))
    }

    /// Where a file's facts are in the pack.
    fn location(&self, file: &FileEntry) -> Result<PackLocation, Error> {
        self.store.blob_location(&file.blob_id)?.ok_or_else(|| {
            Error::corrupt(
                self.store.dir(),
                format!("no facts for blob {} of {}", file.blob_id, file.path),
            )
        })
    }

    /// The name line of signature element `ordinal` of the file at `path`
    /// (see [`FileFacts::signature_ordinals`]); 0 when there is no such
    /// file or element.
    fn signature_line(&self, path: &str, ordinal: u32) -> SignatureSpot {
        let known = self.lock_signature_lines().get(path).cloned();
        let lines = match known {
            Some(lines) => lines,
            None => {
                let lines: Arc<Vec<SignatureSpot>> = Arc::new(self.read_signature_lines(path));
                self.lock_signature_lines()
                    .insert(path.to_string(), lines.clone());
                lines
            }
        };
        lines.get(ordinal as usize).copied().unwrap_or_default()
    }

    fn lock_signature_lines(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Vec<SignatureSpot>>>> {
        self.cache
            .signature_lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The name lines of the signature elements of the file at `path`, in
    /// ordinal order, with where each comes from; empty when there is no
    /// such file.
    fn read_signature_lines(&self, path: &str) -> Vec<SignatureSpot> {
        self.file(path)
            .and_then(|file| {
                Ok(self
                    .pack
                    .declarations(&file.blob_id, self.location(&file)?)?)
            })
            .map(|facts| {
                facts
                    .signature_ordinals()
                    .iter()
                    .zip(&facts.elements)
                    .filter(|&(&ordinal, _)| ordinal != NO_ORDINAL)
                    .map(|(_, element)| SignatureSpot {
                        line: element.name_pos.line,
                        origin: element.origin,
                    })
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
        let data = FileData::new(file.clone(), self.facts(file)?, self.records(file)?)
            .map_err(|message| self.damaged(file, &message))?;
        let data = Arc::new(data);
        self.cache.keep_file(data.clone());
        Ok(data)
    }

    /// The error for a file whose parts in the store do not fit together.
    fn damaged(&self, file: &FileEntry, message: &str) -> Error {
        Error::corrupt(self.store.dir(), format!("{}: {message}", file.path))
    }

    /// The resolution of a file read with [`Self::file_data`], decoded on
    /// first use. A reference whose target is declared in a source file
    /// of the revision names the declaration by ordinal
    /// ([`ResolvedRef::decl_ordinal`]); its line is left 0 here and read
    /// with [`Self::target_line`] when asked for (a file calls into
    /// hundreds of others, whose declarations would all be decoded).
    pub fn file_resolution<'d>(&self, data: &'d FileData) -> Result<&'d FileResolution, Error> {
        if let Some(resolution) = data.resolution.get() {
            return Ok(resolution);
        }
        let stored = self.store.unit_resolution(&data.entry)?;
        let resolution = stored.expand(&mut |_, _| 0);
        data.check_resolution(&resolution)
            .map_err(|message| self.damaged(&data.entry, &message))?;
        Ok(data.resolution.get_or_init(|| resolution))
    }

    /// The line of the declaration `r` targets: of its name, for a
    /// declaration in a source file of the revision; 0 when unknown.
    pub fn target_line(&self, r: &ResolvedRef) -> u32 {
        self.target_spot(r).line
    }

    /// The line of the declaration `r` targets (see [`Self::target_line`])
    /// and where that declaration comes from (written, or generated by
    /// Lombok).
    pub(super) fn target_spot(&self, r: &ResolvedRef) -> SignatureSpot {
        match r.decl_file.as_deref() {
            Some(path) if r.decl_ordinal != NO_ORDINAL => self.signature_line(path, r.decl_ordinal),
            _ => SignatureSpot {
                line: r.decl_line,
                origin: Origin::Source,
            },
        }
    }

    /// The qualified element records of a file, by element index, as
    /// stored: [`Self::file_data`] pairs them with the facts, checked.
    fn records(&self, file: &FileEntry) -> Result<Vec<ElementRecord>, Error> {
        Ok(self.store.unit_records(file)?)
    }

    /// The notes extraction left about an element (see
    /// [`FileFacts::notes`]): an annotation whose members are not modelled.
    pub fn notes_of(&self, view: &ElementView) -> Result<Vec<String>, Error> {
        let data = self.file_data(&self.file(&view.path)?)?;
        Ok(data
            .facts
            .notes
            .iter()
            .filter(|n| n.element == view.record.idx)
            .map(|n| n.text.clone())
            .collect())
    }

    /// The elements owning lines `start..=end` of a file: the innermost
    /// element of each line (several for a line of several fields). An
    /// enclosing element whose own header lies in the range stands for its
    /// members instead; one hit only through blank or closing lines
    /// between its members is left out.
    pub fn elements_at(&self, path: &str, start: u32, end: u32) -> Result<Vec<ElementView>, Error> {
        let file = self.file(path)?;
        let data = self.file_data(&file)?;
        let (facts, records) = (&data.facts, &data.records);
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
