//! How an element is named and shown: its symbol kind, its display name
//! and its signature as Java would write it.

use lsp_types::{SymbolKind, SymbolTag};
use refscope_engine::{Element, ElementKind, ElementView};

use crate::ranges::simple_name_of_type;

/// The protocol's symbol kind of an element kind.
pub fn symbol_kind(kind: ElementKind) -> SymbolKind {
    match kind {
        ElementKind::Class | ElementKind::AnonymousClass => SymbolKind::CLASS,
        ElementKind::Interface | ElementKind::AnnotationType => SymbolKind::INTERFACE,
        ElementKind::Enum => SymbolKind::ENUM,
        ElementKind::Record => SymbolKind::STRUCT,
        ElementKind::Method | ElementKind::AnnotationElement => SymbolKind::METHOD,
        ElementKind::Constructor => SymbolKind::CONSTRUCTOR,
        ElementKind::Field | ElementKind::RecordComponent => SymbolKind::FIELD,
        ElementKind::EnumConstant => SymbolKind::ENUM_MEMBER,
        ElementKind::InstanceInitializer | ElementKind::StaticInitializer => SymbolKind::METHOD,
        ElementKind::Lambda => SymbolKind::FUNCTION,
    }
}

/// `[DEPRECATED]` for an element annotated `@Deprecated`.
pub fn symbol_tags(element: &Element) -> Option<Vec<SymbolTag>> {
    element
        .annotations
        .iter()
        .any(|a| {
            a == "@Deprecated" || a.starts_with("@Deprecated(") || a == "@java.lang.Deprecated"
        })
        .then(|| vec![SymbolTag::DEPRECATED])
}

/// The name an outline shows: a method with its parameter types
/// (`feed(Animal, Food)`), a constructor by its class's name, an
/// anonymous class by what it extends.
pub fn display_name(element: &Element) -> String {
    let with_params = |name: &str| {
        let mut out = String::with_capacity(name.len() + 2 + 16 * element.params.len());
        out.push_str(name);
        out.push('(');
        for (i, param) in element.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&param.type_text);
        }
        out.push(')');
        out
    };
    match element.kind {
        ElementKind::Method => with_params(&element.name),
        ElementKind::Constructor => with_params(simple_name_of_type(&element.binary_name)),
        ElementKind::AnnotationElement => format!("{}()", element.name),
        ElementKind::AnonymousClass => format!("new {}() {{...}}", element.type_text),
        ElementKind::StaticInitializer => "static {...}".to_string(),
        ElementKind::InstanceInitializer => "{...}".to_string(),
        ElementKind::Lambda => "->".to_string(),
        _ => element.name.clone(),
    }
}

/// A short detail: the return or field type.
pub fn detail(element: &Element) -> Option<String> {
    let text = &element.type_text;
    (!text.is_empty() && !element.kind.is_type()).then(|| text.clone())
}

/// The declaration as Java writes it, without its body: annotations,
/// modifiers, type parameters, type, name, parameters, `throws`,
/// supertypes.
pub fn signature(view: &ElementView) -> String {
    let element = &view.element;
    let mut out = String::new();
    for annotation in &element.annotations {
        out.push_str(annotation);
        out.push('\n');
    }
    let mut words: Vec<String> = element.modifiers.keywords().map(str::to_string).collect();
    let type_params = if element.type_params.is_empty() {
        String::new()
    } else {
        let params: Vec<String> = element
            .type_params
            .iter()
            .map(|p| match p.bounds.as_slice() {
                [] => p.name.clone(),
                bounds => format!("{} extends {}", p.name, bounds.join(" & ")),
            })
            .collect();
        format!("<{}>", params.join(", "))
    };
    let params = || {
        let params: Vec<String> = element
            .params
            .iter()
            .map(|p| {
                let dots = if p.varargs && !p.type_text.ends_with("...") {
                    "..."
                } else {
                    ""
                };
                format!("{}{dots} {}", p.type_text, p.name)
            })
            .collect();
        format!("({})", params.join(", "))
    };
    match element.kind {
        kind if kind.is_type() && kind != ElementKind::AnonymousClass => {
            words.push(
                match kind {
                    ElementKind::Interface => "interface",
                    ElementKind::Enum => "enum",
                    ElementKind::Record => "record",
                    ElementKind::AnnotationType => "@interface",
                    _ => "class",
                }
                .to_string(),
            );
            let mut head = format!("{}{type_params}", element.name);
            if kind == ElementKind::Record {
                head.push_str(&params());
            }
            words.push(head);
            let supertypes = &element.supertypes_written;
            match kind {
                ElementKind::Interface | ElementKind::AnnotationType => {
                    let all: Vec<&str> = supertypes
                        .iter()
                        .map(String::as_str)
                        .filter(|s| !s.is_empty())
                        .collect();
                    if !all.is_empty() {
                        words.push(format!("extends {}", all.join(", ")));
                    }
                }
                _ => {
                    if let Some(first) = supertypes.first().filter(|s| !s.is_empty()) {
                        words.push(format!("extends {first}"));
                    }
                    let rest: Vec<&str> = supertypes
                        .iter()
                        .skip(1)
                        .map(String::as_str)
                        .filter(|s| !s.is_empty())
                        .collect();
                    if !rest.is_empty() {
                        words.push(format!("implements {}", rest.join(", ")));
                    }
                }
            }
        }
        ElementKind::Method | ElementKind::AnnotationElement | ElementKind::Constructor => {
            if !type_params.is_empty() {
                words.push(type_params);
            }
            let name = if element.kind == ElementKind::Constructor {
                simple_name_of_type(&element.binary_name).to_string()
            } else {
                words.push(element.type_text.clone());
                element.name.clone()
            };
            words.push(format!("{name}{}", params()));
            if !element.throws.is_empty() {
                words.push(format!("throws {}", element.throws.join(", ")));
            }
        }
        ElementKind::EnumConstant => {
            words.push(format!(
                "{}.{}",
                simple_name_of_type(&element.binary_name),
                element.name
            ));
        }
        _ => {
            if !element.type_text.is_empty() {
                words.push(element.type_text.clone());
            }
            words.push(display_name(element));
        }
    }
    out.push_str(&words.join(" "));
    out
}
