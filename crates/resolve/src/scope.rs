//! One file's view of the symbol table: the file the lookups are made for
//! (of several copies of a class it sees the nearest) and the log its
//! lookups are noted in. Resolution carries it explicitly; nothing about
//! the file being resolved is kept anywhere else.

use std::sync::Arc;

use refscope_symbols::lookups::LookupLog;
use refscope_syntax::digest::Digest128;

use crate::class::ClassEntry;
use crate::table::{SourceClasses, SymbolTable};
use crate::ty::{OBJECT, Ty};

/// A file's view of a [`SymbolTable`].
pub struct FileScope<'t> {
    pub(crate) table: &'t SymbolTable<'t>,
    file: u32,
    log: Log<'t>,
    /// `java.lang.Object`, made once per file: it is asked for all the
    /// time.
    object: Ty,
}

/// Where a scope notes its lookups: the caller's log, or one of its own
/// when the caller keeps none (memoized answers keep the names their
/// computation looked up either way, for scopes that do keep a log).
enum Log<'t> {
    Caller(&'t LookupLog),
    Own(LookupLog),
}

impl<'t> FileScope<'t> {
    /// File `file`'s view of `table`; its lookups are noted in `log`, if
    /// given.
    pub fn new(table: &'t SymbolTable<'t>, file: u32, log: Option<&'t LookupLog>) -> Self {
        Self {
            table,
            file,
            log: match log {
                Some(log) => Log::Caller(log),
                None => Log::Own(LookupLog::default()),
            },
            object: Ty::class(OBJECT),
        }
    }

    /// The file the lookups are made for.
    pub fn file(&self) -> u32 {
        self.file
    }

    /// The log lookups are noted in.
    pub(crate) fn log(&self) -> &LookupLog {
        match &self.log {
            Log::Caller(log) => log,
            Log::Own(log) => log,
        }
    }

    /// `java.lang.Object`.
    pub(crate) fn object(&self) -> Ty {
        self.object.clone()
    }

    /// Notes that `name` was looked up.
    pub(crate) fn record(&self, name: &str) {
        self.log().record(name);
    }

    /// The class with this key (canonical name, or binary name for local
    /// and anonymous classes).
    pub fn get(&self, name: &str) -> Option<Arc<ClassEntry>> {
        self.record(name);
        self.find(name)
    }

    /// [`Self::get`] without noting the lookup.
    fn find(&self, name: &str) -> Option<Arc<ClassEntry>> {
        let table = self.table;
        if let Some(external) = table.external {
            let copies = external.copies(name);
            match copies.len() {
                0 => {}
                1 => return Some(copies[0].clone()),
                _ => return Some(self.nearest_external_copy(external, &copies).clone()),
            }
        } else if let Some(entry) = table.source.get(name) {
            if !table.duplicates.is_empty()
                && let Some(copies) = table.duplicates.get(name)
            {
                return Some(self.nearest_copy(copies).clone());
            }
            return Some(entry.clone());
        }
        table.library_class(name)
    }

    /// Of several copies of a class, the one the file being resolved
    /// sees: its own, one in its source root, else the one whose path
    /// shares the longest prefix with it; the first copy on ties.
    fn nearest_copy<'c>(&self, copies: &'c [Arc<ClassEntry>]) -> &'c Arc<ClassEntry> {
        let file = self.file;
        let table = self.table;
        let Some(path) = table.paths.get(file as usize) else {
            return &copies[0];
        };
        let root = table.roots[file as usize];
        copies
            .iter()
            .max_by_key(|c| {
                let f = c.sig.decl.map_or(u32::MAX, |d| d.file);
                let same_root = table.roots.get(f as usize) == Some(&root);
                let shared = table.paths.get(f as usize).map_or(0, |p| {
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
        let file = self.file;
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
        self.table.path_of(file)
    }

    /// Notes, for a caller answering source classes from outside, that the
    /// file being resolved depends on what `name` leads to: a method
    /// lookup answered from the shared memo looked it up on another file's
    /// behalf.
    pub fn replay_lookup(&self, name: &str) {
        if let Some(external) = self.table.external
            && external.records_lookups()
        {
            external.copies(name);
        }
    }

    /// The memo partition of the file being resolved: its source root
    /// when classes are duplicated (answers depend on it), else 0.
    pub fn memo_partition(&self) -> u32 {
        let table = self.table;
        if table.external.is_some() {
            return table.shared.as_ref().map_or(0, |s| s.partition);
        }
        if table.duplicates.is_empty() {
            return 0;
        }
        table.roots.get(self.file as usize).map_or(0, |r| r + 1)
    }

    /// Digests of what looking up each of `names` leads to for the file
    /// of this scope, given to `each` in order: the
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
            let memo = self.table.lookup_memo.read().expect("memo lock");
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
            self.table
                .lookup_memo
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
        match self.find(name) {
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
}
