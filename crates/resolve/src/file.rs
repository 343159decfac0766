//! Resolution of one file's reference sites against the symbol table:
//! typing receivers and arguments, member lookup through the hierarchy,
//! overload resolution in javac's three phases, and simple inference of
//! method type arguments (from arguments, explicit type arguments and
//! lambda bodies).

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::sig::{class_key, parse_type};
use super::table::{ClassEntry, SymbolTable};
use super::ty::{Found, OBJECT, STRING, Subst, Ty};
use super::{Confidence, RefTargetKind, ResolvedRef};
use refscope_symbols::names::Qualifier;
use refscope_symbols::{ClassKind, MethodSig, Prim, TypeSig, flags};
use refscope_syntax::facts::{
    ExprKind, FileFacts, NO_ELEMENT, NO_EXPR, NO_ORDINAL, RefKind, RefSite,
};

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
    table: &'a SymbolTable<'a>,
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
        table: &'a SymbolTable<'a>,
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
            table,
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
        self.table.methods_named(ty, name)
    }

    fn field_named(&self, ty: &Ty, name: &str) -> Option<FieldHit> {
        if let Some(found) = self.field_cache.borrow().get(ty).and_then(|m| m.get(name)) {
            return found.clone();
        }
        let found = self.table.field_named(ty, name);
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
        let answer = self.table.is_subclass(sub, sup);
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

    /// What each method of the file overrides.
    pub(crate) fn overrides(&self) -> Vec<super::Override> {
        let mut out = Vec::new();
        for (index, element) in self.facts.elements.iter().enumerate() {
            if element.kind.is_type() {
                // A type "overrides" its direct supertypes: the links read
                // backwards give subtypes.
                let (superclass, interfaces) =
                    self.table.supertypes_split(&self.this_type(index as u32));
                let mut targets: Vec<String> = superclass
                    .into_iter()
                    .chain(interfaces)
                    .filter_map(|t| {
                        let name = t.class_name()?;
                        (&**name != OBJECT)
                            .then(|| self.table.get(name))
                            .flatten()
                            .map(|e| String::from(&*e.sig.binary_name))
                    })
                    .collect();
                targets.dedup();
                if !targets.is_empty() {
                    out.push(super::Override {
                        element: index as u32,
                        targets,
                    });
                }
                continue;
            }
            if element.kind != refscope_syntax::facts::ElementKind::Method
                || element.modifiers.has("static")
                || element.modifiers.has("private")
                || element.parent == NO_ELEMENT
            {
                continue;
            }
            let owner = element.parent;
            let Some(entry) = self.table.get(&class_key(self.facts, owner)) else {
                continue;
            };
            let Some(own) = entry
                .sig
                .methods
                .iter()
                .position(|m| m.decl.is_some_and(|d| d.element == index as u32))
            else {
                continue;
            };
            let own_ty = self.this_type(owner);
            let own_found = Found {
                class: entry.clone(),
                index: own,
                subst: self.table.class_subst(&entry.sig, &[]),
            };
            let own_params: Vec<String> = self
                .param_types(&own_found)
                .iter()
                .map(Ty::erased_name)
                .collect();
            let mut matches: Vec<Found> = Vec::new();
            for t in self.table.hierarchy(&own_ty).iter().skip(1) {
                let Ty::Class(name, args) = t else { continue };
                let Some(sup) = self.table.get(name) else {
                    continue;
                };
                let subst = self.table.class_subst(&sup.sig, args);
                for (i, m) in sup.sig.methods.iter().enumerate() {
                    if m.name != entry.sig.methods[own].name
                        || m.params.len() != own_params.len()
                        || m.flags & (flags::STATIC | flags::PRIVATE) != 0
                    {
                        continue;
                    }
                    let found = Found {
                        class: sup.clone(),
                        index: i,
                        subst: subst.clone(),
                    };
                    let params: Vec<String> = self
                        .param_types(&found)
                        .iter()
                        .map(Ty::erased_name)
                        .collect();
                    if params == own_params {
                        matches.push(found);
                    }
                }
            }
            // Keep the nearest along each branch: drop a match that another
            // match's class already overrides.
            let nearest: Vec<&Found> = matches
                .iter()
                .filter(|m| {
                    !matches.iter().any(|other| {
                        other.class.sig.name != m.class.sig.name
                            && self
                                .table
                                .is_subclass(&other.class.sig.name, &m.class.sig.name)
                    })
                })
                .collect();
            if nearest.is_empty() {
                continue;
            }
            let mut targets: Vec<String> =
                nearest.iter().map(|found| self.method_id(found)).collect();
            targets.sort();
            targets.dedup();
            out.push(super::Override {
                element: index as u32,
                targets,
            });
        }
        out
    }

    // ---- output -----------------------------------------------------------

    fn output(&self, index: u32, result: &SiteResult) -> Option<ResolvedRef> {
        let site = &self.facts.ref_sites[index as usize];
        let kind = match site.kind {
            RefKind::Call => RefTargetKind::Call,
            RefKind::New => RefTargetKind::New,
            RefKind::MethodRef => RefTargetKind::MethodRef,
            RefKind::CtorCall => RefTargetKind::CtorCall,
            RefKind::FieldAccess | RefKind::Name => RefTargetKind::Field,
        };
        // The name as the site spells it, for targets that do not name
        // themselves. Made only then: most sites resolve to a member, or
        // name a type and give no reference at all.
        let site_name = || match site.kind {
            RefKind::New | RefKind::CtorCall => "<init>".into(),
            RefKind::MethodRef if site.name == "new" => "<init>".into(),
            _ => site.name.clone(),
        };
        let mut out = ResolvedRef {
            site: index,
            kind,
            confidence: Confidence::Unresolved,
            owner: String::new(),
            name: String::new(),
            params: Vec::new(),
            is_static: false,
            decl_file: None,
            decl_line: 0,
            decl_ordinal: NO_ORDINAL,
            implicit: false,
            alternatives: Vec::new(),
        };
        match &result.target {
            Target::Nothing => return None,
            Target::Unresolved => {
                if matches!(site.kind, RefKind::Name | RefKind::FieldAccess) && site.is_qualifier {
                    return None;
                }
                out.name = site_name();
            }
            Target::Field { class, index } => {
                let field = &class.sig.fields[*index];
                out.owner = String::from(&*class.sig.binary_name);
                out.name = String::from(&*field.name);
                out.is_static = field.flags & flags::STATIC != 0;
                out.confidence = self.certain(class);
                if let Some(d) = field.decl {
                    out.decl_file = self.table.path_of(d.file);
                    out.decl_line = d.line;
                    out.decl_ordinal = d.ordinal;
                }
            }
            Target::AnonymousInterface(class) => {
                out.name = site_name();
                out.owner = String::from(&*class.sig.binary_name);
                out.confidence = self.certain(class);
                out.implicit = true;
                if let Some(d) = class.sig.decl {
                    out.decl_file = self.table.path_of(d.file);
                    out.decl_line = d.line;
                    out.decl_ordinal = d.ordinal;
                }
            }
            Target::Method {
                found,
                confidence,
                alternatives,
            } => {
                let m = found.method();
                out.owner = String::from(&*found.class.sig.binary_name);
                out.name = String::from(&*m.name);
                out.params = self.erased_params(found);
                out.is_static = m.flags & flags::STATIC != 0;
                out.implicit = m.flags & flags::IMPLICIT != 0;
                out.confidence = match confidence {
                    Confidence::Exact => self.certain(&found.class),
                    other => *other,
                };
                if let Some(d) = m.decl {
                    out.decl_file = self.table.path_of(d.file);
                    out.decl_line = d.line;
                    out.decl_ordinal = d.ordinal;
                }
                out.alternatives = alternatives
                    .iter()
                    .map(|found| self.method_id(found))
                    .collect();
            }
        }
        Some(out)
    }

    fn certain(&self, class: &ClassEntry) -> Confidence {
        if class.is_source() {
            Confidence::Exact
        } else {
            Confidence::External
        }
    }

    /// The element id of a method found by lookup, as element records
    /// and [`ResolvedRef::target_id`] spell it.
    fn method_id(&self, found: &Found) -> String {
        super::member_id(
            &found.class.sig.binary_name,
            &found.method().name,
            Some(&self.erased_params(found)),
        )
    }

    fn erased_params(&self, found: &Found) -> Vec<String> {
        if let Some(erased) = found.class.erased_params.get(found.index) {
            return erased.iter().map(|s| String::from(&**s)).collect();
        }
        let m = found.method();
        let scopes = [
            m.type_params.as_slice(),
            found.class.sig.type_params.as_slice(),
        ];
        m.params
            .iter()
            .map(|p| {
                self.table
                    .instantiate(p, &Subst::default(), &scopes)
                    .erased_name()
            })
            .collect()
    }

    // ---- sites --------------------------------------------------------------

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

    fn call(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let candidates = match self.receiver(site) {
            Receiver::Implicit => {
                let mut found = Arc::new(Vec::new());
                for t in self.enclosing_types(site.enclosing) {
                    let ty = self.this_type(t);
                    found = self.methods_named(&ty, &site.name);
                    if !found.is_empty() {
                        break;
                    }
                }
                if found.is_empty() {
                    found = Arc::new(self.static_imported_methods(&site.name));
                }
                found
            }
            Receiver::Value(ty) | Receiver::Static(ty) => {
                let mut found = self.methods_named(&ty, &site.name);
                if found.is_empty() {
                    // A type variable with several bounds (`N extends
                    // Number & Comparable<N>`) has the members of each.
                    for bound in self.other_bounds(site.receiver_expr) {
                        found = self.methods_named(&bound, &site.name);
                        if !found.is_empty() {
                            break;
                        }
                    }
                }
                found
            }
            Receiver::None => return Self::unresolved(),
        };
        self.choose_and_type(index, &candidates)
    }

    /// The bounds after the first of a local whose type is a type
    /// variable.
    fn other_bounds(&self, e: u32) -> Vec<Ty> {
        let e = unwrap_parens(self.facts, e);
        if e == NO_EXPR || self.facts.exprs[e as usize].kind != ExprKind::Local {
            return Vec::new();
        }
        let local = &self.facts.locals[self.facts.exprs[e as usize].a as usize];
        let Some((declaring, _)) = self.q.type_variable(local.enclosing, &local.type_text) else {
            return Vec::new();
        };
        let element = &self.facts.elements[declaring as usize];
        let Some(param) = element
            .type_params
            .iter()
            .find(|p| p.name == local.type_text)
        else {
            return Vec::new();
        };
        param
            .bounds
            .iter()
            .skip(1)
            .map(|b| {
                let sig = parse_type(self.q, declaring, b);
                self.context_type(declaring, &sig)
            })
            .collect()
    }

    /// The types whose static member `name` may be imported, in the order
    /// javac looks: single static imports of that name, then static
    /// on-demand imports.
    fn static_import_owners<'n>(&'n self, name: &'n str) -> impl Iterator<Item = Ty> + 'n {
        let imports = &self.facts.imports;
        let single = imports
            .iter()
            .filter(|i| i.is_static && !i.on_demand)
            .filter_map(move |i| match i.path.rsplit_once('.') {
                Some((owner, member)) if member == name => Some(owner),
                _ => None,
            });
        let on_demand = imports
            .iter()
            .filter(|i| i.is_static && i.on_demand)
            .map(|i| i.path.as_str());
        single
            .chain(on_demand)
            .filter_map(|owner| self.q.resolve_type_name(NO_ELEMENT, owner))
            .map(|key| self.type_ty(&key))
    }

    fn static_imported_methods(&self, name: &str) -> Vec<Found> {
        self.static_import_owners(name)
            .map(|owner| {
                self.table
                    .methods_named(&owner, name)
                    .iter()
                    .filter(|f| f.method().flags & flags::STATIC != 0)
                    .cloned()
                    .collect::<Vec<Found>>()
            })
            .find(|found| !found.is_empty())
            .unwrap_or_default()
    }

    fn static_imported_field(&self, name: &str) -> Option<(Arc<ClassEntry>, usize)> {
        self.static_import_owners(name).find_map(|owner| {
            let (class, index, _) = self.field_named(&owner, name)?;
            (class.sig.fields[index].flags & flags::STATIC != 0).then_some((class, index))
        })
    }

    /// Picks the method of a call among candidates and types the call.
    fn choose_and_type(&mut self, index: u32, candidates: &[Found]) -> SiteResult {
        if candidates.is_empty() {
            return Self::unresolved();
        }
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let context = site.enclosing;
        self.hint_argument_targets(index, candidates);
        let args: Vec<Ty> = site
            .args
            .iter()
            .map(|&e| self.arg_type(e, context))
            .collect();
        let (found, confidence, alternatives) = self.choose(candidates, &args);
        let ret = self.infer_and_return(index, &found, &args);
        SiteResult {
            target: Target::Method {
                found,
                confidence,
                alternatives,
            },
            denoted: Denoted::Value(ret),
        }
    }

    /// When only one candidate has the call's arity, its parameter types
    /// are the target types of the arguments: a generic call passed as an
    /// argument (`list.sort(Comparator.comparing(o -> o.id()))`) infers
    /// its type variables from them.
    fn hint_argument_targets(&mut self, index: u32, candidates: &[Found]) {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let n = site.args.len();
        let mut fitting = candidates.iter().filter(|c| self.arity_fits(c, n));
        let (Some(only), None) = (fitting.next(), fitting.next()) else {
            return;
        };
        let params = self.param_types(only);
        for (&arg, param) in site.args.iter().zip(&params) {
            let inner = unwrap_parens(facts, arg);
            if inner == NO_EXPR {
                continue;
            }
            let expr = &facts.exprs[inner as usize];
            if expr.kind == ExprKind::Site
                && facts.ref_sites[expr.a as usize].kind == RefKind::Call
                && matches!(self.sites[expr.a as usize], SiteState::Pending)
                && matches!(param, Ty::Class(_, args) if !args.is_empty())
            {
                self.target_hints.insert(expr.a, param.clone());
            }
        }
    }

    /// Overload resolution: applicable by arity and argument types in
    /// javac's three phases, then the most specific.
    fn choose(&self, candidates: &[Found], args: &[Ty]) -> (Found, Confidence, Vec<Found>) {
        if let Some(chosen) = self.choose_applicable(candidates, args) {
            return chosen;
        }
        // Nothing applicable: our argument types are probably wrong. A
        // single candidate of the right arity is still javac's choice.
        let by_arity: Vec<usize> = (0..candidates.len())
            .filter(|&i| self.arity_fits(&candidates[i], args.len()))
            .collect();
        match by_arity.as_slice() {
            [only] => (candidates[*only].clone(), Confidence::Exact, Vec::new()),
            [first, rest @ ..] => (
                candidates[*first].clone(),
                Confidence::Ambiguous,
                rest.iter().map(|&i| candidates[i].clone()).collect(),
            ),
            [] => (
                candidates[0].clone(),
                Confidence::Ambiguous,
                candidates[1..].to_vec(),
            ),
        }
    }

    /// [`Self::choose`] without the fallback: `None` when no candidate is
    /// applicable in any phase.
    fn choose_applicable(
        &self,
        candidates: &[Found],
        args: &[Ty],
    ) -> Option<(Found, Confidence, Vec<Found>)> {
        let params: Vec<Vec<Ty>> = candidates.iter().map(|c| self.param_types(c)).collect();
        let accessible: Vec<bool> = candidates.iter().map(|c| self.accessible(c)).collect();
        for phase in 1..=3 {
            let applicable: Vec<usize> = (0..candidates.len())
                .filter(|&i| {
                    accessible[i] && self.applicable(&candidates[i], &params[i], args, phase)
                })
                .collect();
            if applicable.is_empty() {
                continue;
            }
            let most: Vec<usize> = applicable
                .iter()
                .copied()
                .filter(|&i| {
                    applicable.iter().all(|&j| {
                        i == j || self.at_least_as_specific(&params[i], &params[j], phase)
                    })
                })
                .collect();
            let best = most.first().copied().unwrap_or(applicable[0]);
            let unsure_args = args.iter().any(|a| matches!(a, Ty::Unknown));
            let confidence = if applicable.len() == 1 || (most.len() == 1 && !unsure_args) {
                Confidence::Exact
            } else {
                Confidence::Ambiguous
            };
            let alternatives = if confidence == Confidence::Ambiguous {
                applicable
                    .iter()
                    .filter(|&&i| i != best)
                    .map(|&i| candidates[i].clone())
                    .collect()
            } else {
                Vec::new()
            };
            return Some((candidates[best].clone(), confidence, alternatives));
        }
        None
    }

    fn arity_fits(&self, c: &Found, n: usize) -> bool {
        let m = c.method();
        m.params.len() == n || (m.flags & flags::VARARGS != 0 && n + 1 >= m.params.len())
    }

    fn param_types(&self, c: &Found) -> Vec<Ty> {
        let m = c.method();
        let scopes = [m.type_params.as_slice(), c.class.sig.type_params.as_slice()];
        m.params
            .iter()
            .map(|p| self.table.instantiate(p, &c.subst, &scopes))
            .collect()
    }

    fn applicable(&self, c: &Found, params: &[Ty], args: &[Ty], phase: u8) -> bool {
        let m = c.method();
        let boxing = phase >= 2;
        if phase < 3 {
            return params.len() == args.len()
                && args
                    .iter()
                    .zip(params)
                    .all(|(a, p)| self.compatible(a, p, boxing));
        }
        if m.flags & flags::VARARGS == 0 || params.is_empty() || args.len() + 1 < params.len() {
            return false;
        }
        let n_fixed = params.len() - 1;
        let element = match &params[n_fixed] {
            Ty::Array(e) => (**e).clone(),
            _ => Ty::Unknown,
        };
        args[..n_fixed]
            .iter()
            .zip(params)
            .all(|(a, p)| self.compatible(a, p, true))
            && args[n_fixed..]
                .iter()
                .all(|a| self.compatible(a, &element, true))
    }

    fn at_least_as_specific(&self, a: &[Ty], b: &[Ty], phase: u8) -> bool {
        if phase < 3 && a.len() != b.len() {
            return false;
        }
        let last = a.len().min(b.len()).saturating_sub(1);
        a.iter().zip(b).enumerate().all(|(i, (x, y))| match (x, y) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            // Variable arity: the element types are compared, where a
            // primitive widening counts as subtyping (`float...` is more
            // specific than `double...`).
            (Ty::Array(ex), Ty::Array(ey)) if phase == 3 && i == last => {
                self.compatible(ex, ey, false)
            }
            // Subtyping only: a primitive and a reference type are never
            // subtypes of each other.
            _ => self.compatible(x, y, false),
        })
    }

    /// Whether the code of this file may call a candidate: a private
    /// member only from inside its top-level class, and a library's
    /// package-private or private members never.
    fn accessible(&self, c: &Found) -> bool {
        let m = c.method();
        let sig = &c.class.sig;
        if m.flags & flags::PRIVATE != 0 {
            let Some(decl) = sig.decl else {
                return false;
            };
            // Same file is the common case of the same top-level class;
            // another file's private members are out of reach.
            return decl.file == self.table.current_file();
        }
        if sig.decl.is_none() && m.flags & (flags::PUBLIC | flags::PROTECTED) == 0 {
            // Package-private library member: reachable only from a
            // repository class in the same package, which is rare; the
            // binary name tells the package.
            let package = sig.binary_name.rsplit_once('.').map_or("", |(p, _)| p);
            return self.facts.package.as_deref() == Some(package);
        }
        true
    }

    /// Whether an argument of type `arg` can be passed for `param`.
    fn compatible(&self, arg: &Ty, param: &Ty, boxing: bool) -> bool {
        match (arg, param) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            (Ty::Lambda(_, arity), p) => match p {
                Ty::Class(name, _) => match self.table.get(name) {
                    None => true,
                    Some(entry) if entry.sig.kind != ClassKind::Interface => false,
                    Some(_) => self
                        .table
                        .functional_method(p)
                        .is_some_and(|f| f.method().params.len() == *arity as usize),
                },
                _ => false,
            },
            (Ty::MethodRef(_), p) => match p {
                Ty::Class(name, _) => match self.table.get(name) {
                    None => true,
                    Some(_) => self.table.functional_method(p).is_some(),
                },
                _ => false,
            },
            (Ty::Null, p) => p.is_reference(),
            (Ty::Prim(a), Ty::Prim(b)) => widens(*a, *b),
            (Ty::Prim(a), Ty::Class(b, _)) => boxing && self.is_subclass(&Arc::from(a.boxed()), b),
            (Ty::Class(a, _), Ty::Prim(b)) => {
                boxing && Prim::unboxed(a).is_some_and(|u| widens(u, *b))
            }
            (Ty::Class(a, _), Ty::Class(b, _)) => self.is_subclass(a, b),
            (Ty::Array(a), Ty::Array(b)) => match (&**a, &**b) {
                (Ty::Prim(x), Ty::Prim(y)) => x == y,
                (Ty::Prim(_), _) | (_, Ty::Prim(_)) => false,
                (x, y) => self.compatible(x, y, false),
            },
            (Ty::Array(_), Ty::Class(b, _)) => {
                matches!(
                    &**b,
                    OBJECT | "java.lang.Cloneable" | "java.io.Serializable"
                )
            }
            _ => false,
        }
    }

    /// Binds the method's type variables from the arguments (and explicit
    /// type arguments, and lambda bodies), types lambda parameters and
    /// method references passed to it, and returns the call's type.
    fn infer_and_return(&mut self, index: u32, found: &Found, args: &[Ty]) -> Ty {
        let m = found.method();
        let class_params = &found.class.sig.type_params;
        let site = &self.facts.ref_sites[index as usize];
        let context = site.enclosing;
        let mut holes = found.subst.clone();
        for p in &m.type_params {
            holes.bind(p.name.clone(), Ty::class(&format!("{HOLE}{}", p.name)));
        }
        let mut bindings = Subst::default();
        // Explicit type arguments.
        if !site.type_text.is_empty() && site.type_text.starts_with('<') {
            let inner = &site.type_text[1..site.type_text.len().saturating_sub(1)];
            let explicit = split_top_level(inner);
            if explicit.len() == m.type_params.len() {
                for (p, text) in m.type_params.iter().zip(explicit) {
                    let sig = parse_type(self.q, context, text);
                    let ty = self.context_type(context, &sig);
                    bindings.bind(p.name.clone(), ty);
                }
            }
        }
        let scopes = [m.type_params.as_slice(), class_params.as_slice()];
        let patterns: Vec<Ty> = m
            .params
            .iter()
            .map(|p| self.table.instantiate(p, &holes, &scopes))
            .collect();
        let pattern_at = |i: usize| -> Option<Ty> {
            if i + 1 < patterns.len() || (i + 1 == patterns.len() && args.len() == patterns.len()) {
                let p = patterns.get(i)?.clone();
                if i + 1 == patterns.len()
                    && m.flags & flags::VARARGS != 0
                    && !matches!(args.get(i), Some(Ty::Array(_)) | Some(Ty::Null))
                    && let Ty::Array(e) = &p
                {
                    return Some((**e).clone());
                }
                Some(p)
            } else if m.flags & flags::VARARGS != 0 {
                match patterns.last()? {
                    Ty::Array(e) => Some((**e).clone()),
                    _ => None,
                }
            } else {
                None
            }
        };
        for (i, arg) in args.iter().enumerate() {
            if matches!(
                arg,
                Ty::Lambda(..) | Ty::MethodRef(_) | Ty::Unknown | Ty::Null
            ) {
                continue;
            }
            if let Some(pattern) = pattern_at(i) {
                self.unify(&pattern, arg, &mut bindings, 0);
            }
        }
        // The type the call's result is expected to have, when known.
        let hint = match self.target_hints.get(&index) {
            Some(hint) => Some(hint.clone()),
            None => match self.init_hints.get(&index).copied() {
                Some(Context::Local(local)) => Some(self.local_declared_type(local)),
                Some(Context::Field(field)) => Some(self.field_declared_type(field)),
                Some(Context::Return(method)) => Some(self.field_declared_type(method)),
                _ => None,
            },
        };
        if let Some(hint) = hint {
            let ret_pattern = self.table.instantiate(&m.ret, &holes, &scopes);
            // A target's wildcards and erased variables read as `Object`,
            // which says nothing: such bindings are left to the arguments.
            let mut from_target = Subst::default();
            self.unify(&ret_pattern, &hint, &mut from_target, 0);
            for (name, ty) in from_target.0 {
                let says_nothing = ty.class_name().is_some_and(|n| &**n == OBJECT);
                if !says_nothing && bindings.get(&name).is_none() {
                    bindings.bind(name, ty);
                }
            }
        }
        // Lambdas and method references: their targets, then what their
        // results say about the remaining variables.
        for (i, arg) in args.iter().enumerate() {
            let (Ty::Lambda(..) | Ty::MethodRef(_)) = arg else {
                continue;
            };
            let Some(pattern) = pattern_at(i) else {
                continue;
            };
            self.unify_from_argument(arg, &pattern, &mut bindings);
            let target = self.fill_holes(&pattern, &bindings, m, class_params, &found.subst);
            let Some(sam) = self.table.functional_method(&target) else {
                continue;
            };
            let sam_m = sam.method().clone();
            let sam_scopes = [
                sam_m.type_params.as_slice(),
                sam.class.sig.type_params.as_slice(),
            ];
            let result_ty = match arg {
                Ty::Lambda(lambda, _) => {
                    let param_types: Vec<Ty> = sam_m
                        .params
                        .iter()
                        .map(|p| self.table.instantiate(p, &sam.subst, &sam_scopes))
                        .collect();
                    self.lambda_params.insert(*lambda, param_types);
                    let body = self.facts.elements[*lambda as usize].init;
                    if body == NO_EXPR {
                        None
                    } else {
                        Some(self.type_of(body, *lambda))
                    }
                }
                Ty::MethodRef(ref_site) => {
                    self.method_ref_targets.insert(*ref_site, target.clone());
                    match self.site(*ref_site).target {
                        Target::Method { found, .. } => Some(self.method_ref_result(&found)),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(result) = result_ty.filter(|t| !matches!(t, Ty::Unknown)) {
                // The functional method's return type, seen with holes.
                let pattern_target = {
                    let Ty::Class(..) = &pattern else { continue };
                    pattern.clone()
                };
                if let Some(sam_holes) = self.table.functional_method(&pattern_target) {
                    let hm = sam_holes.method();
                    let scopes = [
                        hm.type_params.as_slice(),
                        sam_holes.class.sig.type_params.as_slice(),
                    ];
                    let ret_pattern = self.table.instantiate(&hm.ret, &sam_holes.subst, &scopes);
                    let boxed = box_if_primitive(&result);
                    self.unify(&ret_pattern, &boxed, &mut bindings, 0);
                }
            }
        }
        if &*m.name == "<init>" {
            return Ty::Unknown;
        }
        if &*m.name == "getClass" && m.params.is_empty() {
            return Ty::class("java.lang.Class");
        }
        let mut full = found.subst.clone();
        for (name, ty) in &bindings.0 {
            full.bind(name.clone(), ty.clone());
        }
        self.table.instantiate(&m.ret, &full, &scopes)
    }

    /// What a lambda or method reference argument says about the holes of
    /// its target before it is typed: a lambda's declared parameter types,
    /// and the qualifier of an unbound method reference (`Order::total`
    /// takes an `Order` first).
    fn unify_from_argument(&mut self, arg: &Ty, pattern: &Ty, bindings: &mut Subst) {
        let Some(sam) = self.table.functional_method(pattern) else {
            return;
        };
        let m = sam.method();
        let scopes = [
            m.type_params.as_slice(),
            sam.class.sig.type_params.as_slice(),
        ];
        let param_patterns: Vec<Ty> = m
            .params
            .iter()
            .map(|p| self.table.instantiate(p, &sam.subst, &scopes))
            .collect();
        match arg {
            Ty::Lambda(lambda, _) => {
                let facts = self.facts;
                for (i, p) in facts.elements[*lambda as usize].params.iter().enumerate() {
                    if p.type_text.is_empty() || p.type_text == "var" {
                        continue;
                    }
                    let sig = parse_type(self.q, *lambda, &p.type_text);
                    let declared = self.context_type(*lambda, &sig);
                    if let Some(pp) = param_patterns.get(i) {
                        self.unify(pp, &declared, bindings, 0);
                    }
                }
            }
            Ty::MethodRef(site) => {
                let facts = self.facts;
                let ref_site = &facts.ref_sites[*site as usize];
                if ref_site.name == "new" || param_patterns.is_empty() {
                    return;
                }
                let Receiver::Static(qualifier) = self.receiver(ref_site) else {
                    return;
                };
                let unbound = self
                    .methods_named(&qualifier, &ref_site.name)
                    .iter()
                    .any(|c| {
                        c.method().flags & flags::STATIC == 0
                            && c.method().params.len() + 1 == param_patterns.len()
                    });
                if unbound {
                    self.unify(&param_patterns[0], &qualifier, bindings, 0);
                }
            }
            _ => {}
        }
    }

    /// The type a method reference's method produces.
    fn method_ref_result(&self, found: &Found) -> Ty {
        let m = found.method();
        if &*m.name == "<init>" {
            return self.type_ty(&found.class.sig.name);
        }
        let scopes = [
            m.type_params.as_slice(),
            found.class.sig.type_params.as_slice(),
        ];
        box_if_primitive(&self.table.instantiate(&m.ret, &found.subst, &scopes))
    }

    /// Replaces the holes of a pattern with their bindings, or with the
    /// erasure of their bounds.
    fn fill_holes(
        &self,
        pattern: &Ty,
        bindings: &Subst,
        m: &MethodSig,
        class_params: &[refscope_symbols::TypeParamSig],
        class_subst: &Subst,
    ) -> Ty {
        match pattern {
            Ty::Class(name, args) => {
                if let Some(var) = name.strip_prefix(HOLE) {
                    if let Some(t) = bindings.get(var) {
                        return t.clone();
                    }
                    let scopes = [m.type_params.as_slice(), class_params];
                    return self
                        .table
                        .instantiate(&TypeSig::Var(var.into()), class_subst, &scopes);
                }
                let args: Arc<[Ty]> = args
                    .iter()
                    .map(|a| self.fill_holes(a, bindings, m, class_params, class_subst))
                    .collect();
                Ty::Class(name.clone(), args)
            }
            Ty::Array(inner) => Ty::Array(Arc::new(self.fill_holes(
                inner,
                bindings,
                m,
                class_params,
                class_subst,
            ))),
            other => other.clone(),
        }
    }

    /// Binds holes in `pattern` to the matching parts of `actual`.
    fn unify(&self, pattern: &Ty, actual: &Ty, bindings: &mut Subst, depth: u32) {
        if depth > 8 {
            return;
        }
        match (pattern, actual) {
            (Ty::Class(name, _), _) if name.starts_with(HOLE) => {
                let var = &name[HOLE.len_utf8()..];
                if bindings.get(var).is_none() && !matches!(actual, Ty::Unknown | Ty::Null) {
                    bindings.bind(var.into(), box_if_primitive(actual));
                }
            }
            (Ty::Array(p), Ty::Array(a)) => self.unify(p, a, bindings, depth + 1),
            (Ty::Class(p_name, p_args), Ty::Class(..)) if !p_args.is_empty() => {
                let Some(Ty::Class(_, a_args)) = self.table.as_super(actual, p_name) else {
                    return;
                };
                if a_args.len() == p_args.len() {
                    for (p, a) in p_args.iter().zip(a_args.iter()) {
                        self.unify(p, a, bindings, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn new_site(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let context = site.enclosing;
        let ty = if site.receiver_expr != NO_EXPR {
            // `outer.new Inner()`: a member type of the outer instance's type.
            match self.type_of(site.receiver_expr, context) {
                Ty::Class(outer, _) => {
                    let simple = site.name.rsplit('.').next().unwrap_or(&site.name);
                    match self.q.universe().member_type(&outer, simple, true) {
                        Some(key) => self.type_ty(&key),
                        None => Ty::Unknown,
                    }
                }
                _ => Ty::Unknown,
            }
        } else {
            let sig = parse_type(self.q, context, &site.type_text);
            self.context_type(context, &sig)
        };
        let Ty::Class(key, _) = &ty else {
            return Self::unresolved();
        };
        let Some(entry) = self.table.get(key) else {
            return SiteResult {
                target: Target::Unresolved,
                denoted: Denoted::Value(ty),
            };
        };
        // `new T() { ... }` is of the anonymous class: its own members
        // are callable on the expression.
        let value_ty = if site.anonymous_class == NO_ELEMENT {
            ty.clone()
        } else {
            self.this_type(site.anonymous_class)
        };
        if site.anonymous_class != NO_ELEMENT && entry.sig.kind == ClassKind::Interface {
            return SiteResult {
                target: Target::AnonymousInterface(entry),
                denoted: Denoted::Value(value_ty),
            };
        }
        let constructors = self.constructors(&entry, &ty);
        let mut result = self.choose_and_type(index, &constructors);
        result.denoted = Denoted::Value(value_ty);
        result
    }

    fn constructors(&self, entry: &Arc<ClassEntry>, ty: &Ty) -> Vec<Found> {
        let args = match ty {
            Ty::Class(_, args) => args.clone(),
            _ => Ty::no_args(),
        };
        let subst = self.table.class_subst(&entry.sig, &args);
        entry
            .sig
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| &*m.name == "<init>")
            .map(|(index, _)| Found {
                class: entry.clone(),
                index,
                subst: subst.clone(),
            })
            .collect()
    }

    fn ctor_call(&mut self, index: u32) -> SiteResult {
        let site = &self.facts.ref_sites[index as usize];
        let Some(&this) = self.enclosing_types(site.enclosing).first() else {
            return Self::unresolved();
        };
        let this_ty = self.this_type(this);
        let ty = if site.name == "super" {
            match self.table.supertypes_split(&this_ty).0 {
                Some(t) => t,
                None => return Self::unresolved(),
            }
        } else {
            this_ty
        };
        let Some(entry) = ty.class_name().and_then(|n| self.table.get(n)) else {
            return Self::unresolved();
        };
        let constructors = self.constructors(&entry, &ty);
        let mut result = self.choose_and_type(index, &constructors);
        result.denoted = Denoted::Value(Ty::Unknown);
        result
    }

    fn method_ref(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let context = site.enclosing;
        // The receiver: a type, an expression, or `super`.
        let written_type = site.receiver_expr != NO_EXPR
            && facts.exprs[site.receiver_expr as usize].kind == ExprKind::Other;
        let receiver = if written_type {
            // `ImmutableMap.Builder<K, V>::new`, `int[]::clone`: a type
            // written with arguments or dimensions.
            Receiver::None
        } else {
            self.receiver(site)
        };
        let (receiver_ty, is_type) = match receiver {
            Receiver::Value(ty) => (ty, false),
            Receiver::Static(ty) => (ty, true),
            Receiver::Implicit | Receiver::None => {
                let sig = parse_type(self.q, context, &site.receiver_text);
                let ty = self.context_type(context, &sig);
                if matches!(ty, Ty::Unknown) {
                    return Self::unresolved();
                }
                (ty, true)
            }
        };
        // The functional interface it is converted to, when known, and
        // the parameter types of its method: the "arguments" the
        // referenced method is chosen with.
        let target = self.method_ref_target(index);
        let sam_params: Option<Vec<Ty>> = target
            .as_ref()
            .and_then(|t| self.table.functional_method(t))
            .map(|f| {
                let m = f.method();
                let scopes = [m.type_params.as_slice(), f.class.sig.type_params.as_slice()];
                m.params
                    .iter()
                    .map(|p| self.table.instantiate(p, &f.subst, &scopes))
                    .collect()
            });
        let sam_arity = sam_params.as_ref().map(Vec::len);
        if site.name == "new" {
            if let Ty::Array(_) = receiver_ty {
                return SiteResult {
                    target: Target::Nothing,
                    denoted: Denoted::Value(Ty::Unknown),
                };
            }
            let Some(entry) = receiver_ty.class_name().and_then(|n| self.table.get(n)) else {
                return Self::unresolved();
            };
            let mut constructors = self.constructors(&entry, &receiver_ty);
            if let Some(args) = &sam_params
                && let Some((found, confidence, alternatives)) =
                    self.choose_applicable(&constructors, args)
            {
                return SiteResult {
                    target: Target::Method {
                        found,
                        confidence,
                        alternatives,
                    },
                    denoted: Denoted::Value(Ty::Unknown),
                };
            }
            if let Some(n) = sam_arity {
                let fitting: Vec<Found> = constructors
                    .iter()
                    .filter(|c| self.arity_fits(c, n))
                    .cloned()
                    .collect();
                if !fitting.is_empty() {
                    constructors = fitting;
                }
            }
            return self.pick_reference(constructors);
        }
        let all: Vec<Found> = self.methods_named(&receiver_ty, &site.name).to_vec();
        if let Some(args) = &sam_params {
            // `Type::m` may name a static method taking all the arguments,
            // or an instance method of the first; `expr::m` the former.
            let (statics, instances): (Vec<Found>, Vec<Found>) = all
                .iter()
                .cloned()
                .partition(|c| c.method().flags & flags::STATIC != 0);
            let mut chosen = None;
            if is_type && !args.is_empty() {
                chosen = self.choose_applicable(&instances, &args[1..]);
            }
            if chosen.is_none() {
                let pool = if is_type { statics } else { all.clone() };
                chosen = self.choose_applicable(&pool, args);
            }
            if let Some((found, confidence, alternatives)) = chosen {
                return SiteResult {
                    target: Target::Method {
                        found,
                        confidence,
                        alternatives,
                    },
                    denoted: Denoted::Value(Ty::Unknown),
                };
            }
        }
        let fitting: Vec<Found> = match sam_arity {
            Some(n) => all
                .iter()
                .filter(|c| {
                    let m = c.method();
                    let is_static = m.flags & flags::STATIC != 0;
                    if is_type {
                        (is_static && self.arity_fits(c, n))
                            || (!is_static && n >= 1 && m.params.len() == n - 1)
                    } else {
                        self.arity_fits(c, n)
                    }
                })
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        if fitting.is_empty() {
            self.pick_reference(all)
        } else {
            self.pick_reference(fitting)
        }
    }

    fn pick_reference(&self, mut candidates: Vec<Found>) -> SiteResult {
        if candidates.is_empty() {
            return Self::unresolved();
        }
        let first = candidates.remove(0);
        let confidence = if candidates.is_empty() {
            Confidence::Exact
        } else {
            Confidence::Ambiguous
        };
        SiteResult {
            target: Target::Method {
                found: first,
                confidence,
                alternatives: candidates,
            },
            denoted: Denoted::Value(Ty::Unknown),
        }
    }

    /// The functional interface type a method reference is converted to.
    fn method_ref_target(&mut self, index: u32) -> Option<Ty> {
        if let Some(t) = self.method_ref_targets.get(&index) {
            return Some(t.clone());
        }
        match *self.contexts.get(&(false, index))? {
            Context::Arg(call) => {
                self.site(call);
                self.method_ref_targets.get(&index).cloned()
            }
            Context::Local(local) => Some(self.local_declared_type(local)),
            Context::Field(field) | Context::Return(field) => Some(self.field_declared_type(field)),
        }
    }

    fn name(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let name = site.name.as_str();
        if site.receiver_expr != NO_EXPR {
            // A `case` label: a constant of the selector's enum type.
            let selector = self.type_of(site.receiver_expr, site.enclosing);
            let is_enum = selector
                .class_name()
                .and_then(|n| self.table.get(n))
                .is_some_and(|e| e.sig.kind == ClassKind::Enum);
            if is_enum && let Some((class, index, subst)) = self.field_named(&selector, name) {
                return self.field_result(class, index, &subst);
            }
        }
        // A field in scope: of an enclosing class, outward.
        for t in self.enclosing_types(site.enclosing) {
            let ty = self.this_type(t);
            if let Some((class, index, subst)) = self.field_named(&ty, name) {
                return self.field_result(class, index, &subst);
            }
        }
        if let Some((class, index)) = self.static_imported_field(name) {
            let subst = self.table.class_subst(&class.sig, &[]);
            return self.field_result(class, index, &subst);
        }
        // Otherwise a type, or a package.
        if let Some(key) = self.q.resolve_type_name(site.enclosing, name) {
            return SiteResult {
                target: Target::Nothing,
                denoted: Denoted::Type(key.into()),
            };
        }
        SiteResult {
            target: if site.is_qualifier {
                Target::Nothing
            } else {
                Target::Unresolved
            },
            denoted: Denoted::Package(name.to_string()),
        }
    }

    fn field_result(&self, class: Arc<ClassEntry>, index: usize, subst: &Subst) -> SiteResult {
        let field = &class.sig.fields[index];
        let scopes = [class.sig.type_params.as_slice()];
        let ty = self.table.instantiate(&field.ty, subst, &scopes);
        SiteResult {
            target: Target::Field { class, index },
            denoted: Denoted::Value(ty),
        }
    }

    fn field_access(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let name = site.name.as_str();
        let receiver = self.receiver(site);
        match receiver {
            Receiver::Value(Ty::Array(_)) if name == "length" => SiteResult {
                target: Target::Nothing,
                denoted: Denoted::Value(Ty::Prim(Prim::Int)),
            },
            Receiver::Value(ty) => match self.field_named(&ty, name) {
                Some((class, index, subst)) => self.field_result(class, index, &subst),
                None => Self::unresolved(),
            },
            Receiver::Static(ty) => {
                let key = ty.class_name().cloned().unwrap_or_else(|| "".into());
                if let Some((class, index, subst)) = self.field_named(&ty, name) {
                    return self.field_result(class, index, &subst);
                }
                match self.q.universe().member_type(&key, name, true) {
                    Some(member) => SiteResult {
                        target: Target::Nothing,
                        denoted: Denoted::Type(member.into()),
                    },
                    None => Self::unresolved(),
                }
            }
            Receiver::None => {
                // A package prefix: this is a type or a longer package.
                let prefix = self.package_text(site.receiver_expr);
                match prefix {
                    Some(prefix) => {
                        let full = format!("{prefix}.{name}");
                        if self.q.universe().get(&full).is_some() {
                            SiteResult {
                                target: Target::Nothing,
                                denoted: Denoted::Type(full.into()),
                            }
                        } else {
                            SiteResult {
                                target: if site.is_qualifier {
                                    Target::Nothing
                                } else {
                                    Target::Unresolved
                                },
                                denoted: Denoted::Package(full),
                            }
                        }
                    }
                    None => Self::unresolved(),
                }
            }
            Receiver::Implicit => Self::unresolved(),
        }
    }

    fn package_text(&mut self, e: u32) -> Option<String> {
        if e == NO_EXPR {
            return None;
        }
        let expr = &self.facts.exprs[e as usize];
        if expr.kind != ExprKind::Site {
            return None;
        }
        match self.site(expr.a).denoted {
            Denoted::Package(p) => Some(p),
            _ => None,
        }
    }

    // ---- receivers and types -------------------------------------------------

    fn receiver(&mut self, site: &RefSite) -> Receiver {
        let context = site.enclosing;
        let e = site.receiver_expr;
        if e == NO_EXPR {
            return match site.receiver {
                refscope_syntax::facts::ExprShape::Implicit => Receiver::Implicit,
                _ => Receiver::None,
            };
        }
        let expr = &self.facts.exprs[e as usize];
        match expr.kind {
            ExprKind::Super => {
                let Some(&this) = self.enclosing_types(context).first() else {
                    return Receiver::None;
                };
                match self.table.supertypes_split(&self.this_type(this)).0 {
                    Some(t) => Receiver::Value(t),
                    None => Receiver::Value(Ty::object()),
                }
            }
            ExprKind::QualifiedSuper => {
                let Some(key) = self.q.resolve_type_name(context, &expr.text) else {
                    return Receiver::None;
                };
                let ty = self.type_ty(&key);
                let is_interface = self
                    .table
                    .get(&key)
                    .is_some_and(|e| e.sig.kind == ClassKind::Interface);
                if is_interface {
                    Receiver::Value(ty)
                } else {
                    match self.table.supertypes_split(&ty).0 {
                        Some(t) => Receiver::Value(t),
                        None => Receiver::None,
                    }
                }
            }
            ExprKind::Site => {
                let sub = expr.a;
                let sub_kind = self.facts.ref_sites[sub as usize].kind;
                if matches!(sub_kind, RefKind::Name | RefKind::FieldAccess) {
                    match self.site(sub).denoted {
                        Denoted::Value(t) => Receiver::Value(t),
                        Denoted::Type(key) => Receiver::Static(self.type_ty(&key)),
                        Denoted::Package(_) => Receiver::None,
                    }
                } else {
                    Receiver::Value(self.type_of(e, context))
                }
            }
            _ => Receiver::Value(self.type_of(e, context)),
        }
    }

    /// The type of an argument: lambdas and method references stay
    /// markers until the method is chosen.
    fn arg_type(&mut self, e: u32, context: u32) -> Ty {
        let inner = unwrap_parens(self.facts, e);
        if inner == NO_EXPR {
            return Ty::Unknown;
        }
        let expr = &self.facts.exprs[inner as usize];
        match expr.kind {
            ExprKind::Lambda if expr.a != NO_ELEMENT => {
                let arity = self.facts.elements[expr.a as usize].params.len() as u32;
                Ty::Lambda(expr.a, arity)
            }
            ExprKind::Site if self.facts.ref_sites[expr.a as usize].kind == RefKind::MethodRef => {
                Ty::MethodRef(expr.a)
            }
            _ => self.type_of(inner, context),
        }
    }

    /// The type of an expression evaluated inside element `context`.
    fn type_of(&mut self, e: u32, context: u32) -> Ty {
        if e == NO_EXPR {
            return Ty::Unknown;
        }
        if let Some(t) = &self.expr_types[e as usize] {
            return t.clone();
        }
        if self.depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        self.depth += 1;
        let ty = self.compute_type(e, context);
        self.depth -= 1;
        self.expr_types[e as usize] = Some(ty.clone());
        ty
    }

    fn compute_type(&mut self, e: u32, context: u32) -> Ty {
        let facts = self.facts;
        let expr = &facts.exprs[e as usize];
        match expr.kind {
            ExprKind::Local => self.local_type(expr.a),
            ExprKind::Site => match self.site(expr.a).denoted {
                Denoted::Value(t) => t,
                _ => Ty::Unknown,
            },
            ExprKind::This => match self.enclosing_types(context).first() {
                Some(&t) => self.this_type(t),
                None => Ty::Unknown,
            },
            ExprKind::Super => match self.enclosing_types(context).first() {
                Some(&t) => self
                    .table
                    .supertypes_split(&self.this_type(t))
                    .0
                    .unwrap_or(Ty::Unknown),
                None => Ty::Unknown,
            },
            ExprKind::QualifiedThis => match self.q.resolve_type_name(context, &expr.text) {
                Some(key) => self.type_ty(&key),
                None => Ty::Unknown,
            },
            ExprKind::QualifiedSuper => Ty::Unknown,
            ExprKind::StringLit => Ty::class(STRING),
            ExprKind::CharLit => Ty::Prim(Prim::Char),
            ExprKind::IntLit => Ty::Prim(Prim::Int),
            ExprKind::LongLit => Ty::Prim(Prim::Long),
            ExprKind::FloatLit => Ty::Prim(Prim::Float),
            ExprKind::DoubleLit => Ty::Prim(Prim::Double),
            ExprKind::BoolLit => Ty::Prim(Prim::Boolean),
            ExprKind::NullLit => Ty::Null,
            ExprKind::ClassLit => {
                let sig = parse_type(self.q, context, &expr.text);
                let arg = box_if_primitive(&self.context_type(context, &sig));
                Ty::Class("java.lang.Class".into(), Arc::from([arg]))
            }
            ExprKind::Cast | ExprKind::NewArray => {
                let text = expr.text.split(['&', '|']).next().unwrap_or("").trim();
                let sig = parse_type(self.q, context, text);
                self.context_type(context, &sig)
            }
            ExprKind::ArrayAccess => match self.type_of(expr.a, context) {
                Ty::Array(inner) => (*inner).clone(),
                _ => Ty::Unknown,
            },
            ExprKind::Conditional => {
                let a = self.type_of(expr.a, context);
                let b = self.type_of(expr.b, context);
                self.conditional_type(a, b)
            }
            ExprKind::Paren => self.type_of(expr.a, context),
            ExprKind::Binary => {
                let op = expr.text.as_str();
                match op {
                    "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => Ty::Prim(Prim::Boolean),
                    _ => {
                        let a = self.type_of(expr.a, context);
                        let b = self.type_of(expr.b, context);
                        binary_type(op, &a, &b)
                    }
                }
            }
            ExprKind::Unary => {
                let a = self.type_of(expr.a, context);
                match expr.text.as_str() {
                    "!" => Ty::Prim(Prim::Boolean),
                    "++" | "--" => a,
                    _ => match unbox(&a) {
                        Some(p) => Ty::Prim(promote(p)),
                        None => Ty::Unknown,
                    },
                }
            }
            ExprKind::Assign => self.type_of(expr.a, context),
            ExprKind::InstanceOf => Ty::Prim(Prim::Boolean),
            ExprKind::Lambda | ExprKind::ArrayInit | ExprKind::Switch | ExprKind::Other => {
                Ty::Unknown
            }
        }
    }

    fn conditional_type(&self, a: Ty, b: Ty) -> Ty {
        if a == b {
            return a;
        }
        match (&a, &b) {
            (Ty::Null, other) | (other, Ty::Null) => box_if_primitive(other),
            (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
            _ => match (unbox(&a), unbox(&b)) {
                (Some(x), Some(y)) if x != Prim::Boolean && y != Prim::Boolean => {
                    Ty::Prim(binary_promote(x, y))
                }
                (Some(Prim::Boolean), Some(Prim::Boolean)) => Ty::Prim(Prim::Boolean),
                _ => match (&a, &b) {
                    (Ty::Class(x, _), Ty::Class(y, _)) if self.is_subclass(x, y) => b,
                    (Ty::Class(x, _), Ty::Class(y, _)) if self.is_subclass(y, x) => a,
                    _ => Ty::Unknown,
                },
            },
        }
    }

    fn local_type(&mut self, local: u32) -> Ty {
        if let Some(t) = &self.local_types[local as usize] {
            return t.clone();
        }
        // Guard against a cycle through the initializer.
        self.local_types[local as usize] = Some(Ty::Unknown);
        let ty = self.compute_local_type(local);
        self.local_types[local as usize] = Some(ty.clone());
        ty
    }

    fn compute_local_type(&mut self, local: u32) -> Ty {
        let facts = self.facts;
        let var = &facts.locals[local as usize];
        if var.type_text.is_empty() {
            // A lambda parameter without a declared type.
            let lambda = var.enclosing;
            if lambda == NO_ELEMENT {
                return Ty::Unknown;
            }
            let position = facts.elements[lambda as usize]
                .params
                .iter()
                .position(|p| p.name == var.name);
            return match position {
                Some(i) => self.lambda_param_type(lambda, i),
                None => Ty::Unknown,
            };
        }
        if var.type_text == "var" {
            if var.init == NO_EXPR {
                return Ty::Unknown;
            }
            let init = self.type_of(var.init, var.enclosing);
            return if var.foreach {
                self.element_type(&init)
            } else {
                init
            };
        }
        self.local_declared_type(local)
    }

    fn local_declared_type(&self, local: u32) -> Ty {
        let var = &self.facts.locals[local as usize];
        let text = var.type_text.split('|').next().unwrap_or("").trim();
        let sig = parse_type(self.q, var.enclosing, text);
        self.context_type(var.enclosing, &sig)
    }

    /// The declared type of a field, or the return type of a method.
    fn field_declared_type(&self, field: u32) -> Ty {
        let element = &self.facts.elements[field as usize];
        let sig = parse_type(self.q, field, &element.type_text);
        self.context_type(field, &sig)
    }

    /// The element type of an array or `Iterable`.
    fn element_type(&self, ty: &Ty) -> Ty {
        match ty {
            Ty::Array(inner) => (**inner).clone(),
            Ty::Class(..) => match self.table.as_super(ty, "java.lang.Iterable") {
                Some(Ty::Class(_, args)) if args.len() == 1 => args[0].clone(),
                _ => Ty::Unknown,
            },
            _ => Ty::Unknown,
        }
    }

    fn lambda_param_type(&mut self, lambda: u32, i: usize) -> Ty {
        if let Some(params) = self.lambda_params.get(&lambda) {
            return params.get(i).cloned().unwrap_or(Ty::Unknown);
        }
        let target = match self.contexts.get(&(true, lambda)).copied() {
            Some(Context::Arg(call)) => {
                self.site(call);
                return self
                    .lambda_params
                    .get(&lambda)
                    .and_then(|p| p.get(i).cloned())
                    .unwrap_or(Ty::Unknown);
            }
            Some(Context::Local(local)) => self.local_declared_type(local),
            Some(Context::Field(field)) | Some(Context::Return(field)) => {
                self.field_declared_type(field)
            }
            None => return Ty::Unknown,
        };
        let Some(sam) = self.table.functional_method(&target) else {
            return Ty::Unknown;
        };
        let m = sam.method();
        let scopes = [
            m.type_params.as_slice(),
            sam.class.sig.type_params.as_slice(),
        ];
        let params: Vec<Ty> = m
            .params
            .iter()
            .map(|p| self.table.instantiate(p, &sam.subst, &scopes))
            .collect();
        let ty = params.get(i).cloned().unwrap_or(Ty::Unknown);
        self.lambda_params.insert(lambda, params);
        ty
    }

    /// A type written in element `context`: type variables in scope
    /// become the erasure of their bounds.
    fn context_type(&self, context: u32, sig: &TypeSig) -> Ty {
        let mut subst = Subst::default();
        self.bind_type_variables(context, sig, &mut subst, 0);
        self.table.instantiate(sig, &subst, &[])
    }

    fn bind_type_variables(&self, context: u32, sig: &TypeSig, subst: &mut Subst, depth: u32) {
        match sig {
            TypeSig::Var(name) => {
                if subst.get(name).is_some() || depth > 8 {
                    return;
                }
                let bound = match self.q.type_variable(context, name) {
                    Some((declaring, Some(bound))) => {
                        let bound_sig = parse_type(self.q, declaring, bound);
                        // Bounds naming the variable itself (`T extends
                        // Comparable<T>`) are erased raw.
                        match bound_sig {
                            TypeSig::Class { name, .. } => Ty::Class(name, Ty::no_args()),
                            _ => Ty::object(),
                        }
                    }
                    _ => Ty::object(),
                };
                subst.bind(name.clone(), bound);
            }
            TypeSig::Class { args, .. } => {
                for a in args {
                    match a {
                        refscope_symbols::TypeArg::Type(t)
                        | refscope_symbols::TypeArg::Extends(t)
                        | refscope_symbols::TypeArg::Super(t) => {
                            self.bind_type_variables(context, t, subst, depth + 1)
                        }
                        refscope_symbols::TypeArg::Any => {}
                    }
                }
            }
            TypeSig::Array(inner) => self.bind_type_variables(context, inner, subst, depth + 1),
            _ => {}
        }
    }
}

/// A call's receiver, classified.
enum Receiver {
    /// No receiver: an unqualified call or name.
    Implicit,
    /// An instance of this type.
    Value(Ty),
    /// A type name: static members.
    Static(Ty),
    /// A package, or a receiver that could not be classified.
    None,
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

fn box_if_primitive(ty: &Ty) -> Ty {
    match ty {
        Ty::Prim(p) if *p != Prim::Void => Ty::class(p.boxed()),
        other => other.clone(),
    }
}

fn unbox(ty: &Ty) -> Option<Prim> {
    match ty {
        Ty::Prim(p) => Some(*p),
        Ty::Class(name, _) => Prim::unboxed(name),
        _ => None,
    }
}

/// Widening primitive conversion (identity included).
fn widens(from: Prim, to: Prim) -> bool {
    use Prim::*;
    from == to
        || matches!(
            (from, to),
            (Byte, Short | Int | Long | Float | Double)
                | (Short, Int | Long | Float | Double)
                | (Char, Int | Long | Float | Double)
                | (Int, Long | Float | Double)
                | (Long, Float | Double)
                | (Float, Double)
        )
}

fn promote(p: Prim) -> Prim {
    match p {
        Prim::Byte | Prim::Short | Prim::Char => Prim::Int,
        other => other,
    }
}

fn binary_promote(a: Prim, b: Prim) -> Prim {
    use Prim::*;
    if a == Double || b == Double {
        Double
    } else if a == Float || b == Float {
        Float
    } else if a == Long || b == Long {
        Long
    } else {
        Int
    }
}

fn binary_type(op: &str, a: &Ty, b: &Ty) -> Ty {
    let is_string = |t: &Ty| t.class_name().is_some_and(|n| &**n == STRING);
    if op == "+" && (is_string(a) || is_string(b)) {
        return Ty::class(STRING);
    }
    let (Some(x), Some(y)) = (unbox(a), unbox(b)) else {
        return Ty::Unknown;
    };
    match op {
        "<<" | ">>" | ">>>" => Ty::Prim(promote(x)),
        "&" | "|" | "^" if x == Prim::Boolean && y == Prim::Boolean => Ty::Prim(Prim::Boolean),
        _ => Ty::Prim(binary_promote(x, y)),
    }
}
