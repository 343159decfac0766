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

use rusqlite::{OptionalExtension, params};

use crate::db::{Engine, FactsError, FileContent, Libraries, Memoize, SourceFile};
use crate::digest::Digest128;
use crate::error::Error;
use crate::extract::extract;
use crate::jdk::{JdkOrigin, JdkTypes};
use crate::records::ElementRecord;
use crate::resolve::{FileResolution, TrackedResolution};
use crate::source::{BlobId, BlobReader, Revision, RevisionKind, Source};
use crate::store::bulk::{BulkInsert, Value};
use crate::store::manifest::{delete_manifest, read_manifest, write_manifest};
use crate::store::names::{decode_names, encode_names};
use crate::store::{ElementIndex, PackLocation, PackReader, PackWriter, Store, encode_facts};
use crate::symbols::classfile::ClassPath;

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

/// Blob statistics kept in the `blobs` table.
#[derive(Debug, Clone, Copy, Default)]
struct BlobStats {
    location: Option<PackLocation>,
    n_elements: u64,
    n_ref_sites: u64,
    n_syntax_errors: u64,
    n_invalid_utf8_bytes: u64,
    /// [`FileFacts::signature_digest`].
    signature_digest: [u8; 16],
}

/// A parsed blob on its way from a worker to the writer.
enum Parsed {
    Facts {
        blob_id: BlobId,
        payload: crate::store::EncodedFacts,
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
        let db = store.db();
        let db_error = |e| Error::sqlite(&store.db_path(), e);
        // Declared before the transaction, so dropped after it.
        let journal = store.journal_for_index()?;
        let tx = db.unchecked_transaction().map_err(db_error)?;

        // Which blobs are known already.
        let mut blobs: HashMap<BlobId, BlobStats> = HashMap::new();
        {
            let mut lookup = tx
                .prepare_cached(
                    "SELECT pack_offset, pack_len, n_elements, n_ref_sites, n_syntax_errors, \
                     n_invalid_utf8_bytes, signature_digest, declarations_len \
                     FROM blobs WHERE blob_id = ?1",
                )
                .map_err(db_error)?;
            for file in &revision.files {
                if blobs.contains_key(&file.blob_id) {
                    continue;
                }
                let known = lookup
                    .query_row(params![&file.blob_id.0[..]], |r| {
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
                    .map_err(db_error)?;
                if let Some(stats) = known {
                    blobs.insert(file.blob_id, stats);
                }
            }
        }

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
        let mut insert = tx
            .prepare_cached(
                "INSERT INTO blobs (blob_id, pack_offset, pack_len, n_elements, n_ref_sites, \
                 n_syntax_errors, n_invalid_utf8_bytes, signature_digest, declarations_len) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .map_err(db_error)?;
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
                        insert
                            .execute(params![
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
                            .map_err(db_error)?;
                        blobs.insert(blob_id, stats);
                    }
                    Parsed::Skipped { blob_id, reason } => {
                        n_parsed -= 1;
                        skipped_blobs.insert(blob_id, reason);
                    }
                }
                progress(Progress::Advance(1));
                Ok(())
            },
        );
        drop(insert);
        // Contents of blobs indexed before were listed but not parsed.
        if let Some(prefetched) = prefetched {
            prefetched.release();
        }
        write_result?;
        let pack_len = pack.finish()?;
        tx.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'pack_len'",
            params![pack_len.to_string()],
        )
        .map_err(db_error)?;
        commit_so_far(&tx).map_err(db_error)?;

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
        let same_context =
            donor_units(&tx, Donor::SameContext, &context_digest).map_err(db_error)?;
        let mut unit_of_file = unchanged_units(&same_context);
        let mut n_resolved = 0;
        if unit_of_file.iter().any(Option::is_none) {
            // Some signature changed since any indexed revision: an
            // unchanged file may still resolve as in the newest revision
            // with the same libraries, which is checked name by name once
            // the symbol table is built.
            let candidates = if same_context.is_empty() {
                let same_libraries =
                    donor_units(&tx, Donor::SameLibraries, &library_digest).map_err(db_error)?;
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
        tx.execute(
            "INSERT INTO revisions (name, kind, branch, indexed_at, n_files, n_elements, n_ref_sites, \
             n_skipped, n_syntax_errors, seconds, root, context_digest, library_digest) \
             VALUES (?1, ?2, ?3, ?4, 0, 0, 0, 0, 0, 0, ?5, ?6, ?7)",
            params![
                revision.name,
                revision.kind.as_str(),
                revision.branch,
                unix_now(),
                source.root().to_string_lossy(),
                &context_digest[..],
                &library_digest[..],
            ],
        )
        .map_err(db_error)?;
        let revision_id = tx.last_insert_rowid();
        if self.config.replace_worktree && revision.kind == RevisionKind::WorkTree {
            remove_other_worktrees(&tx, revision_id, &source.root().to_string_lossy())
                .map_err(db_error)?;
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
            write_manifest(&tx, revision_id, manifest).map_err(db_error)?;
            let mut insert_skipped = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO skipped_files (revision_id, path, reason) VALUES (?1, ?2, ?3)",
                )
                .map_err(db_error)?;
            for (path, reason) in &skipped {
                insert_skipped
                    .execute(params![revision_id, path, reason])
                    .map_err(db_error)?;
            }
        }
        totals.n_skipped = skipped.len() as u64;
        totals.seconds = started.elapsed().as_secs_f64();
        tx.execute(
            "UPDATE revisions SET n_files = ?2, n_elements = ?3, n_ref_sites = ?4, n_skipped = ?5, \
             n_syntax_errors = ?6, seconds = ?7 WHERE id = ?1",
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
        .map_err(db_error)?;
        tx.commit().map_err(db_error)?;
        journal.finish();
        // Fold the write-ahead log into the database, so the store's size
        // is what it holds and readers start without replaying it. A reader
        // holding the log open makes this give up at once, not wait.
        let _ = db.execute_batch(
            "PRAGMA busy_timeout = 0; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA busy_timeout = 10000;",
        );
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
        let db_error = |e| Error::sqlite(&self.store.db_path(), e);
        let facts_error = |e: FactsError| Error::Corrupt {
            path: self.store.dir().to_path_buf(),
            message: format!("{}: {}", e.path, e.message),
        };
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
            let lookups =
                load_lookups(tx, checks.iter().map(|&(_, unit)| unit)).map_err(db_error)?;
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
        let element_index = ElementIndex::defer(tx).map_err(db_error)?;
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
                let rows = |at: usize, resolved| UnitRows::new(&work[at].0, resolved);
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
            let mut inserts = UnitInserts::new(tx).map_err(db_error);
            let mut stored = Ok(());
            if let Ok(inserts) = &mut inserts {
                for (first, resolved) in receiver.iter() {
                    stored = (|| {
                        for (&(blob_id, _), rows) in work[first..].iter().zip(resolved) {
                            let rows = rows.map_err(facts_error)?;
                            let unit = store_unit(tx, inserts, &blob_id, rows, &mut links)
                                .map_err(db_error)?;
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
            let stored = inserts.and(stored);
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
        })
        .map_err(db_error)?;
        sorted.write(tx).map_err(db_error)?;
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
    tx: &'a rusqlite::Transaction<'a>,
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

/// Removes the work-tree revisions of directory `root` other than
/// `keep`. Their units stay: other revisions may share them.
fn remove_other_worktrees(
    tx: &rusqlite::Transaction,
    keep: i64,
    root: &str,
) -> rusqlite::Result<()> {
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

/// Which earlier revision a new one may share units with.
#[derive(Clone, Copy)]
enum Donor {
    /// The newest with the same resolution context: an unchanged file
    /// resolves as there, no questions asked.
    SameContext,
    /// The newest with the same libraries: an unchanged file resolves as
    /// there if every name it looked up leads to the same thing.
    SameLibraries,
}

/// The files of the newest indexed revision sharing `digest` (see
/// [`Donor`]), as path → (blob, unit); empty when there is none.
fn donor_units(
    tx: &rusqlite::Transaction,
    donor: Donor,
    digest: &[u8; 16],
) -> rusqlite::Result<HashMap<String, (BlobId, i64)>> {
    let column = match donor {
        Donor::SameContext => "context_digest",
        Donor::SameLibraries => "library_digest",
    };
    let donor: Option<i64> = tx
        .prepare_cached(&format!(
            "SELECT id FROM revisions WHERE {column} = ?1 ORDER BY id DESC LIMIT 1"
        ))?
        .query_row(params![&digest[..]], |r| r.get(0))
        .optional()?;
    let Some(donor) = donor else {
        return Ok(HashMap::new());
    };
    // A damaged manifest only costs the sharing.
    Ok(read_manifest(tx, donor)?
        .unwrap_or_default()
        .into_iter()
        .map(|file| (file.path, (file.blob_id, file.unit_id)))
        .collect())
}

/// Commits what `tx` wrote so far and goes on in a new transaction.
///
/// Only the revision's row makes its files visible (queries reach blobs
/// through a revision's manifest), so the parsed blobs can commit before
/// it: readers do not see them, and an index that fails or is killed
/// during resolution leaves them for the next run, which finds them by
/// blob id instead of parsing them again. (Committing the stored units in
/// steps too was measured slower on the JDK: each step writes the B-tree
/// pages it touched again, 0.4 s more system time in all.)
fn commit_so_far(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    tx.execute_batch("COMMIT; BEGIN")
}

/// What the stored units of a revision link to, written once they are all
/// stored ([`SortedLinks::write`]): the element ids that references and
/// override links point at (`targets`), and the postings and override
/// links by target. Written sorted by key, so SQLite appends to its
/// B-trees instead of inserting all over them; units are stored as they
/// come.
#[derive(Default)]
struct Links {
    /// Target names, each with its number in this revision's links.
    targets: HashMap<HashedName, u32, std::hash::BuildHasherDefault<HashPassed>>,
    /// (target number, unit).
    postings: Vec<(u32, i64)>,
    /// (target number, unit, element index).
    overrides: Vec<(u32, i64, u32)>,
}

impl Links {
    fn target(&mut self, name: HashedName) -> u32 {
        let next = self.targets.len() as u32;
        *self.targets.entry(name).or_insert(next)
    }

    /// The links in the order they are written: by target name, then
    /// unit (and element), each once. Made on a thread of its own while
    /// SQLite builds the element index (see [`Indexer::resolve_files`]).
    fn sorted(&self) -> SortedLinks<'_> {
        let mut names: Vec<(&str, u32)> = self
            .targets
            .iter()
            .map(|(name, &number)| (name.name.as_str(), number))
            .collect();
        names.sort_unstable();
        let mut rank = vec![0u32; names.len()];
        for (at, &(_, number)) in names.iter().enumerate() {
            rank[number as usize] = at as u32;
        }
        let mut postings: Vec<(u32, i64)> = self
            .postings
            .iter()
            .map(|&(target, unit)| (rank[target as usize], unit))
            .collect();
        postings.sort_unstable();
        postings.dedup();
        let mut overrides: Vec<(u32, i64, u32)> = self
            .overrides
            .iter()
            .map(|&(target, unit, idx)| (rank[target as usize], unit, idx))
            .collect();
        overrides.sort_unstable();
        overrides.dedup();
        SortedLinks {
            names: names.into_iter().map(|(name, _)| name).collect(),
            postings,
            overrides,
        }
    }
}

/// [`Links`] sorted for writing: targets by name, and the postings and
/// override links by the rank of their target's name.
struct SortedLinks<'l> {
    names: Vec<&'l str>,
    /// (target rank, unit).
    postings: Vec<(u32, i64)>,
    /// (target rank, unit, element index).
    overrides: Vec<(u32, i64, u32)>,
}

impl SortedLinks<'_> {
    /// Writes the links, by key order.
    fn write(self, tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
        let ids = intern_targets(tx, &self.names)?;
        // New targets' ids follow their names' order: when all are new (a
        // first index), the rows are in key order already.
        let resort = !ids.is_sorted();
        let mut postings: Vec<(i64, i64)> = self
            .postings
            .iter()
            .map(|&(target, unit)| (ids[target as usize], unit))
            .collect();
        if resort {
            postings.sort_unstable();
        }
        insert_rows(
            tx,
            "INSERT OR IGNORE INTO ref_postings (target_id, unit_id) VALUES ",
            &postings,
            |&(target, unit)| [Value::Int(target), Value::Int(unit)],
        )?;
        let mut overrides: Vec<(i64, i64, u32)> = self
            .overrides
            .iter()
            .map(|&(target, unit, idx)| (ids[target as usize], unit, idx))
            .collect();
        if resort {
            overrides.sort_unstable();
        }
        insert_rows(
            tx,
            "INSERT OR IGNORE INTO overrides (target_id, unit_id, idx) VALUES ",
            &overrides,
            |&(target, unit, idx)| [Value::Int(target), Value::Int(unit), Value::from(idx)],
        )
    }
}

/// A target name with its hash, computed by the worker that resolved it,
/// so that the single writer only compares names it already has.
struct HashedName {
    hash: u64,
    name: String,
}

impl HashedName {
    fn new(name: String) -> Self {
        use std::hash::BuildHasher;
        Self {
            hash: rustc_hash::FxBuildHasher.hash_one(name.as_str()),
            name,
        }
    }
}

impl PartialEq for HashedName {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.name == other.name
    }
}

impl Eq for HashedName {}

impl std::hash::Hash for HashedName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The hasher of [`Links::targets`]: the key's hash is computed already.
#[derive(Default)]
struct HashPassed(u64);

impl std::hash::Hasher for HashPassed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, _: &[u8]) {
        unreachable!("only HashedName is hashed with HashPassed");
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

/// Rows inserted by one run of a multi-row `INSERT`.
const ROWS_PER_INSERT: usize = 64;

/// Inserts `rows` with `head` (`INSERT ... VALUES `), up to
/// [`ROWS_PER_INSERT`] rows per statement run: SQLite's fixed cost of
/// running a statement is paid once per batch instead of once per row, and
/// texts are read in place ([`BulkInsert`]). `columns` gives a row's
/// values, in the statement's order.
fn insert_rows<'r, R, const N: usize>(
    tx: &rusqlite::Transaction,
    head: &str,
    rows: &'r [R],
    columns: impl Fn(&'r R) -> [Value<'r>; N],
) -> rusqlite::Result<()> {
    let sql = |n_rows: usize| {
        let row = format!("({})", vec!["?"; N].join(", "));
        format!("{head}{}", vec![row; n_rows].join(", "))
    };
    let mut full: Option<BulkInsert> = None;
    let mut values: Vec<Value<'r>> = Vec::with_capacity(ROWS_PER_INSERT * N);
    for batch in rows.chunks(ROWS_PER_INSERT) {
        values.clear();
        values.extend(batch.iter().flat_map(&columns));
        if batch.len() == ROWS_PER_INSERT {
            let insert = match &mut full {
                Some(insert) => insert,
                None => full.insert(BulkInsert::new(tx, &sql(ROWS_PER_INSERT), values.len())?),
            };
            insert.run(&values)?;
        } else {
            BulkInsert::new(tx, &sql(batch.len()), values.len())?.run(&values)?;
        }
    }
    Ok(())
}

/// The ids of targets `names` (sorted, distinct), in their order; the new
/// ones are added, with ids in that order too. A first index adds them
/// all, in runs of [`ROWS_PER_INSERT`] without a lookup each: 213 K
/// targets on the JDK, written in the serial tail after resolution.
fn intern_targets(tx: &rusqlite::Transaction, names: &[&str]) -> rusqlite::Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(names.len());
    // The table is keyed by name alone: the next id is kept in `meta`.
    let next: i64 = tx.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_target_id'",
        [],
        |r| r.get(0),
    )?;
    let mut new: Vec<(&str, i64)> = Vec::new();
    let mut find = tx.prepare_cached("SELECT id FROM targets WHERE name = ?1")?;
    for &name in names {
        let known = if next == 1 {
            None
        } else {
            find.query_row(params![name], |r| r.get(0)).optional()?
        };
        ids.push(known.unwrap_or_else(|| {
            let id = next + new.len() as i64;
            new.push((name, id));
            id
        }));
    }
    insert_rows(
        tx,
        "INSERT INTO targets (name, id) VALUES ",
        &new,
        |&(name, id)| [Value::Text(name), Value::Int(id)],
    )?;
    tx.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'next_target_id'",
        params![(next + new.len() as i64).to_string()],
    )?;
    Ok(ids)
}

/// The names a unit's resolution looked up, in the order they were
/// digested, and the digest of what they led to then.
type UnitLookups = (Vec<String>, [u8; 16]);

/// The names each of `units` looked up (in the order they were digested)
/// and the digest of what they led to then. A unit whose list does not
/// decode is left out: it is resolved again instead of reused.
fn load_lookups(
    tx: &rusqlite::Transaction,
    units: impl Iterator<Item = i64>,
) -> rusqlite::Result<HashMap<i64, UnitLookups>> {
    let mut out = HashMap::new();
    let mut unit_lookups =
        tx.prepare_cached("SELECT deps, deps_digest FROM units WHERE id = ?1")?;
    for unit in units {
        if out.contains_key(&unit) {
            continue;
        }
        let (names, digest): (Vec<u8>, Vec<u8>) =
            unit_lookups.query_row(params![unit], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let (Ok(names), Ok(digest)) = (decode_names(&names), <[u8; 16]>::try_from(&digest[..]))
        else {
            continue;
        };
        out.insert(unit, (names, digest));
    }
    Ok(out)
}

/// A blob's resolution in the form the store writes, made on the worker
/// that resolved it (see [`Engine::resolve_in_chunks`]): the single writer
/// then only runs the inserts.
struct UnitRows {
    /// [`unit_digest`].
    digest: BlobId,
    /// The archived [`StoredResolution`](crate::resolve::StoredResolution).
    refs: rkyv::util::AlignedVec,
    /// Names looked up, sorted, front-coded ([`encode_names`]), and
    /// [`TrackedResolution::deps_digest`].
    deps: Vec<u8>,
    deps_digest: [u8; 16],
    /// The distinct targets of the references.
    targets: Vec<HashedName>,
    /// (element index, target) of each override link.
    overrides: Vec<(u32, HashedName)>,
    /// The element rows.
    elements: ElementRows,
}

impl UnitRows {
    fn new(blob_id: &BlobId, resolved: Arc<TrackedResolution>) -> Self {
        match Arc::try_unwrap(resolved) {
            // Unmemoized resolutions come here alone: their records and
            // names move, and the rest is freed here.
            Ok(owned) => Self::from_parts(
                blob_id,
                &owned.records,
                &owned.resolution,
                owned.deps,
                owned.deps_digest,
            ),
            // A memoized one stays with the engine: only the names are
            // copied, not the references.
            Err(shared) => Self::from_parts(
                blob_id,
                &shared.records,
                &shared.resolution,
                shared.deps.clone(),
                shared.deps_digest,
            ),
        }
    }

    fn from_parts(
        blob_id: &BlobId,
        records: &[ElementRecord],
        resolution: &FileResolution,
        deps: Vec<Box<str>>,
        deps_digest: [u8; 16],
    ) -> Self {
        let stored = resolution.to_stored();
        // Archived resolutions come to about 55 bytes per reference on the
        // JDK: a buffer of that size spares the growth by doubling.
        let buffer = rkyv::util::AlignedVec::with_capacity(64 * stored.n_refs() + 256);
        let refs = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(&stored, buffer)
            .expect("resolutions serialize");
        let digest = unit_digest(blob_id, records, &refs, &deps);
        let overrides = resolution
            .overrides
            .iter()
            .flat_map(|o| {
                o.targets
                    .iter()
                    .map(|target| (o.element, HashedName::new(target.clone())))
            })
            .collect();
        UnitRows {
            digest,
            refs,
            deps: encode_names(&deps),
            deps_digest,
            targets: stored
                .target_ids()
                .into_iter()
                .map(HashedName::new)
                .collect(),
            overrides,
            elements: ElementRows::new(records),
        }
    }
}

/// A unit's element rows as the writer inserts them, the texts of all of
/// them in one buffer. Made on the worker, which frees the records there:
/// the writer then frees two buffers a unit, not eight strings an element
/// made on another thread (2.6 M over the JDK).
struct ElementRows {
    text: String,
    rows: Vec<ElementRow>,
}

/// A text of an [`ElementRows`]: its byte range in the buffer.
type TextRange = (u32, u32);

/// One element's row; see [`ElementRecord`].
struct ElementRow {
    idx: u32,
    kind: crate::facts::ElementKind,
    parent_idx: Option<u32>,
    start_line: u32,
    end_line: u32,
    name_line: u32,
    name_col: u32,
    element_id: TextRange,
    name: TextRange,
    owner: Option<TextRange>,
    /// The parameter types, joined with commas.
    params: TextRange,
    type_name: TextRange,
}

impl ElementRows {
    fn new(records: &[ElementRecord]) -> Self {
        let size: usize = records
            .iter()
            .map(|r| {
                r.element_id.len()
                    + r.name.len()
                    + r.owner.as_ref().map_or(0, String::len)
                    + r.params.iter().map(|p| p.len() + 1).sum::<usize>()
                    + r.type_name.len()
            })
            .sum();
        let mut out = Self {
            text: String::with_capacity(size),
            rows: Vec::with_capacity(records.len()),
        };
        for r in records {
            let row = ElementRow {
                idx: r.idx,
                kind: r.kind,
                parent_idx: r.parent_idx,
                start_line: r.start_line,
                end_line: r.end_line,
                name_line: r.name_line,
                name_col: r.name_col,
                element_id: out.push(std::slice::from_ref(&r.element_id)),
                name: out.push(std::slice::from_ref(&r.name)),
                owner: r.owner.as_ref().map(|o| out.push(std::slice::from_ref(o))),
                params: out.push(&r.params),
                type_name: out.push(std::slice::from_ref(&r.type_name)),
            };
            out.rows.push(row);
        }
        out
    }

    /// Appends `parts`, joined with commas, to the buffer; their range.
    fn push(&mut self, parts: &[String]) -> TextRange {
        let at = |len: usize| u32::try_from(len).expect("a unit's texts are under 4 GiB");
        let start = at(self.text.len());
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            self.text.push_str(part);
        }
        (start, at(self.text.len()))
    }

    fn text(&self, (start, end): TextRange) -> &str {
        &self.text[start as usize..end as usize]
    }
}

/// The inserts [`store_unit`] runs for every unit.
struct UnitInserts<'c> {
    elements: BulkInsert<'c>,
}

impl<'c> UnitInserts<'c> {
    fn new(tx: &'c rusqlite::Transaction) -> rusqlite::Result<Self> {
        Ok(Self {
            elements: BulkInsert::new(
                tx,
                "INSERT INTO elements (unit_id, idx, element_id, kind, name, owner, params, type, \
                 parent_idx, start_line, end_line, name_line, name_col) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                13,
            )?,
        })
    }
}

/// Stores a blob's records as a unit, or finds the identical unit stored
/// before; returns the unit id. A new unit's postings and override links
/// go to `links`, for [`SortedLinks::write`].
fn store_unit(
    tx: &rusqlite::Transaction,
    inserts: &mut UnitInserts,
    blob_id: &BlobId,
    unit: UnitRows,
    links: &mut Links,
) -> rusqlite::Result<i64> {
    let UnitRows {
        digest,
        refs,
        deps,
        deps_digest,
        targets,
        overrides,
        elements,
    } = unit;
    let existing: Option<i64> = tx
        .prepare_cached("SELECT id FROM units WHERE digest = ?1")?
        .query_row(params![&digest.0[..]], |r| r.get(0))
        .optional()?;
    if let Some(id) = existing {
        // The same names looked up led to the same unit under other
        // signatures. Either digest proves the unit right for a revision
        // matching it; the newest one is what the next revision, whose
        // donor is the newest, most likely matches.
        tx.prepare_cached("UPDATE units SET deps_digest = ?2 WHERE id = ?1")?
            .execute(params![id, &deps_digest[..]])?;
        return Ok(id);
    }
    tx.prepare_cached(
        "INSERT INTO units (blob_id, digest, refs, deps, deps_digest) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        &blob_id.0[..],
        &digest.0[..],
        &refs[..],
        deps,
        &deps_digest[..]
    ])?;
    let unit = tx.last_insert_rowid();
    // Most targets are referenced several times: the stored form has each
    // once. (A target twice here is posted twice, and Links::sorted
    // dedups postings.)
    for target in targets {
        let target = links.target(target);
        links.postings.push((target, unit));
    }
    for (element, target) in overrides {
        let target = links.target(target);
        links.overrides.push((target, unit, element));
    }
    for r in &elements.rows {
        inserts.elements.run(&[
            unit.into(),
            r.idx.into(),
            elements.text(r.element_id).into(),
            r.kind.as_str().into(),
            elements.text(r.name).into(),
            r.owner.map(|owner| elements.text(owner)).into(),
            elements.text(r.params).into(),
            elements.text(r.type_name).into(),
            r.parent_idx.into(),
            r.start_line.into(),
            r.end_line.into(),
            r.name_line.into(),
            r.name_col.into(),
        ])?;
    }
    Ok(unit)
}

/// A digest of a unit's content: the blob, its qualified names, its
/// resolution and the names it looked up (SHA-1 over the serialized
/// references cost more than storing them).
fn unit_digest(
    blob_id: &BlobId,
    records: &[ElementRecord],
    refs: &[u8],
    deps: &[Box<str>],
) -> BlobId {
    let mut digest = Digest128::new(b"unit");
    digest.write(&blob_id.0);
    digest.write(refs);
    for name in deps {
        digest.write_str(name);
    }
    for r in records {
        digest.write_str(&r.element_id);
        digest.write_str(r.owner.as_deref().unwrap_or(""));
        digest.write_str(&r.type_name);
    }
    let mut out = [0u8; 20];
    out[..16].copy_from_slice(&digest.finish());
    out[16..].copy_from_slice(&blob_id.0[..4]);
    BlobId(out)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::ElementKind;

    fn record(idx: u32, name: &str, owner: Option<&str>, params: &[&str]) -> ElementRecord {
        ElementRecord {
            idx,
            element_id: format!("p.{name}({})", params.join(",")),
            kind: ElementKind::Method,
            name: name.to_string(),
            owner: owner.map(str::to_string),
            params: params.iter().map(|p| p.to_string()).collect(),
            type_name: if idx.is_multiple_of(2) {
                "void".into()
            } else {
                String::new()
            },
            parent_idx: idx.checked_sub(1),
            start_line: idx + 1,
            end_line: idx + 2,
            name_line: idx + 3,
            name_col: idx + 4,
        }
    }

    /// Each row gives back its record's texts, the parameter types joined
    /// with commas as the `params` column has them, empty texts and
    /// missing owners included.
    #[test]
    fn element_rows_keep_every_text_of_their_records() {
        let records = [
            record(0, "m", Some("p.A"), &[]),
            record(1, "", None, &["int"]),
            record(
                2,
                "über",
                Some("p.A$B"),
                &["java.lang.String", "int[]", "p.A"],
            ),
        ];
        let rows = ElementRows::new(&records);
        assert_eq!(rows.rows.len(), records.len());
        for (row, r) in rows.rows.iter().zip(&records) {
            assert_eq!(rows.text(row.element_id), r.element_id);
            assert_eq!(rows.text(row.name), r.name);
            assert_eq!(row.owner.map(|o| rows.text(o)), r.owner.as_deref());
            assert_eq!(rows.text(row.params), r.params.join(","));
            assert_eq!(rows.text(row.type_name), r.type_name);
            assert_eq!(
                (row.idx, row.kind, row.parent_idx),
                (r.idx, r.kind, r.parent_idx)
            );
            assert_eq!(
                (row.start_line, row.end_line, row.name_line, row.name_col),
                (r.start_line, r.end_line, r.name_line, r.name_col)
            );
        }
    }
}
