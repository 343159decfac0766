//! What snapshots of one revision have read and derived, kept for the
//! next question about that revision.
//!
//! An indexed revision never changes: its files, their facts, element
//! records and resolved references, and every answer derived from them
//! stay valid for as long as the revision exists. A long-lived reader (the
//! MCP server, `refscope query -`) therefore keeps one [`RevisionCache`]
//! per revision and builds each call's [`Snapshot`](super::Snapshot) on it,
//! so a warm call decodes nothing it has decoded before.
//!
//! The cache is bounded: decoded files by the number of elements and
//! reference sites they hold, memoized callers by the number of hits.
//! What falls out is decoded again when asked for.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

use refscope_store::{FileEntry, TreeReader};

use super::answers::RefHit;
use super::data::FileData;
use super::plan::CallerPlan;
use refscope_store::RevisionRow;
use refscope_syntax::facts::Origin;

/// Decoded files kept per revision, weighed in elements plus reference
/// sites: about 250 bytes each decoded, so the budget is some 150 MiB.
/// The JDK's 15,000 files hold 1.8 million; the polymorphic callers of
/// `ArrayList#add` touch about a fifth of them.
const FILE_BUDGET: u64 = 600_000;

/// Memoized callers kept per revision, weighed in hits.
const CALLERS_BUDGET: u64 = 200_000;

/// Where the callers of elements are, kept per revision, weighed in files.
const PLANS_BUDGET: u64 = 200_000;

/// Units whose files are found one by one, among the paths each unit has
/// had, before the revision's whole manifest is read into a map instead:
/// a lookup costs a query and a walk down the manifest's directories, the
/// map (some 12 ms on the JDK's 15,000 files) a read of every directory.
pub(super) const UNITS_ONE_BY_ONE: usize = 128;

/// Where a signature element of a file is (its name's line) and where it
/// comes from: what a reference to it from another file needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SignatureSpot {
    pub(crate) line: u32,
    pub(crate) origin: Origin,
}

/// The reads and answers of one revision, shared by the snapshots built on
/// it ([`Snapshot::with_cache`](super::Snapshot::with_cache)).
#[derive(Debug)]
pub struct RevisionCache {
    pub(super) revision: RevisionRow,
    /// The revision's files by unit: the global index names units, and a
    /// unit may be shared by many revisions.
    pub(super) files_by_unit: OnceLock<HashMap<i64, Arc<[FileEntry]>>>,
    /// The manifest as read so far: files looked up by path, and units
    /// whose files were found one by one.
    pub(super) manifest: Mutex<ManifestReads>,
    /// Per file, the name line of each signature element: stored
    /// references point at declarations in other files by ordinal.
    pub(super) signature_lines: Mutex<HashMap<String, Arc<Vec<SignatureSpot>>>>,
    pub(super) files: Mutex<Bounded<String, Arc<FileData>>>,
    pub(super) callers: Mutex<Bounded<CallersKey, Arc<Vec<RefHit>>>>,
    /// The revision's Spring beans, read when a call through an
    /// injection point is first met.
    pub(super) beans: OnceLock<Arc<super::beans::Beans>>,
    /// Whether the store was indexed with `--no-frameworks`.
    pub(super) frameworks_off: OnceLock<bool>,
    /// Annotation types by name: whether the sources declare them, and
    /// whether they are Spring stereotypes (`spring.rs`).
    pub(super) stereotypes: Mutex<HashMap<String, Option<bool>>>,
    /// Where the callers of elements are (see `window.rs`).
    pub(super) caller_plans: Mutex<Bounded<CallersKey, Arc<CallerPlan>>>,
}

/// What was read of a revision's manifest for lookups by path and by unit.
#[derive(Default)]
pub(super) struct ManifestReads {
    /// The directories decoded.
    pub(super) trees: TreeReader,
    /// The files of units found one by one (before `files_by_unit`).
    pub(super) units: HashMap<i64, Arc<[FileEntry]>>,
}

impl std::fmt::Debug for ManifestReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManifestReads")
            .field("units", &self.units.len())
            .finish_non_exhaustive()
    }
}

/// Memoized callers are keyed by element id and whether polymorphic
/// callers are included.
type CallersKey = (String, bool);

impl RevisionCache {
    /// An empty cache for `revision`.
    pub fn new(revision: RevisionRow) -> Self {
        Self {
            revision,
            files_by_unit: OnceLock::new(),
            manifest: Mutex::default(),
            signature_lines: Mutex::default(),
            files: Mutex::new(Bounded::new(FILE_BUDGET)),
            callers: Mutex::new(Bounded::new(CALLERS_BUDGET)),
            beans: OnceLock::new(),
            frameworks_off: OnceLock::new(),
            stereotypes: Mutex::default(),
            caller_plans: Mutex::new(Bounded::new(PLANS_BUDGET)),
        }
    }

    /// The revision it caches.
    pub fn revision(&self) -> &RevisionRow {
        &self.revision
    }

    pub(super) fn file(&self, path: &str) -> Option<Arc<FileData>> {
        lock(&self.files).get(path)
    }

    pub(super) fn keep_file(&self, data: Arc<FileData>) {
        let weight = data.weight();
        lock(&self.files).insert(data.entry.path.clone(), data, weight);
    }

    pub(super) fn callers(&self, id: &str, polymorphic: bool) -> Option<Arc<Vec<RefHit>>> {
        lock(&self.callers).get(&(id.to_string(), polymorphic))
    }

    /// Takes the decoded files out, least recently used first: they are
    /// decoded again if this cache is asked for them.
    pub(super) fn take_files_by_age(&self) -> Vec<Arc<FileData>> {
        let mut files = lock(&self.files);
        let taken = files
            .entries_by_age()
            .into_iter()
            .map(|(_, data, _)| data.clone())
            .collect();
        *files = Bounded::new(FILE_BUDGET);
        taken
    }

    pub(super) fn caller_plan(&self, id: &str, polymorphic: bool) -> Option<Arc<CallerPlan>> {
        lock(&self.caller_plans).get(&(id.to_string(), polymorphic))
    }

    pub(super) fn keep_caller_plan(&self, id: &str, polymorphic: bool, plan: Arc<CallerPlan>) {
        let weight = plan.weight();
        lock(&self.caller_plans).insert((id.to_string(), polymorphic), plan, weight);
    }

    pub(super) fn keep_callers(&self, id: &str, polymorphic: bool, hits: Arc<Vec<RefHit>>) {
        let weight = 1 + hits.len() as u64;
        lock(&self.callers).insert((id.to_string(), polymorphic), hits, weight);
    }
}

/// Locks a cache map. A panic while holding the lock leaves a map that is
/// still consistent (every update is one insert or one eviction), so a
/// poisoned lock is taken over rather than passed on.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A map holding at most `budget` in total weight: when an insert goes
/// over, the least recently used entries go until a quarter of the budget
/// is free again (one sort per eviction round, not one per insert).
#[derive(Debug)]
pub(super) struct Bounded<K, V> {
    entries: HashMap<K, Slot<V>>,
    budget: u64,
    total: u64,
    clock: u64,
}

#[derive(Debug)]
struct Slot<V> {
    value: V,
    weight: u64,
    last_used: u64,
}

impl<K: Eq + Hash + Clone, V: Clone> Bounded<K, V> {
    fn new(budget: u64) -> Self {
        Self {
            entries: HashMap::new(),
            budget,
            total: 0,
            clock: 0,
        }
    }

    fn get<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.clock += 1;
        let slot = self.entries.get_mut(key)?;
        slot.last_used = self.clock;
        Some(slot.value.clone())
    }

    fn insert(&mut self, key: K, value: V, weight: u64) {
        self.clock += 1;
        let slot = Slot {
            value,
            weight,
            last_used: self.clock,
        };
        if let Some(old) = self.entries.insert(key, slot) {
            self.total -= old.weight;
        }
        self.total += weight;
        if self.total > self.budget {
            self.evict(self.budget - self.budget / 4);
        }
    }

    /// Every entry with its weight, least recently used first (so that
    /// inserting them in this order into another map keeps their order).
    pub(super) fn entries_by_age(&self) -> Vec<(&K, &V, u64)> {
        let mut entries: Vec<(u64, &K, &V, u64)> = self
            .entries
            .iter()
            .map(|(key, slot)| (slot.last_used, key, &slot.value, slot.weight))
            .collect();
        entries.sort_unstable_by_key(|(last_used, ..)| *last_used);
        entries
            .into_iter()
            .map(|(_, key, value, weight)| (key, value, weight))
            .collect()
    }

    /// Drops least recently used entries, never the newest, until the
    /// total is at most `target`.
    fn evict(&mut self, target: u64) {
        let newest = self.clock;
        let mut by_age: Vec<(u64, K)> = self
            .entries
            .iter()
            .filter(|(_, slot)| slot.last_used != newest)
            .map(|(key, slot)| (slot.last_used, key.clone()))
            .collect();
        by_age.sort_unstable_by_key(|(last_used, _)| *last_used);
        for (_, key) in by_age {
            if self.total <= target {
                break;
            }
            if let Some(slot) = self.entries.remove(&key) {
                self.total -= slot.weight;
            }
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_map_evicts_least_recently_used_first() {
        let mut map: Bounded<&str, u32> = Bounded::new(10);
        map.insert("a", 1, 4);
        map.insert("b", 2, 4);
        assert_eq!(map.get("a"), Some(1), "touching a makes b the oldest");
        map.insert("c", 3, 4);
        // 12 > 10: evicted down to 8, oldest first: b goes, a stays.
        assert_eq!(map.get("b"), None);
        assert_eq!(map.total, 8);
        assert_eq!(map.get("a"), Some(1));
        assert_eq!(map.get("c"), Some(3));
    }

    #[test]
    fn bounded_map_replaces_and_reweighs() {
        let mut map: Bounded<&str, u32> = Bounded::new(100);
        map.insert("a", 1, 60);
        map.insert("a", 2, 10);
        assert_eq!(map.total, 10);
        assert_eq!(map.get("a"), Some(2));
        // Heavier than the eviction target on its own: everything older
        // goes, the new entry stays.
        map.insert("b", 3, 95);
        assert_eq!(map.len(), 1);
        assert_eq!(map.get("a"), None);
        assert_eq!(map.get("b"), Some(3));
    }
}
