//! One file's view of the symbol table: the file the lookups are made for
//! (of several copies of a class it sees the nearest) and the log its
//! lookups are noted in. Resolution carries it explicitly; nothing about
//! the file being resolved is kept anywhere else.

use std::sync::Arc;

use refscope_symbols::lookups::LookupLog;

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
}
