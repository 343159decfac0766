//! Method calls, `new` and `this(...)`/`super(...)`: the candidates a
//! call site can mean, static imports included.

use super::types::Receiver;
use super::{Denoted, FileResolver, SiteResult, Target, unwrap_parens};
use crate::class::ClassEntry;
use crate::sig::parse_type;
use crate::ty::{Found, Ty, TyArgs};
use refscope_symbols::{ClassKind, flags};
use refscope_syntax::facts::{ExprKind, NO_ELEMENT, NO_EXPR};
use std::sync::Arc;

impl FileResolver<'_> {
    pub(super) fn call(&mut self, index: u32) -> SiteResult {
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
    pub(super) fn other_bounds(&self, e: u32) -> Vec<Ty> {
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
    pub(super) fn static_import_owners<'n>(
        &'n self,
        name: &'n str,
    ) -> impl Iterator<Item = Ty> + 'n {
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

    pub(super) fn static_imported_methods(&self, name: &str) -> Vec<Found> {
        self.static_import_owners(name)
            .map(|owner| {
                self.scope
                    .methods_named(&owner, name)
                    .iter()
                    .filter(|f| f.method().flags & flags::STATIC != 0)
                    .cloned()
                    .collect::<Vec<Found>>()
            })
            .find(|found| !found.is_empty())
            .unwrap_or_default()
    }

    pub(super) fn static_imported_field(&self, name: &str) -> Option<(Arc<ClassEntry>, usize)> {
        self.static_import_owners(name).find_map(|owner| {
            let (class, index, _) = self.field_named(&owner, name)?;
            (class.sig.fields[index].flags & flags::STATIC != 0).then_some((class, index))
        })
    }

    pub(super) fn new_site(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let context = site.enclosing;
        let ty = if site.receiver_expr != NO_EXPR {
            // `outer.new Inner()`: a member type of the outer instance's type.
            match self.type_of(site.receiver_expr, context) {
                Ty::Class(outer, _) => {
                    let simple = site.name.rsplit('.').next().unwrap_or(&site.name);
                    match self.q.member_type(&outer, simple, true) {
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
        let Some(entry) = self.scope.get(key) else {
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

    pub(super) fn constructors(&self, entry: &Arc<ClassEntry>, ty: &Ty) -> Vec<Found> {
        let args = match ty {
            Ty::Class(_, args) => args.clone(),
            _ => TyArgs::NONE,
        };
        let subst = self.scope.class_subst(&entry.sig, &args);
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

    pub(super) fn ctor_call(&mut self, index: u32) -> SiteResult {
        let site = &self.facts.ref_sites[index as usize];
        let Some(&this) = self.enclosing_types(site.enclosing).first() else {
            return Self::unresolved();
        };
        let this_ty = self.this_type(this);
        let ty = if site.name == "super" {
            match self.scope.supertypes_split(&this_ty).0 {
                Some(t) => t,
                None => return Self::unresolved(),
            }
        } else {
            this_ty
        };
        let Some(entry) = ty.class_name().and_then(|n| self.scope.get(n)) else {
            return Self::unresolved();
        };
        let constructors = self.constructors(&entry, &ty);
        let mut result = self.choose_and_type(index, &constructors);
        result.denoted = Denoted::Value(Ty::Unknown);
        result
    }
}
