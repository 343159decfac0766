//! What each method of a file overrides and each type extends: the
//! links that, read backwards, give implementations and subtypes.

use super::FileResolver;
use crate::Override;
use crate::sig::class_key;
use crate::ty::{Found, OBJECT, Ty};
use refscope_symbols::flags;
use refscope_syntax::facts::NO_ELEMENT;

impl FileResolver<'_> {
    /// What each method of the file overrides.
    pub(crate) fn overrides(&self) -> Vec<Override> {
        let mut out = Vec::new();
        for (index, element) in self.facts.elements.iter().enumerate() {
            if element.kind.is_type() {
                // A type "overrides" its direct supertypes: the links read
                // backwards give subtypes.
                let (superclass, interfaces) =
                    self.scope.supertypes_split(&self.this_type(index as u32));
                let mut targets: Vec<String> = superclass
                    .into_iter()
                    .chain(interfaces)
                    .filter_map(|t| {
                        let name = t.class_name()?;
                        (&**name != OBJECT)
                            .then(|| self.scope.get(name))
                            .flatten()
                            .map(|e| String::from(&*e.sig.binary_name))
                    })
                    .collect();
                targets.dedup();
                if !targets.is_empty() {
                    out.push(Override {
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
            let Some(entry) = self.scope.get(&class_key(self.facts, owner)) else {
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
                subst: self.scope.class_subst(&entry.sig, &[]),
            };
            let own_params: Vec<String> = self
                .param_types(&own_found)
                .iter()
                .map(Ty::erased_name)
                .collect();
            let mut matches: Vec<Found> = Vec::new();
            for t in self.scope.hierarchy(&own_ty).iter().skip(1) {
                let Ty::Class(name, args) = t else { continue };
                let Some(sup) = self.scope.get(name) else {
                    continue;
                };
                let subst = self.scope.class_subst(&sup.sig, args);
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
                                .scope
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
            out.push(Override {
                element: index as u32,
                targets,
            });
        }
        out
    }
}
