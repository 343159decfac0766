//! The symbol table of a revision: every source class with its members,
//! and library classes read lazily from the class path.

use std::cell::Cell;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::ty::{Found, Ty};
use refscope_syntax::digest::Digest128;

/// Method lookups by (source root of the asking file when the revision
/// has duplicated classes, else 0; type; name).
/// [`SymbolTable::lookup_digests`] answers by memo partition, then name
/// (two levels, so that a lookup needs no owned key).
pub type LookupMemo = std::sync::RwLock<HashMap<u32, HashMap<Box<str>, [u8; 16]>>>;

/// Every source copy of one class, first copy first, shared.
pub type ClassCopies = Arc<[Arc<ClassEntry>]>;

/// Every source copy of a class, by key, as other files see them (what
/// the database's class query answers): the same for every file of a
/// revision, so files resolved outside tracked queries share them.
pub type CopiesMemo = std::sync::RwLock<HashMap<Box<str>, ClassCopies>>;

/// Type hierarchies by (memo partition, type), each with the names its
/// computation looked up (see [`refscope_symbols::lookups`]).
pub(crate) type HierarchyMemo =
    std::sync::RwLock<HashMap<(u32, Ty), (Arc<Vec<Ty>>, Arc<[Box<str>]>)>>;

/// Method lookups by (memo partition, type, name). Each answer keeps the
/// names its computation looked up (see [`refscope_symbols::lookups`]),
/// replayed when a file takes the answer from the memo. Opaque outside
/// resolution: a caller makes one per revision and shares it.
#[derive(Default)]
pub struct MethodMemo(MethodMap);

type MethodMap =
    std::sync::RwLock<HashMap<(u32, Ty, Arc<str>), (Arc<Vec<Found>>, Arc<[Box<str>]>)>>;

impl MethodMemo {
    pub(crate) fn map(&self) -> &MethodMap {
        &self.0
    }
}

use refscope_symbols::classfile::ClassPath;
use refscope_symbols::{ClassKind, ClassSig, TypeSig};

/// A class known to the table, with what resolution derives from it.
#[derive(Debug, PartialEq, Eq)]
pub struct ClassEntry {
    /// The signature.
    pub sig: Arc<ClassSig>,
    /// For source classes: the erased parameter types of each method, as
    /// element ids spell them. Empty for library classes.
    pub erased_params: Vec<Vec<Arc<str>>>,
}

impl ClassEntry {
    /// Whether the class comes from the repository's sources.
    pub fn is_source(&self) -> bool {
        self.sig.decl.is_some()
    }
}

/// Memos shared by the tables of one revision's files (see
/// [`SymbolTable::over`]).
#[derive(Clone)]
pub struct SharedMemos {
    /// Method lookups.
    pub methods: Arc<MethodMemo>,
    /// [`SymbolTable::lookup_digests`].
    pub lookups: Arc<LookupMemo>,
    /// Class copies by key, for resolutions whose lookups the database
    /// need not record (not shared by partition: the copies are the same
    /// for every file).
    pub copies: Arc<CopiesMemo>,
    /// The partition of the file a table serves: files that may see
    /// different copies of a class must not share one.
    pub partition: u32,
}

/// Whether `sig` is an anonymous class (`p.A$1`).
pub fn is_anonymous(sig: &ClassSig) -> bool {
    sig.kind == ClassKind::Class
        && sig
            .binary_name
            .rsplit('$')
            .next()
            .is_some_and(|last| last.bytes().all(|b| b.is_ascii_digit()))
}

/// An anonymous class names one supertype, extracted as its superclass:
/// when `get` finds it to be an interface, the class implements it and
/// extends `Object`.
pub fn implement_if_interface(
    sig: &mut ClassSig,
    get: impl FnOnce(&str) -> Option<Arc<ClassEntry>>,
) {
    if let Some(TypeSig::Class { name, .. }) = &sig.superclass
        && get(name).is_some_and(|e| e.sig.kind == ClassKind::Interface)
    {
        let interface = sig.superclass.take().expect("checked above");
        sig.interfaces.push(interface);
        sig.superclass = Some(TypeSig::Class {
            name: "java.lang.Object".into(),
            args: Vec::new(),
        });
    }
}

/// Source classes answered one name at a time from outside the table, with
/// the paths and source roots of the files declaring them. The salsa
/// database answers this way (see [`crate::db`]), so that what a file's
/// resolution depends on is exactly the names it looked up.
pub trait SourceClasses: Sync {
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
    external: Option<&'s dyn SourceClasses>,
    source: HashMap<Arc<str>, Arc<ClassEntry>>,
    library: Option<Arc<ClassPath>>,
    cache: std::sync::RwLock<HashMap<Arc<str>, Option<Arc<ClassEntry>>>>,
    /// Results of method lookups, shared by every file of the revision.
    pub(crate) method_memo: MethodMemo,
    /// [`SymbolTable::hierarchy`]'s answers by (memo partition, type), with
    /// the names each looked up.
    pub(crate) hierarchy_memo: HierarchyMemo,
    /// With an external source: memos shared with the tables of the
    /// revision's other files, and this file's partition of them.
    pub shared: Option<SharedMemos>,
    /// [`Self::lookup_digests`] by (memo partition, name).
    lookup_memo: Arc<LookupMemo>,
    /// Paths of the revision's files, by file index.
    pub paths: Vec<String>,
    /// Source root of each file (an interned id).
    roots: Vec<u32>,
    /// Classes declared by several files (every copy, first one first):
    /// flavors of one library side by side in a monorepo.
    duplicates: HashMap<Arc<str>, Vec<Arc<ClassEntry>>>,
}

thread_local! {
    /// The file being resolved on this thread: duplicated classes are
    /// looked up from its point of view.
    static CURRENT_FILE: Cell<u32> = const { Cell::new(u32::MAX) };
}

/// Marks the file being resolved on this thread until dropped.
pub struct ResolvingFile(u32);

impl ResolvingFile {
    pub fn enter(file: u32) -> Self {
        let previous = CURRENT_FILE.with(|c| c.replace(file));
        Self(previous)
    }
}

impl Drop for ResolvingFile {
    fn drop(&mut self) {
        CURRENT_FILE.with(|c| c.set(self.0));
    }
}

/// The source root of a file: its directory with the package's folders
/// taken off the end (`guava/src/` for `guava/src/com/google/X.java` in
/// package `com.google`), or its directory when they do not match.
pub fn source_root<'p>(path: &'p str, package: Option<&str>) -> &'p str {
    let dir = path.rfind('/').map_or("", |i| &path[..=i]);
    let Some(package) = package else { return dir };
    let suffix: String = package.split('.').map(|p| format!("{p}/")).collect();
    dir.strip_suffix(suffix.as_str()).unwrap_or(dir)
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
            lookup_memo: shared
                .as_ref()
                .map_or_else(Default::default, |s| s.lookups.clone()),
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
            lookup_memo: Default::default(),
            paths,
            roots,
            duplicates,
        };
        // An anonymous class names one supertype: a class to extend or an
        // interface to implement.
        for (mut sig, erased_params) in pending_anonymous {
            implement_if_interface(&mut sig, |name| table.get(name));
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

    /// The class with this key (canonical name, or binary name for local
    /// and anonymous classes).
    pub fn get(&self, name: &str) -> Option<Arc<ClassEntry>> {
        refscope_symbols::lookups::record(name);
        if let Some(external) = self.external {
            let copies = external.copies(name);
            match copies.len() {
                0 => {}
                1 => return Some(copies[0].clone()),
                _ => return Some(self.nearest_external_copy(external, &copies).clone()),
            }
        } else if let Some(entry) = self.source.get(name) {
            if !self.duplicates.is_empty()
                && let Some(copies) = self.duplicates.get(name)
            {
                return Some(self.nearest_copy(copies).clone());
            }
            return Some(entry.clone());
        }
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

    /// Of several copies of a class, the one the file being resolved
    /// sees: its own, one in its source root, else the one whose path
    /// shares the longest prefix with it; the first copy on ties.
    fn nearest_copy<'c>(&self, copies: &'c [Arc<ClassEntry>]) -> &'c Arc<ClassEntry> {
        let file = CURRENT_FILE.with(Cell::get);
        let Some(path) = self.paths.get(file as usize) else {
            return &copies[0];
        };
        let root = self.roots[file as usize];
        copies
            .iter()
            .max_by_key(|c| {
                let f = c.sig.decl.map_or(u32::MAX, |d| d.file);
                let same_root = self.roots.get(f as usize) == Some(&root);
                let shared = self.paths.get(f as usize).map_or(0, |p| {
                    p.bytes()
                        .zip(path.bytes())
                        .take_while(|(a, b)| a == b)
                        .count()
                });
                (f == file, same_root, shared, std::cmp::Reverse(f))
            })
            .expect("duplicates have copies")
    }

    /// [`Self::nearest_copy`] with paths and roots from `external`; ties go
    /// to the first copy.
    fn nearest_external_copy<'c>(
        &self,
        external: &dyn SourceClasses,
        copies: &'c [Arc<ClassEntry>],
    ) -> &'c Arc<ClassEntry> {
        let file = CURRENT_FILE.with(Cell::get);
        let (Some(path), root) = (external.path(file), external.root(file)) else {
            return &copies[0];
        };
        copies
            .iter()
            .enumerate()
            .max_by_key(|(position, c)| {
                let f = c.sig.decl.map_or(u32::MAX, |d| d.file);
                let same_root = root.is_some() && external.root(f) == root;
                let shared = external.path(f).map_or(0, |p| {
                    p.bytes()
                        .zip(path.bytes())
                        .take_while(|(a, b)| a == b)
                        .count()
                });
                (f == file, same_root, shared, std::cmp::Reverse(*position))
            })
            .map(|(_, c)| c)
            .expect("duplicates have copies")
    }

    /// The path of file `file` of the table.
    pub fn path_of(&self, file: u32) -> Option<String> {
        match self.external {
            Some(external) => external.path(file).map(|p| String::from(&*p)),
            None => self.paths.get(file as usize).cloned(),
        }
    }

    /// Notes, for a caller answering source classes from outside, that the
    /// file being resolved depends on what `name` leads to: a method
    /// lookup answered from the shared memo looked it up on another file's
    /// behalf.
    pub fn replay_lookup(&self, name: &str) {
        if let Some(external) = self.external
            && external.records_lookups()
        {
            external.copies(name);
        }
    }

    /// The file being resolved on this thread, if any.
    pub fn current_file(&self) -> u32 {
        CURRENT_FILE.with(Cell::get)
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

    /// The memo partition of the file being resolved: its source root
    /// when classes are duplicated (answers depend on it), else 0.
    pub fn memo_partition(&self) -> u32 {
        if self.external.is_some() {
            return self.shared.as_ref().map_or(0, |s| s.partition);
        }
        if self.duplicates.is_empty() {
            return 0;
        }
        let file = CURRENT_FILE.with(Cell::get);
        self.roots.get(file as usize).map_or(0, |r| r + 1)
    }

    /// Digests of what looking up each of `names` leads to for the file
    /// being resolved on this thread, given to `each` in order: the
    /// signature of a source class (members, types, supertypes, where it
    /// is declared — by path and signature ordinal, not by line), a
    /// library class, or nothing; and whether the type universe knows the
    /// name. Two revisions with equal digests for every name a file looked
    /// up resolve that file alike.
    ///
    /// The memo is read once and written once for all the names: a lock
    /// per name, a million times over the JDK, kept the two workers
    /// taking the memo's cache line from each other.
    pub fn lookup_digests<N: AsRef<str>>(
        &self,
        names: &[N],
        universe: &refscope_symbols::names::TypeUniverse,
        mut each: impl FnMut(&str, &[u8; 16]),
    ) {
        let partition = self.memo_partition();
        let known: Vec<Option<[u8; 16]>> = {
            let memo = self.lookup_memo.read().expect("memo lock");
            let digests = memo.get(&partition);
            names
                .iter()
                .map(|name| digests.and_then(|d| d.get(name.as_ref()).copied()))
                .collect()
        };
        let mut new: Vec<(Box<str>, [u8; 16])> = Vec::new();
        for (name, known) in names.iter().zip(known) {
            let name = name.as_ref();
            let digest = match known {
                Some(digest) => {
                    // Another file may have computed it: this one depends
                    // on the name all the same.
                    self.replay_lookup(name);
                    digest
                }
                None => {
                    let digest = self.compute_lookup_digest(name, universe);
                    new.push((name.into(), digest));
                    digest
                }
            };
            each(name, &digest);
        }
        if !new.is_empty() {
            self.lookup_memo
                .write()
                .expect("memo lock")
                .entry(partition)
                .or_default()
                .extend(new);
        }
    }

    /// [`Self::lookup_digests`] of one name, without the memo.
    fn compute_lookup_digest(
        &self,
        name: &str,
        universe: &refscope_symbols::names::TypeUniverse,
    ) -> [u8; 16] {
        let mut digest = Digest128::new(b"lookup");
        digest.write_u32(u32::from(universe.get(name).is_some()));
        match self.get(name) {
            Some(entry) if entry.is_source() => {
                digest.write_u32(1);
                self.write_class(&mut digest, &entry);
            }
            Some(_) => digest.write_u32(2),
            None => digest.write_u32(3),
        }
        digest.finish()
    }

    fn write_class(&self, digest: &mut Digest128, entry: &ClassEntry) {
        use std::hash::Hash;
        let sig = &entry.sig;
        let write_decl =
            |digest: &mut Digest128, decl: &Option<refscope_symbols::SourceDecl>| match decl {
                Some(d) => {
                    digest.write_str(self.path_of(d.file).as_deref().unwrap_or(""));
                    digest.write_u32(d.ordinal);
                }
                None => digest.write_u32(u32::MAX),
            };
        let write_type_params =
            |digest: &mut Digest128, params: &[refscope_symbols::TypeParamSig]| {
                digest.write_u32(params.len() as u32);
                for p in params {
                    digest.write_str(&p.name);
                    p.bounds.hash(digest);
                }
            };
        digest.write_str(&sig.name);
        digest.write_str(&sig.binary_name);
        sig.kind.hash(digest);
        digest.write_u32(u32::from(sig.flags));
        write_type_params(digest, &sig.type_params);
        write_type_params(digest, &sig.outer_type_params);
        sig.superclass.hash(digest);
        sig.interfaces.hash(digest);
        digest.write_u32(sig.methods.len() as u32);
        for m in &sig.methods {
            digest.write_str(&m.name);
            digest.write_u32(u32::from(m.flags));
            write_type_params(digest, &m.type_params);
            m.params.hash(digest);
            m.ret.hash(digest);
            write_decl(digest, &m.decl);
        }
        digest.write_u32(sig.fields.len() as u32);
        for f in &sig.fields {
            digest.write_str(&f.name);
            digest.write_u32(u32::from(f.flags));
            f.ty.hash(digest);
            write_decl(digest, &f.decl);
        }
        write_decl(digest, &sig.decl);
        entry.erased_params.hash(digest);
    }

    /// Number of source classes.
    pub fn n_source_classes(&self) -> usize {
        self.source.len()
    }
}
