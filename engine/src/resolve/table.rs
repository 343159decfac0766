//! The symbol table of a revision: every source class with its members,
//! and library classes read lazily from the class path.

use rustc_hash::FxHashMap as HashMap;

use super::ty::{Found, Ty};

pub(crate) type MethodMemo = std::sync::RwLock<HashMap<(Ty, Arc<str>), Arc<Vec<Found>>>>;
use std::sync::Arc;

use crate::symbols::classfile::ClassPath;
use crate::symbols::{ClassKind, ClassSig, TypeSig};

/// A class known to the table, with what resolution derives from it.
#[derive(Debug)]
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

/// Source classes by key, plus the library class path.
pub struct SymbolTable {
    source: HashMap<Arc<str>, Arc<ClassEntry>>,
    library: Option<ClassPath>,
    cache: std::sync::RwLock<HashMap<Arc<str>, Option<Arc<ClassEntry>>>>,
    /// Results of method lookups, shared by every file of the revision.
    pub(crate) method_memo: MethodMemo,
    /// Paths of the revision's files, by file index.
    pub paths: Vec<String>,
}

impl SymbolTable {
    /// A table from per-file signatures built in parallel.
    pub fn from_parts(
        classes: Vec<(ClassSig, Vec<Vec<Arc<str>>>)>,
        library: Option<ClassPath>,
        paths: Vec<String>,
    ) -> Self {
        Self::new(classes, library, paths)
    }

    /// A table of the given source classes and library class path.
    pub fn new(
        classes: Vec<(ClassSig, Vec<Vec<Arc<str>>>)>,
        library: Option<ClassPath>,
        paths: Vec<String>,
    ) -> Self {
        let mut source: HashMap<Arc<str>, Arc<ClassEntry>> =
            HashMap::with_capacity_and_hasher(classes.len(), Default::default());
        let mut pending_anonymous = Vec::new();
        for (sig, erased_params) in classes {
            let is_anonymous = sig.kind == ClassKind::Class
                && sig
                    .binary_name
                    .rsplit('$')
                    .next()
                    .is_some_and(|last| last.bytes().all(|b| b.is_ascii_digit()));
            if is_anonymous {
                pending_anonymous.push((sig, erased_params));
                continue;
            }
            source.entry(sig.name.clone()).or_insert_with(|| {
                Arc::new(ClassEntry {
                    sig: Arc::new(sig),
                    erased_params,
                })
            });
        }
        let mut table = Self {
            source,
            library,
            cache: Default::default(),
            method_memo: Default::default(),
            paths,
        };
        // An anonymous class names one supertype: a class to extend or an
        // interface to implement.
        for (mut sig, erased_params) in pending_anonymous {
            if let Some(TypeSig::Class { name, .. }) = &sig.superclass
                && table
                    .get(name)
                    .is_some_and(|e| e.sig.kind == ClassKind::Interface)
            {
                let interface = sig.superclass.take().expect("checked above");
                sig.interfaces.push(interface);
                sig.superclass = Some(TypeSig::Class {
                    name: "java.lang.Object".into(),
                    args: Vec::new(),
                });
            }
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
        if let Some(entry) = self.source.get(name) {
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

    /// Number of source classes.
    pub fn n_source_classes(&self) -> usize {
        self.source.len()
    }
}
