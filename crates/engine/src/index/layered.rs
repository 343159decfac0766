//! Phases *signatures* and *resolve* of a revision written as a layer
//! over an indexed parent: only the dirty files are demanded.
//!
//! Dirty = the changed files, and every file whose recorded lookups touch
//! a name whose declaration changed: a name declared or no longer declared
//! (a class added, removed, renamed or moved), or a name whose class
//! signature or supertypes changed. Files are added to the dirty set from
//! the parent's dependency index; each dirty file's symbols are computed
//! again, and where they differ from what the parent (or an earlier round)
//! had, the names that differ dirty their own readers, until nothing more
//! changes. Then the dirty files are resolved and stored; every other file
//! keeps its parent's unit without being looked at.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use refscope_resolve::ClassEntry;
use refscope_store::{
    BlobId, IndexTransaction, LayerBuilder, LayerChain, LayerKind, Links, NO_FILE, Needles,
    NewUnit, PackLocation, PackReader, RevisionRow, UnitSymbols, contains_name, decode_names,
};
use refscope_symbols::lookups::LookupLog;
use refscope_syntax::facts::FileFacts;
use refscope_syntax::mentions::mentions_any;

use super::libraries::Libraries;
use super::report::Progress;
use super::write::finish_links;
use crate::error::Error;
use crate::symtab::kept::{Carried, Kept, LayerMark};
use crate::symtab::reach::Reach;
use crate::symtab::stored::{KeyEntry, StoredTable};
use crate::symtab::{FileSymbols, declared_keys, file_symbols, in_file, resolve_file};

/// Rounds of recomputing symbols after which a revision whose names have
/// not settled is indexed from scratch instead (a safeguard: each round
/// follows a chain of supertypes one step further).
const MAX_ROUNDS: usize = 32;

/// Resolutions a worker may finish ahead of the writer storing them.
const RESOLVED_AHEAD: usize = 16;

/// A changed path's new content (blob and facts), or `None` when removed.
pub(super) type Content = Option<(BlobId, PackLocation)>;

/// A path's new manifest entry (blob and unit), or `None` when removed.
pub(super) type Entry = Option<(BlobId, i64)>;

/// What [`index_layered`] works with.
pub(super) struct Layered<'a> {
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) tx: &'a IndexTransaction<'a>,
    /// The pack, read record by record (facts).
    pub(super) reader: &'a PackReader,
    /// The pack, mapped (layers).
    pub(super) mapped: &'a Arc<PackReader>,
    pub(super) libraries: &'a Libraries,
    /// Stored units' symbols, kept from one revision to the next.
    pub(super) units: &'a Arc<Kept>,
    pub(super) parent: &'a RevisionRow,
    /// The changed paths: their new content, or `None` when removed.
    pub(super) changes: &'a [(Arc<str>, Content)],
}

/// What a layered revision writes over its parent.
pub(super) struct LayerWritten {
    /// Paths whose manifest entry changes: the new blob and unit, or
    /// `None` for a path removed.
    pub(super) tree: Vec<(Arc<str>, Entry)>,
    /// The symbol table's delta: keys whose declaring paths changed.
    pub(super) symbols: LayerBuilder,
    /// The dependency index's delta: what each file resolved looked up.
    pub(super) lookups: LayerBuilder,
    /// The parent's symbol table and dependency index, which the deltas
    /// go on top of (read, and their checksums checked, once).
    pub(super) parent_chains: (LayerChain, LayerChain),
    /// The memos resolution made, for a layer over this one.
    pub(super) carried: Carried,
    /// The store's count of removals the memos hold for.
    pub(super) prunes: u64,
}

/// Why a revision is indexed from scratch after all.
#[derive(Debug)]
pub(super) enum NotLayered {
    /// The names did not settle within [`MAX_ROUNDS`].
    Unsettled,
    /// The parent's symbol table or dependency index could not be read:
    /// what to tell the user.
    Damaged(String),
}

/// A dirty file of the new revision.
struct Dirty {
    /// Its content, `None` when removed.
    content: Option<(BlobId, PackLocation)>,
    /// Its symbols must be computed (again).
    due: bool,
    /// The names computing its symbols looked up, sorted.
    deps: Vec<String>,
}

/// Computes the dirty set, resolves it and stores its units.
pub(super) fn index_layered(
    layered: Layered<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Result<LayerWritten, NotLayered>, Error> {
    let Layered {
        pool,
        tx,
        reader,
        mapped,
        libraries,
        units,
        parent,
        changes,
    } = layered;
    let store = tx.store();
    let store_dir = store.dir().to_path_buf();
    let corrupt =
        |path: &str, e: refscope_store::Error| Error::corrupt(&store_dir, format!("{path}: {e}"));
    progress(Progress::Phase {
        name: "signatures",
        total: changes.len() as u64,
    });
    let read: Vec<Option<FileFacts>> = pool.install(|| {
        changes
            .par_iter()
            .map(|(path, content)| {
                content
                    .map(|(blob_id, location)| reader.declarations(&blob_id, location))
                    .transpose()
                    .map_err(|e| corrupt(path, e))
            })
            .collect::<Result<_, Error>>()
    })?;
    let mut decls: HashMap<Arc<str>, Arc<FileFacts>> = HashMap::new();
    let mut keys = BTreeMap::new();
    for ((path, _), read) in changes.iter().zip(read) {
        match read {
            Some(d) => {
                keys.insert(path.clone(), Some(declared_keys(&d)));
                decls.insert(path.clone(), Arc::new(d));
            }
            None => {
                keys.insert(path.clone(), None);
            }
        }
    }
    // A damaged layer is never trusted: the revision is indexed from
    // scratch, which writes whole layers again. Layers this indexer
    // checked or wrote before are not checked again.
    let prunes = store.prunes()?;
    let checked = |at| units.layer_checked(prunes, at);
    let chains = LayerChain::read_past(mapped, LayerKind::Symbols, parent.symbols, checked)
        .and_then(|symbols| {
            Ok((
                symbols,
                LayerChain::read_past(mapped, LayerKind::Lookups, parent.lookups, checked)?,
            ))
        });
    let (parent_symbols, parent_lookups) = match chains {
        Ok(chains) => chains,
        Err(e @ refscope_store::Error::Corrupt { .. }) => {
            return Ok(Err(NotLayered::Damaged(format!(
                "the symbol table or dependency index of revision {} cannot be read ({e}); \
                 indexing every file instead",
                parent.name
            ))));
        }
        Err(e) => return Err(e.into()),
    };
    units.note_checked(
        prunes,
        parent_symbols.locations().chain(parent_lookups.locations()),
        true,
    );
    let mut carried = units.take_carried(LayerMark::of(parent, prunes));
    let table = Arc::new(StoredTable::new(
        store.dir(),
        parent,
        parent_symbols.clone(),
        units.clone(),
        libraries.class_path.clone(),
        keys,
        carried.copies.clone(),
    )?);
    let mut universe = libraries.universe();
    universe.set_external(table.clone());
    // What the parent's table answered holds but for the names whose
    // declaring paths change; other names are forgotten as they change.
    universe.keep_external_answers(std::mem::take(&mut carried.answers));
    universe.forget_external_of(table.changed_declarers().keys().map(String::as_str));

    let mut dirty: BTreeMap<Arc<str>, Dirty> = changes
        .iter()
        .map(|(path, content)| {
            (
                path.clone(),
                Dirty {
                    content: *content,
                    due: content.is_some(),
                    deps: Vec::new(),
                },
            )
        })
        .collect();
    for path in dirty.keys() {
        table.slot(path);
    }
    let mut readers = Readers {
        table: &table,
        lookups: &parent_lookups,
        reader,
        deps: HashMap::new(),
        announced: HashMap::new(),
    };
    // Keys to compare with what they were: first those whose declaring
    // paths change (a class added, removed, renamed or moved), then those
    // a recomputed file declares differently.
    let mut candidates: BTreeSet<String> = table.changed_declarers().into_keys().collect();
    // Each compared key's entry as the last round left it.
    let mut entries: HashMap<String, KeyEntry> = HashMap::new();
    // Every key declared otherwise than in the parent.
    let mut changed_in_all: HashSet<String> = HashSet::new();
    let mut rounds = 0;
    loop {
        let batch: Vec<(Arc<str>, BlobId, PackLocation)> = dirty
            .iter()
            .filter(|(_, d)| d.due)
            .filter_map(|(path, d)| d.content.map(|(blob, at)| (path.clone(), blob, at)))
            .collect();
        if batch.is_empty() && candidates.is_empty() {
            break;
        }
        rounds += 1;
        if rounds > MAX_ROUNDS {
            return Ok(Err(NotLayered::Unsettled));
        }
        let computed: Vec<(Arc<str>, FileSymbols)> = pool.install(|| {
            batch
                .par_iter()
                .with_max_len(1)
                .map(|(path, blob_id, location)| {
                    let d = match decls.get(path) {
                        Some(d) => d.clone(),
                        None => Arc::new(
                            reader
                                .declarations(blob_id, *location)
                                .map_err(|e| corrupt(path, e))?,
                        ),
                    };
                    Ok((path.clone(), file_symbols(&universe, &d, table.slot(path))))
                })
                .collect::<Result<_, Error>>()
        })?;
        if let Some(e) = table.take_error() {
            return Err(e);
        }
        for (path, now) in &computed {
            let before = match table.computed(path) {
                Some(earlier) => Some(Before::Computed(earlier)),
                None => table.parent_unit(path)?.map(|(_, s)| Before::Stored(s)),
            };
            candidates.extend(changed_keys(before.as_ref(), now));
        }
        for (path, now) in &computed {
            let d = dirty.get_mut(path).expect("computed files are dirty");
            d.due = false;
            d.deps = decode_names(&now.deps).expect("encoded by file_classes");
        }
        let compared: Vec<String> = std::mem::take(&mut candidates).into_iter().collect();
        table.set_symbols(computed, &compared);
        // A key changed when the revision declares it differently from
        // before, or in other files.
        let mut changed = Vec::new();
        for key in compared {
            let now = table.key_entry(&key)?;
            let before = match entries.remove(&key) {
                Some(before) => before,
                None => table.parent_key_entry(&key)?,
            };
            if now != before {
                changed.push((key.clone(), Reach::of(&key, &before, &now)));
            }
            entries.insert(key, now);
        }
        if changed.is_empty() {
            continue;
        }
        changed_in_all.extend(changed.iter().map(|(key, _)| key.clone()));
        universe.forget_external_of(changed.iter().map(|(key, _)| key.as_str()));
        for d in dirty.values_mut() {
            if d.content.is_some()
                && changed
                    .iter()
                    .any(|(key, _)| d.deps.binary_search(key).is_ok())
            {
                d.due = true;
            }
        }
        readers.add(store, pool, &changed, &mut dirty)?;
    }
    progress(Progress::Advance(changes.len() as u64));

    // Resolve the dirty files that have content, largest first.
    let mut work: Vec<(Arc<str>, BlobId, PackLocation)> = dirty
        .iter()
        .filter_map(|(path, d)| d.content.map(|(blob, at)| (path.clone(), blob, at)))
        .collect();
    work.sort_by_key(|(_, _, at)| std::cmp::Reverse(at.len));
    progress(Progress::Phase {
        name: "resolve",
        total: work.len() as u64,
    });
    let memos = &carried.memos;
    memos.forget_looking_up(&changed_in_all);
    let element_index = tx.defer_element_index()?;
    let mut writer = tx.unit_writer()?;
    let mut links = Links::default();
    let mut written = LayerWritten {
        tree: Vec::with_capacity(dirty.len()),
        symbols: LayerBuilder::default(),
        lookups: LayerBuilder::default(),
        parent_chains: (parent_symbols, parent_lookups.clone()),
        carried: Carried::default(),
        prunes,
    };
    crate::parallel::in_order(
        pool,
        work.len(),
        RESOLVED_AHEAD,
        LookupLog::default,
        |log, at| {
            let (path, blob_id, location) = &work[at];
            let facts = reader
                .facts(blob_id, *location)
                .map_err(|e| corrupt(path, e))?;
            let symbols = table.computed(path).expect("dirty files have symbols");
            let slot = table.slot(path);
            let mut tracked = resolve_file(
                &*table,
                &universe,
                memos,
                &facts,
                &symbols,
                &symbols.deps,
                slot,
                log,
            );
            let deps = std::mem::take(&mut tracked.deps);
            let unit = NewUnit::new(
                blob_id,
                Arc::new(tracked),
                deps.iter(),
                &symbols.to_unit(),
                &facts,
            );
            Ok::<_, Error>((unit, deps))
        },
        |at, resolved| {
            let (path, blob_id, _) = &work[at];
            let (unit, deps) = resolved?;
            let unit = writer.store(blob_id, unit, &mut links)?;
            written.tree.push((path.clone(), Some((*blob_id, unit))));
            for name in deps.iter() {
                written.lookups.add(name, path);
            }
            progress(Progress::Advance(1));
            Ok::<(), Error>(())
        },
    )?;
    drop(writer);
    if let Some(e) = table.take_error() {
        return Err(e);
    }
    finish_links(tx, links, element_index, progress)?;
    for (path, d) in &dirty {
        if d.content.is_none() {
            written.tree.push((path.clone(), None));
        }
    }
    for (key, declarers) in table.changed_declarers() {
        written
            .symbols
            .set(&key, declarers.iter().map(|p| p.to_string()).collect());
    }
    drop(table);
    carried.answers = universe.take_external_answers();
    written.carried = carried;
    Ok(Ok(written))
}

/// Finds the files of the parent revision that looked names up.
struct Readers<'t> {
    table: &'t StoredTable,
    lookups: &'t LayerChain,
    /// The pack, for the facts of readers a change reaches by name.
    reader: &'t PackReader,
    /// The names each parent unit looked up, read once (encoded).
    deps: HashMap<i64, Box<[u8]>>,
    /// How far each key's readers were looked for already.
    announced: HashMap<String, Reach>,
}

impl Readers<'_> {
    /// Adds to `dirty` every file of the parent revision whose unit looked
    /// up one of the `changed` keys and which the change reaches (and was
    /// not looked for before).
    fn add(
        &mut self,
        store: &refscope_store::Store,
        pool: &rayon::ThreadPool,
        changed: &[(String, Reach)],
        dirty: &mut BTreeMap<Arc<str>, Dirty>,
    ) -> Result<(), Error> {
        // Each reader found: dirty whatever it spells (`None`), or when it
        // spells one of these member names.
        let mut found: BTreeMap<Arc<str>, Option<BTreeSet<String>>> = BTreeMap::new();
        for (key, reach) in changed {
            let Some(reach) = self.announce(key, reach) else {
                continue;
            };
            for path in self.lookups.lookers(key)? {
                let path: Arc<str> = Arc::from(path);
                if dirty.contains_key(&path) || matches!(found.get(&path), Some(None)) {
                    continue;
                }
                // The index lists every path that ever looked the key up
                // in the chain: the unit there now must have.
                let Some((_, unit)) = self.table.parent_file(&path)? else {
                    continue;
                };
                if !self.deps.contains_key(&unit) {
                    let deps = self.table.unit_deps(unit)?;
                    self.deps.insert(unit, deps.into_boxed_slice());
                }
                let looked_up = contains_name(&self.deps[&unit], key).map_err(|_| {
                    Error::corrupt(
                        store.dir(),
                        format!("the names unit {unit} looked up do not decode"),
                    )
                })?;
                if !looked_up {
                    continue;
                }
                match &reach {
                    Reach::Whole => {
                        found.insert(path, None);
                    }
                    Reach::Members(names) => {
                        if let Some(Some(all)) = found.get_mut(&path) {
                            all.extend(names.iter().cloned());
                        } else {
                            found.insert(path, Some(names.clone()));
                        }
                    }
                }
            }
        }
        let mut reached = Vec::with_capacity(found.len());
        for (path, names) in found {
            let Some((blob_id, _)) = self.table.parent_file(&path)? else {
                continue;
            };
            let location = store.blob_location(&blob_id)?.ok_or_else(|| {
                Error::corrupt(
                    store.dir(),
                    format!("{path}: blob {blob_id} is not in the pack"),
                )
            })?;
            reached.push((path, blob_id, location, names));
        }
        // Only the facts of a reader reached by name are read, on the pool.
        let reader = self.reader;
        let store_dir = store.dir();
        let corrupt = |path: &str, e: refscope_store::Error| {
            Error::corrupt(store_dir, format!("{path}: {e}"))
        };
        let spelled: Vec<bool> = pool.install(|| {
            reached
                .par_iter()
                .with_max_len(1)
                .map(|(path, blob_id, location, names)| match names {
                    None => Ok(true),
                    // Most readers do not hold the names at all: their
                    // facts are not decoded.
                    Some(names) => {
                        let needles = Needles::new(names.iter().map(String::as_str));
                        let held = reader
                            .holds_any(blob_id, *location, &needles)
                            .map_err(|e| corrupt(path, e))?;
                        if !held {
                            return Ok(false);
                        }
                        reader
                            .facts(blob_id, *location)
                            .map(|facts| mentions_any(&facts, names))
                            .map_err(|e| corrupt(path, e))
                    }
                })
                .collect::<Result<_, Error>>()
        })?;
        for ((path, blob_id, location, _), spelled) in reached.into_iter().zip(spelled) {
            if !spelled {
                continue;
            }
            self.table.slot(&path);
            dirty.insert(
                path,
                Dirty {
                    content: Some((blob_id, location)),
                    due: true,
                    deps: Vec::new(),
                },
            );
        }
        Ok(())
    }

    /// Notes that `key`'s readers are looked for as far as `reach`, and
    /// returns how far beyond what was looked for before: `None` when not
    /// at all.
    fn announce(&mut self, key: &str, reach: &Reach) -> Option<Reach> {
        let new = match (self.announced.get(key), reach) {
            (Some(Reach::Whole), _) => return None,
            (None, reach) => reach.clone(),
            (Some(Reach::Members(_)), Reach::Whole) => Reach::Whole,
            (Some(Reach::Members(before)), Reach::Members(names)) => {
                let new: BTreeSet<String> = names.difference(before).cloned().collect();
                if new.is_empty() {
                    return None;
                }
                Reach::Members(new)
            }
        };
        match (self.announced.get_mut(key), &new) {
            (Some(Reach::Members(before)), Reach::Members(names)) => {
                before.extend(names.iter().cloned())
            }
            _ => {
                self.announced.insert(key.to_string(), new.clone());
            }
        }
        Some(new)
    }
}

/// What a path declared before its symbols were computed (again).
enum Before {
    Stored(Arc<UnitSymbols>),
    Computed(Arc<FileSymbols>),
}

/// The keys whose entries differ between `before` and `now`: a key
/// declared by one and not the other, a type whose supertypes changed, a
/// class whose signature (as other files see it) changed.
fn changed_keys(before: Option<&Before>, now: &FileSymbols) -> Vec<String> {
    let (before_types, before_classes, before_keys) = match before {
        Some(Before::Stored(s)) => (
            s.types.clone(),
            s.classes.clone(),
            s.keys().into_iter().map(str::to_string).collect(),
        ),
        Some(Before::Computed(s)) => {
            let unit = s.to_unit();
            let keys: Vec<String> = unit.keys().into_iter().map(str::to_string).collect();
            (unit.types, unit.classes, keys)
        }
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let now_unit = now.to_unit();
    let mut all: BTreeSet<String> = before_keys.into_iter().collect();
    all.extend(now_unit.keys().into_iter().map(str::to_string));
    let entry = |types: &[refscope_store::TypeEntry], classes: &[Arc<ClassEntry>], key: &str| {
        let t = types.iter().find(|t| t.canonical == key).cloned();
        let c: Vec<Arc<ClassEntry>> = classes
            .iter()
            .filter(|c| *c.sig.name == *key)
            .map(|c| in_file(c, NO_FILE))
            .collect();
        (t, c)
    };
    all.into_iter()
        .filter(|key| {
            entry(&before_types, &before_classes, key)
                != entry(&now_unit.types, &now_unit.classes, key)
        })
        .collect()
}
