//! Names and field accesses: locals, fields (declared or inherited),
//! static imports, types and packages.

use super::types::Receiver;
use super::{Denoted, FileResolver, SiteResult, Target};
use crate::class::ClassEntry;
use crate::ty::{Subst, Ty};
use refscope_symbols::{ClassKind, Prim};
use refscope_syntax::facts::{ExprKind, NO_EXPR};
use std::sync::Arc;

impl FileResolver<'_> {
    pub(super) fn name(&mut self, index: u32) -> SiteResult {
        let facts = self.facts;
        let site = &facts.ref_sites[index as usize];
        let name = site.name.as_str();
        if site.receiver_expr != NO_EXPR {
            // A `case` label: a constant of the selector's enum type.
            let selector = self.type_of(site.receiver_expr, site.enclosing);
            let is_enum = selector
                .class_name()
                .and_then(|n| self.scope.get(n))
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
            let subst = self.scope.class_subst(&class.sig, &[]);
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

    pub(super) fn field_result(
        &self,
        class: Arc<ClassEntry>,
        index: usize,
        subst: &Subst,
    ) -> SiteResult {
        let field = &class.sig.fields[index];
        let scopes = [class.sig.type_params.as_slice()];
        let ty = self.scope.instantiate(&field.ty, subst, &scopes);
        SiteResult {
            target: Target::Field { class, index },
            denoted: Denoted::Value(ty),
        }
    }

    pub(super) fn field_access(&mut self, index: u32) -> SiteResult {
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
                match self.q.member_type(&key, name, true) {
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
                        if self.q.universe().contains(&full, self.q.log()) {
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

    pub(super) fn package_text(&mut self, e: u32) -> Option<String> {
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
}
