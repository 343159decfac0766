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
//! it must never know of the store, salsa, git or MCP: the table's source
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

mod file;
pub mod records;
mod sig;
pub mod table;
mod ty;

use rkyv::{Archive, Deserialize, Serialize};

pub use table::{ClassEntry, SymbolTable};

use refscope_symbols::names::Qualifier;
use refscope_syntax::facts::{FileFacts, NO_ORDINAL};

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
    /// The target's signature ordinal in `decl_file`
    /// ([`FileFacts::signature_ordinals`]), or [`NO_ORDINAL`]. The store
    /// keeps the ordinal rather than the line, which an edit of another
    /// file's body may move: a file's stored resolution then depends only
    /// on the signatures it sees, and is shared across such edits.
    pub decl_ordinal: u32,
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
        Some(spell_target_id(
            self.kind == RefTargetKind::Field,
            &self.owner,
            &self.name,
            &self.params,
        ))
    }
}

/// A target's element id: `owner#name` for a field, else
/// `owner#name(params)`.
fn spell_target_id(is_field: bool, owner: &str, name: &str, params: &[String]) -> String {
    member_id(owner, name, (!is_field).then_some(params))
}

/// A member's element id: `owner#name` without a parameter list (a field),
/// else `owner#name(p1,p2)`. Built in one sized buffer: element ids are
/// spelled for every element and every reference target of a revision,
/// and `format!` with a joined list cost several times as much.
pub(crate) fn member_id(owner: &str, name: &str, params: Option<&[String]>) -> String {
    let params_len = params.map_or(0, |p| 2 + p.iter().map(|t| t.len() + 1).sum::<usize>());
    let mut id = String::with_capacity(owner.len() + 1 + name.len() + params_len);
    id.push_str(owner);
    id.push('#');
    id.push_str(name);
    if let Some(params) = params {
        id.push('(');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                id.push(',');
            }
            id.push_str(param);
        }
        id.push(')');
    }
    id
}

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

/// A [`FileResolution`] as stored: each distinct target once, declaring
/// files once, references pointing at them. A file calls the same few
/// methods many times, so this is a fraction of the expanded size.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct StoredResolution {
    targets: Vec<StoredTarget>,
    paths: Vec<String>,
    refs: Vec<StoredRef>,
    overrides: Vec<Override>,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
struct StoredTarget {
    owner: String,
    name: String,
    params: Vec<String>,
    is_static: bool,
    implicit: bool,
    /// Index in `paths`, or `u32::MAX`.
    decl_file: u32,
    /// The name line when the declaration is inside a body (so in the
    /// resolved file itself), else 0.
    decl_line: u32,
    /// The signature ordinal in `decl_file`, or [`NO_ORDINAL`].
    decl_ordinal: u32,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
struct StoredRef {
    site: u32,
    kind: RefTargetKind,
    confidence: Confidence,
    target: u32,
    alternatives: Vec<String>,
}

impl FileResolution {
    /// The compact form written to the store.
    pub fn to_stored(&self) -> StoredResolution {
        /// A [`StoredTarget`] borrowed from the references, so that only
        /// the first reference to each target copies its strings.
        #[derive(PartialEq, Eq, Hash)]
        struct TargetKey<'r> {
            owner: &'r str,
            name: &'r str,
            params: &'r [String],
            is_static: bool,
            implicit: bool,
            decl_file: u32,
            decl_line: u32,
            decl_ordinal: u32,
        }
        let mut out = StoredResolution {
            overrides: self.overrides.clone(),
            ..StoredResolution::default()
        };
        let mut target_ids: rustc_hash::FxHashMap<TargetKey<'_>, u32> = Default::default();
        let mut path_ids: rustc_hash::FxHashMap<&str, u32> = Default::default();
        out.refs.reserve_exact(self.refs.len());
        for r in &self.refs {
            let decl_file = match &r.decl_file {
                Some(path) => *path_ids.entry(path.as_str()).or_insert_with(|| {
                    out.paths.push(path.clone());
                    out.paths.len() as u32 - 1
                }),
                None => u32::MAX,
            };
            let key = TargetKey {
                owner: &r.owner,
                name: &r.name,
                params: &r.params,
                is_static: r.is_static,
                implicit: r.implicit,
                decl_file,
                decl_line: if r.decl_ordinal == NO_ORDINAL {
                    r.decl_line
                } else {
                    0
                },
                decl_ordinal: r.decl_ordinal,
            };
            let next = out.targets.len() as u32;
            let id = *target_ids.entry(key).or_insert_with_key(|key| {
                out.targets.push(StoredTarget {
                    owner: key.owner.to_string(),
                    name: key.name.to_string(),
                    params: key.params.to_vec(),
                    is_static: key.is_static,
                    implicit: key.implicit,
                    decl_file: key.decl_file,
                    decl_line: key.decl_line,
                    decl_ordinal: key.decl_ordinal,
                });
                next
            });
            out.refs.push(StoredRef {
                site: r.site,
                kind: r.kind,
                confidence: r.confidence,
                target: id,
                alternatives: r.alternatives.clone(),
            });
        }
        out
    }
}

impl StoredResolution {
    /// How many reference sites it holds.
    pub fn n_refs(&self) -> usize {
        self.refs.len()
    }

    /// The distinct ids (as [`ResolvedRef::target_id`] spells them) of what the resolved
    /// references point at, in no particular order; a target spelled alike
    /// from two stored targets (say, declared at two paths) may come twice.
    pub fn target_ids(&self) -> Vec<String> {
        let mut seen: rustc_hash::FxHashSet<(u32, bool)> = Default::default();
        let mut out = Vec::new();
        for r in &self.refs {
            let is_field = r.kind == RefTargetKind::Field;
            if r.confidence == Confidence::Unresolved || !seen.insert((r.target, is_field)) {
                continue;
            }
            let Some(target) = self.targets.get(r.target as usize) else {
                continue;
            };
            out.push(spell_target_id(
                is_field,
                &target.owner,
                &target.name,
                &target.params,
            ));
        }
        out
    }

    /// The expanded form; `decl_line_of(path, ordinal)` gives the name
    /// line of the signature element `ordinal` of `path` in the revision
    /// read (0 when unknown). Indices out of range (a corrupt record that
    /// still validated) leave the fields empty rather than panic.
    pub fn expand(&self, decl_line_of: &mut dyn FnMut(&str, u32) -> u32) -> FileResolution {
        let empty = StoredTarget {
            owner: String::new(),
            name: String::new(),
            params: Vec::new(),
            is_static: false,
            implicit: false,
            decl_file: u32::MAX,
            decl_line: 0,
            decl_ordinal: NO_ORDINAL,
        };
        let decl_lines: Vec<u32> = self
            .targets
            .iter()
            .map(|t| match self.paths.get(t.decl_file as usize) {
                Some(path) if t.decl_ordinal != NO_ORDINAL => decl_line_of(path, t.decl_ordinal),
                _ => t.decl_line,
            })
            .collect();
        FileResolution {
            refs: self
                .refs
                .iter()
                .map(|r| {
                    let t = self.targets.get(r.target as usize).unwrap_or(&empty);
                    ResolvedRef {
                        site: r.site,
                        kind: r.kind,
                        confidence: r.confidence,
                        owner: t.owner.clone(),
                        name: t.name.clone(),
                        params: t.params.clone(),
                        is_static: t.is_static,
                        decl_file: self.paths.get(t.decl_file as usize).cloned(),
                        decl_line: decl_lines.get(r.target as usize).copied().unwrap_or(0),
                        decl_ordinal: t.decl_ordinal,
                        implicit: t.implicit,
                        alternatives: r.alternatives.clone(),
                    }
                })
                .collect(),
            overrides: self.overrides.clone(),
        }
    }
}

/// A file's qualified records and resolution, with the names they looked
/// up (see [`deps`]) and the digest of what those names led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedResolution {
    /// The element records, by element index.
    pub records: Vec<crate::records::ElementRecord>,
    /// References and override links.
    pub resolution: FileResolution,
    /// Every class key and type name looked up, sorted.
    pub deps: Vec<Box<str>>,
    /// [`lookups_digest`] of `deps` in the revision resolved.
    pub deps_digest: [u8; 16],
}

/// Qualifies and resolves file `file`, recording what it looked up.
pub fn resolve_file_tracked(
    table: &SymbolTable,
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> TrackedResolution {
    let recording = refscope_symbols::lookups::Recording::start();
    let records = crate::records::element_records(facts, qualifier);
    let resolution = resolve_file(table, qualifier, facts, file);
    let deps = recording.finish();
    let deps_digest = lookups_digest(table, qualifier.universe(), file, &deps);
    TrackedResolution {
        records,
        resolution,
        deps,
        deps_digest,
    }
}

/// A digest of what each of `names` leads to for file `file` in the
/// revision of `table` and `universe`: equal digests in two revisions mean
/// the file, unchanged, resolves alike in both.
pub fn lookups_digest(
    table: &SymbolTable,
    universe: &refscope_symbols::names::TypeUniverse,
    file: u32,
    names: &[impl AsRef<str>],
) -> [u8; 16] {
    let _resolving = table::ResolvingFile::enter(file);
    let mut digest = refscope_syntax::digest::Digest128::new(b"lookups");
    table.lookup_digests(names, universe, |name, lookup| {
        digest.write_str(name);
        digest.write(lookup);
    });
    digest.finish()
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
