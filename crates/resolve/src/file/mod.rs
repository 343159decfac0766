//! Resolution of one file's reference sites against the symbol table:
//! typing receivers and arguments, member lookup through the hierarchy,
//! overload resolution in javac's three phases, and simple inference of
//! method type arguments (from arguments, explicit type arguments and
//! lambda bodies).
//!
//! [`FileResolver`] holds one file's state; each language concern is a
//! module of its own that adds to it: [`calls`], [`overloads`],
//! [`inference`], [`method_refs`], [`fields`], [`types`] (the types of
//! expressions), [`conversions`] (boxing and numeric promotion), and what
//! leaves the resolver: [`output`] (references as stored) and
//! [`overrides`].

mod calls;
mod conversions;
mod fields;
mod inference;
mod method_refs;
mod output;
mod overloads;
mod overrides;
mod types;

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::class::ClassEntry;
use super::scope::FileScope;
use super::sig::class_key;
use super::ty::{Found, OBJECT, Subst, Ty};
use super::{Confidence, ResolvedRef};
use refscope_symbols::names::Qualifier;
use refscope_syntax::facts::{ExprKind, FileFacts, NO_ELEMENT, NO_EXPR, RefKind};

/// What a name or expression denotes.
#[derive(Debug, Clone)]
enum Denoted {
    Value(Ty),
    Type(Arc<str>),
    Package(String),
}

/// The resolution of one site.
#[derive(Debug, Clone)]
enum Target {
    /// Nothing to report (a type or package name, `array.length`).
    Nothing,
    /// A method or constructor.
    Method {
        found: Found,
        confidence: Confidence,
        alternatives: Vec<Found>,
    },
    /// A field or enum constant.
    Field {
        class: Arc<ClassEntry>,
        index: usize,
    },
    /// An anonymous class implementing an interface.
    AnonymousInterface(Arc<ClassEntry>),
    /// A value or call that could not be resolved.
    Unresolved,
}

#[derive(Debug, Clone)]
struct SiteResult {
    target: Target,
    denoted: Denoted,
}

#[derive(Debug, Clone)]
enum SiteState {
    Pending,
    InProgress,
    Done(SiteResult),
}

/// Where a lambda or method reference gets its target type from.
#[derive(Debug, Clone, Copy)]
enum Context {
    /// An argument of call site `0`.
    Arg(u32),
    /// The declared type of local `0`.
    Local(u32),
    /// The declared type of field element `0`.
    Field(u32),
    /// The return type of method element `0`.
    Return(u32),
}

/// Marks a method type variable during inference.
const HOLE: char = '\u{1}';

pub(crate) struct FileResolver<'a> {
    scope: &'a FileScope<'a>,
    q: &'a Qualifier<'a>,
    facts: &'a FileFacts,
    sites: Vec<SiteState>,
    expr_types: Vec<Option<Ty>>,
    local_types: Vec<Option<Ty>>,
    lambda_params: HashMap<u32, Vec<Ty>>,
    method_ref_targets: HashMap<u32, Ty>,
    /// Target types of generic calls passed as arguments.
    target_hints: HashMap<u32, Ty>,
    contexts: HashMap<(bool, u32), Context>,
    /// Calls that initialize a variable of a declared type.
    init_hints: HashMap<u32, Context>,
    depth: u32,
    /// Lookups repeat a lot within a file: memoized here.
    field_cache: RefCell<FxHashMap<Ty, FxHashMap<String, Option<FieldHit>>>>,
    subclass_cache: RefCell<SubclassCache>,
    /// Whether each class named as an argument type has a missing class
    /// at or above it ([`Self::partly_known`]).
    partly_known_cache: RefCell<FxHashMap<Arc<str>, bool>>,
    /// The type of `this` in each type element (`None` for other
    /// elements): asked for at nearly every unqualified name.
    this_types: Vec<Option<Ty>>,
}

type FieldHit = (Arc<ClassEntry>, usize, Subst);
type SubclassCache = FxHashMap<(Arc<str>, Arc<str>), bool>;

/// Deepest chain of resolutions (receivers of receivers, locals' types).
const MAX_DEPTH: u32 = 200;

impl<'a> FileResolver<'a> {
    pub(crate) fn new(
        scope: &'a FileScope<'a>,
        q: &'a Qualifier<'a>,
        facts: &'a FileFacts,
    ) -> Self {
        let mut contexts = HashMap::default();
        let mut note = |facts: &FileFacts, e: u32, context: Context| {
            let e = unwrap_parens(facts, e);
            if e == NO_EXPR {
                return;
            }
            let expr = &facts.exprs[e as usize];
            match expr.kind {
                ExprKind::Lambda if expr.a != NO_ELEMENT => {
                    contexts.insert((true, expr.a), context);
                }
                ExprKind::Site if facts.ref_sites[expr.a as usize].kind == RefKind::MethodRef => {
                    contexts.insert((false, expr.a), context);
                }
                _ => {}
            }
        };
        for (index, site) in facts.ref_sites.iter().enumerate() {
            for &arg in &site.args {
                note(facts, arg, Context::Arg(index as u32));
            }
        }
        // Generic calls initializing a variable of a declared type infer
        // from it (`Comparator<Order> c = Comparator.comparing(o -> ...)`).
        let mut init_hints = HashMap::default();
        let mut hint = |facts: &FileFacts, e: u32, context: Context| {
            let e = unwrap_parens(facts, e);
            if e != NO_EXPR
                && facts.exprs[e as usize].kind == ExprKind::Site
                && facts.ref_sites[facts.exprs[e as usize].a as usize].kind == RefKind::Call
            {
                init_hints.insert(facts.exprs[e as usize].a, context);
            }
        };
        for (index, local) in facts.locals.iter().enumerate() {
            if local.init != NO_EXPR && !local.foreach {
                note(facts, local.init, Context::Local(index as u32));
                if local.type_text != "var" && !local.type_text.is_empty() {
                    hint(facts, local.init, Context::Local(index as u32));
                }
            }
        }
        for (index, element) in facts.elements.iter().enumerate() {
            if element.init != NO_EXPR && element.kind == refscope_syntax::facts::ElementKind::Field
            {
                note(facts, element.init, Context::Field(index as u32));
                hint(facts, element.init, Context::Field(index as u32));
            }
        }
        for &(e, element) in &facts.returns {
            // Returns from a method (not from a lambda, whose own target
            // would be needed).
            if element != NO_ELEMENT
                && facts.elements[element as usize].kind
                    == refscope_syntax::facts::ElementKind::Method
            {
                note(facts, e, Context::Return(element));
                hint(facts, e, Context::Return(element));
            }
        }
        Self {
            scope,
            q,
            facts,
            sites: vec![SiteState::Pending; facts.ref_sites.len()],
            expr_types: vec![None; facts.exprs.len()],
            local_types: vec![None; facts.locals.len()],
            lambda_params: HashMap::default(),
            method_ref_targets: HashMap::default(),
            target_hints: HashMap::default(),
            contexts,
            init_hints,
            depth: 0,
            field_cache: Default::default(),
            subclass_cache: Default::default(),
            partly_known_cache: Default::default(),
            this_types: (0..facts.elements.len() as u32)
                .map(|e| {
                    facts.elements[e as usize]
                        .kind
                        .is_type()
                        .then(|| Ty::class(&class_key(facts, e)))
                })
                .collect(),
        }
    }

    fn methods_named(&self, ty: &Ty, name: &str) -> Arc<Vec<Found>> {
        self.scope.methods_named(ty, name)
    }

    fn field_named(&self, ty: &Ty, name: &str) -> Option<FieldHit> {
        if let Some(found) = self.field_cache.borrow().get(ty).and_then(|m| m.get(name)) {
            return found.clone();
        }
        let found = self.scope.field_named(ty, name);
        self.field_cache
            .borrow_mut()
            .entry(ty.clone())
            .or_default()
            .insert(name.to_string(), found.clone());
        found
    }

    fn is_subclass(&self, sub: &Arc<str>, sup: &str) -> bool {
        if **sub == *sup || sup == OBJECT {
            return true;
        }
        let key = (sub.clone(), Arc::<str>::from(sup));
        if let Some(&known) = self.subclass_cache.borrow().get(&key) {
            return known;
        }
        let answer = self.scope.is_subclass(sub, sup);
        self.subclass_cache.borrow_mut().insert(key, answer);
        answer
    }

    /// Resolves every site of the file.
    pub(crate) fn resolve_all(&mut self) -> Vec<ResolvedRef> {
        let mut out = Vec::with_capacity(self.facts.ref_sites.len());
        for index in 0..self.facts.ref_sites.len() as u32 {
            let result = self.site(index);
            if let Some(r) = self.output(index, &result) {
                out.push(r);
            }
        }
        out
    }

    // ---- sites ---------------------------------------------------------------

    fn site(&mut self, index: u32) -> SiteResult {
        match &self.sites[index as usize] {
            SiteState::Done(r) => return r.clone(),
            SiteState::InProgress => {
                return SiteResult {
                    target: Target::Unresolved,
                    denoted: Denoted::Value(Ty::Unknown),
                };
            }
            SiteState::Pending => {}
        }
        if self.depth > MAX_DEPTH {
            return SiteResult {
                target: Target::Unresolved,
                denoted: Denoted::Value(Ty::Unknown),
            };
        }
        self.sites[index as usize] = SiteState::InProgress;
        self.depth += 1;
        let site = &self.facts.ref_sites[index as usize];
        let result = match site.kind {
            RefKind::Call => self.call(index),
            RefKind::New => self.new_site(index),
            RefKind::CtorCall => self.ctor_call(index),
            RefKind::MethodRef => self.method_ref(index),
            RefKind::Name => self.name(index),
            RefKind::FieldAccess => self.field_access(index),
        };
        self.depth -= 1;
        self.sites[index as usize] = SiteState::Done(result.clone());
        result
    }

    fn enclosing_types(&self, element: u32) -> Vec<u32> {
        if element == NO_ELEMENT {
            return Vec::new();
        }
        self.facts
            .ancestry(element)
            .filter(|&i| self.facts.elements[i as usize].kind.is_type())
            .collect()
    }

    fn this_type(&self, type_element: u32) -> Ty {
        match self.this_types.get(type_element as usize) {
            Some(Some(ty)) => ty.clone(),
            _ => Ty::class(&class_key(self.facts, type_element)),
        }
    }

    fn type_ty(&self, key: &str) -> Ty {
        Ty::class(key)
    }

    fn unresolved() -> SiteResult {
        SiteResult {
            target: Target::Unresolved,
            denoted: Denoted::Value(Ty::Unknown),
        }
    }
}

fn unwrap_parens(facts: &FileFacts, mut e: u32) -> u32 {
    while e != NO_EXPR && facts.exprs[e as usize].kind == ExprKind::Paren {
        e = facts.exprs[e as usize].a;
    }
    e
}

/// Splits `A, Map<B, C>` at top-level commas.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}
