//! The indexer: one revision's phases in order, in one transaction, with
//! the in-memory engine kept from one revision to the next.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use refscope_store::{BlobId, Donor, NewRevision, PackLocation, PackReader, RevisionTotals, Store};
use refscope_symbols::{JdkOrigin, JdkTypes};

use super::parse::{Parsed, parse_new_blobs};
use super::report::{IndexSummary, Progress};
use super::resolve::{ResolveInput, resolve_files};
use super::sharing::{context_digest, library_digest};
use crate::db::Engine;
use crate::error::Error;
use crate::source::{Revision, RevisionKind, Source};

/// How to index.
#[derive(Debug, Clone, Default)]
pub struct IndexConfig {
    /// Worker threads; 0 means one per core.
    pub jobs: usize,
    /// The JDK's type names, if the caller already has them; otherwise
    /// they are discovered when needed.
    pub jdk: Option<JdkTypes>,
    /// Jar files whose classes join resolution (`--classpath`).
    pub classpath: Vec<std::path::PathBuf>,
    /// A work-tree revision replaces the other work-tree revisions read
    /// from the same directory, in the same transaction: `watch` keeps one
    /// current state of the files on disk, not one per save.
    pub replace_worktree: bool,
}

/// Indexes revisions into a store.
///
/// One indexer indexing several revisions (a range, or `watch`) keeps the
/// in-memory engine ([`crate::db`]) of the last revision it resolved: the
/// next revision sets the files that changed as its inputs, and only what
/// they reach is derived again (an edited body: that file; a changed
/// signature: the files that looked the class up).
pub struct Indexer<'s> {
    store: &'s Store,
    config: IndexConfig,
    engine: Option<Engine>,
}

impl<'s> Indexer<'s> {
    /// An indexer writing to `store`.
    pub fn new(store: &'s Store, config: IndexConfig) -> Self {
        Self {
            store,
            config,
            engine: None,
        }
    }

    /// Indexes one revision of `source`.
    pub fn index(
        &mut self,
        source: &Source,
        revision: &Revision,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        let indexed = self.index_revision(source, revision, progress);
        if indexed.is_err() {
            // The engine's inputs may point into pack bytes that were never
            // committed, and that the next writer cuts.
            self.engine = None;
        }
        indexed
    }

    /// Ends indexing in a process that is about to exit: everything is
    /// committed already, and the engine's memory is left to the exit
    /// instead of being freed piece by piece (half a second on the JDK).
    pub fn finish_for_exit(mut self) {
        std::mem::forget(self.engine.take());
    }

    fn index_revision(
        &mut self,
        source: &Source,
        revision: &Revision,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexSummary, Error> {
        let started = Instant::now();
        if let Some(summary) = self.already_indexed(revision)? {
            return Ok(summary);
        }
        let _lock = self.store.lock_for_writing(|pid| {
            progress(Progress::WaitingForLock {
                pid: pid.to_string(),
            })
        })?;
        // Another process may have indexed it while we waited.
        if let Some(summary) = self.already_indexed(revision)? {
            return Ok(summary);
        }
        // Until the end, including the final checkpoint.
        let _writeback = self.store.start_writeback();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.config.jobs)
            .build()
            .expect("a thread pool can be built");
        let store = self.store;
        let tx = store.begin_index()?;

        // Which blobs are known already.
        let mut blobs = tx.known_blobs(revision.files.iter().map(|f| &f.blob_id))?;

        // The JDK's type names, if not known yet, are read while the files
        // parse (50 ms on a thread of its own instead of between phases).
        let discovering = if self.config.jdk.is_none() {
            std::thread::Builder::new()
                .name("refscope-jdk".into())
                .spawn(JdkTypes::discover)
                .ok()
        } else {
            None
        };

        // Phase 1: parse new blobs in parallel, append them as they come.
        let mut skipped: Vec<(String, String)> = revision.skipped.clone();
        let Parsed {
            n_parsed,
            skipped_blobs,
        } = parse_new_blobs(&pool, store, &tx, source, revision, &mut blobs, progress)?;

        // Phase 2: the libraries and the files of the revision.
        let jdk = match (self.config.jdk.take(), discovering) {
            (Some(jdk), _) => jdk,
            (None, Some(discovering)) => discovering
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
            // No thread could be started for it.
            (None, None) => JdkTypes::discover()?,
        };
        if jdk.origin == JdkOrigin::Missing {
            progress(Progress::NoJdk);
        }
        // Resolution reads every record two or three times: unmapped, so
        // their pages do not add to this process's resident memory.
        let reader = Arc::new(PackReader::open_unmapped(&store.pack_path())?);
        let mut files: Vec<(&str, BlobId, PackLocation)> = Vec::with_capacity(revision.files.len());
        for file in &revision.files {
            if let Some(reason) = skipped_blobs.get(&file.blob_id) {
                skipped.push((file.path.clone(), reason.clone()));
                continue;
            }
            let location = blobs
                .get(&file.blob_id)
                .and_then(|s| s.location)
                .expect("every file's blob is parsed or skipped");
            files.push((&file.path, file.blob_id, location));
        }

        // A file whose content is unchanged since an indexed revision with
        // the same resolution context (libraries, paths and every file's
        // signature digest) resolves as it did there: it shares that unit.
        let library_digest = library_digest(&jdk, &self.config.classpath);
        let context_digest = context_digest(&library_digest, &files, &blobs);
        let unchanged_units = |donor: &HashMap<String, (BlobId, i64)>| -> Vec<Option<i64>> {
            files
                .iter()
                .map(|&(path, blob_id, _)| {
                    donor
                        .get(path)
                        .and_then(|&(donor_blob, unit)| (donor_blob == blob_id).then_some(unit))
                })
                .collect()
        };
        let same_context = tx.donor_files(Donor::SameContext, &context_digest)?;
        let mut unit_of_file = unchanged_units(&same_context);
        let mut n_resolved = 0;
        if unit_of_file.iter().any(Option::is_none) {
            // Some signature changed since any indexed revision: an
            // unchanged file may still resolve as in the newest revision
            // with the same libraries, which is checked name by name once
            // the symbol table is built.
            let candidates = if same_context.is_empty() {
                let same_libraries = tx.donor_files(Donor::SameLibraries, &library_digest)?;
                unchanged_units(&same_libraries)
            } else {
                vec![None; files.len()]
            };
            n_resolved = resolve_files(
                &mut self.engine,
                ResolveInput {
                    pool: &pool,
                    tx: &tx,
                    reader: &reader,
                    jdk: &jdk,
                    classpath: &self.config.classpath,
                    files: &files,
                    library_digest,
                    candidates: &candidates,
                },
                &mut unit_of_file,
                progress,
            )?;
        }
        self.config.jdk = Some(jdk);

        // Phase 4: manifest and revision row, then commit.
        let mut totals = IndexSummary {
            revision: revision.name.clone(),
            already_indexed: false,
            n_files: files.len() as u64,
            n_parsed,
            n_resolved,
            n_elements: 0,
            n_ref_sites: 0,
            n_skipped: 0,
            n_syntax_errors: 0,
            n_invalid_utf8_files: 0,
            seconds: 0.0,
            store_bytes: 0,
        };
        let root = source.root().to_string_lossy();
        let revision_id = tx.insert_revision(&NewRevision {
            name: &revision.name,
            kind: revision.kind.as_str(),
            branch: revision.branch.as_deref(),
            root: &root,
            context_digest,
            library_digest,
        })?;
        if self.config.replace_worktree && revision.kind == RevisionKind::WorkTree {
            tx.remove_other_worktrees(revision_id, &root)?;
        }
        {
            let mut manifest = Vec::with_capacity(files.len());
            for (&(path, blob_id, _), unit) in files.iter().zip(&unit_of_file) {
                let unit = unit.expect("every file has a unit once resolved");
                let stats = blobs[&blob_id];
                totals.n_elements += stats.n_elements;
                totals.n_ref_sites += stats.n_ref_sites;
                totals.n_syntax_errors += stats.n_syntax_errors;
                totals.n_invalid_utf8_files += u64::from(stats.n_invalid_utf8_bytes > 0);
                manifest.push((path, blob_id, unit));
            }
            tx.write_manifest(revision_id, manifest)?;
            tx.insert_skipped(revision_id, &skipped)?;
        }
        totals.n_skipped = skipped.len() as u64;
        totals.seconds = started.elapsed().as_secs_f64();
        tx.set_revision_totals(
            revision_id,
            &RevisionTotals {
                n_files: totals.n_files,
                n_elements: totals.n_elements,
                n_ref_sites: totals.n_ref_sites,
                n_skipped: totals.n_skipped,
                n_syntax_errors: totals.n_syntax_errors,
                seconds: totals.seconds,
            },
        )?;
        tx.commit()?;
        totals.seconds = started.elapsed().as_secs_f64();
        totals.store_bytes = store.size_on_disk();
        Ok(totals)
    }

    fn already_indexed(&self, revision: &Revision) -> Result<Option<IndexSummary>, Error> {
        Ok(self
            .store
            .revision(&revision.name)?
            .map(|row| IndexSummary {
                revision: row.name,
                already_indexed: true,
                n_files: row.n_files,
                n_parsed: 0,
                n_resolved: 0,
                n_elements: row.n_elements,
                n_ref_sites: row.n_ref_sites,
                n_skipped: row.n_skipped,
                n_syntax_errors: row.n_syntax_errors,
                n_invalid_utf8_files: 0,
                seconds: 0.0,
                store_bytes: self.store.size_on_disk(),
            }))
    }
}
