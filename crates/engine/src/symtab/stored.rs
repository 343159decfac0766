//! The symbol table of a revision written as a layer over an indexed
//! one: the files it recomputes (the *overlay*: changed files, and files
//! whose lookups touch a changed declaration) in memory, every other file
//! read from the parent revision in the store, one class key at a time.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};

use refscope_resolve::ClassEntry;
use refscope_resolve::class::ClassCopies;
use refscope_store::{LayerChain, NO_FILE, RevisionRow, Store, TreeReader, TypeEntry, UnitSymbols};
use refscope_symbols::classfile::ClassPath;
use refscope_symbols::names::{SourceTypes, Supertypes, to_supertypes};

use super::kept::Kept;
use super::{CopiesCache, FileSymbols, RevisionClasses, in_file};
use crate::error::Error;

/// A path's unit in the parent revision, and its symbols.
type ParentUnit = (i64, Arc<UnitSymbols>);

/// What the parent revision's store answers: each path's unit and its
/// symbols.
struct Reads {
    /// Given to the next revision's table when this one is dropped
    /// ([`Kept::keep_reader`]).
    store: Option<Store>,
    trees: TreeReader,
    tree: i64,
    /// Units' symbols decoded by earlier revisions of the same indexer.
    units: Arc<Kept>,
}

impl Reads {
    fn store(&self) -> &Store {
        self.store.as_ref().expect("held until dropped")
    }

    fn file(&mut self, path: &str) -> Result<Option<(refscope_store::BlobId, i64)>, Error> {
        let store = self.store.as_ref().expect("held until dropped");
        Ok(self.trees.file(store, self.tree, path)?)
    }

    fn unit(&mut self, path: &Arc<str>) -> Result<Option<ParentUnit>, Error> {
        let store = self.store.as_ref().expect("held until dropped");
        Ok(match self.trees.file(store, self.tree, path)? {
            Some((_, unit)) => {
                let symbols = self
                    .units
                    .get_or_read(unit, || Ok(store.unit_symbols(unit)?))?;
                Some((unit, symbols))
            }
            None => None,
        })
    }
}

impl Drop for Reads {
    fn drop(&mut self) {
        if let Some(store) = self.store.take() {
            self.units.keep_reader(store);
        }
    }
}

/// The overlay: what the new revision changes over its parent.
#[derive(Default)]
struct Overlay {
    /// Paths whose content changed, with the keys they declare now (no
    /// entry for a path removed).
    keys: BTreeMap<Arc<str>, Option<Vec<String>>>,
    /// The declarers of the keys whose declaring paths changed.
    declarers: HashMap<String, Vec<Arc<str>>>,
    /// Symbols computed in the new revision, by path.
    symbols: HashMap<Arc<str>, Arc<FileSymbols>>,
}

/// A revision's symbol table over its parent's in the store.
pub(crate) struct StoredTable {
    reads: Mutex<Reads>,
    /// Each path's unit in the parent revision and its symbols, read
    /// once: files resolving on every worker ask for the same few.
    parent_units: RwLock<HashMap<Arc<str>, Option<ParentUnit>>>,
    parent_symbols: LayerChain,
    class_path: Arc<ClassPath>,
    overlay: RwLock<Overlay>,
    /// Units' symbols and files' numbers, kept across revisions.
    kept: Arc<Kept>,
    /// [`RevisionClasses::class_copies`]' answers since the overlay last
    /// changed them (kept from the revision before when it was the parent).
    copies: Arc<CopiesCache>,
    /// The first error reading the store: answers made without what it
    /// would have read are not used.
    failed: Mutex<Option<Error>>,
}

impl StoredTable {
    /// The table of a revision over `parent` (read through its own
    /// connection to the store in `store_dir`, and its symbol table
    /// `parent_symbols`, and the units' symbols `units` keeps), whose
    /// changed files declare `keys` (a removed file: `None`). `copies` are
    /// the parent revision's answers of class copies, or none.
    pub(crate) fn new(
        store_dir: &std::path::Path,
        parent: &RevisionRow,
        parent_symbols: LayerChain,
        units: Arc<Kept>,
        class_path: Arc<ClassPath>,
        keys: BTreeMap<Arc<str>, Option<Vec<String>>>,
        copies: Arc<CopiesCache>,
    ) -> Result<Self, Error> {
        // The connection of the table before, when there was one: its
        // memory map and page cache hold what this one reads again.
        let store = match units.take_reader(store_dir) {
            Some(store) => store,
            None => Store::open_for_lookups(store_dir)?,
        };
        units.check(store.prunes()?);
        copies.forget_anonymous();
        let table = Self {
            reads: Mutex::new(Reads {
                store: Some(store),
                trees: TreeReader::default(),
                tree: parent.tree,
                units: units.clone(),
            }),
            parent_units: RwLock::default(),
            parent_symbols,
            class_path,
            overlay: RwLock::new(Overlay {
                keys,
                ..Overlay::default()
            }),
            kept: units,
            copies,
            failed: Mutex::default(),
        };
        table.declare_changed_keys()?;
        Ok(table)
    }

    /// The declarers in the new revision of every key whose declaring
    /// paths change: keys a changed file declares now and not before, or
    /// before and not now.
    fn declare_changed_keys(&self) -> Result<(), Error> {
        let keys = self.overlay.read().expect("overlay lock").keys.clone();
        let mut declarers: HashMap<String, Vec<Arc<str>>> = HashMap::new();
        for (path, now) in &keys {
            let before = self
                .parent_unit(path)?
                .map(|(_, s)| s.keys().into_iter().map(str::to_string).collect::<Vec<_>>());
            let now = now.clone().unwrap_or_default();
            let before = before.unwrap_or_default();
            for key in before.iter().filter(|k| !now.contains(k)) {
                let list = match declarers.get_mut(key) {
                    Some(list) => list,
                    None => declarers
                        .entry(key.clone())
                        .or_insert(self.parent_declarers(key)?),
                };
                list.retain(|p| p != path);
            }
            for key in now.iter().filter(|k| !before.contains(k)) {
                let list = match declarers.get_mut(key) {
                    Some(list) => list,
                    None => declarers
                        .entry(key.clone())
                        .or_insert(self.parent_declarers(key)?),
                };
                if let Err(at) = list.binary_search(path) {
                    list.insert(at, path.clone());
                }
            }
        }
        self.overlay.write().expect("overlay lock").declarers = declarers;
        Ok(())
    }

    fn parent_declarers(&self, key: &str) -> Result<Vec<Arc<str>>, Error> {
        Ok(self
            .parent_symbols
            .declarers(key)?
            .into_iter()
            .map(Arc::from)
            .collect())
    }

    /// The keys whose declaring paths the new revision changes, with their
    /// declarers now.
    pub(crate) fn changed_declarers(&self) -> HashMap<String, Vec<Arc<str>>> {
        self.overlay.read().expect("overlay lock").declarers.clone()
    }

    /// What the new revision declares under `key`, as files other than
    /// the declarers see it.
    pub(crate) fn key_entry(&self, key: &str) -> Result<KeyEntry, Error> {
        let declarers = self.declarers(key);
        let mut declared = Vec::with_capacity(declarers.len());
        for path in &declarers {
            if let Some(symbols) = self.symbols_of(path) {
                declared.push(symbols.entry(key));
            }
        }
        match self.take_error() {
            Some(e) => Err(e),
            None => Ok(KeyEntry::new(declarers, declared)),
        }
    }

    /// What the parent revision declared under `key`.
    pub(crate) fn parent_key_entry(&self, key: &str) -> Result<KeyEntry, Error> {
        let declarers = self.parent_declarers(key)?;
        let mut declared = Vec::with_capacity(declarers.len());
        for path in &declarers {
            if let Some((_, symbols)) = self.parent_unit(path)? {
                declared.push(Declared::Stored(symbols).entry(key));
            }
        }
        Ok(KeyEntry::new(declarers, declared))
    }

    /// The unit of `path` in the parent revision, with its symbols.
    pub(crate) fn parent_unit(&self, path: &Arc<str>) -> Result<Option<ParentUnit>, Error> {
        if let Some(known) = self.parent_units.read().expect("units lock").get(path) {
            return Ok(known.clone());
        }
        let found = self.reads.lock().expect("reads lock").unit(path)?;
        self.parent_units
            .write()
            .expect("units lock")
            .insert(path.clone(), found.clone());
        Ok(found)
    }

    /// The blob and unit of `path` in the parent revision.
    pub(crate) fn parent_file(
        &self,
        path: &str,
    ) -> Result<Option<(refscope_store::BlobId, i64)>, Error> {
        self.reads.lock().expect("reads lock").file(path)
    }

    /// The names unit `unit` looked up, as stored: sorted and encoded.
    pub(crate) fn unit_deps(&self, unit: i64) -> Result<Vec<u8>, Error> {
        Ok(self
            .reads
            .lock()
            .expect("reads lock")
            .store()
            .unit_deps_encoded(unit)?)
    }

    /// The number of `path`.
    pub(crate) fn slot(&self, path: &str) -> u32 {
        self.kept.slot(path)
    }

    /// Sets the symbols computed for `path` in the new revision, and
    /// forgets every answer made of `changed` keys.
    pub(crate) fn set_symbols(&self, computed: Vec<(Arc<str>, FileSymbols)>, changed: &[String]) {
        let mut overlay = self.overlay.write().expect("overlay lock");
        for (path, symbols) in computed {
            overlay.symbols.insert(path, Arc::new(symbols));
        }
        drop(overlay);
        self.copies.forget(changed);
    }

    /// The symbols computed for `path` in the new revision, if any.
    pub(crate) fn computed(&self, path: &str) -> Option<Arc<FileSymbols>> {
        self.overlay
            .read()
            .expect("overlay lock")
            .symbols
            .get(path)
            .cloned()
    }

    /// The first error met reading the store, if any.
    pub(crate) fn take_error(&self) -> Option<Error> {
        self.failed.lock().expect("error lock").take()
    }

    fn fail(&self, error: Error) {
        self.failed.lock().expect("error lock").get_or_insert(error);
    }

    /// The paths declaring `key` in the new revision, in path order.
    fn declarers(&self, key: &str) -> Vec<Arc<str>> {
        if let Some(list) = self
            .overlay
            .read()
            .expect("overlay lock")
            .declarers
            .get(key)
        {
            return list.clone();
        }
        match self.parent_declarers(key) {
            Ok(list) => list,
            Err(e) => {
                self.fail(e);
                Vec::new()
            }
        }
    }

    /// What `path` declares in the new revision: its computed symbols, or
    /// its parent unit's.
    fn symbols_of(&self, path: &Arc<str>) -> Option<Declared> {
        if let Some(computed) = self.computed(path) {
            return Some(Declared::Computed(computed));
        }
        match self.parent_unit(path) {
            Ok(found) => found.map(|(_, symbols)| Declared::Stored(symbols)),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }
}

/// A path's symbols: computed in the new revision, or stored with its
/// parent unit.
enum Declared {
    Computed(Arc<FileSymbols>),
    Stored(Arc<UnitSymbols>),
}

/// A key's declarations in a revision, as files other than the declarers
/// see them: equal entries resolve every reader alike.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct KeyEntry {
    /// The declaring paths, in path order: a reader's unit records the
    /// file each of its targets is declared in, so a class that moves to
    /// another file changes its readers' units even when it is declared
    /// as before.
    pub(super) declarers: Vec<Arc<str>>,
    /// Each declaration's type entry and classes, placeless.
    pub(super) declared: Vec<(Option<TypeEntry>, Vec<Arc<ClassEntry>>)>,
}

impl KeyEntry {
    fn new(
        declarers: Vec<Arc<str>>,
        declared: Vec<(Option<TypeEntry>, Vec<Arc<ClassEntry>>)>,
    ) -> Self {
        Self {
            declarers,
            declared,
        }
    }
}

impl Declared {
    /// The type entry and (placeless) classes declared under `key`.
    fn entry(&self, key: &str) -> (Option<TypeEntry>, Vec<Arc<ClassEntry>>) {
        let types = match self {
            Self::Computed(s) => &s.types,
            Self::Stored(s) => &s.types,
        };
        let classes = self
            .classes(key)
            .iter()
            .map(|c| in_file(c, NO_FILE))
            .collect();
        (types.iter().find(|t| t.canonical == key).cloned(), classes)
    }

    fn package(&self) -> Option<String> {
        match self {
            Self::Computed(s) => s.package.clone(),
            Self::Stored(s) => s.package.clone(),
        }
    }

    fn supertypes(&self, canonical: &str) -> Option<Vec<String>> {
        let types = match self {
            Self::Computed(s) => &s.types,
            Self::Stored(s) => &s.types,
        };
        types
            .iter()
            .find(|t| t.canonical == canonical)
            .map(|t| t.supertypes.clone())
    }

    fn classes(&self, key: &str) -> Vec<Arc<ClassEntry>> {
        let classes = match self {
            Self::Computed(s) => &s.placeless,
            Self::Stored(s) => &s.classes,
        };
        classes
            .iter()
            .filter(|c| *c.sig.name == *key)
            .cloned()
            .collect()
    }
}

impl SourceTypes for StoredTable {
    fn source_type(&self, canonical: &str) -> Option<Supertypes> {
        // Of several declarations, the last in path order, as a universe
        // built at once keeps it.
        self.declarers(canonical)
            .iter()
            .rev()
            .find_map(|path| self.symbols_of(path)?.supertypes(canonical))
            .map(|supertypes| to_supertypes(&supertypes))
    }
}

impl RevisionClasses for StoredTable {
    fn class_copies(&self, key: &str) -> ClassCopies {
        self.copies.get_or(self, key, || {
            let mut declared = Vec::new();
            for path in self.declarers(key) {
                let slot = self.slot(&path);
                if let Some(computed) = self.computed(&path) {
                    let classes = Declared::Computed(computed).classes(key);
                    declared.extend(classes.iter().map(|c| in_file(c, slot)));
                    continue;
                }
                match self.parent_unit(&path) {
                    Ok(Some((unit, symbols))) => declared.extend(
                        self.kept
                            .placed(unit, slot, &symbols)
                            .iter()
                            .filter(|c| *c.sig.name == *key)
                            .cloned(),
                    ),
                    Ok(None) => {}
                    Err(e) => self.fail(e),
                }
            }
            declared
        })
    }

    fn path(&self, file: u32) -> Option<Arc<str>> {
        self.kept.path(file)
    }

    fn package(&self, file: u32) -> Option<Option<String>> {
        let path = self.path(file)?;
        Some(self.symbols_of(&path)?.package())
    }

    fn class_path(&self) -> &Arc<ClassPath> {
        &self.class_path
    }
}
