//! How far a changed class key reaches: which of the files that looked
//! the key up can resolve differently.
//!
//! A file reaches a class's members only by their names (see
//! [`refscope_syntax::mentions`]), so when a class changes nothing but
//! members, only files spelling a changed member's name need resolving
//! again. Everything else a file may depend on without naming it — the
//! class's header (kind, flags, type parameters, supertypes, where it is
//! declared), its declaring files, an interface's abstract methods (a
//! lambda reaches its functional method unnamed), an annotation's
//! elements, an anonymous or local class — reaches every file that
//! looked the key up.

use std::collections::BTreeSet;
use std::sync::Arc;

use refscope_resolve::ClassEntry;
use refscope_symbols::{ClassKind, FieldSig, MethodSig};

use super::stored::KeyEntry;

/// Which of a changed key's readers it reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every file that looked the key up.
    Whole,
    /// The files that looked the key up and spell one of these member
    /// names (a constructor is spelled by its class's simple name).
    Members(BTreeSet<String>),
}

impl Reach {
    /// How far the change of `key` from `before` to `now` reaches.
    pub(crate) fn of(key: &str, before: &KeyEntry, now: &KeyEntry) -> Reach {
        if before.declarers != now.declarers
            || before.declared.len() != now.declared.len()
            || key.contains('$')
        {
            return Reach::Whole;
        }
        let mut names = BTreeSet::new();
        for ((before_type, before_classes), (now_type, now_classes)) in
            before.declared.iter().zip(&now.declared)
        {
            if before_type != now_type || before_classes.len() != now_classes.len() {
                return Reach::Whole;
            }
            for (b, n) in before_classes.iter().zip(now_classes) {
                if !same_header(b, n) {
                    return Reach::Whole;
                }
                changed_members(b, n, &mut names);
            }
        }
        Reach::Members(names)
    }
}

/// Whether two declarations of a class agree on everything but their
/// members, and their members are reached by name only.
fn same_header(before: &ClassEntry, now: &ClassEntry) -> bool {
    let (b, n) = (&*before.sig, &*now.sig);
    !matches!(n.kind, ClassKind::Interface | ClassKind::Annotation)
        && b.name == n.name
        && b.binary_name == n.binary_name
        && b.kind == n.kind
        && b.flags == n.flags
        && b.type_params == n.type_params
        && b.outer_type_params == n.outer_type_params
        && b.superclass == n.superclass
        && b.interfaces == n.interfaces
        && b.decl == n.decl
}

/// Adds to `names` the name of every member declared differently by
/// `before` and `now`: methods compared by name as a group (signatures,
/// erased parameters and where each is declared, in order), fields one
/// by one.
fn changed_members(before: &ClassEntry, now: &ClassEntry, names: &mut BTreeSet<String>) {
    let simple = now.sig.name.rsplit('.').next().unwrap_or(&now.sig.name);
    let spelled = |name: &str| {
        if name == "<init>" {
            simple.to_string()
        } else {
            name.to_string()
        }
    };
    let method_names: BTreeSet<&Arc<str>> = before
        .sig
        .methods
        .iter()
        .chain(&now.sig.methods)
        .map(|m| &m.name)
        .collect();
    for name in method_names {
        if methods(before, name) != methods(now, name) {
            names.insert(spelled(name));
        }
    }
    let field_names: BTreeSet<&Arc<str>> = before
        .sig
        .fields
        .iter()
        .chain(&now.sig.fields)
        .map(|f| &f.name)
        .collect();
    for name in field_names {
        if fields(before, name) != fields(now, name) {
            names.insert(name.to_string());
        }
    }
}

/// The methods of `entry` named `name`, each with its erased parameters.
fn methods<'e>(
    entry: &'e ClassEntry,
    name: &str,
) -> Vec<(&'e MethodSig, Option<&'e Vec<Arc<str>>>)> {
    let erased = entry
        .erased_params
        .iter()
        .map(Some)
        .chain(std::iter::repeat(None));
    entry
        .sig
        .methods
        .iter()
        .zip(erased)
        .filter(|(m, _)| &*m.name == name)
        .collect()
}

/// The fields of `entry` named `name`.
fn fields<'e>(entry: &'e ClassEntry, name: &str) -> Vec<&'e FieldSig> {
    entry
        .sig
        .fields
        .iter()
        .filter(|f| &*f.name == name)
        .collect()
}
