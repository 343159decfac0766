//! Canonical names of a file's type elements, and the part of a file's
//! facts the type universe needs ([`type_skeleton`]).

use refscope_syntax::facts::{ElementKind, FileFacts, NO_ELEMENT};

/// The canonical name of a type element, if it has one (local and
/// anonymous classes, and members of those, have none).
pub fn canonical_name(facts: &FileFacts, index: u32) -> Option<String> {
    let element = &facts.elements[index as usize];
    extend_canonical(facts, element, |parent| canonical_name(facts, parent))
}

/// [`canonical_name`] of every element of `facts`, by element index. An
/// element comes after its parent, whose name it extends.
pub fn canonical_names(facts: &FileFacts) -> Vec<Option<String>> {
    let mut names: Vec<Option<String>> = Vec::with_capacity(facts.elements.len());
    for element in &facts.elements {
        let name = extend_canonical(facts, element, |parent| match names.get(parent as usize) {
            Some(outer) => outer.clone(),
            // Not in document order: a record from elsewhere.
            None => canonical_name(facts, parent),
        });
        names.push(name);
    }
    names
}

/// The canonical name of `element`, given `outer`, which tells that of
/// its parent element when it has one.
fn extend_canonical(
    facts: &FileFacts,
    element: &refscope_syntax::facts::Element,
    outer: impl FnOnce(u32) -> Option<String>,
) -> Option<String> {
    if !element.kind.is_type() || element.kind == ElementKind::AnonymousClass || element.is_local {
        return None;
    }
    if element.parent == NO_ELEMENT {
        return Some(match &facts.package {
            Some(package) => join_name(package, &element.name),
            None => element.name.clone(),
        });
    }
    Some(join_name(&outer(element.parent)?, &element.name))
}

/// `outer.name`.
pub(crate) fn join_name(outer: &str, name: &str) -> String {
    let mut joined = String::with_capacity(outer.len() + 1 + name.len());
    joined.push_str(outer);
    joined.push('.');
    joined.push_str(name);
    joined
}

/// The part of a file's facts that the type universe needs: package,
/// imports, and the type elements with the elements enclosing them (parent
/// indices renumbered). Much smaller than the facts, so a whole revision's
/// skeletons fit in memory at once.
pub fn type_skeleton(facts: &FileFacts) -> FileFacts {
    let n = facts.elements.len();
    let mut keep = vec![false; n];
    for (index, element) in facts.elements.iter().enumerate() {
        if element.kind.is_type() {
            for ancestor in facts.ancestry(index as u32) {
                if keep[ancestor as usize] {
                    break;
                }
                keep[ancestor as usize] = true;
            }
        }
    }
    let mut renumbered = vec![NO_ELEMENT; n];
    let mut elements = Vec::new();
    for (index, element) in facts.elements.iter().enumerate() {
        if !keep[index] {
            continue;
        }
        renumbered[index] = elements.len() as u32;
        let mut copy = element.clone();
        copy.parent = if element.parent == NO_ELEMENT {
            NO_ELEMENT
        } else {
            renumbered[element.parent as usize]
        };
        copy.annotations.clear();
        copy.params.clear();
        copy.throws.clear();
        elements.push(copy);
    }
    FileFacts {
        package: facts.package.clone(),
        imports: facts.imports.clone(),
        elements,
        ..FileFacts::default()
    }
}
