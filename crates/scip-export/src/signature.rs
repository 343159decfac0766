//! The Java signature of a declared element, as hover text, and its SCIP
//! kind.

use refscope_engine::{Element, ElementKind};
use scip::types::symbol_information::Kind;

/// The declaration's signature as Java: modifiers, type parameters, types
/// as written, name and parameters (no annotations, no bodies).
/// `type_name` is the simple name of the declaring type, for constructors.
pub fn signature_text(element: &Element, type_name: &str) -> String {
    let mut words: Vec<String> = element.modifiers.keywords().map(str::to_string).collect();
    let type_params = type_parameters(element);
    let params = || {
        let list: Vec<String> = element
            .params
            .iter()
            .map(|p| {
                if p.type_text.is_empty() {
                    p.name.clone()
                } else {
                    format!("{} {}", p.type_text, p.name)
                }
            })
            .collect();
        format!("({})", list.join(", "))
    };
    let throws = if element.throws.is_empty() {
        String::new()
    } else {
        format!(" throws {}", element.throws.join(", "))
    };
    match element.kind {
        kind if kind.is_type() && kind != ElementKind::AnonymousClass => {
            let keyword = match kind {
                ElementKind::Interface => "interface",
                ElementKind::Enum => "enum",
                ElementKind::Record => "record",
                ElementKind::AnnotationType => "@interface",
                _ => "class",
            };
            words.push(keyword.into());
            let mut head = format!("{}{type_params}", element.name);
            if kind == ElementKind::Record {
                head.push_str(&params());
            }
            words.push(head);
            words.extend(supertype_clauses(element));
        }
        ElementKind::AnonymousClass => {
            words.push(format!("new {}() {{ }}", element.type_text));
        }
        ElementKind::Method | ElementKind::AnnotationElement => {
            if !type_params.is_empty() {
                words.push(type_params);
            }
            words.push(element.type_text.clone());
            words.push(format!("{}{}{throws}", element.name, params()));
        }
        ElementKind::Constructor => {
            if !type_params.is_empty() {
                words.push(type_params);
            }
            words.push(format!("{type_name}{}{throws}", params()));
        }
        ElementKind::Field | ElementKind::RecordComponent => {
            words.push(element.type_text.clone());
            words.push(element.name.clone());
        }
        ElementKind::EnumConstant => words.push(element.name.clone()),
        ElementKind::Lambda => words.push(format!("{} ->", params())),
        ElementKind::InstanceInitializer | ElementKind::StaticInitializer => {
            words.push("{ }".into())
        }
        _ => words.push(element.name.clone()),
    }
    words.retain(|w| !w.is_empty());
    words.join(" ")
}

/// `<T extends Comparable, U>`, or empty.
fn type_parameters(element: &Element) -> String {
    if element.type_params.is_empty() {
        return String::new();
    }
    let list: Vec<String> = element
        .type_params
        .iter()
        .map(|t| {
            if t.bounds.is_empty() {
                t.name.clone()
            } else {
                format!("{} extends {}", t.name, t.bounds.join(" & "))
            }
        })
        .collect();
    format!("<{}>", list.join(", "))
}

/// `extends A implements B, C` as the type writes them.
fn supertype_clauses(element: &Element) -> Vec<String> {
    let written: Vec<&str> = element
        .supertypes_written
        .iter()
        .map(String::as_str)
        .collect();
    let mut out = Vec::new();
    let (extends, implements): (Vec<&str>, Vec<&str>) = match element.kind {
        ElementKind::Class => match written.split_first() {
            Some((first, rest)) => (vec![*first], rest.to_vec()),
            None => (vec![], vec![]),
        },
        ElementKind::Interface => (written.clone(), vec![]),
        _ => (vec![], written.clone()),
    };
    let extends: Vec<&str> = extends.into_iter().filter(|s| !s.is_empty()).collect();
    if !extends.is_empty() {
        out.push(format!("extends {}", extends.join(", ")));
    }
    if !implements.is_empty() {
        out.push(format!("implements {}", implements.join(", ")));
    }
    out
}

/// The SCIP kind of a declared element.
pub fn kind_of(element: &Element) -> Kind {
    let is_static = element.modifiers.has("static");
    match element.kind {
        ElementKind::Class | ElementKind::Record | ElementKind::AnonymousClass => Kind::Class,
        ElementKind::Interface | ElementKind::AnnotationType => Kind::Interface,
        ElementKind::Enum => Kind::Enum,
        ElementKind::Method if is_static => Kind::StaticMethod,
        ElementKind::Method if element.modifiers.has("abstract") => Kind::AbstractMethod,
        ElementKind::Method | ElementKind::AnnotationElement => Kind::Method,
        ElementKind::Constructor => Kind::Constructor,
        ElementKind::Field if is_static => Kind::StaticField,
        ElementKind::Field | ElementKind::RecordComponent => Kind::Field,
        ElementKind::EnumConstant => Kind::EnumMember,
        ElementKind::Lambda => Kind::Function,
        ElementKind::InstanceInitializer | ElementKind::StaticInitializer => Kind::UnspecifiedKind,
    }
}

/// The SCIP kind of a library member or of a member the compiler
/// declares, by what a reference to it tells.
pub fn member_kind(name: &str, is_method: bool, is_static: bool) -> Kind {
    match (name, is_method, is_static) {
        ("<init>", _, _) => Kind::Constructor,
        (_, true, true) => Kind::StaticMethod,
        (_, true, false) => Kind::Method,
        (_, false, true) => Kind::StaticField,
        (_, false, false) => Kind::Field,
    }
}
