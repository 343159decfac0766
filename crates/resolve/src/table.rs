//! The symbol table of a revision: every source class with its members,
//! and library classes read lazily from the class path. A file sees it
//! through its [`FileScope`](crate::scope::FileScope).

use std::sync::Arc;

use refscope_symbols::ClassSig;
use refscope_symbols::classfile::ClassPath;
use refscope_symbols::lookups::{NameProbe, NameSet};
use rustc_hash::FxHashMap as HashMap;

use crate::class::{ClassCopies, ClassEntry, implement_if_interface, is_anonymous, source_root};
use crate::ty::{Found, Ty};

/// Every source copy of a class, by key, as other files see them (what
/// the database's class query answers): the same for every file of a
/// revision, so files resolved outside tracked queries share them.
pub type CopiesMemo = std::sync::RwLock<HashMap<Box<str>, ClassCopies>>;

/// Type hierarchies by (memo partition, type), each with the names its
/// computation looked up (see [`refscope_symbols::lookups`]).
pub(crate) type HierarchyMemo = std::sync::RwLock<HashMap<(u32, Ty), (Arc<Vec<Ty>>, Arc<NameSet>)>>;

/// Method lookups by (memo partition, type, name). Each answer keeps the
/// names its computation looked up (see [`refscope_symbols::lookups`]),
/// replayed when a file takes the answer from the memo. Opaque outside
/// resolution: a caller makes one per revision and shares it.
#[derive(Default)]
pub struct MethodMemo {
    map: MethodMap,
    /// The lists of names the answers keep, each kept once: the lookups
    /// of one type's methods of any name mostly walk the same hierarchy,
    /// and a revision's memo holds hundreds of thousands of answers.
    name_lists: std::sync::Mutex<rustc_hash::FxHashSet<Arc<NameSet>>>,
}

type MethodMap = std::sync::RwLock<HashMap<(u32, Ty, Arc<str>), (Arc<Vec<Found>>, Arc<NameSet>)>>;

impl MethodMemo {
    pub(crate) fn map(&self) -> &MethodMap {
        &self.map
    }

    /// Forgets every answer whose computation looked up a name `changed`
    /// holds. A memo kept from one revision for the next stays right this
    /// way: an answer depends on the declarations of the names it looked
    /// up (found or not), and on nothing else.
    pub fn forget_looking_up(&self, changed: &[&str]) {
        if changed.is_empty() {
            return;
        }
        let probe: NameProbe<'_> = changed.iter().copied().collect();
        let mut lists = self.name_lists.lock().expect("names lock");
        let stale: rustc_hash::FxHashSet<*const NameSet> = lists
            .iter()
            .filter(|list| list.contains_any(&probe))
            .map(Arc::as_ptr)
            .collect();
        if stale.is_empty() {
            return;
        }
        lists.retain(|list| !stale.contains(&Arc::as_ptr(list)));
        self.map
            .write()
            .expect("memo lock")
            .retain(|_, (_, names)| !stale.contains(&Arc::as_ptr(names)));
    }

    /// How many answers the memo holds.
    pub fn len(&self) -> usize {
        self.map.read().expect("memo lock").len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `names` as a list shared with every equal list of this memo.
    pub(crate) fn intern(&self, names: NameSet) -> Arc<NameSet> {
        let mut lists = self.name_lists.lock().expect("names lock");
        if let Some(list) = lists.get(&names) {
            return list.clone();
        }
        let list = Arc::new(names);
        lists.insert(list.clone());
        list
    }
}

/// Memos shared by the tables of one revision's files (see
/// [`SymbolTable::over`]).
#[derive(Clone)]
pub struct SharedMemos {
    /// Method lookups.
    pub methods: Arc<MethodMemo>,
    /// Class copies by key, for resolutions whose lookups the database
    /// need not record (not shared by partition: the copies are the same
    /// for every file).
    pub copies: Arc<CopiesMemo>,
    /// The partition of the file a table serves: files that may see
    /// different copies of a class must not share one.
    pub partition: u32,
}

/// Source classes answered one name at a time from outside the table, with
/// the paths and source roots of the files declaring them. A revision
/// written as a layer over its parent answers this way, so that what a
/// file's resolution depends on is exactly the names it looked up.
pub trait SourceClasses {
    /// Every source copy of the class with key `name`, first copy first;
    /// empty when no file declares it. Shared: a file asks for the same
    /// few classes many times.
    fn copies(&self, name: &str) -> ClassCopies;
    /// The path of file `file`, as declarations number files.
    fn path(&self, file: u32) -> Option<Arc<str>>;
    /// The source root of file `file` (its directory without the package's
    /// folders).
    fn root(&self, file: u32) -> Option<Arc<str>>;
    /// Whether this source records the names asked of it as what the
    /// resolution depends on, so that a name answered from a shared memo
    /// must be asked again ([`SymbolTable::replay_lookup`]).
    fn records_lookups(&self) -> bool {
        true
    }
}

/// Source classes by key (or answered by a [`SourceClasses`]), plus the
/// library class path.
pub struct SymbolTable<'s> {
    /// Answers source lookups instead of `source` when set.
    pub(crate) external: Option<&'s dyn SourceClasses>,
    pub(crate) source: HashMap<Arc<str>, Arc<ClassEntry>>,
    pub(crate) library: Option<Arc<ClassPath>>,
    pub(crate) cache: std::sync::RwLock<HashMap<Arc<str>, Option<Arc<ClassEntry>>>>,
    /// Results of method lookups, shared by every file of the revision.
    pub(crate) method_memo: MethodMemo,
    /// [`FileScope::hierarchy`]'s answers by (memo partition, type), with
    /// the names each looked up.
    pub(crate) hierarchy_memo: HierarchyMemo,
    /// With an external source: memos shared with the tables of the
    /// revision's other files, and this file's partition of them.
    pub(crate) shared: Option<SharedMemos>,
    /// Paths of the revision's files, by file index.
    pub(crate) paths: Vec<String>,
    /// Source root of each file (an interned id).
    pub(crate) roots: Vec<u32>,
    /// Classes declared by several files (every copy, first one first):
    /// flavors of one library side by side in a monorepo.
    pub(crate) duplicates: HashMap<Arc<str>, Vec<Arc<ClassEntry>>>,
}

impl<'s> SymbolTable<'s> {
    /// A table whose source classes are answered by `external`, one name at
    /// a time, with the library class path. Method lookups are memoized
    /// for the table's life, so one table serves one file.
    ///
    /// `shared` are memos shared by the tables of one revision's files,
    /// with the partition of this file (files that may see different
    /// copies of a class must not share a partition): an answer found
    /// there has its looked-up names asked of `external` again, so the
    /// caller learns what the file depends on either way.
    pub fn over(
        external: &'s dyn SourceClasses,
        library: Option<Arc<ClassPath>>,
        shared: Option<SharedMemos>,
    ) -> Self {
        Self {
            external: Some(external),
            source: HashMap::default(),
            library,
            cache: Default::default(),
            method_memo: Default::default(),
            hierarchy_memo: Default::default(),
            shared,
            paths: Vec::new(),
            roots: Vec::new(),
            duplicates: HashMap::default(),
        }
    }

    /// A table of the given source classes and library class path;
    /// `files` are the revision's files (path and package) that the
    /// classes' declarations index.
    pub fn new(
        classes: Vec<(ClassSig, Vec<Vec<Arc<str>>>)>,
        library: Option<Arc<ClassPath>>,
        files: Vec<(String, Option<String>)>,
    ) -> Self {
        let mut root_ids: HashMap<String, u32> = HashMap::default();
        let mut roots = Vec::with_capacity(files.len());
        for (path, package) in &files {
            let root = source_root(path, package.as_deref()).to_string();
            let next = root_ids.len() as u32;
            roots.push(*root_ids.entry(root).or_insert(next));
        }
        let paths: Vec<String> = files.into_iter().map(|(p, _)| p).collect();
        let mut duplicates: HashMap<Arc<str>, Vec<Arc<ClassEntry>>> = HashMap::default();
        let mut source: HashMap<Arc<str>, Arc<ClassEntry>> =
            HashMap::with_capacity_and_hasher(classes.len(), Default::default());
        let mut pending_anonymous = Vec::new();
        for (sig, erased_params) in classes {
            if is_anonymous(&sig) {
                pending_anonymous.push((sig, erased_params));
                continue;
            }
            let entry = Arc::new(ClassEntry {
                sig: Arc::new(sig),
                erased_params,
            });
            match source.entry(entry.sig.name.clone()) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    duplicates
                        .entry(entry.sig.name.clone())
                        .or_insert_with(|| vec![first.get().clone()])
                        .push(entry);
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(entry);
                }
            }
        }
        let mut table = Self {
            external: None,
            source,
            library,
            cache: Default::default(),
            method_memo: Default::default(),
            hierarchy_memo: Default::default(),
            shared: None,
            paths,
            roots,
            duplicates,
        };
        // An anonymous class names one supertype: a class to extend or an
        // interface to implement.
        for (mut sig, erased_params) in pending_anonymous {
            implement_if_interface(&mut sig, |name| table.first_copy(name));
            table.source.insert(
                sig.name.clone(),
                Arc::new(ClassEntry {
                    sig: Arc::new(sig),
                    erased_params,
                }),
            );
        }
        table
    }

    /// The path of file `file` of the table.
    pub fn path_of(&self, file: u32) -> Option<String> {
        match self.external {
            Some(external) => external.path(file).map(|p| String::from(&*p)),
            None => self.paths.get(file as usize).cloned(),
        }
    }

    /// Files that resolve alike share a context: everything does, unless
    /// classes are duplicated, when each source root is its own.
    pub fn resolution_context(&self, file: u32) -> u32 {
        if self.duplicates.is_empty() {
            0
        } else {
            self.roots.get(file as usize).map_or(0, |r| r + 1)
        }
    }

    /// Number of source classes.
    pub fn n_source_classes(&self) -> usize {
        self.source.len()
    }

    /// The class with key `name` as a lookup made for no file in
    /// particular sees it: of several copies, the first.
    fn first_copy(&self, name: &str) -> Option<Arc<ClassEntry>> {
        match self.external {
            Some(external) => external.copies(name).first().cloned(),
            None => self.source.get(name).cloned(),
        }
        .or_else(|| self.library_class(name))
    }

    /// The library class with key `name`, loaded on first use.
    pub(crate) fn library_class(&self, name: &str) -> Option<Arc<ClassEntry>> {
        let library = self.library.as_ref()?;
        if let Some(found) = self.cache.read().expect("cache lock").get(name) {
            return found.clone();
        }
        let loaded = library.load(name).map(|sig| {
            Arc::new(ClassEntry {
                sig,
                erased_params: Vec::new(),
            })
        });
        self.cache
            .write()
            .expect("cache lock")
            .insert(name.into(), loaded.clone());
        loaded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_lookup_is_forgotten_when_a_name_it_looked_up_changes() {
        let memo = MethodMemo::default();
        let answer = |names: &[&str]| {
            let names = memo.intern(names.iter().copied().collect());
            (Arc::new(Vec::<Found>::new()), names)
        };
        let (of_a, of_b, of_c) = (
            answer(&["p.A", "p.Base"]),
            answer(&["p.B"]),
            answer(&["p.A", "p.Base"]),
        );
        {
            let mut map = memo.map().write().unwrap();
            map.insert((0, Ty::class("p.A"), Arc::from("run")), of_a);
            map.insert((0, Ty::class("p.B"), Arc::from("run")), of_b);
            map.insert((1, Ty::class("p.C"), Arc::from("stop")), of_c);
        }
        memo.forget_looking_up(&[]);
        assert_eq!(memo.len(), 3);
        memo.forget_looking_up(&["p.Other", "p.Bas"]);
        assert_eq!(memo.len(), 3);
        memo.forget_looking_up(&["p.Base"]);
        let map = memo.map().read().unwrap();
        assert_eq!(map.len(), 1);
        assert!(map.contains_key(&(0, Ty::class("p.B"), Arc::from("run"))));
    }
}
