//! Name resolution: every reference site of a revision resolved to the
//! declaration javac would pick, from sources and library signatures
//! alone.
//!
//! 1. [`SymbolTable::new`]: the symbol table of a revision, from every file's
//!    declarations (never their bodies) plus the library class path;
//! 2. [`resolve_file`]: one file's sites against that table — receivers
//!    typed, members looked up through the hierarchy, overloads chosen;
//! 3. [`records`]: a file's elements qualified, with their stable ids.
//!
//! A file's resolution depends on its own facts and the signatures it can
//! see, so files resolve independently and in parallel. This crate knows
//! the facts (`refscope-syntax`) and the symbol model (`refscope-symbols`);
//! it must never know of the store, git or MCP: the table's source
//! classes may come from outside ([`table::SourceClasses`]), which is how
//! the engine's database answers them.
//!
//! ```
//! use refscope_resolve::{SymbolTable, file_signatures, resolve_file};
//! use refscope_symbols::{Qualifier, TypeUniverse};
//!
//! let facts = refscope_syntax::extract(b"package p; class A { void m() { m(); } }");
//! let mut universe = TypeUniverse::default();
//! universe.add_sources([&facts]);
//! let qualifier = Qualifier::new(&universe, &facts);
//! let classes = file_signatures(&qualifier, &facts, 0);
//! let table = SymbolTable::new(classes, None, vec![("p/A.java".into(), Some("p".into()))]);
//! let resolution = resolve_file(&table, &qualifier, &facts, 0);
//! assert_eq!(resolution.refs[0].target_id().as_deref(), Some("p.A#m()"));
//! ```

#![forbid(unsafe_code)]

pub mod class;
mod file;
mod hierarchy;
pub mod records;
mod resolution;
pub mod scope;
mod sig;
pub mod table;
mod ty;

pub use class::ClassEntry;
pub use resolution::{
    Confidence, FileResolution, Override, RefTargetKind, ResolvedRef, StoredResolution,
    TrackedResolution,
};
pub use scope::FileScope;
pub use table::SymbolTable;

use refscope_symbols::lookups::LookupLog;
use refscope_symbols::names::{Qualifier, TypeUniverse};
use refscope_syntax::facts::FileFacts;

/// The class signatures one file contributes to the symbol table; for
/// building tables in parallel (see [`SymbolTable::new`]).
pub fn file_signatures(
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> Vec<(refscope_symbols::ClassSig, Vec<Vec<std::sync::Arc<str>>>)> {
    sig::file_classes(qualifier, facts, file)
}

/// A copy of a class signature declared in another file (the same blob at
/// another path).
pub fn declared_at(sig: &refscope_symbols::ClassSig, file: u32) -> refscope_symbols::ClassSig {
    let mut copy = sig.clone();
    let retarget = |decl: &mut Option<refscope_symbols::SourceDecl>| {
        if let Some(d) = decl {
            d.file = file;
        }
    };
    retarget(&mut copy.decl);
    copy.methods.iter_mut().for_each(|m| retarget(&mut m.decl));
    copy.fields.iter_mut().for_each(|f| retarget(&mut f.decl));
    copy
}

/// Qualifies and resolves file `file` against `universe` and `table`,
/// recording what it looked up in `log` (one with no computation open, or
/// [`LookupLog::off`]), whose names it takes: the log is left empty for
/// the next file.
pub fn resolve_file_tracked(
    table: &SymbolTable,
    universe: &TypeUniverse,
    facts: &FileFacts,
    file: u32,
    log: &LookupLog,
) -> TrackedResolution {
    let qualifier = Qualifier::recording(universe, facts, log);
    let records = crate::records::element_records(facts, &qualifier);
    let resolution = resolve_file(table, &qualifier, facts, file);
    drop(qualifier);
    TrackedResolution {
        records,
        resolution,
        deps: log.take(),
    }
}

/// Resolves every reference site of file `file` (its index in the table's
/// files), and finds what its methods override. The lookups are noted in
/// the qualifier's log, if it keeps one.
pub fn resolve_file(
    table: &SymbolTable,
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> FileResolution {
    let scope = FileScope::new(table, file, qualifier.log());
    let mut resolver = file::FileResolver::new(&scope, qualifier, facts);
    FileResolution {
        refs: resolver.resolve_all(),
        overrides: resolver.overrides(),
    }
}
