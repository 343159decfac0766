//! Overload resolution as javac does it: applicable candidates in three
//! phases (no boxing, boxing, varargs), then the most specific one.

use super::conversions::widens;
use super::{Denoted, FileResolver, SiteResult, SiteState, Target, unwrap_parens};
use crate::Confidence;
use crate::ty::{Found, OBJECT, Ty};
use refscope_symbols::{ClassKind, Prim, flags};
use refscope_syntax::facts::{ExprKind, NO_EXPR, RefKind};
use std::sync::Arc;

impl FileResolver<'_> {
    /// Picks the method of a call among candidates and types the call.
    pub(super) fn choose_and_type(&mut self, index: u32, candidates: &[Found]) -> SiteResult {
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
    pub(super) fn hint_argument_targets(&mut self, index: u32, candidates: &[Found]) {
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
    pub(super) fn choose(
        &self,
        candidates: &[Found],
        args: &[Ty],
    ) -> (Found, Confidence, Vec<Found>) {
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
    pub(super) fn choose_applicable(
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
            // An argument whose class, or a class above it, is missing
            // (a jar not on the class path) may convert to a parameter
            // type that it was not found to convert to: then any other
            // candidate of its arity might be javac's choice.
            let others_of_arity = || {
                (0..candidates.len()).filter(|&i| {
                    i != best && accessible[i] && self.arity_fits(&candidates[i], args.len())
                })
            };
            let exact = applicable.len() == 1 || (most.len() == 1 && !unsure_args);
            let alternatives: Vec<Found> = if !exact {
                applicable
                    .iter()
                    .filter(|&&i| i != best)
                    .map(|&i| candidates[i].clone())
                    .collect()
            } else if others_of_arity().next().is_some()
                && args.iter().any(|a| self.partly_known(a))
            {
                others_of_arity().map(|i| candidates[i].clone()).collect()
            } else {
                return Some((candidates[best].clone(), Confidence::Exact, Vec::new()));
            };
            return Some((
                candidates[best].clone(),
                Confidence::Ambiguous,
                alternatives,
            ));
        }
        None
    }

    /// Whether what `ty` converts to is only partly known: it is a class
    /// (or an array of one) that is missing, or that a missing class is
    /// above.
    fn partly_known(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Array(element) => self.partly_known(element),
            Ty::Class(name, _) => {
                if let Some(&known) = self.partly_known_cache.borrow().get(name) {
                    return known;
                }
                let answer = self.scope.hierarchy(ty).iter().any(|t| match t {
                    Ty::Class(name, _) => self.scope.get(name).is_none(),
                    _ => false,
                });
                self.partly_known_cache
                    .borrow_mut()
                    .insert(name.clone(), answer);
                answer
            }
            _ => false,
        }
    }

    pub(super) fn arity_fits(&self, c: &Found, n: usize) -> bool {
        let m = c.method();
        m.params.len() == n || (m.flags & flags::VARARGS != 0 && n + 1 >= m.params.len())
    }

    pub(super) fn param_types(&self, c: &Found) -> Vec<Ty> {
        let m = c.method();
        let scopes = [m.type_params.as_slice(), c.class.sig.type_params.as_slice()];
        m.params
            .iter()
            .map(|p| self.scope.instantiate(p, &c.subst, &scopes))
            .collect()
    }

    pub(super) fn applicable(&self, c: &Found, params: &[Ty], args: &[Ty], phase: u8) -> bool {
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

    pub(super) fn at_least_as_specific(&self, a: &[Ty], b: &[Ty], phase: u8) -> bool {
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
    pub(super) fn accessible(&self, c: &Found) -> bool {
        let m = c.method();
        let sig = &c.class.sig;
        if m.flags & flags::PRIVATE != 0 {
            let Some(decl) = sig.decl else {
                return false;
            };
            // Same file is the common case of the same top-level class;
            // another file's private members are out of reach.
            return decl.file == self.scope.file();
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
    pub(super) fn compatible(&self, arg: &Ty, param: &Ty, boxing: bool) -> bool {
        match (arg, param) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            (Ty::Lambda(_, arity), p) => match p {
                Ty::Class(name, _) => match self.scope.get(name) {
                    None => true,
                    Some(entry) if entry.sig.kind != ClassKind::Interface => false,
                    Some(_) => self
                        .scope
                        .functional_method(p)
                        .is_some_and(|f| f.method().params.len() == *arity as usize),
                },
                _ => false,
            },
            (Ty::MethodRef(_), p) => match p {
                Ty::Class(name, _) => match self.scope.get(name) {
                    None => true,
                    Some(_) => self.scope.functional_method(p).is_some(),
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
}
