//! Phases *signatures* and *resolve* of a revision indexed from scratch:
//! every file's symbols computed in parallel into one table in memory,
//! then every file resolved against it in parallel, largest first, each
//! stored as a unit as it comes. It also writes the full layers of the
//! revision's symbol table and dependency index that a later revision
//! is layered over.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use refscope_store::{
    BlobId, BulkLayer, IndexTransaction, LayerKind, Links, NewUnit, PackLocation, PackReader,
    PackWriter, UnitSymbols, encode_names, write_full_layer,
};
use refscope_symbols::lookups::{LookupLog, NameList};
use refscope_symbols::names::{canonical_names, type_skeleton};
use refscope_syntax::facts::FileFacts;

use super::libraries::Libraries;
use super::report::Progress;
use super::spill::LayerSpill;
use super::write::finish_links;
use crate::error::Error;
use crate::symtab::full::FullTable;
use crate::symtab::{RevisionMemos, file_classes, file_types, resolve_file};

/// Resolutions a worker may finish ahead of the writer storing them.
const RESOLVED_AHEAD: usize = 64;

/// A file of the revision, with its facts in the pack.
pub(super) struct PackedFile {
    pub(super) path: Arc<str>,
    pub(super) blob_id: BlobId,
    pub(super) location: PackLocation,
}

/// What [`index_full`] works with.
pub(super) struct Full<'a> {
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) tx: &'a IndexTransaction<'a>,
    /// The pack, read record by record.
    pub(super) reader: &'a PackReader,
    pub(super) libraries: &'a Libraries,
    /// The files, sorted by path.
    pub(super) files: &'a [PackedFile],
    /// Whether to record what later revisions are layered on: each unit's
    /// lookups and symbols, and the revision's layers. Off only to measure
    /// what they cost (the layers are then left empty).
    pub(super) incremental_data: bool,
}

/// What a revision indexed from scratch leaves.
pub(super) struct Indexed {
    /// Each file's unit, in the order of the files.
    pub(super) units: Vec<i64>,
    /// Where its layers are in the pack: the symbol table (class keys →
    /// declaring paths), then the dependency index (names looked up →
    /// paths).
    pub(super) layers: (PackLocation, PackLocation),
}

/// Derives every file's symbols, resolves every file and stores the units.
pub(super) fn index_full(
    full: Full<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Indexed, Error> {
    let Full {
        pool,
        tx,
        reader,
        libraries,
        files,
        incremental_data,
    } = full;
    let new_log = || {
        if incremental_data {
            LookupLog::default()
        } else {
            LookupLog::off()
        }
    };
    let store_dir = tx.store().dir().to_path_buf();
    let corrupt =
        |path: &str, e: refscope_store::Error| Error::corrupt(&store_dir, format!("{path}: {e}"));
    let declarations = |file: &PackedFile| {
        reader
            .declarations(&file.blob_id, file.location)
            .map_err(|e| corrupt(&file.path, e))
    };
    progress(Progress::Phase {
        name: "signatures",
        total: files.len() as u64,
    });
    // The names first: a file's supertypes qualify against every name.
    let skeletons: Vec<FileFacts> = pool.install(|| {
        files
            .par_iter()
            .map(|file| declarations(file).map(|d| type_skeleton(&d)))
            .collect::<Result<_, _>>()
    })?;
    let mut universe = libraries.universe();
    let names: Vec<String> = skeletons
        .iter()
        .flat_map(|s| canonical_names(s).into_iter().flatten())
        .collect();
    universe.declare_sources(names.iter().map(String::as_str));
    drop(names);
    // A log per worker, not per file; what each file looked up is kept
    // as a list until its classes are made.
    let typed: Vec<(Vec<refscope_store::TypeEntry>, NameList)> = pool.install(|| {
        skeletons
            .par_iter()
            .map_init(new_log, |log, skeleton| {
                let types = file_types(&universe, skeleton, log);
                (types, log.take())
            })
            .collect()
    });
    drop(skeletons);
    // Of several declarations of a name, the last in path order counts.
    for (types, _) in &typed {
        for t in types {
            universe.set_supertypes(&t.canonical, &t.supertypes);
        }
    }
    let mut symbols = pool.install(|| {
        typed
            .into_par_iter()
            .zip(files.par_iter())
            .enumerate()
            .with_max_len(1)
            .map(|(slot, ((types, looked_up), file))| {
                // One file a task here: a log per file.
                let decls = declarations(file)?;
                let log = new_log();
                looked_up.iter().for_each(|name| log.record(name));
                Ok(file_classes(&universe, &decls, slot as u32, types, &log))
            })
            .collect::<Result<Vec<_>, Error>>()
    })?;
    progress(Progress::Advance(files.len() as u64));
    // Each file's lookups, given up when it is resolved: the table would
    // hold every file's to the end.
    let symbol_deps: Vec<Mutex<Box<[u8]>>> = symbols
        .iter_mut()
        .map(|s| Mutex::new(std::mem::take(&mut s.deps)))
        .collect();
    let paths: Vec<Arc<str>> = files.iter().map(|f| f.path.clone()).collect();
    let table = FullTable::new(paths, symbols, libraries.class_path.clone());

    // Largest facts first, so the workers finish together.
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&at| std::cmp::Reverse(files[at].location.len));
    progress(Progress::Phase {
        name: "resolve",
        total: files.len() as u64,
    });
    let memos = RevisionMemos::default();
    let element_index = tx.defer_element_index()?;
    let mut writer = tx.unit_writer()?;
    let mut links = Links::default();
    let mut units = vec![0; files.len()];
    let mut symbol_layer = BulkLayer::default();
    let mut lookup_layer = BulkLayer::default();
    let mut spill = match incremental_data {
        true => Some(LayerSpill::new(tx.store().dir())?),
        false => None,
    };
    let path_numbers: Vec<u32> = if incremental_data {
        files
            .iter()
            .map(|f| {
                let n = symbol_layer.add_path(&f.path);
                lookup_layer.add_path(&f.path);
                n
            })
            .collect()
    } else {
        Vec::new()
    };
    crate::parallel::in_order(
        pool,
        files.len(),
        RESOLVED_AHEAD,
        new_log,
        |log, at| {
            let slot = order[at];
            let file = &files[slot];
            let facts = reader
                .facts(&file.blob_id, file.location)
                .map_err(|e| corrupt(&file.path, e))?;
            let symbols = table.symbols(slot as u32);
            let symbol_deps = std::mem::take(&mut *symbol_deps[slot].lock().expect("not poisoned"));
            let mut tracked = resolve_file(
                &table,
                &universe,
                &memos,
                &facts,
                symbols,
                &symbol_deps,
                slot as u32,
                log,
            );
            let unit_symbols = if incremental_data {
                symbols.to_unit()
            } else {
                UnitSymbols::default()
            };
            let keys = encode_names(unit_symbols.keys());
            let deps = std::mem::take(&mut tracked.deps);
            let unit = NewUnit::new(
                &file.blob_id,
                Arc::new(tracked),
                deps.iter(),
                &unit_symbols,
                &facts,
            );
            drop(facts);
            Ok::<_, Error>((unit, keys))
        },
        |at, resolved| {
            let slot = order[at];
            let (unit, keys) = resolved?;
            if let (Some(&path), Some(spill)) = (path_numbers.get(slot), &mut spill) {
                spill.add(path, &keys, unit.encoded_deps())?;
            }
            units[slot] = writer.store(&files[slot].blob_id, unit, &mut links)?;
            progress(Progress::Advance(1));
            Ok::<(), Error>(())
        },
    )?;
    drop(writer);
    // Freed, the resolution's memory stays resident until given back, and
    // the layers and the finish would add to its peak.
    pool.install(|| rayon::join(|| table.drop_in_parallel(), || drop((universe, memos))));
    crate::parallel::release_memory(pool);
    // The layers are built and written beside the finish.
    let store = tx.store();
    let pack = (store.pack_path(), store.committed_pack_len()?);
    let (layers, pack_len) = std::thread::scope(|scope| {
        let layers = scope.spawn(|| write_layers(pack, spill, symbol_layer, lookup_layer));
        let finished = finish_links(tx, links, element_index, progress);
        let layers = layers
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        finished.and(layers)
    })?;
    tx.set_pack_len(pack_len)?;
    Ok(Indexed { units, layers })
}

/// Builds the revision's two full layers from what `spill` set aside and
/// appends them to the pack (at `pack`: its path and committed length);
/// where they are, and the pack's new length.
fn write_layers(
    pack: (PathBuf, u64),
    spill: Option<LayerSpill>,
    mut symbols: BulkLayer,
    mut lookups: BulkLayer,
) -> Result<((PackLocation, PackLocation), u64), Error> {
    if let Some(spill) = spill {
        spill.read_into(&mut symbols, &mut lookups)?;
    }
    let mut writer = PackWriter::open(&pack.0, pack.1)?;
    let symbols = write_full_layer(&mut writer, LayerKind::Symbols, symbols)?;
    let lookups = write_full_layer(&mut writer, LayerKind::Lookups, lookups)?;
    Ok(((symbols, lookups), writer.finish()?))
}
