//! A SCIP index as annotated source, in the style of `scip snapshot`: each
//! document's lines, and under each line one comment line per occurrence
//! on it, carets under its range, with the symbol's information under its
//! definitions. Made for golden tests and for reading an index.

use std::collections::HashMap;
use std::fmt::Write as _;

use scip::types::{Index, SymbolInformation, SymbolRole};

/// Renders `index`, reading each document's text with `source_of`
/// (called with its relative path). A document whose text cannot be read
/// is rendered as its occurrences alone.
///
/// ```text
/// //- src/main/java/com/zoo/Dog.java
///   public class Dog extends Mammal {
/// //             ^^^ definition semanticdb maven . . com/zoo/Dog#
/// //                 kind Class
/// //                 relationship semanticdb maven . . com/zoo/Mammal# implementation
/// ```
///
/// Lines start with two spaces (the width of `//`) so that carets line up
/// with the columns they mark; tabs print as one space.
pub fn render_snapshot(index: &Index, source_of: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let mut out = String::new();
    for document in &index.documents {
        let _ = writeln!(out, "//- {}", document.relative_path);
        let infos: HashMap<&str, &SymbolInformation> = document
            .symbols
            .iter()
            .map(|info| (info.symbol.as_str(), info))
            .collect();
        let mut occurrences: Vec<_> = document
            .occurrences
            .iter()
            .filter(|o| o.range.len() == 3)
            .collect();
        occurrences.sort_by_key(|o| (o.range[0], o.range[1], o.range[2]));
        let text = source_of(&document.relative_path).unwrap_or_default();
        let mut next = 0;
        let n_lines = text.split('\n').count() as i32;
        for (number, line) in text.split('\n').enumerate() {
            if number as i32 == n_lines - 1 && line.is_empty() {
                break;
            }
            let line = line.trim_end_matches('\r').replace('\t', " ");
            if line.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "  {line}");
            }
            while next < occurrences.len() && occurrences[next].range[0] <= number as i32 {
                let occurrence = occurrences[next];
                next += 1;
                let [_, start, end] = [
                    occurrence.range[0],
                    occurrence.range[1],
                    occurrence.range[2],
                ];
                let is_definition = occurrence.symbol_roles & SymbolRole::Definition as i32 != 0;
                let _ = writeln!(
                    out,
                    "//{}{} {} {}",
                    " ".repeat(start.max(0) as usize),
                    "^".repeat((end - start).max(1) as usize),
                    if is_definition {
                        "definition"
                    } else {
                        "reference"
                    },
                    occurrence.symbol
                );
                if !is_definition {
                    continue;
                }
                let prefix = format!("//{}", " ".repeat(end.max(0) as usize + 1));
                if let Some(info) = infos.get(occurrence.symbol.as_str()) {
                    render_information(&mut out, &prefix, info);
                }
                if !occurrence.enclosing_range.is_empty() {
                    let r = &occurrence.enclosing_range;
                    let (end_line, end_col) = match r.len() {
                        3 => (r[0], r[2]),
                        _ => (r[2], r[3]),
                    };
                    let _ = writeln!(
                        out,
                        "{prefix}enclosing_range {}:{}..{end_line}:{end_col}",
                        r[0], r[1]
                    );
                }
            }
        }
        // Occurrences past the text (or of a document without text).
        for occurrence in &occurrences[next..] {
            let _ = writeln!(out, "//  {:?} {}", occurrence.range, occurrence.symbol);
        }
    }
    if !index.external_symbols.is_empty() {
        out.push_str("//- external_symbols\n");
        for info in &index.external_symbols {
            let _ = writeln!(out, "  {}", info.symbol);
            render_information(&mut out, "//  ", info);
        }
    }
    out
}

/// A symbol's kind, display name, signature, documentation and
/// relationships, one per line after `prefix`.
fn render_information(out: &mut String, prefix: &str, info: &SymbolInformation) {
    let kind = info.kind.enum_value_or_default();
    if kind != Default::default() {
        let _ = writeln!(out, "{prefix}kind {kind:?}");
    }
    if !info.display_name.is_empty() {
        let _ = writeln!(out, "{prefix}display_name {}", info.display_name);
    }
    if let Some(signature) = info.signature_documentation.as_ref()
        && !signature.text.is_empty()
    {
        let _ = writeln!(out, "{prefix}signature_documentation");
        for line in signature.text.lines() {
            let _ = writeln!(out, "{prefix}> {line}");
        }
    }
    for documentation in &info.documentation {
        let _ = writeln!(out, "{prefix}documentation");
        for line in documentation.trim().lines() {
            let _ = writeln!(out, "{prefix}> {line}");
        }
    }
    if !info.enclosing_symbol.is_empty() {
        let _ = writeln!(out, "{prefix}enclosing_symbol {}", info.enclosing_symbol);
    }
    let mut relationships: Vec<_> = info.relationships.iter().collect();
    relationships.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    for relationship in relationships {
        let mut line = format!("{prefix}relationship {}", relationship.symbol);
        for (set, name) in [
            (relationship.is_implementation, " implementation"),
            (relationship.is_reference, " reference"),
            (relationship.is_type_definition, " type_definition"),
            (relationship.is_definition, " definition"),
        ] {
            if set {
                line.push_str(name);
            }
        }
        let _ = writeln!(out, "{line}");
    }
}
