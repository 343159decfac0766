//! Small readers over tree-sitter nodes: positions in javac's units, type
//! text as written and erased, expression shapes.

use tree_sitter::Node;

use super::children::named_child_of_kind;
use super::kinds::Grammar;
use crate::facts::{ExprShape, Position};

/// Longest receiver text kept in a [`crate::facts::RefSite`].
const MAX_RECEIVER_TEXT: usize = 160;

/// The decoded text of a file with its line index.
pub(crate) struct SourceText<'a> {
    pub(crate) text: &'a str,
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
}

impl<'a> SourceText<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        // Lines end at LF, CRLF or a lone CR, as javac counts them.
        // Java sources average some 35 bytes a line.
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 32 + 1);
        line_starts.push(0u32);
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                line_starts.push(i as u32 + 1);
            }
        }
        Self { text, line_starts }
    }

    /// Number of lines, counting a last line without a newline.
    pub(crate) fn n_lines(&self) -> u32 {
        let n = self.line_starts.len() as u32;
        if self.text.ends_with('\n') || self.text.ends_with('\r') {
            n - 1
        } else {
            n
        }
    }

    /// 1-based line of a byte offset.
    pub(crate) fn line_of(&self, byte: u32) -> u32 {
        self.line_starts.partition_point(|&start| start <= byte) as u32
    }

    /// [`Self::line_of`] `byte`, tried first at the 0-based `row` that
    /// tree-sitter gives it: right unless a lone CR, a line end to javac but
    /// not to tree-sitter, comes before it in the file.
    fn line_near(&self, byte: u32, row: usize) -> u32 {
        let starts = &self.line_starts;
        if starts.get(row).is_some_and(|&start| start <= byte)
            && starts.get(row + 1).is_none_or(|&next| byte < next)
        {
            return row as u32 + 1;
        }
        self.line_of(byte)
    }

    /// 1-based line of the start of `node`.
    pub(crate) fn start_line(&self, node: Node) -> u32 {
        self.line_near(node.start_byte() as u32, node.start_position().row)
    }

    /// 1-based line and UTF-16 column of the start of `node`.
    pub(crate) fn start(&self, node: Node) -> Position {
        let byte = node.start_byte() as u32;
        self.position_in_line(byte, self.line_near(byte, node.start_position().row))
    }

    /// 1-based line and UTF-16 column of a byte offset (at a character
    /// boundary).
    pub(crate) fn position_of(&self, byte: u32) -> Position {
        self.position_in_line(byte, self.line_of(byte))
    }

    /// The byte offset of a position [`Self::position_of`] gave.
    pub(crate) fn byte_of(&self, pos: Position) -> u32 {
        let start = self.line_starts[(pos.line as usize).clamp(1, self.line_starts.len()) - 1];
        let line = &self.text[start as usize..];
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units + 1 >= pos.col as usize {
                return start + i as u32;
            }
            units += c.len_utf16();
        }
        self.text.len() as u32
    }

    fn position_in_line(&self, byte: u32, line: u32) -> Position {
        let start = self.line_starts[line as usize - 1] as usize;
        let prefix = &self.text.as_bytes()[start..byte as usize];
        let col = if prefix.is_ascii() {
            prefix.len()
        } else {
            // Slicing at `byte` is safe: tree-sitter offsets are token
            // boundaries of valid UTF-8 text.
            self.text[start..byte as usize].encode_utf16().count()
        };
        Position {
            line,
            col: col as u32 + 1,
        }
    }

    /// The line of the last byte of a node.
    pub(crate) fn end_line(&self, node: Node) -> u32 {
        let last = (node.end_byte().max(node.start_byte() + 1) - 1) as u32;
        // A node ending at a line's start ends on the line before.
        let end = node.end_position();
        let row = if end.column == 0 {
            end.row.saturating_sub(1)
        } else {
            end.row
        };
        self.line_near(last, row)
    }

    pub(crate) fn node_text(&self, node: Node) -> &'a str {
        &self.text[node.byte_range()]
    }
}

/// Collapses runs of whitespace to one space and drops comments.
pub(crate) fn collapse_whitespace(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap));
    let mut pending_space = false;
    for word in text.split_whitespace() {
        if pending_space {
            out.push(' ');
        }
        out.push_str(word);
        pending_space = true;
        if out.len() >= cap {
            let mut end = cap;
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push('…');
            break;
        }
    }
    out
}

/// The text of a node without the comments inside it, whitespace
/// collapsed and capped.
pub(crate) fn text_without_comments(source: &SourceText, node: Node, cap: usize) -> String {
    let mut comments: Vec<(usize, usize)> = Vec::new();
    let mut cursor = node.walk();
    'walk: loop {
        let current = cursor.node();
        if current.is_extra() && current.id() != node.id() {
            comments.push((current.start_byte(), current.end_byte()));
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node().id() == node.id() {
                break 'walk;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    let mut out = String::new();
    let mut last = node.start_byte();
    for (start, end) in comments {
        out.push_str(&source.text[last..start]);
        out.push(' ');
        last = end;
    }
    out.push_str(&source.text[last..node.end_byte()]);
    collapse_whitespace(&out, cap)
}

/// Type texts of a type node: as written (whitespace collapsed, annotations
/// dropped) and erased as written (no type arguments, `[]` per dimension).
pub(crate) fn type_texts(grammar: &Grammar, source: &SourceText, node: Node) -> (String, String) {
    let k = &grammar.kinds;
    let kind = node.kind_id();
    let simple = kind == k.type_identifier
        || kind == k.integral_type
        || kind == k.floating_point_type
        || kind == k.boolean_type
        || kind == k.void_type;
    if simple {
        // Most types are one name or keyword, without annotations, type
        // arguments or dimensions: both texts are the node's own.
        let text = source.node_text(node);
        return (collapse_whitespace(text, 400), text.to_string());
    }
    let written = collapse_whitespace(&strip_annotations(grammar, source, node), 400);
    let erased = erased_type(grammar, source, node);
    (written, erased)
}

/// The text of a type node with its annotations left out.
fn strip_annotations(grammar: &Grammar, source: &SourceText, node: Node) -> String {
    let k = &grammar.kinds;
    let mut out = String::new();
    let mut last = node.start_byte();
    let mut cursor = node.walk();
    let mut descend = true;
    loop {
        let current = cursor.node();
        let kind = current.kind_id();
        if descend && (kind == k.annotation || kind == k.marker_annotation) {
            out.push_str(&source.text[last..current.start_byte()]);
            last = current.end_byte();
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        descend = true;
        loop {
            if cursor.node().id() == node.id() {
                out.push_str(&source.text[last..node.end_byte()]);
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                out.push_str(&source.text[last..node.end_byte()]);
                return out;
            }
        }
    }
}

/// The erasure of a type as written: the dotted type name without type
/// arguments or annotations, followed by `[]` per dimension.
pub(crate) fn erased_type(grammar: &Grammar, source: &SourceText, node: Node) -> String {
    let k = &grammar.kinds;
    let mut name = String::new();
    let mut dims = 0usize;
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        let kind = current.kind_id();
        let skip = kind == k.type_arguments
            || kind == k.annotation
            || kind == k.marker_annotation
            || current.is_extra();
        if !skip {
            if kind == k.type_identifier
                || kind == k.integral_type
                || kind == k.floating_point_type
                || kind == k.boolean_type
                || kind == k.void_type
                || kind == k.identifier
            {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(source.node_text(current));
            } else if kind == k.dimensions {
                dims += source.node_text(current).matches('[').count();
            } else if current.child_count() > 0 && cursor.goto_first_child() {
                continue;
            }
        }
        loop {
            if cursor.node().id() == node.id() {
                for _ in 0..dims {
                    name.push_str("[]");
                }
                return name;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return name;
            }
        }
    }
}

/// Appends `[]` for each bracket pair in an optional `dimensions` node.
pub(crate) fn with_dimensions(source: &SourceText, base: String, dims: Option<Node>) -> String {
    match dims {
        Some(d) => {
            let n = source.node_text(d).matches('[').count();
            let mut out = base;
            for _ in 0..n {
                out.push_str("[]");
            }
            out
        }
        None => base,
    }
}

/// The shape of an expression node.
pub(crate) fn expr_shape(grammar: &Grammar, source: &SourceText, node: Node) -> ExprShape {
    let k = &grammar.kinds;
    let kind = node.kind_id();
    if kind == k.this {
        return ExprShape::This;
    }
    if kind == k.super_ {
        return ExprShape::Super;
    }
    if kind == k.identifier {
        return ExprShape::Name;
    }
    if kind == k.method_invocation {
        return ExprShape::Call;
    }
    if kind == k.object_creation_expression {
        return ExprShape::New;
    }
    if kind == k.lambda_expression {
        return ExprShape::Lambda;
    }
    if kind == k.method_reference {
        return ExprShape::MethodRef;
    }
    if kind == k.field_access {
        let field = node.child_by_field_id(grammar.fields.field);
        return match field.map(|f| f.kind_id()) {
            Some(id) if id == k.this => ExprShape::QualifiedThis,
            _ if has_child_of_kind(node, k.super_) => ExprShape::QualifiedSuper,
            _ => ExprShape::FieldAccess,
        };
    }
    match node.kind() {
        "string_literal" => ExprShape::StringLiteral,
        "character_literal" => ExprShape::CharLiteral,
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal" => ExprShape::IntLiteral,
        "decimal_floating_point_literal" | "hex_floating_point_literal" => ExprShape::FloatLiteral,
        "true" | "false" => ExprShape::BooleanLiteral,
        "null_literal" => ExprShape::NullLiteral,
        "class_literal" => ExprShape::ClassLiteral,
        "cast_expression" => ExprShape::Cast,
        "array_access" => ExprShape::ArrayAccess,
        "array_creation_expression" | "array_initializer" => ExprShape::NewArray,
        "ternary_expression" => ExprShape::Conditional,
        "parenthesized_expression" => ExprShape::Parenthesized,
        "binary_expression"
        | "unary_expression"
        | "update_expression"
        | "assignment_expression"
        | "instanceof_expression"
        | "switch_expression" => ExprShape::Operator,
        _ => {
            let _ = source;
            ExprShape::Other
        }
    }
}

/// Receiver text for a reference site, whitespace collapsed and capped.
pub(crate) fn receiver_text(source: &SourceText, node: Node) -> String {
    collapse_whitespace(source.node_text(node), MAX_RECEIVER_TEXT)
}

/// Whether `node` has a child of named kind `kind`.
pub(crate) fn has_child_of_kind(node: Node, kind: u16) -> bool {
    child_of_kind(node, kind).is_some()
}

/// The first child of `node` of named kind `kind` (the extractor's kinds
/// are all named: anonymous children need not be looked at).
pub(crate) fn child_of_kind(node: Node<'_>, kind: u16) -> Option<Node<'_>> {
    named_child_of_kind(node, kind)
}
