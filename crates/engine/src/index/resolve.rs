//! Phases *signatures* and *resolve*: the revision's files become the
//! inputs of the in-memory engine (a salsa database kept across the
//! revisions an indexer indexes), which derives the type universe, the
//! signatures and the resolutions, recomputing only what the changes since
//! the last revision reach; each resolution is stored as a unit, shared
//! with any identical unit stored before. Then phase *finish* writes the
//! reference index's links and builds the element index.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::sync_channel;

use refscope_store::{BlobId, IndexTransaction, Links, NewUnit, PackLocation, PackReader};
use refscope_symbols::{ClassPath, JdkTypes};

use super::report::Progress;
use crate::db::{Engine, FactsError, FileContent, Libraries, Memoize, SourceFile};
use crate::error::Error;

/// Files resolved between two evictions of the engine's resolutions: a
/// large revision's are not all held in memory at once.
const RESOLVE_CHUNK_LEN: usize = 128;

/// What [`resolve_files`] works on.
pub(super) struct ResolveInput<'a, 'f> {
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) tx: &'a IndexTransaction<'a>,
    pub(super) reader: &'a Arc<PackReader>,
    pub(super) jdk: &'a JdkTypes,
    /// Jar files whose classes join resolution.
    pub(super) classpath: &'a [PathBuf],
    pub(super) files: &'a [(&'f str, BlobId, PackLocation)],
    pub(super) library_digest: [u8; 16],
    /// Per file, a unit of an earlier revision it resolves to if every
    /// name it looked up there leads to the same thing now.
    pub(super) candidates: &'a [Option<i64>],
}

/// Phases 3 to 5 for the files without a unit yet: the revision's
/// files become the inputs of the in-memory engine (a salsa database
/// kept across the revisions this indexer indexes), which derives the
/// type universe, the signatures and the resolutions, recomputing only
/// what the changes since the last revision reach; the resolutions are
/// stored as units (shared with any identical unit stored before).
pub(super) fn resolve_files(
    engine_slot: &mut Option<Engine>,
    input: ResolveInput<'_, '_>,
    unit_of_file: &mut [Option<i64>],
    progress: &mut dyn FnMut(Progress),
) -> Result<u64, Error> {
    let ResolveInput {
        pool,
        tx,
        reader,
        jdk,
        classpath,
        files,
        library_digest,
        candidates,
    } = input;
    let facts_error =
        |e: FactsError| Error::corrupt(tx.store().dir(), format!("{}: {}", e.path, e.message));
    let (mut engine, cold) = match engine_slot.take() {
        Some(engine) if engine.libraries_digest() == library_digest => (engine, false),
        _ => {
            let libraries = Libraries {
                jdk: jdk.clone(),
                class_path: Arc::new(ClassPath::new(jdk, classpath)?),
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
    let representatives: Vec<SourceFile> = work.iter().map(|&(_, index)| sources[index]).collect();
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
    *engine_slot = Some(engine);
    Ok(n_resolved)
}
