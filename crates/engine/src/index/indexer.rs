//! The indexer: one revision's phases in order, in one transaction, as a
//! layer over an indexed revision when there is one near, else from
//! scratch.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use refscope_store::{
    BlobId, BlobStats, NewRevision, PackLocation, PackReader, PackWriter, RevisionRow,
    RevisionTotals, Store, TreeReader,
};
use refscope_symbols::{JdkOrigin, JdkTypes};

use super::ahead::ParseAhead;
use super::config::{IndexConfig, check_passes};
use super::full::{Full, PackedFile, index_full};
use super::layered::{Content, Layered, NotLayered, index_layered};
use super::libraries::Libraries;
use super::listing::{changes_from_listing, listing_over, skipped_over};
use super::parse::{Parsed, parse_new_blobs};
use super::report::{IndexSummary, Progress};
use super::worktree_units::{Update, WorktreeUnits};
use crate::error::Error;
use crate::source::{Changes, Files, Revision, RevisionKind, Source, SourceFile};
use crate::symtab::kept::{Kept, LayerMark};

/// How far back a commit's first-parent history is searched for an
/// indexed commit to write it as a layer over.
const BASE_SEARCH: usize = 64;

/// Above this many changed files a revision is indexed from scratch (a
/// vendor drop, a rewrite of most of the tree), in parallel from the
/// start, rather than as a layer.
const MAX_LAYER_CHANGES: usize = 20_000;

/// The library digest of a revision indexed without incremental data: no
/// digest of real libraries, so no revision is ever layered over it.
const NOT_LAYERABLE: [u8; 16] = [0; 16];

/// Indexes revisions into a store.
///
/// A revision is written as a layer over an indexed revision near it
/// (the nearest indexed commit of its first-parent history, or the last
/// state of the same directory) when there is one with the same
/// libraries: only the changed files and the files whose lookups touch a
/// changed declaration are parsed and resolved. Otherwise it is indexed
/// from scratch, all files in parallel. One indexer indexing several
/// revisions keeps the libraries loaded.
pub struct Indexer<'s> {
    store: &'s Store,
    config: IndexConfig,
    libraries: Option<Libraries>,
    /// Stored units' symbols read by earlier revisions.
    units: Arc<Kept>,
    /// The workers, kept from one revision to the next (with what each
    /// keeps per thread: its parser, its allocator's pages).
    pool: Option<rayon::ThreadPool>,
    /// The units of this indexer's work-tree revisions that no other
    /// revision holds (with [`IndexConfig::replace_worktree`]).
    worktree_units: WorktreeUnits,
    /// The thread parsing the coming revisions' files, if any.
    ahead: Option<ParseAhead>,
}

/// How a revision is indexed.
enum Plan {
    /// From scratch: every file.
    Full {
        files: Vec<SourceFile>,
        skipped: Vec<(String, String)>,
    },
    /// As a layer over `parent`.
    Layered {
        parent: Box<RevisionRow>,
        changes: Changes,
    },
}

impl<'s> Indexer<'s> {
    /// An indexer writing to `store`.
    pub fn new(store: &'s Store, config: IndexConfig) -> Self {
        Self {
            store,
            config,
            libraries: None,
            units: Arc::default(),
            pool: None,
            worktree_units: WorktreeUnits::default(),
            ahead: None,
        }
    }

    /// Tells the indexer the commits it will index next, in order (each
    /// after the one before, as a range is indexed): a thread of its own
    /// parses the files each changes over the one before, on a core the
    /// revision being indexed leaves idle, so that their parse phase finds
    /// them parsed. Replaces what an earlier call started. Nothing happens
    /// for a directory, or where the system has no idle scheduling class.
    pub fn parse_ahead(&mut self, source: &Source, commits: &[String]) {
        self.ahead = None;
        self.ahead = ParseAhead::start(source, commits, &self.config.limits, self.config.passes());
    }

    /// Indexes one revision of `source`.
    pub fn index(
        &mut self,
        source: &Source,
        revision: &Revision,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        let started = Instant::now();
        if let Some(ahead) = &self.ahead {
            ahead.reached(&revision.name);
        }
        check_passes(self.store, &self.config, |store| {
            Ok(store.passes()?.unwrap_or_default())
        })?;
        if let Some(summary) = self.already_indexed(&revision.name)? {
            return Ok(summary);
        }
        let _lock = self.store.lock_for_writing(|pid| {
            progress(Progress::WaitingForLock {
                pid: pid.to_string(),
            })
        })?;
        // Another process may have indexed it while we waited.
        if let Some(summary) = self.already_indexed(&revision.name)? {
            return Ok(summary);
        }
        let result = self.index_locked(source, revision, started, progress);
        if result.is_err() {
            // What the failed run appended to the pack is referenced by
            // nothing: give the space back (it may be what ran out).
            let _ = self.store.discard_uncommitted_pack();
        }
        result
    }

    /// [`Self::index`], under the write lock.
    fn index_locked(
        &mut self,
        source: &Source,
        revision: &Revision,
        started: Instant,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        check_passes(self.store, &self.config, |store| {
            store.claim_passes(super::passes_name(self.config.passes()))
        })?;
        self.load_libraries(progress)?;
        let plan = self.plan(source, revision)?;
        let worktree = if self.config.replace_worktree && revision.kind == RevisionKind::WorkTree {
            Some(self.worktree_units.begin(self.store)?)
        } else {
            None
        };
        let jobs = self.config.jobs;
        let pool = self.pool.get_or_insert_with(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                .build()
                .expect("a thread pool can be built")
        });
        let mut run = Run {
            store: self.store,
            config: &self.config,
            libraries: self.libraries.as_ref().expect("loaded above"),
            units: &self.units,
            pool,
            ahead: self.ahead.as_ref(),
            source,
            revision,
            started,
            worktree,
            committed: None,
            n_parsed_ahead: 0,
        };
        let summary = match plan {
            Plan::Layered { parent, changes } => match run.layered(&parent, &changes, progress)? {
                Some(summary) => summary,
                None => {
                    let (files, skipped) = listing_over(self.store, &parent, &changes)?;
                    run.full(&files, skipped, progress)?
                }
            },
            Plan::Full { files, skipped } => run.full(&files, skipped, progress)?,
        };
        if let (Some(update), Some(revision)) = (run.worktree, run.committed) {
            self.worktree_units.committed(update, revision);
        }
        Ok(summary)
    }

    /// The thread parsing ahead, if one runs.
    #[cfg(test)]
    pub(super) fn ahead(&self) -> Option<&ParseAhead> {
        self.ahead.as_ref()
    }

    /// Ends indexing in a process that is about to exit: everything is
    /// committed already, and what the indexer holds is left to the exit
    /// instead of being freed piece by piece.
    pub fn finish_for_exit(mut self) {
        std::mem::forget(self.libraries.take());
        // The symbols and memos kept from one revision to the next; their
        // read connection is closed as usual.
        drop(self.units.take_any_reader());
        std::mem::forget(std::mem::take(&mut self.units));
    }

    /// The digest of the libraries this indexer resolves against (the JDK
    /// and the class path), as each revision it indexes records it: a
    /// revision with another digest was indexed against other libraries,
    /// and its answers are not comparable element by element.
    pub fn library_digest(&mut self) -> Result<[u8; 16], Error> {
        self.load_libraries(&mut |_| {})?;
        Ok(self.libraries.as_ref().expect("loaded above").digest)
    }

    fn load_libraries(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), Error> {
        if self.libraries.is_some() {
            return Ok(());
        }
        let jdk = match self.config.jdk.take() {
            Some(jdk) => jdk,
            None => JdkTypes::discover()?,
        };
        if jdk.origin == JdkOrigin::Missing {
            progress(Progress::NoJdk);
        }
        let mut libraries = Libraries::load(jdk, &self.config.classpath)?;
        libraries.digest_paths(&self.config.limits.paths);
        self.libraries = Some(libraries);
        Ok(())
    }

    /// Decides how to index `revision`: over which parent, with which
    /// changes, or from scratch with which files.
    fn plan(&self, source: &Source, revision: &Revision) -> Result<Plan, Error> {
        let digest = self.libraries.as_ref().expect("loaded").digest;
        let from_scratch = self.config.from_scratch || self.config.without_incremental_data;
        let usable = |row: &RevisionRow| {
            !from_scratch && row.library_digest == digest && row.library_digest != NOT_LAYERABLE
        };
        let small = |changes: &Changes, parent: &RevisionRow| {
            changes.len() <= MAX_LAYER_CHANGES.min((parent.n_files as usize / 2).max(256))
        };
        match &revision.files {
            Files::Changes { base, changes } => {
                let Some(parent) = self.store.revision(base)? else {
                    return Err(Error::NotIndexed {
                        store: self.store.dir().to_path_buf(),
                        revision: base.clone(),
                    });
                };
                if usable(&parent) && small(changes, &parent) {
                    return Ok(Plan::Layered {
                        parent: Box::new(parent),
                        changes: changes.clone(),
                    });
                }
                let (files, skipped) = listing_over(self.store, &parent, changes)?;
                Ok(Plan::Full { files, skipped })
            }
            Files::Commit => {
                let parent = self.commit_base(source, &revision.name, &usable)?;
                if let Some(parent) = parent {
                    let changes = source.changes_between(
                        &parent.name,
                        &revision.name,
                        &self.config.limits,
                    )?;
                    if small(&changes, &parent) {
                        return Ok(Plan::Layered {
                            parent: Box::new(parent),
                            changes,
                        });
                    }
                }
                match source.commit_files(&revision.name, &self.config.limits)? {
                    Files::All { files, skipped } => Ok(Plan::Full { files, skipped }),
                    _ => unreachable!("a commit's listing is whole"),
                }
            }
            Files::All { files, skipped } => {
                let parent = match revision.kind {
                    RevisionKind::WorkTree => {
                        let root = source.root().to_string_lossy();
                        self.store.revisions()?.into_iter().find(|row| {
                            row.kind == RevisionKind::WorkTree.as_str()
                                && row.root.as_deref() == Some(&*root)
                                && usable(row)
                        })
                    }
                    RevisionKind::Commit => None,
                };
                if let Some(parent) = parent {
                    let changes = changes_from_listing(self.store, &parent, files, skipped)?;
                    if small(&changes, &parent) {
                        return Ok(Plan::Layered {
                            parent: Box::new(parent),
                            changes,
                        });
                    }
                }
                Ok(Plan::Full {
                    files: files.clone(),
                    skipped: skipped.clone(),
                })
            }
        }
    }

    /// The indexed commit to write commit `name` over: the nearest of its
    /// first-parent history, else the newest commit indexed with the same
    /// libraries.
    fn commit_base(
        &self,
        source: &Source,
        name: &str,
        usable: &dyn Fn(&RevisionRow) -> bool,
    ) -> Result<Option<RevisionRow>, Error> {
        // Walked from `name` back, and only as far as the first indexed
        // commit: in a range, its parent.
        let mut searched = 0;
        let mut found: Result<Option<RevisionRow>, Error> = Ok(None);
        source.first_parent_history(name, |commit| {
            searched += 1;
            if searched > BASE_SEARCH {
                return true;
            }
            if commit == name {
                return false;
            }
            match self.store.revision(commit) {
                Ok(Some(row)) if usable(&row) => {
                    found = Ok(Some(row));
                    true
                }
                Ok(_) => false,
                Err(e) => {
                    found = Err(e.into());
                    true
                }
            }
        })?;
        if let Some(row) = found? {
            return Ok(Some(row));
        }
        Ok(self
            .store
            .revisions()?
            .into_iter()
            .find(|row| row.kind == RevisionKind::Commit.as_str() && usable(row)))
    }

    fn already_indexed(&self, name: &str) -> Result<Option<IndexSummary>, Error> {
        Ok(self.store.revision(name)?.map(|row| IndexSummary {
            revision: row.name,
            already_indexed: true,
            n_files: row.n_files,
            n_parsed: 0,
            n_parsed_ahead: 0,
            n_resolved: 0,
            n_elements: row.n_elements,
            n_ref_sites: row.n_ref_sites,
            n_skipped: row.n_skipped,
            n_syntax_errors: row.n_syntax_errors,
            n_invalid_utf8_files: row.n_invalid_utf8_files,
            dirty: None,
            parent: row.parent,
            seconds: 0.0,
            store_bytes: self.store.size_on_disk(),
        }))
    }
}

/// One indexing run.
struct Run<'r> {
    store: &'r Store,
    config: &'r IndexConfig,
    libraries: &'r Libraries,
    units: &'r Arc<Kept>,
    pool: &'r rayon::ThreadPool,
    ahead: Option<&'r ParseAhead>,
    source: &'r Source,
    revision: &'r Revision,
    started: Instant,
    /// Which units the work-tree revision this run replaces held alone.
    worktree: Option<Update>,
    /// The id of the revision row committed.
    committed: Option<i64>,
    /// Blobs the parse phase found parsed ahead.
    n_parsed_ahead: u64,
}

impl Run<'_> {
    /// Indexes the revision from scratch.
    fn full(
        &mut self,
        files: &[SourceFile],
        skipped: Vec<(String, String)>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        if let Some(ahead) = self.ahead {
            ahead.pause(true);
        }
        let summary = self.full_paused(files, skipped, progress);
        if let Some(ahead) = self.ahead {
            ahead.pause(false);
        }
        summary
    }

    /// [`Self::full`], with no parsing ahead meanwhile.
    fn full_paused(
        &mut self,
        files: &[SourceFile],
        mut skipped: Vec<(String, String)>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        let store = self.store;
        // Until the end, including the final checkpoint. Only here: a
        // layer writes little, and would otherwise start writing out what
        // an earlier process left dirty, and wait for it.
        let _writeback = store.start_writeback();
        let tx = store.begin_index()?;
        let mut blobs = tx.known_blobs(files.iter().map(|f| &f.blob_id))?;
        let Parsed {
            n_parsed,
            n_parsed_ahead,
            skipped_blobs,
        } = parse_new_blobs(
            self.pool,
            self.ahead,
            store,
            &tx,
            self.source,
            self.revision,
            files,
            &HashMap::new(),
            &mut blobs,
            self.config.passes(),
            progress,
        )?;
        self.n_parsed_ahead = n_parsed_ahead;
        let reader = PackReader::open_unmapped(&store.pack_path())?;
        let mut packed = Vec::with_capacity(files.len());
        for file in files {
            if let Some(reason) = skipped_blobs.get(&file.blob_id) {
                skipped.push((file.path.clone(), reason.clone()));
                continue;
            }
            let location = blobs
                .get(&file.blob_id)
                .and_then(|s| s.location)
                .expect("every file's blob is parsed or skipped");
            packed.push(PackedFile {
                path: Arc::from(file.path.as_str()),
                blob_id: file.blob_id,
                location,
            });
        }
        let indexed = index_full(
            Full {
                pool: self.pool,
                tx: &tx,
                reader: &reader,
                libraries: self.libraries,
                files: &packed,
                incremental_data: !self.config.without_incremental_data,
            },
            progress,
        )?;
        let tree = tx.write_tree(
            packed
                .iter()
                .zip(&indexed.units)
                .map(|(f, &unit)| (&*f.path, f.blob_id, unit)),
        )?;
        if let Some(update) = &mut self.worktree {
            tx.remove_units(&update.replace_all(indexed.units.iter().copied()))?;
        }
        let mut totals = RevisionTotals {
            n_files: packed.len() as u64,
            ..RevisionTotals::default()
        };
        for file in &packed {
            add_stats(&mut totals, &blobs[&file.blob_id], 1);
        }
        skipped.sort();
        self.finish(
            tx,
            None,
            tree,
            indexed.layers,
            totals,
            &skipped,
            (n_parsed, packed.len() as u64),
            None,
        )
    }

    /// Indexes the revision as a layer over `parent`; `None` when its
    /// names do not settle and it must be indexed from scratch.
    fn layered(
        &mut self,
        parent: &RevisionRow,
        changes: &Changes,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Option<IndexSummary>, Error> {
        let store = self.store;
        let tx = store.begin_index()?;
        // What the changed paths held in the parent.
        let mut trees = TreeReader::default();
        let mut before: BTreeMap<String, (BlobId, i64)> = BTreeMap::new();
        for path in changes
            .changed
            .iter()
            .map(|f| f.path.as_str())
            .chain(changes.removed.iter().map(String::as_str))
            .chain(changes.skipped.iter().map(|(p, _)| p.as_str()))
        {
            if let Some(entry) = trees.file(store, parent.tree, path)? {
                before.insert(path.to_string(), entry);
            }
        }
        let mut blobs = tx.known_blobs(
            changes
                .changed
                .iter()
                .map(|f| &f.blob_id)
                .chain(before.values().map(|(blob, _)| blob)),
        )?;
        // A changed file's new version is stored over its previous one.
        let bases: HashMap<BlobId, PackLocation> = changes
            .changed
            .iter()
            .filter_map(|file| {
                let (before, _) = before.get(&file.path)?;
                let at = blobs.get(before)?.location?;
                Some((file.blob_id, at))
            })
            .collect();
        let Parsed {
            n_parsed,
            n_parsed_ahead,
            skipped_blobs,
        } = parse_new_blobs(
            self.pool,
            self.ahead,
            store,
            &tx,
            self.source,
            self.revision,
            &changes.changed,
            &bases,
            &mut blobs,
            self.config.passes(),
            progress,
        )?;
        self.n_parsed_ahead = n_parsed_ahead;
        let mut skipped_now = changes.clone();
        let mut layer_changes: Vec<(Arc<str>, Content)> = Vec::new();
        for file in &changes.changed {
            if let Some(reason) = skipped_blobs.get(&file.blob_id) {
                skipped_now
                    .skipped
                    .push((file.path.clone(), reason.clone()));
                if before.contains_key(&file.path) {
                    layer_changes.push((Arc::from(file.path.as_str()), None));
                }
                continue;
            }
            if before.get(&file.path).map(|(blob, _)| blob) == Some(&file.blob_id) {
                continue;
            }
            let location = blobs[&file.blob_id]
                .location
                .expect("parsed blobs are in the pack");
            layer_changes.push((
                Arc::from(file.path.as_str()),
                Some((file.blob_id, location)),
            ));
        }
        for path in changes
            .removed
            .iter()
            .chain(changes.skipped.iter().map(|(p, _)| p))
        {
            if before.contains_key(path) {
                layer_changes.push((Arc::from(path.as_str()), None));
            }
        }
        layer_changes.sort_by(|a, b| a.0.cmp(&b.0));
        layer_changes.dedup_by(|later, earlier| later.0 == earlier.0);
        let reader = PackReader::open_unmapped(&store.pack_path())?;
        let mapped = Arc::new(PackReader::open(&store.pack_path())?);
        let written = index_layered(
            Layered {
                pool: self.pool,
                tx: &tx,
                reader: &reader,
                mapped: &mapped,
                libraries: self.libraries,
                units: self.units,
                parent,
                changes: &layer_changes,
            },
            progress,
        )?;
        let mut written = match written {
            Ok(written) => written,
            Err(NotLayered::Unsettled) => return Ok(None),
            Err(NotLayered::Damaged(notice)) => {
                progress(Progress::Notice(notice));
                return Ok(None);
            }
        };
        let tree_changes: Vec<(&str, Option<(BlobId, i64)>)> = written
            .tree
            .iter()
            .map(|(path, entry)| (&**path, *entry))
            .collect();
        let tree = tx.update_tree(parent.tree, &tree_changes)?;
        if let Some(update) = &mut self.worktree {
            update.over(parent.id);
            let mut replaced = Vec::with_capacity(written.tree.len());
            for (path, entry) in &written.tree {
                let held = match before.get(&**path) {
                    Some(&(_, unit)) => Some(unit),
                    None => trees.file(store, parent.tree, path)?.map(|(_, unit)| unit),
                };
                replaced.push((held, entry.map(|(_, unit)| unit)));
            }
            tx.remove_units(&update.replace(replaced))?;
        }
        let mut writer = PackWriter::open(&store.pack_path(), store.committed_pack_len()?)?;
        let (parent_symbols, parent_lookups) = &written.parent_chains;
        let symbols = parent_symbols.push(&written.symbols, &mut writer)?;
        let lookups = parent_lookups.push(&written.lookups, &mut writer)?;
        tx.set_pack_len(writer.finish()?)?;
        let mut totals = RevisionTotals {
            n_files: parent.n_files,
            n_elements: parent.n_elements,
            n_ref_sites: parent.n_ref_sites,
            n_syntax_errors: parent.n_syntax_errors,
            n_invalid_utf8_files: parent.n_invalid_utf8_files,
            ..RevisionTotals::default()
        };
        let n_resolved = written.tree.iter().filter(|(_, e)| e.is_some()).count() as u64;
        // Files resolved again with their content unchanged count as
        // before: only the changed paths move the totals.
        for (path, content) in &layer_changes {
            if let Some((blob, _)) = before.get(&**path) {
                add_stats(&mut totals, &blobs[blob], -1);
                totals.n_files -= 1;
            }
            if let Some((blob, _)) = content {
                add_stats(&mut totals, &blobs[blob], 1);
                totals.n_files += 1;
            }
        }
        let skipped = skipped_over(store, parent, &skipped_now)?;
        let mut dirty: Vec<String> = written
            .tree
            .iter()
            .filter(|(_, entry)| entry.is_some())
            .map(|(path, _)| path.to_string())
            .collect();
        dirty.sort();
        let carried = std::mem::take(&mut written.carried);
        let summary = self.finish(
            tx,
            Some(&parent.name),
            tree,
            (symbols, lookups),
            totals,
            &skipped,
            (n_parsed, n_resolved),
            Some(dirty),
        )?;
        if let Some(id) = self.committed {
            let mark = LayerMark::new(id, tree, (symbols, lookups), written.prunes);
            self.units.carry(mark, carried);
        }
        Ok(Some(summary))
    }

    /// Writes the revision's row, commits, and says what was done.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        tx: refscope_store::IndexTransaction<'_>,
        parent: Option<&str>,
        tree: i64,
        (symbols, lookups): (PackLocation, PackLocation),
        mut totals: RevisionTotals,
        skipped: &[(String, String)],
        (n_parsed, n_resolved): (u64, u64),
        dirty: Option<Vec<String>>,
    ) -> Result<IndexSummary, Error> {
        let revision = self.revision;
        let root = self.source.root().to_string_lossy();
        let revision_id = tx.insert_revision(&NewRevision {
            name: &revision.name,
            kind: revision.kind.as_str(),
            branch: revision.branch.as_deref(),
            root: &root,
            library_digest: if self.config.without_incremental_data {
                NOT_LAYERABLE
            } else {
                self.libraries.digest
            },
            parent,
            tree,
            symbols,
            lookups,
        })?;
        if self.config.replace_worktree && revision.kind == RevisionKind::WorkTree {
            tx.remove_other_worktrees(revision_id, &root)?;
        }
        tx.insert_skipped(revision_id, skipped)?;
        totals.n_skipped = skipped.len() as u64;
        totals.seconds = self.started.elapsed().as_secs_f64();
        tx.set_revision_totals(revision_id, &totals)?;
        let prunes = self.store.prunes()?;
        tx.commit()?;
        self.committed = Some(revision_id);
        // The layers just written, or shared with the parent, are sound:
        // the next revision over this one need not check them again.
        self.units.note_checked(prunes, [symbols, lookups], false);
        Ok(IndexSummary {
            revision: revision.name.clone(),
            already_indexed: false,
            n_files: totals.n_files,
            n_parsed,
            n_parsed_ahead: self.n_parsed_ahead,
            n_resolved,
            n_elements: totals.n_elements,
            n_ref_sites: totals.n_ref_sites,
            n_skipped: totals.n_skipped,
            n_syntax_errors: totals.n_syntax_errors,
            n_invalid_utf8_files: totals.n_invalid_utf8_files,
            dirty,
            parent: parent.map(str::to_string),
            seconds: self.started.elapsed().as_secs_f64(),
            store_bytes: self.store.size_on_disk(),
        })
    }
}

/// Adds (`sign` 1) or takes away (-1) a file's counts.
fn add_stats(totals: &mut RevisionTotals, stats: &BlobStats, sign: i64) {
    let add = |total: &mut u64, n: u64| *total = (*total as i64 + sign * n as i64) as u64;
    add(&mut totals.n_elements, stats.n_elements);
    add(&mut totals.n_ref_sites, stats.n_ref_sites);
    add(&mut totals.n_syntax_errors, stats.n_syntax_errors);
    add(
        &mut totals.n_invalid_utf8_files,
        u64::from(stats.n_invalid_utf8_bytes > 0),
    );
}
