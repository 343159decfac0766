//! The symbol table of the revision being indexed, as resolution sees it,
//! whichever way the revision is indexed: from scratch, every file's
//! signatures in memory ([`full::FullTable`]); or as a layer over an
//! indexed revision, the few files it changes in memory and the rest read
//! from the store ([`stored::StoredTable`]). Both answer through the same
//! code here, so a file resolves alike either way.
//!
//! What a file contributes ([`FileSymbols`]) depends on its declarations
//! and on the names its qualification looked up, which are recorded with
//! it: the type universe's entries (its named types and their supertypes)
//! and its classes' signatures, with lines (what the file itself sees)
//! and without (what other files see, so that an edit inside a body
//! changes nothing for them).

pub(crate) mod full;
pub(crate) mod kept;
pub(crate) mod reach;
pub(crate) mod stored;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};

use refscope_resolve::class::{ClassCopies, implement_if_interface, is_anonymous, source_root};
use refscope_resolve::table::{CopiesMemo, MethodMemo, SharedMemos, SourceClasses};
use refscope_resolve::{self as resolver, ClassEntry, SymbolTable, TrackedResolution};
use refscope_store::{TypeEntry, UnitSymbols, encode_names, for_each_name};
use refscope_symbols::classfile::ClassPath;
use refscope_symbols::lookups::LookupLog;
use refscope_symbols::names::{Qualifier, TypeUniverse, canonical_names, type_skeleton};
use refscope_symbols::{ClassSig, SourceDecl};
use refscope_syntax::facts::{FileFacts, NO_ORDINAL};
use rustc_hash::FxHashMap;

/// What one file contributes to its revision's symbol table, and how it
/// sees its own classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileSymbols {
    /// The declared package.
    pub(crate) package: Option<String>,
    /// Its named types: the type universe's entries.
    pub(crate) types: Vec<TypeEntry>,
    /// Its classes as other files see them: a declaration outside bodies
    /// is known by its signature ordinal.
    pub(crate) placeless: Vec<Arc<ClassEntry>>,
    /// What makes them the classes as the file itself sees them
    /// ([`FileSymbols::own`]): the line and element index of each
    /// declaration [`placeless`] changed, in its order. A revision's table
    /// holds every file's symbols while files resolve, and a second copy
    /// of every signature, with places, was a third of a full index's
    /// memory; a file needs its own only while it resolves.
    own_places: Box<[(u32, u32)]>,
    /// The names qualifying all this looked up, sorted and front-coded
    /// ([`encode_names`]): a revision's table holds every file's until the
    /// file is resolved, tens of megabytes over the JDK as strings.
    pub(crate) deps: Box<[u8]>,
}

impl FileSymbols {
    /// Its classes as the file itself sees them: with lines and element
    /// indices.
    pub(crate) fn own(&self) -> Vec<Arc<ClassEntry>> {
        let mut places = self.own_places.iter();
        let own = self
            .placeless
            .iter()
            .map(|entry| {
                with_placed_decls(entry, |d| {
                    let &(line, element) = places.next().expect("a place for each declaration");
                    d.line = line;
                    d.element = element;
                })
            })
            .collect();
        debug_assert!(places.next().is_none(), "a declaration for each place");
        own
    }

    /// The types and classes as the store keeps them. Their declarations
    /// still name this file's number, which the store does not keep (a
    /// reader gives them the number it uses for the path): to compare them
    /// with a stored unit's, put both [`in_file`] the same number.
    pub(crate) fn to_unit(&self) -> UnitSymbols {
        UnitSymbols {
            package: self.package.clone(),
            types: self.types.clone(),
            classes: self.placeless.clone(),
        }
    }
}

/// The symbols of the file numbered `slot` with declarations `decls`,
/// against `universe`, which must know every name of the revision.
pub(crate) fn file_symbols(universe: &TypeUniverse, decls: &FileFacts, slot: u32) -> FileSymbols {
    let log = LookupLog::default();
    let types = file_types(universe, &type_skeleton(decls), &log);
    file_classes(universe, decls, slot, types, &log)
}

/// The universe's entries for the named types of a file (its
/// [`type_skeleton`]): their supertypes qualified (against names only, no
/// inheritance), the lookups noted in `log`.
pub(crate) fn file_types(
    universe: &TypeUniverse,
    skeleton: &FileFacts,
    log: &LookupLog,
) -> Vec<TypeEntry> {
    universe
        .qualify_supertypes(skeleton, Some(log))
        .into_iter()
        .map(|(canonical, binary, supertypes)| TypeEntry {
            canonical,
            binary,
            supertypes,
        })
        .collect()
}

/// [`file_symbols`] of a file whose `types` are known, their lookups in
/// `log` (taken from it, leaving it empty for the next file): its
/// classes' signatures.
pub(crate) fn file_classes(
    universe: &TypeUniverse,
    decls: &FileFacts,
    slot: u32,
    types: Vec<TypeEntry>,
    log: &LookupLog,
) -> FileSymbols {
    let qualifier = Qualifier::recording(universe, decls, log);
    let own: Vec<Arc<ClassEntry>> = resolver::file_signatures(&qualifier, decls, slot)
        .into_iter()
        .map(|(sig, erased_params)| {
            Arc::new(ClassEntry {
                sig: Arc::new(sig),
                erased_params,
            })
        })
        .collect();
    drop(qualifier);
    let mut own_places = Vec::new();
    let placeless = own
        .iter()
        .map(|entry| placeless(entry, &mut own_places))
        .collect();
    FileSymbols {
        package: decls.package.clone(),
        types,
        placeless,
        own_places: own_places.into_boxed_slice(),
        deps: encode_names(log.take().iter()).into_boxed_slice(),
    }
}

/// The class keys `decls` declares (each type's canonical name, or its
/// binary name when it has none), sorted: what its symbols will hold,
/// known before they are computed.
pub(crate) fn declared_keys(decls: &FileFacts) -> Vec<String> {
    let mut keys: Vec<String> = canonical_names(decls)
        .into_iter()
        .zip(&decls.elements)
        .filter(|(_, element)| element.kind.is_type())
        .map(|(canonical, element)| canonical.unwrap_or_else(|| element.binary_name.clone()))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// `entry` as other files see it: declarations outside bodies known by
/// their signature ordinal, not by line or element index. The line and
/// element index of each declaration changed go to `places`, in order
/// (see [`FileSymbols::own`]).
fn placeless(entry: &Arc<ClassEntry>, places: &mut Vec<(u32, u32)>) -> Arc<ClassEntry> {
    with_placed_decls(entry, |d| {
        places.push((d.line, d.element));
        d.line = 0;
        d.element = d.ordinal;
    })
}

/// A copy of `entry` with `each` applied to its declarations outside
/// bodies (the class's, then its methods', then its fields'), in order.
fn with_placed_decls(
    entry: &Arc<ClassEntry>,
    mut each: impl FnMut(&mut SourceDecl),
) -> Arc<ClassEntry> {
    let mut apply = |decl: &mut Option<SourceDecl>| {
        if let Some(d) = decl
            && d.ordinal != NO_ORDINAL
        {
            each(d);
        }
    };
    let mut sig: ClassSig = (*entry.sig).clone();
    apply(&mut sig.decl);
    sig.methods.iter_mut().for_each(|m| apply(&mut m.decl));
    sig.fields.iter_mut().for_each(|f| apply(&mut f.decl));
    Arc::new(ClassEntry {
        sig: Arc::new(sig),
        erased_params: entry.erased_params.clone(),
    })
}

/// `entry` with its declarations in file `file`.
pub(crate) fn in_file(entry: &Arc<ClassEntry>, file: u32) -> Arc<ClassEntry> {
    if entry.sig.decl.is_none_or(|d| d.file == file) {
        return entry.clone();
    }
    Arc::new(ClassEntry {
        sig: Arc::new(resolver::declared_at(&entry.sig, file)),
        erased_params: entry.erased_params.clone(),
    })
}

/// A revision's source classes as every file but their own sees them, by
/// class key, and the revision's files by number.
pub(crate) trait RevisionClasses: Sync {
    /// Every copy of the class `key` as other files see it, first copy
    /// first (declarations numbered by file); anonymous classes already
    /// with their supertype in place ([`anonymous_entry`]).
    fn class_copies(&self, key: &str) -> ClassCopies;
    /// The path of file `file`.
    fn path(&self, file: u32) -> Option<Arc<str>>;
    /// The package of file `file`.
    fn package(&self, file: u32) -> Option<Option<String>>;
    /// The libraries' classes.
    fn class_path(&self) -> &Arc<ClassPath>;
}

/// The copies of an anonymous class's key: of several declarations the
/// last (as a table built at once keeps it), with its one supertype made
/// an interface it implements when it names one.
pub(crate) fn anonymous_entry(
    classes: &dyn RevisionClasses,
    entry: &Arc<ClassEntry>,
) -> Arc<ClassEntry> {
    let mut sig = (*entry.sig).clone();
    implement_if_interface(&mut sig, |superclass| {
        match classes.class_copies(superclass).first() {
            Some(first) => Some(first.clone()),
            None => classes.class_path().load(superclass).map(|sig| {
                Arc::new(ClassEntry {
                    sig,
                    erased_params: Vec::new(),
                })
            }),
        }
    });
    if sig == *entry.sig {
        return entry.clone();
    }
    Arc::new(ClassEntry {
        sig: Arc::new(sig),
        erased_params: entry.erased_params.clone(),
    })
}

/// The copies of `key` from its declarations `copies` (placeless, first
/// first): all of them, or for an anonymous class the last one, with its
/// supertype in place.
pub(crate) fn copies_of(
    classes: &dyn RevisionClasses,
    mut copies: Vec<Arc<ClassEntry>>,
) -> ClassCopies {
    if copies.first().is_some_and(|c| is_anonymous(&c.sig)) {
        let last = copies.pop().expect("checked above");
        copies = vec![anonymous_entry(classes, &last)];
    }
    ClassCopies::from(copies)
}

/// A revision table's answers of [`RevisionClasses::class_copies`], by
/// class key.
#[derive(Default)]
pub(crate) struct CopiesCache(RwLock<Copies>);

#[derive(Default)]
struct Copies {
    by_key: FxHashMap<Box<str>, ClassCopies>,
    /// The keys of anonymous classes among them.
    anonymous: Vec<Box<str>>,
}

impl CopiesCache {
    /// The copies of `key`: known, or made of the declarations `declared`
    /// gives (placeless, first first) and kept.
    pub(crate) fn get_or(
        &self,
        classes: &dyn RevisionClasses,
        key: &str,
        declared: impl FnOnce() -> Vec<Arc<ClassEntry>>,
    ) -> ClassCopies {
        if let Some(known) = self.0.read().expect("copies lock").by_key.get(key) {
            return known.clone();
        }
        let copies = copies_of(classes, declared());
        let mut cache = self.0.write().expect("copies lock");
        if copies.first().is_some_and(|c| is_anonymous(&c.sig)) {
            cache.anonymous.push(key.into());
        }
        cache.by_key.insert(key.into(), copies.clone());
        copies
    }

    /// Forgets the answers about `keys`.
    pub(crate) fn forget(&self, keys: &[String]) {
        let mut cache = self.0.write().expect("copies lock");
        for key in keys {
            cache.by_key.remove(key.as_str());
        }
    }

    /// Forgets the answers about anonymous classes: their copies depend
    /// on their supertype's too ([`anonymous_entry`]), which
    /// [`CopiesCache::forget`] does not follow.
    pub(crate) fn forget_anonymous(&self) {
        let mut cache = self.0.write().expect("copies lock");
        let Copies { by_key, anonymous } = &mut *cache;
        for key in anonymous.drain(..) {
            by_key.remove(&key);
        }
    }
}

/// Memos the files resolved together share, by source root: files in
/// different roots may see different copies of a duplicated class.
#[derive(Default)]
pub(crate) struct RevisionMemos {
    methods: Arc<MethodMemo>,
    copies: Arc<CopiesMemo>,
    roots: Mutex<HashMap<String, u32>>,
}

impl RevisionMemos {
    /// Forgets every method lookup that looked up a `changed` name: what
    /// stays holds for a revision whose declarations of every other name
    /// are those of the revision the memos were made for.
    pub(crate) fn forget_looking_up(&self, changed: &HashSet<String>) {
        let changed: Vec<&str> = changed.iter().map(String::as_str).collect();
        self.methods.forget_looking_up(&changed);
    }

    /// How many method lookups they hold.
    pub(crate) fn len(&self) -> usize {
        self.methods.len()
    }

    fn partition(&self, root: &str) -> SharedMemos {
        let mut roots = self.roots.lock().expect("roots lock");
        let next = roots.len() as u32;
        let partition = *roots.entry(root.to_string()).or_insert(next);
        SharedMemos {
            methods: self.methods.clone(),
            copies: self.copies.clone(),
            partition,
        }
    }
}

/// Source classes as file `slot` sees them: its own with lines and element
/// indices, every other file's by signature.
///
/// One file resolves on one thread, and this value with it: it is neither
/// `Send` nor `Sync` (its caches are `RefCell`s).
struct FileView<'t> {
    classes: &'t dyn RevisionClasses,
    slot: u32,
    own: FxHashMap<Arc<str>, Arc<ClassEntry>>,
    asked: RefCell<FxHashMap<Box<str>, ClassCopies>>,
    paths: RefCell<FxHashMap<u32, Option<Arc<str>>>>,
}

impl<'t> FileView<'t> {
    fn new(classes: &'t dyn RevisionClasses, slot: u32, own: &[Arc<ClassEntry>]) -> Self {
        let own = own
            .iter()
            .map(|entry| {
                let entry = if is_anonymous(&entry.sig) {
                    anonymous_entry(classes, entry)
                } else {
                    entry.clone()
                };
                (entry.sig.name.clone(), entry)
            })
            .collect();
        Self {
            classes,
            slot,
            own,
            asked: RefCell::default(),
            paths: RefCell::default(),
        }
    }
}

impl SourceClasses for FileView<'_> {
    fn copies(&self, name: &str) -> ClassCopies {
        if let Some(copies) = self.asked.borrow().get(name) {
            return copies.clone();
        }
        let mut copies = self.classes.class_copies(name);
        // This file sees its own classes with lines and element indices.
        if let Some(own) = self.own.get(name)
            && copies
                .iter()
                .any(|c| c.sig.decl.is_some_and(|d| d.file == self.slot))
        {
            copies = copies
                .iter()
                .map(|c| {
                    if c.sig.decl.is_some_and(|d| d.file == self.slot) {
                        own.clone()
                    } else {
                        c.clone()
                    }
                })
                .collect();
        }
        self.asked.borrow_mut().insert(name.into(), copies.clone());
        copies
    }

    fn path(&self, file: u32) -> Option<Arc<str>> {
        if let Some(path) = self.paths.borrow().get(&file) {
            return path.clone();
        }
        let path = self.classes.path(file);
        self.paths.borrow_mut().insert(file, path.clone());
        path
    }

    fn root(&self, file: u32) -> Option<Arc<str>> {
        let path = self.classes.path(file)?;
        let package = self.classes.package(file)?;
        Some(Arc::from(source_root(&path, package.as_deref())))
    }

    /// The lookups a file depends on are its [`LookupLog`]'s: nothing
    /// need be asked again on its behalf.
    fn records_lookups(&self) -> bool {
        false
    }
}

/// Resolves file `slot` (its facts `facts`, its symbols `symbols`, whose
/// lookups are `symbol_deps`: their `deps`, or those taken out of them)
/// against `classes` and `universe`, noting lookups in `log` (left empty
/// for the next file); the resolution, with every name its symbols and
/// resolution looked up.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve_file(
    classes: &dyn RevisionClasses,
    universe: &TypeUniverse,
    memos: &RevisionMemos,
    facts: &FileFacts,
    symbols: &FileSymbols,
    symbol_deps: &[u8],
    slot: u32,
    log: &LookupLog,
) -> TrackedResolution {
    let own = symbols.own();
    let view = FileView::new(classes, slot, &own);
    let path = classes.path(slot).unwrap_or_else(|| Arc::from(""));
    let shared = memos.partition(source_root(&path, symbols.package.as_deref()));
    let table = SymbolTable::over(&view, Some(classes.class_path().clone()), Some(shared));
    for_each_name(symbol_deps, |name| log.record(name)).expect("encoded by file_classes");
    resolver::resolve_file_tracked(&table, universe, facts, slot, log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_own_classes_come_back_from_its_placeless_ones() {
        let source = b"package p;
import java.util.List;
/** A class. */
class A<T> extends Base implements Runnable {
    int f, g;
    List<T> items;
    A() {}
    A(int x) { this(); }
    public void run() {
        Runnable r = new Runnable() { public void run() { int local = 1; } };
        class Local { void n() {} int h; }
    }
    <U extends T> U pick(U[] us, int... rest) { return us[0]; }
    static class In { String g() { return null; } }
    enum E { ONE, TWO; E() {} void e() {} }
    record R(int a, String b) { R { } int a() { return a; } }
    interface I { default void d() {} }
}
class Base {}
";
        let facts = refscope_syntax::extract(source);
        let mut universe = TypeUniverse::default();
        universe.add_sources([&facts]);
        let symbols = file_symbols(&universe, &facts, 3);
        let qualifier = Qualifier::new(&universe, &facts);
        let expected: Vec<ClassSig> = resolver::file_signatures(&qualifier, &facts, 3)
            .into_iter()
            .map(|(sig, _)| sig)
            .collect();
        let own: Vec<ClassSig> = symbols.own().iter().map(|c| (*c.sig).clone()).collect();
        assert!(expected.len() >= 8, "{} classes", expected.len());
        assert_eq!(own, expected);
        // The placeless copies differ: their places are signature ordinals.
        let placeless: Vec<ClassSig> = symbols.placeless.iter().map(|c| (*c.sig).clone()).collect();
        assert_ne!(placeless, expected);
    }
}
