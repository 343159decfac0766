//! Inference of a generic method's type arguments from its arguments,
//! its explicit type arguments, lambda bodies and the target type, and
//! the call's type once they are known.

use super::conversions::box_if_primitive;
use super::types::Receiver;
use super::{Context, FileResolver, HOLE, Target, split_top_level};
use crate::sig::parse_type;
use crate::ty::{Found, OBJECT, Subst, Ty, TyArgs};
use refscope_symbols::{MethodSig, TypeSig, flags};
use refscope_syntax::facts::NO_EXPR;
use std::sync::Arc;

impl FileResolver<'_> {
    /// Binds the method's type variables from the arguments (and explicit
    /// type arguments, and lambda bodies), types lambda parameters and
    /// method references passed to it, and returns the call's type.
    pub(super) fn infer_and_return(&mut self, index: u32, found: &Found, args: &[Ty]) -> Ty {
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
            .map(|p| self.scope.instantiate(p, &holes, &scopes))
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
            let ret_pattern = self.scope.instantiate(&m.ret, &holes, &scopes);
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
            let Some(sam) = self.scope.functional_method(&target) else {
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
                        .map(|p| self.scope.instantiate(p, &sam.subst, &sam_scopes))
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
                if let Some(sam_holes) = self.scope.functional_method(&pattern_target) {
                    let hm = sam_holes.method();
                    let scopes = [
                        hm.type_params.as_slice(),
                        sam_holes.class.sig.type_params.as_slice(),
                    ];
                    let ret_pattern = self.scope.instantiate(&hm.ret, &sam_holes.subst, &scopes);
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
        self.scope.instantiate(&m.ret, &full, &scopes)
    }

    /// What a lambda or method reference argument says about the holes of
    /// its target before it is typed: a lambda's declared parameter types,
    /// and the qualifier of an unbound method reference (`Order::total`
    /// takes an `Order` first).
    pub(super) fn unify_from_argument(&mut self, arg: &Ty, pattern: &Ty, bindings: &mut Subst) {
        let Some(sam) = self.scope.functional_method(pattern) else {
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
            .map(|p| self.scope.instantiate(p, &sam.subst, &scopes))
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
    pub(super) fn method_ref_result(&self, found: &Found) -> Ty {
        let m = found.method();
        if &*m.name == "<init>" {
            return self.type_ty(&found.class.sig.name);
        }
        let scopes = [
            m.type_params.as_slice(),
            found.class.sig.type_params.as_slice(),
        ];
        box_if_primitive(&self.scope.instantiate(&m.ret, &found.subst, &scopes))
    }

    /// Replaces the holes of a pattern with their bindings, or with the
    /// erasure of their bounds.
    pub(super) fn fill_holes(
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
                        .scope
                        .instantiate(&TypeSig::Var(var.into()), class_subst, &scopes);
                }
                let args: TyArgs = args
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
    pub(super) fn unify(&self, pattern: &Ty, actual: &Ty, bindings: &mut Subst, depth: u32) {
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
                let Some(Ty::Class(_, a_args)) = self.scope.as_super(actual, p_name) else {
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
}
