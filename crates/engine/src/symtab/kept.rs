//! What the tables of an indexer's revisions keep from one revision to
//! the next: the commits of a range, or the saves of a `watch`, read the
//! same popular classes' units over and over (every file that names
//! `String` reads the unit declaring it), and a unit never changes once
//! stored. Kept are the units' symbols, decoded once; their classes as
//! files see them, numbered by the file they are declared in; and the
//! files' numbers, which stay the same for the indexer's life so that the
//! numbered classes stay right.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use hashlink::LruCache;
use refscope_resolve::ClassEntry;
use refscope_store::{PackLocation, RevisionRow, Store, UnitSymbols};
use refscope_symbols::names::ExternalAnswers;

use super::{CopiesCache, RevisionMemos, in_file};
use crate::error::Error;

/// How many units' symbols are kept: the units a commit's files read
/// most, a few tens of megabytes decoded on the JDK.
const CAPACITY: usize = 4096;

/// Stored units' symbols by unit id, the least recently read dropped
/// first, with their classes numbered for the file they are in; and the
/// files' numbers.
pub(crate) struct Kept {
    inner: Mutex<Inner>,
    slots: Mutex<Slots>,
    /// What the last layer written leaves to a layer over it.
    carried: Mutex<Option<(LayerMark, Carried)>>,
    /// Symbol-table and dependency-index layers whose checksums were
    /// checked, or which this indexer wrote.
    checked: Mutex<CheckedLayers>,
    /// The read connection of the last revision's table, for the next.
    reader: Mutex<Option<Store>>,
}

/// Pack sections of layers known sound, with the store's count of
/// removals when they were (a removal rewrites the pack).
#[derive(Default)]
struct CheckedLayers {
    prunes: Option<u64>,
    at: HashSet<PackLocation>,
}

/// The memos a layer's resolution made, for the next layer over it: a
/// commit of a range resolves files that read the same popular classes
/// and methods as the commit before, and an answer stays right as long as
/// the names it looked up are declared as they were.
#[derive(Default)]
pub(crate) struct Carried {
    /// Method lookups.
    pub(crate) memos: Arc<RevisionMemos>,
    /// Class copies by key.
    pub(crate) copies: Arc<CopiesCache>,
    /// The source types the symbol table answered.
    pub(crate) answers: ExternalAnswers,
}

/// Which revision [`Carried`] memos hold for: its row and layers, and the
/// store's count of removals then (a removed revision's id may come back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayerMark {
    id: i64,
    tree: i64,
    symbols: PackLocation,
    lookups: PackLocation,
    prunes: u64,
}

impl LayerMark {
    /// The mark of `revision`, written when the store had seen `prunes`
    /// removals.
    pub(crate) fn of(revision: &RevisionRow, prunes: u64) -> Self {
        Self::new(
            revision.id,
            revision.tree,
            (revision.symbols, revision.lookups),
            prunes,
        )
    }

    /// The mark of revision `id` with manifest `tree` and the symbol table
    /// and dependency index `layers`.
    pub(crate) fn new(
        id: i64,
        tree: i64,
        (symbols, lookups): (PackLocation, PackLocation),
        prunes: u64,
    ) -> Self {
        Self {
            id,
            tree,
            symbols,
            lookups,
            prunes,
        }
    }
}

/// Method lookups beyond which memos are not carried to the next layer: a
/// long session starts again rather than grow without end.
const MAX_CARRIED_LOOKUPS: usize = 1 << 21;

struct Inner {
    units: LruCache<i64, Arc<UnitSymbols>>,
    /// A unit's classes declared in file number `.1`.
    placed: LruCache<(i64, u32), Arc<[Arc<ClassEntry>]>>,
    /// The store's count of removals when the units were read
    /// ([`refscope_store::Store::prunes`]).
    prunes: Option<u64>,
}

/// File numbers, given to paths as they are first named.
#[derive(Default)]
struct Slots {
    paths: Vec<Arc<str>>,
    numbers: HashMap<Arc<str>, u32>,
}

impl Default for Kept {
    fn default() -> Self {
        Self::with_capacity(CAPACITY)
    }
}

impl Kept {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                units: LruCache::new(capacity),
                placed: LruCache::new(capacity),
                prunes: None,
            }),
            slots: Mutex::default(),
            carried: Mutex::default(),
            checked: Mutex::default(),
            reader: Mutex::default(),
        }
    }

    /// The read connection a table of a revision of the store in `dir`
    /// left, if any: opening one for each revision maps the database
    /// again and starts with an empty page cache. (A connection reads
    /// what is committed when it reads, and units never change.)
    pub(crate) fn take_reader(&self, dir: &std::path::Path) -> Option<Store> {
        let mut reader = self.reader.lock().expect("reader lock");
        match reader.take() {
            Some(store) if store.dir() == dir => Some(store),
            _ => None,
        }
    }

    /// The read connection kept, whichever store it reads.
    pub(crate) fn take_any_reader(&self) -> Option<Store> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Keeps `store`, a table's read connection, for the next revision.
    pub(crate) fn keep_reader(&self, store: Store) {
        *self.reader.lock().unwrap_or_else(|e| e.into_inner()) = Some(store);
    }

    /// Whether the layer at `at` was checked, or written, since the
    /// store's count of removals became `prunes`.
    pub(crate) fn layer_checked(&self, prunes: u64, at: PackLocation) -> bool {
        let checked = self.checked.lock().expect("checked layers lock");
        checked.prunes == Some(prunes) && checked.at.contains(&at)
    }

    /// Notes the layers at `at` as checked (or written) when the store's
    /// count of removals is `prunes`; with `only`, they replace the ones
    /// noted before, which keeps the set to the chains in use.
    pub(crate) fn note_checked(
        &self,
        prunes: u64,
        at: impl IntoIterator<Item = PackLocation>,
        only: bool,
    ) {
        let mut checked = self.checked.lock().expect("checked layers lock");
        if only || checked.prunes != Some(prunes) {
            checked.at.clear();
            checked.prunes = Some(prunes);
        }
        checked.at.extend(at);
    }

    /// The memos carried from the layer written last when `parent` is that
    /// layer (`mark` says), else empty ones. Taken: a layer that fails
    /// leaves none behind.
    pub(crate) fn take_carried(&self, mark: LayerMark) -> Carried {
        match self.carried.lock().expect("carried lock").take() {
            Some((held, carried)) if held == mark => carried,
            _ => Carried::default(),
        }
    }

    /// Keeps `carried`, the memos of the layer `mark` names, for the next
    /// layer over it.
    pub(crate) fn carry(&self, mark: LayerMark, carried: Carried) {
        if carried.memos.len() <= MAX_CARRIED_LOOKUPS {
            *self.carried.lock().expect("carried lock") = Some((mark, carried));
        }
    }

    /// Forgets every unit if revisions were removed from the store since
    /// they were read (`prunes` is the store's count now): a removed
    /// unit's id may name another unit now.
    pub(crate) fn check(&self, prunes: u64) {
        let mut inner = self.inner.lock().expect("unit cache lock");
        if inner.prunes != Some(prunes) {
            inner.units.clear();
            inner.placed.clear();
            inner.prunes = Some(prunes);
        }
    }

    /// The symbols of `unit`, from `read` the first time.
    pub(crate) fn get_or_read(
        &self,
        unit: i64,
        read: impl FnOnce() -> Result<UnitSymbols, Error>,
    ) -> Result<Arc<UnitSymbols>, Error> {
        if let Some(symbols) = self.inner.lock().expect("unit cache lock").units.get(&unit) {
            return Ok(symbols.clone());
        }
        // Decoded outside the lock: other workers read other units.
        let symbols = Arc::new(read()?);
        self.inner
            .lock()
            .expect("unit cache lock")
            .units
            .insert(unit, symbols.clone());
        Ok(symbols)
    }
    /// The classes of `unit` (its symbols `symbols`) declared in file
    /// number `file`.
    pub(crate) fn placed(
        &self,
        unit: i64,
        file: u32,
        symbols: &UnitSymbols,
    ) -> Arc<[Arc<ClassEntry>]> {
        if let Some(placed) = self
            .inner
            .lock()
            .expect("unit cache lock")
            .placed
            .get(&(unit, file))
        {
            return placed.clone();
        }
        let placed: Arc<[Arc<ClassEntry>]> =
            symbols.classes.iter().map(|c| in_file(c, file)).collect();
        self.inner
            .lock()
            .expect("unit cache lock")
            .placed
            .insert((unit, file), placed.clone());
        placed
    }

    /// The number of `path`.
    pub(crate) fn slot(&self, path: &str) -> u32 {
        let mut slots = self.slots.lock().expect("slots lock");
        if let Some(&n) = slots.numbers.get(path) {
            return n;
        }
        let path: Arc<str> = Arc::from(path);
        let n = slots.paths.len() as u32;
        slots.paths.push(path.clone());
        slots.numbers.insert(path, n);
        n
    }

    /// The path numbered `file`.
    pub(crate) fn path(&self, file: u32) -> Option<Arc<str>> {
        self.slots
            .lock()
            .expect("slots lock")
            .paths
            .get(file as usize)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(package: &str) -> UnitSymbols {
        UnitSymbols {
            package: Some(package.to_string()),
            ..UnitSymbols::default()
        }
    }

    fn package(cache: &Kept, id: i64, read_as: &str) -> String {
        cache
            .get_or_read(id, || Ok(unit(read_as)))
            .unwrap()
            .package
            .clone()
            .unwrap()
    }

    fn at(offset: u64) -> PackLocation {
        PackLocation {
            offset,
            len: 64,
            declarations_len: 0,
        }
    }

    #[test]
    fn checked_layers_hold_until_a_removal_or_a_new_chain() {
        let kept = Kept::default();
        assert!(!kept.layer_checked(0, at(0)));
        kept.note_checked(0, [at(0), at(64)], true);
        kept.note_checked(0, [at(128)], false);
        assert!(kept.layer_checked(0, at(0)));
        assert!(kept.layer_checked(0, at(128)));
        assert!(!kept.layer_checked(0, at(192)));
        // Another length at the same offset is another section.
        assert!(!kept.layer_checked(0, PackLocation { len: 8, ..at(0) }));
        // A removal rewrites the pack: nothing checked before holds.
        assert!(!kept.layer_checked(1, at(0)));
        kept.note_checked(1, [at(256)], false);
        assert!(!kept.layer_checked(1, at(0)));
        assert!(kept.layer_checked(1, at(256)));
        // A chain noted alone replaces what was noted.
        kept.note_checked(1, [at(512)], true);
        assert!(!kept.layer_checked(1, at(256)));
        assert!(kept.layer_checked(1, at(512)));
    }

    #[test]
    fn a_unit_is_read_once_while_it_is_kept() {
        let cache = Kept::with_capacity(2);
        cache.check(0);
        assert_eq!(package(&cache, 1, "a"), "a");
        assert_eq!(package(&cache, 1, "read again"), "a");
    }

    #[test]
    fn the_least_recently_read_unit_goes_first() {
        let cache = Kept::with_capacity(2);
        cache.check(0);
        package(&cache, 1, "a");
        package(&cache, 2, "b");
        package(&cache, 1, "a");
        package(&cache, 3, "c");
        assert_eq!(package(&cache, 1, "read again"), "a");
        assert_eq!(package(&cache, 2, "read again"), "read again");
    }

    #[test]
    fn a_removal_in_the_store_forgets_every_unit() {
        let cache = Kept::with_capacity(2);
        cache.check(3);
        package(&cache, 1, "a");
        cache.check(3);
        assert_eq!(package(&cache, 1, "read again"), "a");
        cache.check(4);
        assert_eq!(package(&cache, 1, "read again"), "read again");
    }

    #[test]
    fn a_path_keeps_its_number() {
        let cache = Kept::with_capacity(2);
        let a = cache.slot("p/A.java");
        let b = cache.slot("p/B.java");
        assert_ne!(a, b);
        assert_eq!(cache.slot("p/A.java"), a);
        assert_eq!(cache.path(b).as_deref(), Some("p/B.java"));
        cache.check(1);
        assert_eq!(cache.slot("p/A.java"), a, "numbers outlive a removal");
    }

    fn mark(id: i64, symbols_at: u64, prunes: u64) -> LayerMark {
        let at = |offset| PackLocation {
            offset,
            len: 8,
            declarations_len: 0,
        };
        LayerMark::new(id, 7, (at(symbols_at), at(symbols_at + 64)), prunes)
    }

    /// Memos that have met a source root.
    fn made() -> Carried {
        let made = Carried::default();
        made.memos.partition("src/main/java");
        made
    }

    /// Whether `taken` are memos [`made`] made.
    fn were_made(taken: &Carried) -> bool {
        taken.memos.partition("src/test/java").partition == 1
    }

    #[test]
    fn memos_go_only_to_a_layer_over_the_one_they_were_made_for() {
        let kept = Kept::with_capacity(2);
        kept.carry(mark(5, 128, 0), made());
        assert!(were_made(&kept.take_carried(mark(5, 128, 0))));
        assert!(!were_made(&kept.take_carried(mark(5, 128, 0))), "taken");
        // Another revision, the same id written elsewhere, or a removal
        // since: none is the revision the memos hold for, and asking takes
        // them.
        for other in [mark(6, 128, 0), mark(5, 256, 0), mark(5, 128, 1)] {
            kept.carry(mark(5, 128, 0), made());
            assert!(!were_made(&kept.take_carried(other)));
            assert!(!were_made(&kept.take_carried(mark(5, 128, 0))));
        }
    }

    #[test]
    fn a_failed_read_keeps_nothing() {
        let cache = Kept::with_capacity(2);
        cache.check(0);
        let failed = cache.get_or_read(1, || {
            Err(Error::corrupt(std::path::Path::new("store"), "cut".into()))
        });
        assert!(failed.is_err());
        assert_eq!(package(&cache, 1, "a"), "a");
    }
}
