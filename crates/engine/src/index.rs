//! The indexing driver: a revision's files → facts in the blob pack →
//! qualified element records in SQLite, all in one transaction.
//!
//! Phases, as [`Progress::Phase`] names them:
//! 1. *parse*: blobs not yet in the store are read and extracted in
//!    parallel; this thread appends them to the pack as they arrive;
//! 2. *signatures*: the type universe of the revision (JDK + every file's
//!    types) and every file's class signatures;
//! 3. *resolve*: every distinct blob whose resolution may differ from an
//!    indexed revision's is qualified and resolved in parallel and stored
//!    as a unit, shared with any earlier revision that resolved the same
//!    blob the same way;
//! 4. *finish*: the reference index's links and the element index, then
//!    the manifest and the revision row commit together.
//!
//! A run that dies anywhere before the commit leaves the store as it was.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use refscope_store::{
    BlobId, BlobStats, Donor, EncodedFacts, IndexTransaction, Links, NewRevision, NewUnit,
    PackLocation, PackReader, PackWriter, RevisionTotals, Store, encode_facts,
};
use refscope_symbols::{ClassPath, JdkOrigin, JdkTypes};
use refscope_syntax::{Digest128, extract};

use crate::db::{Engine, FactsError, FileContent, Libraries, Memoize, SourceFile};
use crate::error::Error;
use crate::source::{BlobReader, Revision, RevisionKind, Source};

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

/// Progress reported while indexing.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Another process holds the store's write lock; waiting for it.
    WaitingForLock {
        /// The holder's pid, as recorded in the lock file.
        pid: String,
    },
    /// A phase starts, with the amount of work in it.
    Phase {
        /// `parse`, `signatures`, `resolve` or `finish` (the links of a
        /// revision's resolutions and the commit).
        name: &'static str,
        /// Units of work (files; none for `finish`).
        total: u64,
    },
    /// Some units of work of the current phase are done.
    Advance(u64),
    /// No JDK was found: library names stay unqualified.
    NoJdk,
}

/// What an indexing run did.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSummary {
    /// The revision's name (commit id or `worktree:<digest>`).
    pub revision: String,
    /// The revision was indexed before; nothing was done.
    pub already_indexed: bool,
    /// Java files in the revision.
    pub n_files: u64,
    /// Files parsed in this run (blobs not seen before).
    pub n_parsed: u64,
    /// Files resolved in this run; the others share the resolution of an
    /// earlier revision in which they and every signature they can see
    /// were the same.
    pub n_resolved: u64,
    /// Elements over all files.
    pub n_elements: u64,
    /// Reference sites over all files.
    pub n_ref_sites: u64,
    /// Files skipped (too large, binary, unreadable).
    pub n_skipped: u64,
    /// Syntax error nodes over all files.
    pub n_syntax_errors: u64,
    /// Files with bytes that were not UTF-8.
    pub n_invalid_utf8_files: u64,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Size of the store afterwards, in bytes.
    pub store_bytes: u64,
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

/// A parsed blob on its way from a worker to the writer.
enum Parsed {
    Facts {
        blob_id: BlobId,
        payload: EncodedFacts,
        stats: BlobStats,
    },
    Skipped {
        blob_id: BlobId,
        reason: String,
    },
}

/// Files resolved between two evictions of the engine's resolutions: a
/// large revision's are not all held in memory at once.
const RESOLVE_CHUNK_LEN: usize = 128;

/// Parsed files that may wait for the parse phase's writer: few, so
/// finished work waiting to be stored stays small.
const PARSED_AHEAD: usize = 64;

/// Bytes sniffed to tell binary files.
const BINARY_SNIFF_LEN: usize = 8000;

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
        let mut seen_new = std::collections::HashSet::new();
        let mut new_files: Vec<_> = revision
            .files
            .iter()
            .filter(|f| !blobs.contains_key(&f.blob_id) && seen_new.insert(f.blob_id))
            .collect();
        // Largest first: the pool ends on small files, instead of one
        // worker parsing the largest while the others wait.
        new_files.sort_by_key(|f| std::cmp::Reverse(f.size));
        progress(Progress::Phase {
            name: "parse",
            total: new_files.len() as u64,
        });
        let mut skipped: Vec<(String, String)> = revision.skipped.clone();
        let mut skipped_blobs: HashMap<BlobId, String> = HashMap::new();
        let mut pack = PackWriter::open(&store.pack_path(), store.committed_pack_len()?)?;
        let reader_spec = source.reader_spec();
        let verify_content = revision.kind == RevisionKind::WorkTree;
        let prefetched = revision.prefetched.as_deref();
        let mut n_parsed = new_files.len() as u64;
        // Files go to the workers largest first and reach the writer in
        // that order, so the pack's layout does not depend on timing.
        let write_result = crate::parallel::in_order(
            &pool,
            new_files.len(),
            PARSED_AHEAD,
            || reader_spec.open(),
            |reader, at| {
                let file = new_files[at];
                if let Some(bytes) = prefetched.and_then(|p| p.take(&file.blob_id)) {
                    return parse_bytes(file, bytes);
                }
                match reader {
                    Ok(reader) => parse_blob(reader, file, verify_content),
                    Err(e) => Parsed::Skipped {
                        blob_id: file.blob_id,
                        reason: e.to_string(),
                    },
                }
            },
            |_, parsed| {
                match parsed {
                    Parsed::Facts {
                        blob_id,
                        payload,
                        mut stats,
                    } => {
                        let location = pack.append(&blob_id, &payload)?;
                        stats.location = Some(location);
                        tx.insert_blob(&blob_id, &stats)?;
                        blobs.insert(blob_id, stats);
                    }
                    Parsed::Skipped { blob_id, reason } => {
                        n_parsed -= 1;
                        skipped_blobs.insert(blob_id, reason);
                    }
                }
                progress(Progress::Advance(1));
                Ok::<(), refscope_store::Error>(())
            },
        );
        // Contents of blobs indexed before were listed but not parsed.
        if let Some(prefetched) = prefetched {
            prefetched.release();
        }
        write_result?;
        let pack_len = pack.finish()?;
        tx.set_pack_len(pack_len)?;
        tx.commit_so_far()?;

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
            n_resolved = self.resolve_files(
                ResolveInput {
                    pool: &pool,
                    tx: &tx,
                    reader: &reader,
                    jdk: &jdk,
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

    /// Phases 3 to 5 for the files without a unit yet: the revision's
    /// files become the inputs of the in-memory engine (a salsa database
    /// kept across the revisions this indexer indexes), which derives the
    /// type universe, the signatures and the resolutions, recomputing only
    /// what the changes since the last revision reach; the resolutions are
    /// stored as units (shared with any identical unit stored before).
    fn resolve_files(
        &mut self,
        input: ResolveInput<'_, '_>,
        unit_of_file: &mut [Option<i64>],
        progress: &mut dyn FnMut(Progress),
    ) -> Result<u64, Error> {
        let ResolveInput {
            pool,
            tx,
            reader,
            jdk,
            files,
            library_digest,
            candidates,
        } = input;
        let facts_error =
            |e: FactsError| Error::corrupt(self.store.dir(), format!("{}: {}", e.path, e.message));
        let (mut engine, cold) = match self.engine.take() {
            Some(engine) if engine.libraries_digest() == library_digest => (engine, false),
            _ => {
                let libraries = Libraries {
                    jdk: jdk.clone(),
                    class_path: std::sync::Arc::new(ClassPath::new(jdk, &self.config.classpath)?),
                    digest: library_digest,
                };
                (Engine::new(libraries), true)
            }
        };
        engine.update_files(files.iter().map(|&(path, blob_id, location)| {
            (path, blob_id, move || FileContent::Packed {
                blob_id,
                location,
                reader: reader.clone(),
            })
        }));
        let sources: Vec<SourceFile> = files
            .iter()
            .map(|&(path, _, _)| engine.file(path).expect("every file is an input"))
            .collect();
        progress(Progress::Phase {
            name: "signatures",
            total: files.len() as u64,
        });
        engine.prepare(pool);
        progress(Progress::Advance(files.len() as u64));

        // Unchanged files whose lookups all lead where they did keep their
        // unit.
        let checks: Vec<(usize, i64)> = (0..files.len())
            .filter(|&index| unit_of_file[index].is_none())
            .filter_map(|index| candidates[index].map(|unit| (index, unit)))
            .collect();
        if !checks.is_empty() {
            let lookups = tx.unit_lookups(checks.iter().map(|&(_, unit)| unit))?;
            let asked: Vec<(SourceFile, &[String])> = checks
                .iter()
                .filter_map(|&(index, unit)| {
                    let (names, _) = lookups.get(&unit)?;
                    Some((sources[index], names.as_slice()))
                })
                .collect();
            let digests = engine.lookups_digests(pool, &asked);
            let mut digests = digests.into_iter();
            for &(index, unit) in &checks {
                let Some((_, digest)) = lookups.get(&unit) else {
                    continue;
                };
                if digests.next() == Some(*digest) {
                    unit_of_file[index] = Some(unit);
                }
            }
        }

        // Qualified element records and resolved references, one unit per
        // distinct result. A blob resolves once per source root, at its
        // first path there: a blob at several paths declares its classes
        // at each, and each copy sees its own root's classes first.
        let mut work: Vec<(BlobId, usize)> = Vec::new();
        let mut work_of_file: Vec<(usize, usize)> = Vec::new();
        {
            let mut seen: HashMap<(BlobId, String), usize> = HashMap::new();
            for (index, &(_, blob_id, _)) in files.iter().enumerate() {
                if unit_of_file[index].is_some() {
                    continue;
                }
                let root = engine.source_root(sources[index]);
                let next = work.len();
                let at = *seen.entry((blob_id, root)).or_insert_with(|| {
                    work.push((blob_id, index));
                    next
                });
                work_of_file.push((index, at));
            }
        }
        // Largest facts first, so each chunk holds files of like cost and
        // the workers finish a chunk at about the same time.
        let mut order: Vec<usize> = (0..work.len()).collect();
        order.sort_by_key(|&at| std::cmp::Reverse(files[work[at].1].2.len));
        let mut rank = vec![0; work.len()];
        for (new_at, &at) in order.iter().enumerate() {
            rank[at] = new_at;
        }
        let work: Vec<(BlobId, usize)> = order.iter().map(|&at| work[at]).collect();
        for (_, at) in &mut work_of_file {
            *at = rank[*at];
        }
        progress(Progress::Phase {
            name: "resolve",
            total: work.len() as u64,
        });
        let representatives: Vec<SourceFile> =
            work.iter().map(|&(_, index)| sources[index]).collect();
        let mut unit_of_work: Vec<i64> = Vec::with_capacity(work.len());
        let mut links = Links::default();
        let element_index = tx.defer_element_index()?;
        // The pool resolves the next chunk while this thread stores the
        // last one: the single writer never holds the workers up, and at
        // most two chunks of resolutions are in memory at once.
        let (sender, receiver) = sync_channel(1);
        std::thread::scope(|scope| {
            let resolving = scope.spawn(|| {
                // A closed channel means the writer failed: stop too.
                // The sender moves in, so the writer's loop ends when this
                // thread is done.
                let send = move |first, resolved| sender.send((first, resolved));
                // A new engine has no resolution to reuse, and the next
                // revision takes unchanged files' units from the store:
                // memoizing these would cost time and memory only.
                let memoize = if cold { Memoize::No } else { Memoize::Yes };
                let rows = |at: usize, resolved| NewUnit::new(&work[at].0, resolved);
                engine.resolve_in_chunks(
                    pool,
                    &representatives,
                    RESOLVE_CHUNK_LEN,
                    memoize,
                    rows,
                    send,
                )
            });
            // Statements prepared once for every unit's rows.
            let mut writer = tx.unit_writer();
            let mut stored = Ok(());
            if let Ok(writer) = &mut writer {
                for (first, resolved) in receiver.iter() {
                    stored = (|| {
                        for (&(blob_id, _), rows) in work[first..].iter().zip(resolved) {
                            let rows = rows.map_err(facts_error)?;
                            let unit = writer.store(&blob_id, rows, &mut links)?;
                            unit_of_work.push(unit);
                            progress(Progress::Advance(1));
                        }
                        Ok::<(), Error>(())
                    })();
                    if stored.is_err() {
                        break;
                    }
                }
            }
            let stored = writer.map(drop).map_err(Error::from).and(stored);
            drop(receiver);
            match resolving.join() {
                Ok(_) => stored,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })?;
        progress(Progress::Phase {
            name: "finish",
            total: 0,
        });
        // The links sort on a thread of their own while SQLite builds the
        // element index, then go in.
        let sorted = std::thread::scope(|scope| {
            let sorting = scope.spawn(|| links.sorted());
            let indexed = element_index.finish(tx);
            let sorted = sorting
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            indexed.map(|()| sorted)
        })?;
        sorted.write(tx)?;
        let n_resolved = work_of_file.len() as u64;
        for (index, at) in work_of_file {
            unit_of_file[index] = Some(unit_of_work[at]);
        }
        self.engine = Some(engine);
        Ok(n_resolved)
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

/// Reads and extracts one blob.
fn parse_blob(
    reader: &BlobReader,
    file: &crate::source::SourceFile,
    verify_content: bool,
) -> Parsed {
    let bytes = match reader.read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Parsed::Skipped {
                blob_id: file.blob_id,
                reason: format!("cannot read: {e}"),
            };
        }
    };
    // A directory's file may have changed since the revision was listed;
    // its facts must not be stored under the old content's id.
    if verify_content && BlobId::of_bytes(&bytes) != file.blob_id {
        return Parsed::Skipped {
            blob_id: file.blob_id,
            reason: "changed while being indexed".into(),
        };
    }
    parse_bytes(file, bytes)
}

/// Extracts the facts of `bytes`, the content of blob `file.blob_id`.
fn parse_bytes(file: &crate::source::SourceFile, bytes: Vec<u8>) -> Parsed {
    if looks_binary(&bytes) {
        return Parsed::Skipped {
            blob_id: file.blob_id,
            reason: "binary content (NUL bytes)".into(),
        };
    }
    let facts = extract(&bytes);
    let stats = BlobStats {
        location: None,
        n_elements: facts.elements.len() as u64,
        n_ref_sites: facts.ref_sites.len() as u64,
        n_syntax_errors: u64::from(facts.diagnostics.n_syntax_errors),
        n_invalid_utf8_bytes: u64::from(facts.diagnostics.n_invalid_utf8_bytes),
        signature_digest: facts.signature_digest(),
    };
    Parsed::Facts {
        blob_id: file.blob_id,
        payload: encode_facts(facts, bytes.len()),
        stats,
    }
}

/// Binary content: NUL bytes in text that is not UTF-8. NUL alone is not
/// enough, since javac accepts it in Java source (fuzzing tests carry it in
/// string literals).
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if !head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        // A character cut at the end of the sniffed bytes is still text.
        Err(e) => e.error_len().is_some(),
    }
}

/// What [`Indexer::resolve_files`] works on.
struct ResolveInput<'a, 'f> {
    pool: &'a rayon::ThreadPool,
    tx: &'a IndexTransaction<'a>,
    reader: &'a Arc<PackReader>,
    jdk: &'a JdkTypes,
    files: &'a [(&'f str, BlobId, PackLocation)],
    library_digest: [u8; 16],
    /// Per file, a unit of an earlier revision it resolves to if every
    /// name it looked up there leads to the same thing now.
    candidates: &'a [Option<i64>],
}

/// The digest of the libraries resolution reads: the JDK and the class
/// path, by location, size and modification time.
fn library_digest(jdk: &JdkTypes, classpath: &[std::path::PathBuf]) -> [u8; 16] {
    let mut digest = Digest128::new(b"libraries");
    let mut library = |path: &std::path::Path| {
        digest.write_str(&path.to_string_lossy());
        if let Ok(meta) = std::fs::metadata(path) {
            digest.write(&meta.len().to_le_bytes());
            if let Ok(modified) = meta.modified()
                && let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH)
            {
                digest.write(&since.as_nanos().to_le_bytes());
            }
        }
    };
    match &jdk.origin {
        JdkOrigin::Jmods(dir) => {
            library(dir);
            library(&dir.join("java.base.jmod"));
        }
        JdkOrigin::SourceZip(zip) => library(zip),
        JdkOrigin::Missing => {}
    }
    for jar in classpath {
        library(jar);
    }
    digest.write_u32(jdk.binary_names.len() as u32);
    digest.finish()
}

/// The digest of a revision's resolution context: its libraries and every
/// file's path and signature digest.
fn context_digest(
    library_digest: &[u8; 16],
    files: &[(&str, BlobId, PackLocation)],
    blobs: &HashMap<BlobId, BlobStats>,
) -> [u8; 16] {
    let mut digest = Digest128::new(b"resolution context");
    digest.write(library_digest);
    let mut sorted: Vec<(&str, &[u8; 16])> = files
        .iter()
        .map(|(path, blob_id, _)| (*path, &blobs[blob_id].signature_digest))
        .collect();
    sorted.sort_unstable();
    for (path, signature) in sorted {
        digest.write_str(path);
        digest.write(signature);
    }
    digest.finish()
}
