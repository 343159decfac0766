//! A site's resolution as the store keeps it: the target's owner, name,
//! erased parameters and declaration, and how sure it is.

use super::{FileResolver, SiteResult, Target};
use crate::class::ClassEntry;
use crate::ty::{Found, Subst};
use crate::{Confidence, RefTargetKind, ResolvedRef};
use refscope_symbols::flags;
use refscope_syntax::facts::{NO_ORDINAL, RefKind};

impl FileResolver<'_> {
    pub(super) fn output(&self, index: u32, result: &SiteResult) -> Option<ResolvedRef> {
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
                    out.decl_file = self.scope.path_of(d.file);
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
                    out.decl_file = self.scope.path_of(d.file);
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
                    out.decl_file = self.scope.path_of(d.file);
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

    pub(super) fn certain(&self, class: &ClassEntry) -> Confidence {
        if class.is_source() {
            Confidence::Exact
        } else {
            Confidence::External
        }
    }

    /// The element id of a method found by lookup, as element records
    /// and [`ResolvedRef::target_id`] spell it.
    pub(super) fn method_id(&self, found: &Found) -> String {
        crate::records::member_id(
            &found.class.sig.binary_name,
            &found.method().name,
            Some(&self.erased_params(found)),
        )
    }

    pub(super) fn erased_params(&self, found: &Found) -> Vec<String> {
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
                self.scope
                    .instantiate(p, &Subst::default(), &scopes)
                    .erased_name()
            })
            .collect()
    }
}
