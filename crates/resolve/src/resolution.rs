//! What resolution hands out: resolved references ([`ResolvedRef`]),
//! override links ([`Override`]), a file's whole resolution
//! ([`FileResolution`]), its compact stored form ([`StoredResolution`]) and
//! the resolution with the names it looked up ([`TrackedResolution`]).

use refscope_symbols::lookups::NameList;
use refscope_syntax::facts::NO_ORDINAL;
use rkyv::{Archive, Deserialize, Serialize};

use crate::records::{ElementRecord, member_id};

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

    /// Its override links.
    pub fn overrides(&self) -> &[Override] {
        &self.overrides
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

    /// Each distinct id (as [`ResolvedRef::target_id`] spells it) that
    /// resolved references point at, once, with the sites of those
    /// references in order.
    pub fn sites_by_target(&self) -> Vec<(String, Vec<u32>)> {
        let mut by_target: rustc_hash::FxHashMap<(u32, bool), usize> = Default::default();
        let mut by_id: rustc_hash::FxHashMap<String, usize> = Default::default();
        let mut out: Vec<(String, Vec<u32>)> = Vec::new();
        for r in &self.refs {
            let is_field = r.kind == RefTargetKind::Field;
            if r.confidence == Confidence::Unresolved {
                continue;
            }
            let at = match by_target.get(&(r.target, is_field)) {
                Some(&at) => at,
                None => {
                    let Some(target) = self.targets.get(r.target as usize) else {
                        continue;
                    };
                    let id = spell_target_id(is_field, &target.owner, &target.name, &target.params);
                    let at = *by_id.entry(id).or_insert_with_key(|id| {
                        out.push((id.clone(), Vec::new()));
                        out.len() - 1
                    });
                    by_target.insert((r.target, is_field), at);
                    at
                }
            };
            out[at].1.push(r.site);
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
/// up (see [`refscope_symbols::lookups`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedResolution {
    /// The element records, by element index.
    pub records: Vec<ElementRecord>,
    /// References and override links.
    pub resolution: FileResolution,
    /// Every class key and type name looked up, sorted.
    pub deps: NameList,
}
