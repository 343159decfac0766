//! Where elements and reference sites are, as protocol ranges. refscope's
//! positions are 1-based lines and UTF-16 columns; the protocol's are
//! 0-based lines and (by default, and as this server negotiates) UTF-16
//! columns, so a position only shifts by one.

use lsp_types::{Position, Range};
use refscope_engine::{Element, ElementKind, RefHit, RefTargetKind};

use crate::text::{LineIndex, utf16_len};

/// The range of an element's name token (the class name of a
/// constructor, `->` of a lambda, `{` of an initializer or anonymous
/// body).
pub fn name_range(element: &Element) -> Range {
    let position = element.name_pos;
    let token = match element.kind {
        ElementKind::Constructor => simple_name_of_type(&element.binary_name).to_string(),
        ElementKind::Lambda => "->".to_string(),
        ElementKind::AnonymousClass
        | ElementKind::InstanceInitializer
        | ElementKind::StaticInitializer => "{".to_string(),
        _ => element.name.clone(),
    };
    token_range(position.line, position.col, utf16_len(&token))
}

/// The range of an element's whole declaration, annotations and body
/// included: exact when `lines` is the text the revision indexed, else
/// whole lines.
pub fn declaration_range(element: &Element, lines: Option<&LineIndex>) -> Range {
    let span = element.span;
    let range = match lines {
        Some(lines) => Range::new(
            lines.position(span.start_byte as usize),
            lines.position(span.end_byte as usize),
        ),
        None => Range::new(
            Position::new(span.start_line.saturating_sub(1), 0),
            Position::new(span.end_line, 0),
        ),
    };
    // The name is inside the declaration; keep it so for the protocol's
    // sake even if a recovered syntax error says otherwise.
    let name = name_range(element);
    Range::new(range.start.min(name.start), range.end.max(name.end))
}

/// The range of a reference site's name token.
pub fn hit_range(hit: &RefHit) -> Range {
    let owner_of = |id: &str| {
        id.split_once('#')
            .map_or(id, |(owner, _)| owner)
            .to_string()
    };
    let token_len = match (hit.kind, hit.target.as_deref()) {
        (RefTargetKind::New, Some(target)) => utf16_len(simple_name_of_type(&owner_of(target))),
        (RefTargetKind::CtorCall, Some(target)) => {
            let calling_own_class = hit
                .enclosing_named
                .as_deref()
                .is_some_and(|enclosing| owner_of(enclosing) == owner_of(target));
            if calling_own_class { 4 } else { 5 }
        }
        (RefTargetKind::MethodRef, _) if hit.name == "<init>" || hit.name == "new" => 3,
        _ => utf16_len(&hit.name),
    };
    token_range(hit.line, hit.col, token_len)
}

/// The simple name of a type's binary or canonical name (`Inner` of
/// `p.Outer$Inner`).
pub fn simple_name_of_type(name: &str) -> &str {
    name.rsplit(['.', '$']).next().unwrap_or(name)
}

/// A token at 1-based `line` and UTF-16 `col`, `len` units long.
fn token_range(line: u32, col: u32, len: u32) -> Range {
    let start = Position::new(line.saturating_sub(1), col.saturating_sub(1));
    Range::new(start, Position::new(start.line, start.character + len))
}
