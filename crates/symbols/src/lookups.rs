//! What a file's qualification and resolution looked at.
//!
//! While a file is qualified and resolved, every class key it looks up in
//! the symbol table and every type name it looks up in the type universe
//! is recorded in the file's [`LookupLog`], hits and misses alike. Stored
//! with the file's resolution, the names let a later revision decide
//! whether the resolution still holds: it does when each name still leads
//! to the same thing (the same class signature, still a library class,
//! still absent).
//!
//! Lookups answered from a memo shared between files (the method memo of
//! the symbol table) replay the names the memoized computation recorded
//! ([`LookupLog::nested`] gives them, as a [`NameSet`]), so a file depends
//! on what it used whichever file computed it first.
//!
//! The log is a value the resolution of one file carries, never state of
//! the thread it runs on: it is `!Sync`, and a file resolves on one thread.

use std::cell::{Cell, RefCell};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::{FxBuildHasher, FxHashSet};

/// The names one file's resolution looked up, innermost open computation
/// last.
#[derive(Debug)]
pub struct LookupLog {
    /// The open computations' frames, the outermost first, then frames
    /// kept empty for computations yet to open: a file opens and closes
    /// thousands, and a frame's buffers are reused rather than given back.
    frames: RefCell<Vec<Frame>>,
    /// The innermost open computation's frame.
    depth: Cell<usize>,
    /// False for a log that notes nothing ([`LookupLog::off`]).
    recording: bool,
}

/// Names, sorted, each once, end to end in one buffer: what a file's
/// resolution looked up ([`LookupLog::finish`]), as the store keeps it.
/// Lists are equal when their names are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct NameList(Names);

/// Names, each once, end to end in one buffer, in an order of their own
/// (by hash, then bytes) that makes sets of the same names equal: what a
/// memoized computation looked up, kept with its answer
/// ([`LookupLog::nested`]). A revision's memos keep millions of these
/// sets; one buffer each spares an allocation a name, and ordering them
/// by hash spares comparing names as strings.
#[derive(Debug, Clone, Default)]
pub struct NameSet {
    /// Which set this is, for a log to know it replayed it already:
    /// unique to each set made (never reused, unlike an address), 0 for
    /// a set with no names.
    id: u64,
    /// A hash of the names' hashes, made with the set: sets are compared
    /// and hashed as a memo keeps each once, and this spares reading
    /// every name for it.
    fingerprint: u32,
    /// One bit of each name's hash set ([`bloom_bit`]): most sets can be
    /// told not to hold a name without reading theirs. (Two halves of a
    /// word: a set takes no more room than it did with a whole-word
    /// fingerprint.)
    bloom: u32,
    names: Names,
}

/// The bit a name whose hash is `hash` sets in a [`NameSet`]'s bloom.
fn bloom_bit(hash: u64) -> u32 {
    1 << (hash >> 59)
}

/// Names to look for in many [`NameSet`]s, hashed once
/// ([`NameSet::contains_any`]).
#[derive(Debug, Clone, Default)]
pub struct NameProbe<'n> {
    names: Vec<(u64, &'n str)>,
    bloom: u32,
}

impl<'n> FromIterator<&'n str> for NameProbe<'n> {
    fn from_iter<I: IntoIterator<Item = &'n str>>(names: I) -> Self {
        let names: Vec<(u64, &str)> = names.into_iter().map(|name| (hash(name), name)).collect();
        let bloom = names
            .iter()
            .fold(0, |bloom, &(hash, _)| bloom | bloom_bit(hash));
        Self { names, bloom }
    }
}

impl NameProbe<'_> {
    /// Whether it has no name to look for.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Names end to end in one buffer, in the order a [`NameList`] or a
/// [`NameSet`] keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Names {
    bytes: Box<str>,
    /// Where each name ends in `bytes`.
    ends: Box<[u32]>,
}

impl Names {
    fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|at| self.name(at))
    }

    fn name(&self, at: usize) -> &str {
        name_in(&self.bytes, &self.ends, at)
    }

    /// Whether one of the names, which are in the order `cmp` compares
    /// them with the one looked for, is it.
    fn find(&self, cmp: impl Fn(&str) -> std::cmp::Ordering) -> bool {
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match cmp(self.name(middle)) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// `names`, in their order.
    fn from_ordered<'n>(names: impl ExactSizeIterator<Item = &'n str> + Clone) -> Self {
        let mut bytes = String::with_capacity(names.clone().map(str::len).sum());
        let ends: Box<[u32]> = names
            .map(|name| {
                bytes.push_str(name);
                u32::try_from(bytes.len()).expect("a list of names under 4 GiB")
            })
            .collect();
        Self {
            bytes: bytes.into_boxed_str(),
            ends,
        }
    }
}

impl NameList {
    /// The names, sorted.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.0.iter()
    }

    /// Whether `name` is one of the names.
    pub fn contains(&self, name: &str) -> bool {
        self.0.find(|held| held.cmp(name))
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.0.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.ends.is_empty()
    }

    /// `names` sorted, each once.
    fn sorted_from(mut names: Vec<&str>) -> Self {
        names.sort_unstable();
        names.dedup();
        Self(Names::from_ordered(names.into_iter()))
    }
}

impl<'n> FromIterator<&'n str> for NameList {
    fn from_iter<I: IntoIterator<Item = &'n str>>(names: I) -> Self {
        Self::sorted_from(names.into_iter().collect())
    }
}

impl NameSet {
    /// The names, in the set's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.names.iter()
    }

    /// Whether `name` is one of the names.
    pub fn contains(&self, name: &str) -> bool {
        self.contains_hashed(hash(name), name)
    }

    fn contains_hashed(&self, wanted: u64, name: &str) -> bool {
        self.bloom & bloom_bit(wanted) != 0
            && self
                .names
                .find(|held| hash(held).cmp(&wanted).then_with(|| held.cmp(name)))
    }

    /// Whether one of the names `probe` looks for is one of these.
    pub fn contains_any(&self, probe: &NameProbe<'_>) -> bool {
        self.bloom & probe.bloom != 0
            && probe
                .names
                .iter()
                .any(|&(wanted, name)| self.contains_hashed(wanted, name))
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.names.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.ends.is_empty()
    }

    /// Each name of `hashed` (a name's hash, then the name) once.
    fn from_hashed(mut hashed: Vec<(u64, &str)>) -> Self {
        hashed.sort_unstable();
        hashed.dedup_by(|a, b| a.1 == b.1);
        let bloom = hashed
            .iter()
            .fold(0, |bloom, &(hash, _)| bloom | bloom_bit(hash));
        let (id, fingerprint) = match hashed.len() {
            0 => (0, 0),
            _ => {
                let mut fingerprint = FxBuildHasher.build_hasher();
                hashed
                    .iter()
                    .for_each(|&(hash, _)| fingerprint.write_u64(hash));
                (
                    NEXT_SET_ID.fetch_add(1, Ordering::Relaxed),
                    // The high half: FxHash mixes its high bits best.
                    (fingerprint.finish() >> 32) as u32,
                )
            }
        };
        Self {
            id,
            fingerprint,
            bloom,
            names: Names::from_ordered(hashed.into_iter().map(|(_, name)| name)),
        }
    }
}

/// The id of the next [`NameSet`] made.
static NEXT_SET_ID: AtomicU64 = AtomicU64::new(1);

impl PartialEq for NameSet {
    fn eq(&self, other: &Self) -> bool {
        self.fingerprint == other.fingerprint && self.names == other.names
    }
}

impl Eq for NameSet {}

impl std::hash::Hash for NameSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u32(self.fingerprint);
    }
}

impl<'n> FromIterator<&'n str> for NameSet {
    fn from_iter<I: IntoIterator<Item = &'n str>>(names: I) -> Self {
        Self::from_hashed(names.into_iter().map(|name| (hash(name), name)).collect())
    }
}

/// What one open computation looked up: each name once, end to end in
/// one buffer. A lookup notes a name millions of times over a revision,
/// most of them a name noted already: noted here it costs a hash, a
/// search and one comparison of bytes, and a copy into the buffer the
/// first time, never an allocation of its own.
///
/// Most frames are a memoized computation's, a handful of names each
/// (4.4 on average over the JDK): those are searched end to end. A frame
/// with more names (the file's own) is indexed by hash as well. Either
/// way, emptying and listing a frame costs what it holds, not what the
/// largest computation before it held.
#[derive(Debug)]
struct Frame {
    /// The names in the order first noted, end to end.
    bytes: String,
    /// Each name noted, in the order first noted.
    noted: Vec<Noted>,
    /// Positions in `noted`, by hash: empty while the frame is small.
    index: hashbrown::HashTable<u32>,
    /// The ids of the memoized name sets already recorded here: a memo
    /// hit asks for the same few sets again and again.
    replayed: Vec<u64>,
    /// The same ids, once there are more than a few.
    replayed_index: FxHashSet<u64>,
}

/// Names a frame holds before it indexes them by hash.
const SMALL_FRAME: usize = 16;

/// A name of a [`Frame`]: its hash, and where it lies in the frame's bytes.
#[derive(Debug, Clone, Copy)]
struct Noted {
    hash: u64,
    start: u32,
    end: u32,
}

impl Default for Frame {
    fn default() -> Self {
        Self {
            bytes: String::new(),
            noted: Vec::new(),
            index: hashbrown::HashTable::new(),
            replayed: Vec::new(),
            replayed_index: FxHashSet::default(),
        }
    }
}

impl Frame {
    fn name(&self, noted: Noted) -> &str {
        &self.bytes[noted.start as usize..noted.end as usize]
    }

    /// Notes `name`, whose hash is `hash`, unless it is noted already.
    fn insert(&mut self, name: &str, hash: u64) {
        let Frame {
            bytes,
            noted,
            index,
            ..
        } = self;
        // Compared as bytes: a name is found far more often than added,
        // and bytes need no check that a slice falls between characters.
        let held = bytes.as_bytes();
        let is = |n: &Noted| {
            n.hash == hash && same_bytes(&held[n.start as usize..n.end as usize], name.as_bytes())
        };
        let found = match noted.len() {
            0..=SMALL_FRAME => noted.iter().any(is),
            _ => index.find(hash, |&at| is(&noted[at as usize])).is_some(),
        };
        if found {
            return;
        }
        let start = bytes.len() as u32;
        bytes.push_str(name);
        let end = u32::try_from(bytes.len()).expect("a file looks up under 4 GiB of names");
        noted.push(Noted { hash, start, end });
        let rehash = |&at: &u32| noted[at as usize].hash;
        match noted.len() {
            0..=SMALL_FRAME => {}
            n if n == SMALL_FRAME + 1 => {
                for (at, n) in noted.iter().enumerate() {
                    index.insert_unique(n.hash, at as u32, rehash);
                }
            }
            n => {
                index.insert_unique(hash, n as u32 - 1, rehash);
            }
        }
    }

    /// Notes that the memoized set with id `id` is replayed here; whether
    /// it was not already.
    fn replays(&mut self, id: u64) -> bool {
        let new = match self.replayed.len() {
            0..=SMALL_FRAME => !self.replayed.contains(&id),
            _ => {
                if self.replayed_index.is_empty() {
                    self.replayed_index.extend(&self.replayed);
                }
                self.replayed_index.insert(id)
            }
        };
        if new {
            self.replayed.push(id);
        }
        new
    }

    /// Every name, sorted.
    fn sorted(&self) -> NameList {
        NameList::sorted_from(self.noted.iter().map(|&noted| self.name(noted)).collect())
    }

    /// Every name, as a set.
    fn set(&self) -> NameSet {
        NameSet::from_hashed(
            self.noted
                .iter()
                .map(|&noted| (noted.hash, self.name(noted)))
                .collect(),
        )
    }

    /// Empty again, its buffers kept.
    fn clear(&mut self) {
        self.bytes.clear();
        self.noted.clear();
        self.index.clear();
        self.replayed.clear();
        self.replayed_index.clear();
    }
}

/// Whether `a` and `b` are the same bytes: names are short, and compared
/// eight bytes at a time here they need no call to `memcmp`.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |bytes: &[u8], at: usize| {
        u64::from_ne_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    // Whole words, then the last eight bytes, which may overlap the last
    // whole word.
    (0..n / 8).all(|i| word(a, 8 * i) == word(b, 8 * i)) && word(a, n - 8) == word(b, n - 8)
}

fn name_in<'b>(bytes: &'b str, ends: &[u32], at: usize) -> &'b str {
    let start = match at {
        0 => 0,
        _ => ends[at - 1] as usize,
    };
    &bytes[start..ends[at] as usize]
}

fn hash(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

impl Default for LookupLog {
    /// A log with nothing recorded yet.
    fn default() -> Self {
        Self {
            frames: RefCell::new(vec![Frame::default()]),
            depth: Cell::new(0),
            recording: true,
        }
    }
}

impl LookupLog {
    /// A log that notes nothing: for resolution whose dependencies nobody
    /// keeps (what an index without the incremental data costs). Memos
    /// filled through it keep no names either, so it must not share memos
    /// with a recording log.
    pub fn off() -> Self {
        Self {
            recording: false,
            ..Self::default()
        }
    }

    /// Notes that `name` was looked up.
    pub fn record(&self, name: &str) {
        if !self.recording {
            return;
        }
        let mut frames = self.frames.borrow_mut();
        frames[self.depth.get()].insert(name, hash(name));
    }

    /// Notes that each of `names` was looked up: the names a memoized
    /// computation recorded, replayed on a hit.
    pub fn record_all(&self, names: &NameSet) {
        if !self.recording || names.is_empty() {
            return;
        }
        let mut frames = self.frames.borrow_mut();
        let frame = &mut frames[self.depth.get()];
        if !frame.replays(names.id) {
            return;
        }
        for name in names.iter() {
            frame.insert(name, hash(name));
        }
    }

    /// Runs `compute`, and returns with its result the names it looked up:
    /// for a memo that keeps them with its answer. The enclosing
    /// computation is told about them too.
    pub fn nested<T>(&self, compute: impl FnOnce() -> T) -> (T, NameSet) {
        if !self.recording {
            return (compute(), NameSet::default());
        }
        /// Closes the frame if `compute` unwinds, so the log stays usable.
        struct Open<'l>(&'l LookupLog);
        impl Drop for Open<'_> {
            fn drop(&mut self) {
                let depth = self.0.depth.get();
                self.0.frames.borrow_mut()[depth].clear();
                self.0.depth.set(depth - 1);
            }
        }
        let depth = self.depth.get() + 1;
        {
            let mut frames = self.frames.borrow_mut();
            if frames.len() == depth {
                frames.push(Frame::default());
            }
        }
        self.depth.set(depth);
        let open = Open(self);
        let value = compute();
        let names = {
            let mut frames = self.frames.borrow_mut();
            let (outer, inner) = frames.split_at_mut(depth);
            let (outer, inner) = (&mut outer[depth - 1], &mut inner[0]);
            for &noted in &inner.noted {
                outer.insert(inner.name(noted), noted.hash);
            }
            // What the inner frame replayed, the outer one now has.
            for id in inner.replayed.drain(..) {
                outer.replays(id);
            }
            inner.set()
        };
        drop(open);
        (value, names)
    }

    /// Everything looked up, sorted.
    pub fn finish(self) -> NameList {
        self.take()
    }

    /// Everything looked up, sorted, leaving the log empty for the next
    /// file: a worker resolves thousands, and a log kept from one to the
    /// next has its buffers grown already. Called with no computation
    /// open.
    pub fn take(&self) -> NameList {
        debug_assert_eq!(self.depth.get(), 0, "a computation is open");
        let mut frames = self.frames.borrow_mut();
        let names = frames[0].sorted();
        frames.iter_mut().for_each(Frame::clear);
        names
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_list_knows_its_names() {
        let list: NameList = ["java.util.Map", "a", "java.util.List", "a", "z.Z"]
            .into_iter()
            .collect();
        for name in ["a", "java.util.List", "java.util.Map", "z.Z"] {
            assert!(list.contains(name), "{name}");
        }
        for name in ["", "b", "java.util", "java.util.Maps", "zz"] {
            assert!(!list.contains(name), "{name}");
        }
        assert!(!NameList::from_iter([]).contains("a"));
    }

    use super::{LookupLog, NameList, NameProbe, NameSet};

    #[test]
    fn a_set_tells_which_names_of_a_probe_it_holds() {
        let names: Vec<String> = (0..200).map(|i| format!("p{}.C{i}", i % 7)).collect();
        let set: NameSet = names.iter().step_by(3).map(String::as_str).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(set.contains(name), i % 3 == 0, "{name}");
            let alone: NameProbe = [name.as_str(), "q.Absent"].into_iter().collect();
            assert_eq!(set.contains_any(&alone), i % 3 == 0, "{name}");
        }
        let none: NameProbe = ["q.A", "q.B", "p1.C1x"].into_iter().collect();
        assert!(!set.contains_any(&none));
        assert!(!set.contains_any(&NameProbe::default()));
        assert!(!NameSet::default().contains_any(&none));
        assert!(!NameSet::default().contains("q.A"));
    }

    fn names(list: &NameList) -> Vec<&str> {
        list.iter().collect()
    }

    /// A set's names, sorted.
    fn sorted(set: &NameSet) -> Vec<&str> {
        let mut names: Vec<&str> = set.iter().collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn nested_names_reach_the_enclosing_computation() {
        let log = LookupLog::default();
        log.record("p.A");
        let ((), inner) = log.nested(|| {
            log.record("p.C");
            log.record("p.B");
            log.record("p.C");
        });
        assert_eq!(sorted(&inner), ["p.B", "p.C"]);
        log.record("p.D");
        assert_eq!(names(&log.finish()), ["p.A", "p.B", "p.C", "p.D"]);
    }

    #[test]
    fn a_computation_that_unwinds_leaves_the_log_usable() {
        let log = LookupLog::default();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            log.nested(|| {
                log.record("p.Lost");
                panic!("resolution failed");
            })
        }));
        assert!(unwound.is_err());
        log.record("p.A");
        // The names of the abandoned computation stay behind with it.
        assert_eq!(names(&log.finish()), ["p.A"]);
    }

    #[test]
    fn a_replayed_list_is_recorded_in_each_frame_that_replays_it() {
        let log = LookupLog::default();
        let memoized: std::sync::Arc<NameSet> =
            std::sync::Arc::new(["p.B", "p.A"].into_iter().collect());
        log.record_all(&memoized);
        // Replayed again inside a nested computation: its memo needs them.
        let ((), inner) = log.nested(|| {
            log.record_all(&memoized);
            log.record("p.C");
        });
        assert_eq!(sorted(&inner), ["p.A", "p.B", "p.C"]);
        let ((), inner) = log.nested(|| log.record_all(&memoized));
        assert_eq!(sorted(&inner), ["p.A", "p.B"]);
        log.record_all(&memoized);
        assert_eq!(names(&log.finish()), ["p.A", "p.B", "p.C"]);
    }

    #[test]
    fn bytes_are_the_same_only_when_every_one_is() {
        let text = b"java.util.concurrent.ConcurrentHashMap$KeySetView";
        for n in 0..text.len() {
            let a = &text[..n];
            assert!(super::same_bytes(a, a), "{n}");
            assert!(!super::same_bytes(a, &text[..n + 1]), "{n}");
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(!super::same_bytes(a, &b), "{n} {at}");
            }
        }
    }

    #[test]
    fn a_frame_of_many_names_notes_each_once() {
        // Past a few names a frame indexes them by hash, and past a few
        // sets it indexes the sets it replayed: the answers stay the same.
        let names: Vec<String> = (0..100).map(|i| format!("p.C{i}")).collect();
        let sets: Vec<NameSet> = (0..40)
            .map(|i| [format!("q.S{i}").as_str()].into_iter().collect())
            .collect();
        let log = LookupLog::default();
        let ((), inner) = log.nested(|| {
            for round in 0..2 {
                for (i, name) in names.iter().enumerate() {
                    log.record(name);
                    if round == 1 && i < sets.len() {
                        log.record_all(&sets[i]);
                    }
                }
            }
            for set in &sets {
                log.record_all(set);
            }
        });
        assert_eq!(inner.len(), 140);
        for name in names.iter().map(String::as_str).chain(["q.S0", "q.S39"]) {
            assert!(inner.contains(name), "{name}");
        }
        for (i, name) in names.iter().enumerate().rev() {
            log.record(name);
            log.record_all(&sets[i % sets.len()]);
        }
        let all = log.take();
        assert_eq!(all.len(), 140);
        let mut expected: Vec<String> = names.clone();
        expected.extend((0..40).map(|i| format!("q.S{i}")));
        expected.sort();
        assert_eq!(all.iter().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_log_taken_starts_again_empty() {
        let log = LookupLog::default();
        let memoized: NameSet = ["p.M"].into_iter().collect();
        log.record("p.A");
        log.record_all(&memoized);
        let ((), _) = log.nested(|| log.record("p.B"));
        assert_eq!(names(&log.take()), ["p.A", "p.B", "p.M"]);
        // Nothing of the first file is left, not even which sets it
        // replayed.
        log.record("p.C");
        log.record_all(&memoized);
        let ((), inner) = log.nested(|| log.record("p.C"));
        assert_eq!(sorted(&inner), ["p.C"]);
        assert_eq!(names(&log.take()), ["p.C", "p.M"]);
        assert!(log.take().is_empty());
    }

    #[test]
    fn a_log_that_is_off_notes_nothing() {
        let log = LookupLog::off();
        log.record("p.A");
        let ((), inner) = log.nested(|| log.record("p.B"));
        assert!(inner.is_empty());
        assert!(log.finish().is_empty());
    }

    #[test]
    fn a_list_of_names_is_sorted_each_name_once() {
        let list: NameList = ["p.B", "", "p.A", "p.B", "p.Été"].into_iter().collect();
        assert_eq!(names(&list), ["", "p.A", "p.B", "p.Été"]);
        assert_eq!(list.len(), 4);
        assert!(NameList::default().is_empty());
        // Equal lists are equal however they were made.
        let again: NameList = ["p.Été", "p.A", "", "p.B"].into_iter().collect();
        assert_eq!(list, again);
    }

    #[test]
    fn a_list_made_where_a_replayed_one_was_freed_is_replayed_too() {
        let log = LookupLog::default();
        for name in ["p.A", "p.B", "p.C", "p.D"] {
            // Each list is freed before the next is made, likely at the
            // same address.
            let list: NameSet = [name].into_iter().collect();
            log.record_all(&list);
        }
        assert_eq!(names(&log.finish()), ["p.A", "p.B", "p.C", "p.D"]);
    }

    #[test]
    fn a_set_of_names_is_equal_to_any_set_of_the_same_names() {
        let names = ["p.B", "", "p.A", "p.B", "p.Été", "java.lang.String"];
        let set: NameSet = names.into_iter().collect();
        assert_eq!(set.len(), 5);
        assert_eq!(
            sorted(&set),
            ["", "java.lang.String", "p.A", "p.B", "p.Été"]
        );
        for name in names {
            assert!(set.contains(name), "{name}");
        }
        for name in ["p.C", "p", "p.A.B", "java.lang.Strin"] {
            assert!(!set.contains(name), "{name}");
        }
        let mut reversed = names;
        reversed.reverse();
        let again: NameSet = reversed.into_iter().collect();
        assert_eq!(set, again);
        assert!(NameSet::default().is_empty());
        assert!(!NameSet::default().contains(""));
        // A computation's set is the set of what it recorded, whatever
        // the order and repetitions.
        let log = LookupLog::default();
        let ((), recorded) = log.nested(|| {
            for name in names.into_iter().chain(names) {
                log.record(name);
            }
        });
        assert_eq!(recorded, set);
    }

    #[test]
    fn a_name_asked_for_again_is_noted_once_in_each_frame() {
        let log = LookupLog::default();
        log.record("p.A");
        log.record("p.A");
        let ((), inner) = log.nested(|| {
            // The frame's last name is not the enclosing one's.
            log.record("p.A");
            log.record("p.B");
            log.record("p.B");
            log.record("p.A");
        });
        assert_eq!(sorted(&inner), ["p.A", "p.B"]);
        let ((), inner) = log.nested(|| log.record("p.A"));
        assert_eq!(sorted(&inner), ["p.A"]);
        log.record("p.C");
        log.record("p.A");
        assert_eq!(names(&log.finish()), ["p.A", "p.B", "p.C"]);
    }
}
