//! The tracked functions of the engine, from a file's content to its
//! resolution. Each is a pure function of what it reads; salsa records
//! those reads and re-runs a function only when one of them changed, and
//! stops the propagation where a re-run gives an equal result.

use std::sync::Arc;

use super::{Db, FileContent, SourceFile, Workspace};
use refscope_resolve::class::{implement_if_interface, is_anonymous};
use refscope_resolve::{self as resolver, ClassEntry};
use refscope_store::BlobId;
use refscope_store::{PackLocation, PackReader};

use refscope_symbols::names::{Qualifier, TypeUniverse, type_skeleton};
use refscope_symbols::{ClassSig, SourceDecl};
use refscope_syntax::facts::{FileFacts, NO_ORDINAL};

/// Facts that could not be read back from the pack (a damaged store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactsError {
    /// The file's path.
    pub path: Arc<str>,
    /// What the pack reader said.
    pub message: String,
}

/// What one file contributes to the symbol table.
#[derive(Debug, PartialEq, Eq, Default)]
pub struct FileClasses {
    /// The declared package.
    pub package: Option<String>,
    /// Its classes (nested, local and anonymous ones included), in
    /// declaration order.
    pub classes: Vec<Arc<ClassEntry>>,
}

/// A class key (canonical name, or binary name of a local or anonymous
/// class), interned so that lookups of it are one query each.
#[salsa::interned]
pub struct ClassName<'db> {
    /// The key.
    #[returns(ref)]
    pub key: Box<str>,
}

/// Which files declare each class key, in path order.
pub type Declarers = rustc_hash::FxHashMap<Box<str>, Vec<SourceFile>>;

/// The file's facts: extracted from its bytes, or read back from the
/// pack. Kept for a bounded number of files: they are the largest values
/// and cheap to make again from the content.
#[salsa::tracked(returns(clone), lru = 128)]
pub fn facts(db: &dyn Db, file: SourceFile) -> Result<Arc<FileFacts>, FactsError> {
    match file.content(db) {
        #[cfg(test)]
        FileContent::Bytes { bytes, .. } => Ok(Arc::new(refscope_syntax::extract(bytes))),
        FileContent::Packed { .. } => read_uncached(db, file, PackReader::facts),
    }
}

/// `read` applied to the file's record in the pack, without keeping the
/// result: for packed content, whose facts are cheap to read again and
/// whose decoded copies would only crowd the bounded [`facts`] memo. The
/// file's [`facts`] for content that is not packed (extraction is worth
/// keeping). Skeletons and signatures read only declarations
/// ([`PackReader::declarations`]), much cheaper to decode than the whole
/// facts.
pub(super) fn read_uncached(
    db: &dyn Db,
    file: SourceFile,
    read: impl FnOnce(&PackReader, &BlobId, PackLocation) -> Result<FileFacts, refscope_store::Error>,
) -> Result<Arc<FileFacts>, FactsError> {
    match file.content(db) {
        #[cfg(test)]
        FileContent::Bytes { .. } => facts(db, file),
        FileContent::Packed {
            blob_id,
            location,
            reader,
        } => read(reader, blob_id, *location)
            .map(Arc::new)
            .map_err(|e| FactsError {
                path: file.path(db).clone(),
                message: e.to_string(),
            }),
    }
}

/// What the type universe needs from a file ([`type_skeleton`]), without
/// lines and offsets: an edit that moves declarations without changing
/// them leaves it equal.
#[salsa::tracked(returns(clone))]
pub fn skeleton(db: &dyn Db, file: SourceFile) -> Arc<FileFacts> {
    let Ok(facts) = read_uncached(db, file, PackReader::declarations) else {
        return Arc::default();
    };
    let mut skeleton = type_skeleton(&facts);
    for import in &mut skeleton.imports {
        import.line = 0;
    }
    for element in &mut skeleton.elements {
        element.span = Default::default();
        element.name_pos = Default::default();
        element.javadoc = None;
    }
    Arc::new(skeleton)
}

/// The revision's type universe: the libraries' types and every file's.
#[salsa::tracked(returns(ref))]
pub fn universe(db: &dyn Db, workspace: Workspace) -> Arc<TypeUniverse> {
    let libraries = workspace.libraries(db);
    let skeletons: Vec<Arc<FileFacts>> = workspace
        .files(db)
        .iter()
        .map(|&file| skeleton(db, file))
        .collect();
    let mut names = libraries.jdk.binary_names.clone();
    names.extend(libraries.class_path.class_names().map(str::to_string));
    let mut universe = TypeUniverse::with_jdk(&names);
    drop(names);
    universe.add_sources(skeletons.iter().map(|s| &**s));
    universe.load_jdk_supertypes(&libraries.jdk);
    Arc::new(universe)
}

/// The file's class signatures as resolution of the file itself needs
/// them: with the lines and element indices of its declarations.
#[salsa::tracked(returns(clone))]
pub fn file_classes(db: &dyn Db, file: SourceFile) -> Arc<FileClasses> {
    let workspace = Workspace::get(db);

    let Ok(facts) = read_uncached(db, file, PackReader::declarations) else {
        return Arc::default();
    };
    let universe = universe(db, workspace);
    let qualifier = Qualifier::new(universe, &facts);
    let classes = resolver::file_signatures(&qualifier, &facts, file.slot(db))
        .into_iter()
        .map(|(sig, erased_params)| {
            Arc::new(ClassEntry {
                sig: Arc::new(sig),
                erased_params,
            })
        })
        .collect();
    Arc::new(FileClasses {
        package: facts.package.clone(),
        classes,
    })
}

/// The file's class signatures as other files see them: a declaration
/// outside bodies is known by its signature ordinal, not by its line or
/// element index, so an edit inside a body leaves this equal and nothing
/// that depends only on it re-runs.
#[salsa::tracked(returns(clone))]
pub fn signature(db: &dyn Db, file: SourceFile) -> Arc<FileClasses> {
    let classes = file_classes(db, file);
    let placeless = |decl: &mut Option<SourceDecl>| {
        if let Some(d) = decl
            && d.ordinal != NO_ORDINAL
        {
            d.line = 0;
            d.element = d.ordinal;
        }
    };
    Arc::new(FileClasses {
        package: classes.package.clone(),
        classes: classes
            .classes
            .iter()
            .map(|entry| {
                let mut sig: ClassSig = (*entry.sig).clone();
                placeless(&mut sig.decl);
                sig.methods.iter_mut().for_each(|m| placeless(&mut m.decl));
                sig.fields.iter_mut().for_each(|f| placeless(&mut f.decl));
                Arc::new(ClassEntry {
                    sig: Arc::new(sig),
                    erased_params: entry.erased_params.clone(),
                })
            })
            .collect(),
    })
}

/// Which files declare each class key. Re-runs whenever a signature
/// changes, but equal unless the set of declared keys changed, so class
/// lookups stay valid through ordinary signature edits.
#[salsa::tracked(returns(ref))]
pub fn declarers(db: &dyn Db, workspace: Workspace) -> Declarers {
    let mut out = Declarers::default();
    for &file in workspace.files(db).iter() {
        for entry in &signature(db, file).classes {
            let files = out.entry(Box::from(&*entry.sig.name)).or_default();
            if files.last() != Some(&file) {
                files.push(file);
            }
        }
    }
    out
}

/// Every source copy of class `name` as other files see it, first copy
/// first (one unless the class is declared by several files). Depends only
/// on the signatures of the files declaring it.
#[salsa::tracked(returns(clone))]
pub fn class_copies<'db>(db: &'db dyn Db, name: ClassName<'db>) -> Vec<Arc<ClassEntry>> {
    let workspace = Workspace::get(db);
    let key = name.key(db);
    let Some(files) = declarers(db, workspace).get(key) else {
        return Vec::new();
    };
    let mut copies: Vec<Arc<ClassEntry>> = files
        .iter()
        .flat_map(|&file| {
            signature(db, file)
                .classes
                .iter()
                .filter(|entry| *entry.sig.name == **key)
                .cloned()
                .collect::<Vec<_>>()
        })
        .collect();
    if copies.first().is_some_and(|c| is_anonymous(&c.sig)) {
        // Anonymous classes are never told apart by source root: the last
        // declaration wins, as in a table built at once.
        let last = copies.pop().expect("checked above");
        copies = vec![anonymous_entry(db, workspace, &last)];
    }
    copies
}

/// `entry` of an anonymous class with its one supertype in its place
/// (see [`implement_if_interface`]).
pub(crate) fn anonymous_entry(
    db: &dyn Db,
    workspace: Workspace,
    entry: &Arc<ClassEntry>,
) -> Arc<ClassEntry> {
    let mut sig = (*entry.sig).clone();
    implement_if_interface(&mut sig, |superclass| {
        let source = class_copies(db, ClassName::new(db, superclass));
        match source.into_iter().next() {
            Some(first) => Some(first),
            None => workspace
                .libraries(db)
                .class_path
                .load(superclass)
                .map(|sig| {
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
