//! The syntax tree of a query. Every node that a user can get wrong keeps
//! its span, so evaluation errors point at it too.

/// A byte range of the query text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A whole query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// What it selects.
    pub expr: Expr,
    /// `| count` at the end: answer with the number of elements.
    pub count: bool,
    /// `| history [N]` at the end: answer with the commits that changed
    /// each element, at most N each.
    pub history: Option<HistoryStage>,
}

/// The final `| history` stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryStage {
    /// At most this many commits per element.
    pub limit: Option<usize>,
}

/// An expression: a set of elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// Elements named or described directly.
    Select(Selector, Span),
    /// The elements of `input` passed through a stage.
    Pipe(Box<Expr>, Stage, Span),
    /// Two sets combined.
    Combine(SetOp, Box<Expr>, Box<Expr>),
    /// An expression read at another revision.
    At(Revision, Box<Expr>),
}

/// A revision as written in a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// The revision expression (`HEAD~1`, `v1.2`, a commit id, an indexed
    /// revision name).
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// How two sets combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    /// Elements of either.
    Union,
    /// Elements of both.
    Intersect,
    /// Elements of the left one that are not in the right one.
    Except,
}

/// Elements named or described directly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// An element id, parameter types optional, `*` and `?` wildcards
    /// allowed (`com.acme.*#get*`).
    Element(String),
    /// The elements owning lines of a file.
    Lines {
        /// Repository-relative path.
        file: String,
        /// First line.
        start: u32,
        /// Last line.
        end: u32,
    },
    /// Every element of the files matching a path pattern.
    File(String),
    /// Elements by kind, name, package and path.
    Kind(KindSelector),
    /// Elements that differ between two revisions.
    Changed {
        /// The older revision.
        base: Revision,
        /// The newer revision; `None` for the revision the query reads.
        head: Option<Revision>,
        /// `A...B`: from the merge base of the two (the commit the newer
        /// one's branch left the older one at), as git's three dots.
        merge_base: bool,
    },
}

/// `methods "get*" in com.acme under "src/main/*"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindSelector {
    /// The kind word as written (`methods`, `types`, `elements`, ...).
    pub kind_word: String,
    /// Simple-name pattern.
    pub name: Option<String>,
    /// Package pattern (`in`).
    pub package: Option<String>,
    /// Path pattern (`under`).
    pub path: Option<String>,
}

/// One stage of a pipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Follow a relation from every element.
    Relation {
        /// Which relation.
        relation: Relation,
        /// How many steps; `None` for the relation's default.
        depth: Option<u32>,
        /// `callers direct`: no polymorphic callers.
        direct: bool,
    },
    /// Keep elements meeting a condition.
    Where(Condition),
    /// Keep the first `n` elements.
    Limit(usize),
}

/// A relation between elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// The elements whose code calls or references it.
    Callers,
    /// The elements its code calls or references.
    Callees,
    /// The elements referencing it (a field's readers and writers; uses of
    /// a type's members).
    Refs,
    /// Overriding methods, or subtypes.
    Impls,
    /// The methods it overrides.
    Overrides,
    /// The types it extends or implements.
    Supertypes,
    /// The types extending or implementing it.
    Subtypes,
    /// The elements directly inside it.
    Members,
    /// The element directly around it.
    Owner,
}

impl Relation {
    /// Every relation.
    pub const ALL: [Self; 9] = [
        Self::Callers,
        Self::Callees,
        Self::Refs,
        Self::Impls,
        Self::Overrides,
        Self::Supertypes,
        Self::Subtypes,
        Self::Members,
        Self::Owner,
    ];

    /// Its keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Callers => "callers",
            Self::Callees => "callees",
            Self::Refs => "refs",
            Self::Impls => "impls",
            Self::Overrides => "overrides",
            Self::Supertypes => "supertypes",
            Self::Subtypes => "subtypes",
            Self::Members => "members",
            Self::Owner => "owner",
        }
    }

    /// The relation a keyword names.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == word)
    }
}

/// A condition of `where`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Both hold.
    And(Box<Condition>, Box<Condition>),
    /// Either holds.
    Or(Box<Condition>, Box<Condition>),
    /// It does not hold.
    Not(Box<Condition>),
    /// `field op value`.
    Compare {
        /// What is compared.
        field: Field,
        /// How.
        op: CompareOp,
        /// With what.
        value: String,
        /// Where the value is written.
        span: Span,
    },
}

/// What a condition looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The element kind (`method`, `field`, ...; `type` for any type).
    Kind,
    /// The simple name.
    Name,
    /// The element id.
    Id,
    /// The repository-relative file.
    Path,
    /// The package.
    Package,
    /// A written modifier (`=` means the element has it).
    Modifier,
    /// An annotation, without `@` and arguments (`=` means it has one).
    Annotation,
    /// The declared type, erased and qualified.
    Type,
    /// The confidence of the reference that led to the element.
    Confidence,
    /// How the element changed (`changed A..B`).
    Change,
}

impl Field {
    /// Every field.
    pub const ALL: [Self; 10] = [
        Self::Kind,
        Self::Name,
        Self::Id,
        Self::Path,
        Self::Package,
        Self::Modifier,
        Self::Annotation,
        Self::Type,
        Self::Confidence,
        Self::Change,
    ];

    /// Its keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Kind => "kind",
            Self::Name => "name",
            Self::Id => "id",
            Self::Path => "path",
            Self::Package => "package",
            Self::Modifier => "modifier",
            Self::Annotation => "annotation",
            Self::Type => "type",
            Self::Confidence => "confidence",
            Self::Change => "change",
        }
    }

    /// The field a keyword names.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == word)
    }
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `=`.
    Eq,
    /// `!=`.
    NotEq,
    /// `~`: matches a glob.
    Matches,
    /// `!~`.
    NotMatches,
}
