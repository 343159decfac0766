//! What the reference graph answers: elements found by name, reference
//! hits, implementations, and how callers are searched.

use refscope_resolve::{Confidence, RefTargetKind};

use super::data::ElementView;

/// An element named by a user or a query.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundElement {
    /// Its element id.
    pub id: String,
    /// Its declaration, when the revision's sources declare it; `None` for
    /// library elements and for members the compiler declares (default
    /// constructors), which are known only from the references to them.
    /// When several files declare the same id (duplicate classes), the
    /// first by path.
    pub declared: Option<ElementView>,
}

/// A reference site, with what it targets and what contains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefHit {
    /// The file of the site.
    pub path: String,
    /// Line of the referenced name token.
    pub line: u32,
    /// UTF-16 column of the referenced name token.
    pub col: u32,
    /// What kind of reference it is.
    pub kind: RefTargetKind,
    /// How sure its resolution is.
    pub confidence: Confidence,
    /// The element id of the target; `None` when unresolved.
    pub target: Option<String>,
    /// The target's simple name (`<init>` for constructors), or the name
    /// as written when unresolved.
    pub name: String,
    /// The innermost element containing the site: a lambda's id for a
    /// site in a lambda.
    pub enclosing: Option<String>,
    /// The nearest element containing the site that is not a lambda: the
    /// method, constructor, field, initializer or type.
    pub enclosing_named: Option<String>,
    /// For a polymorphic caller: the overridden method the call targets.
    pub via: Option<String>,
    /// The file declaring the target, when it is in the repository.
    pub decl_file: Option<String>,
    /// The line of the target's name, when it is in the repository.
    pub decl_line: Option<u32>,
    /// For an ambiguous resolution: the other candidates' ids.
    pub alternatives: Vec<String>,
    /// For a call through a Spring injection point: the point and the
    /// beans it can take.
    pub injection: Option<Injection>,
}

/// A call's way through an injection point (see `spring.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection {
    /// The element id of the injected field.
    pub point: String,
    /// How many beans the point can take, after Spring's narrowing
    /// (`@Qualifier`, `@Primary`, the point's name).
    pub candidates: u32,
    /// Those beans: the ids of their classes or `@Bean` methods.
    pub beans: Vec<String>,
    /// The point takes all of them (`List<T>` and the like), so a call
    /// through it reaches each: no guess among them.
    pub many: bool,
}

/// How [`Snapshot::callers`] searches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallersConfig {
    /// Also report calls to the methods the element overrides or
    /// implements, transitively upwards, marked with [`RefHit::via`]. A
    /// `super.m()` call never dispatches to an override and is left out;
    /// so is a call on `this` from a class that is neither a supertype nor
    /// a subtype of the element's class.
    pub polymorphic: bool,
}

impl Default for CallersConfig {
    fn default() -> Self {
        Self { polymorphic: true }
    }
}

/// An element that overrides a method or extends a type, directly or
/// through others.
#[derive(Debug, Clone, PartialEq)]
pub struct Implementation {
    /// The overriding method or the subtype.
    pub view: ElementView,
    /// The element it directly overrides or extends, on the way from the
    /// element asked about.
    pub overrides: String,
    /// 1 for a direct override or subtype, 2 for one of those's, ...
    pub depth: u32,
}
