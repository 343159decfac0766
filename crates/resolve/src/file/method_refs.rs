//! Method references (`T::m`, `expr::m`, `T::new`): the functional
//! interface they target decides the method among overloads.

use super::types::Receiver;
use super::{Context, Denoted, FileResolver, SiteResult, Target};
use crate::Confidence;
use crate::sig::parse_type;
use crate::ty::{Found, Ty};
use refscope_symbols::flags;
use refscope_syntax::facts::{ExprKind, NO_EXPR};

impl FileResolver<'_> {
    pub(super) fn method_ref(&mut self, index: u32) -> SiteResult {
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
            .and_then(|t| self.scope.functional_method(t))
            .map(|f| {
                let m = f.method();
                let scopes = [m.type_params.as_slice(), f.class.sig.type_params.as_slice()];
                m.params
                    .iter()
                    .map(|p| self.scope.instantiate(p, &f.subst, &scopes))
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
            let Some(entry) = receiver_ty.class_name().and_then(|n| self.scope.get(n)) else {
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

    pub(super) fn pick_reference(&self, mut candidates: Vec<Found>) -> SiteResult {
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
    pub(super) fn method_ref_target(&mut self, index: u32) -> Option<Ty> {
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
}
