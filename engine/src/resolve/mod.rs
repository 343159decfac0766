//! Name resolution: every reference site of a revision resolved to the
//! declaration javac would pick, from sources and library signatures
//! alone.
//!
//! 1. [`SymbolTable::new`]: the symbol table of a revision, from every file's
//!    declarations (never their bodies) plus the library class path;
//! 2. [`resolve_file`]: one file's sites against that table — receivers
//!    typed, members looked up through the hierarchy, overloads chosen.
//!
//! A file's resolution depends on its own facts and the signatures it can
//! see, so files resolve independently and in parallel.

mod file;
mod sig;
mod table;
mod ty;

use rkyv::{Archive, Deserialize, Serialize};

pub use table::{ClassEntry, SymbolTable};

use crate::facts::FileFacts;
use crate::names::Qualifier;

/// How sure a resolved reference is.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum Confidence {
    /// Resolved to a declaration of the repository, as javac would.
    Exact,
    /// Several candidates remained; the best is recorded, the others
    /// listed.
    Ambiguous,
    /// Resolved to a library declaration (JDK, jar).
    External,
    /// Not resolved: only the name is known.
    Unresolved,
}

impl Confidence {
    /// The lower-case name used in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Ambiguous => "ambiguous",
            Self::External => "external",
            Self::Unresolved => "unresolved",
        }
    }
}

/// The kind of a resolved reference, as the javac oracle names them.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum RefTargetKind {
    /// A method invocation.
    Call,
    /// `new T(...)`.
    New,
    /// `T::m`, `T::new`.
    MethodRef,
    /// `this(...)`, `super(...)`.
    CtorCall,
    /// A field or enum constant.
    Field,
}

impl RefTargetKind {
    /// The oracle's name of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::New => "new",
            Self::MethodRef => "method_ref",
            Self::CtorCall => "ctor_call",
            Self::Field => "field",
        }
    }
}

/// A reference site with the declaration it resolves to.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRef {
    /// Index of the site in the file's facts.
    pub site: u32,
    /// What kind of reference it is.
    pub kind: RefTargetKind,
    /// How sure the resolution is.
    pub confidence: Confidence,
    /// Binary name of the declaring type; empty when unresolved.
    pub owner: String,
    /// The member's simple name (`<init>` for constructors).
    pub name: String,
    /// Erased, fully qualified parameter types of the declaration.
    pub params: Vec<String>,
    /// The target is static.
    pub is_static: bool,
    /// The file declaring the target, when it is in the repository.
    pub decl_file: Option<String>,
    /// The line of the target's name, when it is in the repository.
    pub decl_line: u32,
    /// The target is declared by the compiler (default constructor,
    /// record accessor, ...).
    pub implicit: bool,
    /// For [`Confidence::Ambiguous`]: the other candidates' element ids.
    pub alternatives: Vec<String>,
}

impl ResolvedRef {
    /// The element id of the target (`p.A#m(int)`, `p.A#f`), or `None`
    /// when unresolved.
    pub fn target_id(&self) -> Option<String> {
        if self.confidence == Confidence::Unresolved {
            return None;
        }
        Some(match self.kind {
            RefTargetKind::Field => format!("{}#{}", self.owner, self.name),
            _ => format!("{}#{}({})", self.owner, self.name, self.params.join(",")),
        })
    }
}

/// The class signatures one file contributes to the symbol table; for
/// building tables in parallel (see [`SymbolTable::new`]).
pub fn file_signatures(
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> Vec<(crate::symbols::ClassSig, Vec<Vec<std::sync::Arc<str>>>)> {
    sig::file_classes(qualifier, facts, file)
}

/// A copy of a class signature declared in another file (the same blob at
/// another path).
pub fn declared_at(sig: &crate::symbols::ClassSig, file: u32) -> crate::symbols::ClassSig {
    let mut copy = sig.clone();
    let retarget = |decl: &mut Option<crate::symbols::SourceDecl>| {
        if let Some(d) = decl {
            d.file = file;
        }
    };
    retarget(&mut copy.decl);
    copy.methods.iter_mut().for_each(|m| retarget(&mut m.decl));
    copy.fields.iter_mut().for_each(|f| retarget(&mut f.decl));
    copy
}

/// A method of a file and the methods it directly overrides or
/// implements (along each supertype branch, the nearest declaration); or a
/// type of a file and the binary names of its direct supertypes.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The overriding method's (or the type's) element index.
    pub element: u32,
    /// Element ids of the overridden methods (binary names of the
    /// supertypes).
    pub targets: Vec<String>,
}

/// Everything resolution learned about one file.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct FileResolution {
    /// Resolved references, in site order; sites that name a type or a
    /// package have none.
    pub refs: Vec<ResolvedRef>,
    /// Override links of the file's methods.
    pub overrides: Vec<Override>,
}

/// Resolves every reference site of file `file` (its index in the table's
/// files), and finds what its methods override.
pub fn resolve_file(
    table: &SymbolTable,
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> FileResolution {
    let _resolving = table::ResolvingFile::enter(file);
    let mut resolver = file::FileResolver::new(table, qualifier, facts);
    FileResolution {
        refs: resolver.resolve_all(),
        overrides: resolver.overrides(),
    }
}
