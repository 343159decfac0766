//! Rendering the reference graph — callers, callees, references and
//! implementations — for people (aligned columns, one hit per line) and
//! for programs (JSON).
//!
//! The JSON types are this crate's own, converted from the engine's by
//! hand; their field names are a contract documented in `docs/code-context.md`.

use refscope_engine::{FoundElement, Implementation, RefHit};
use serde::Serialize;

/// An answer of `callers`, `callees` or `refs`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HitsAnswer {
    /// The revision read.
    pub revision: String,
    /// The element asked about; `None` for callees of a line range.
    pub element: Option<SubjectJson>,
    /// The line range asked about (callees of `FILE:LINE[-END]`).
    pub range: Option<RangeJson>,
    /// The sites, sorted by file, line and column.
    pub hits: Vec<HitJson>,
    /// For a page (`--limit`, `--cursor`): the sites in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// For a page: the cursor of the next one, `null` on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Option<String>>,
}

/// An answer of `impls`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ImplementationsAnswer {
    /// The revision read.
    pub revision: String,
    /// The element asked about.
    pub element: SubjectJson,
    /// Overriding methods or subtypes, sorted by file and line.
    pub implementations: Vec<ImplementationJson>,
    /// For a page (`--limit`, `--cursor`): the implementations in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// For a page: the cursor of the next one, `null` on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Option<String>>,
}

/// The element an answer is about.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SubjectJson {
    /// Its element id.
    pub id: String,
    /// `class`, `method`, `field`, ...; `None` when it is not declared in
    /// the revision (a library element, a default constructor).
    pub kind: Option<&'static str>,
    /// The file declaring it, when declared in the revision.
    pub file: Option<String>,
    /// The line of its name, when declared in the revision.
    pub line: Option<u32>,
}

/// A line range an answer is about.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RangeJson {
    /// Repository-relative file.
    pub file: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
}

/// A call's way through a Spring injection point.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct InjectionJson {
    /// Element id of the injected field.
    pub point: String,
    /// How many beans the point can take, after Spring's narrowing.
    pub candidates: u32,
    /// Those beans: their classes' or `@Bean` methods' ids.
    pub beans: Vec<String>,
    /// The point takes every one of them (a `List<T>` and the like).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub many: bool,
}

impl InjectionJson {
    /// Converts an engine injection.
    pub fn from_injection(injection: &refscope_engine::Injection) -> Self {
        Self {
            point: injection.point.clone(),
            candidates: injection.candidates,
            beans: injection.beans.clone(),
            many: injection.many,
        }
    }

    /// `injected at P (N beans)`, for text answers.
    pub fn text(&self) -> String {
        let beans = match (self.candidates, self.many) {
            (1, _) => "1 bean".to_string(),
            (n, true) => format!("all {n} beans"),
            (n, false) => format!("1 of {n} beans"),
        };
        format!("injected at {} ({beans})", self.point)
    }
}

/// One reference site.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HitJson {
    /// Repository-relative file of the site.
    pub file: String,
    /// Line of the referenced name.
    pub line: u32,
    /// UTF-16 column of the referenced name.
    pub col: u32,
    /// `call`, `new`, `method_ref`, `ctor_call` or `field`.
    pub kind: &'static str,
    /// `exact`, `ambiguous`, `external` or `unresolved`.
    pub confidence: &'static str,
    /// Element id of the target; `None` when unresolved.
    pub target: Option<String>,
    /// Simple name of the target (`<init>` for constructors).
    pub name: String,
    /// Innermost element containing the site (a lambda's id inside a
    /// lambda).
    pub enclosing: Option<String>,
    /// Nearest element containing the site that is not a lambda.
    pub enclosing_named: Option<String>,
    /// For polymorphic callers: the overridden method the call targets;
    /// `None` for direct hits.
    pub via: Option<String>,
    /// File declaring the target, when in the repository.
    pub decl_file: Option<String>,
    /// Line of the target's name, when in the repository.
    pub decl_line: Option<u32>,
    /// For ambiguous resolutions: the other candidates.
    pub alternatives: Vec<String>,
    /// For a call through a Spring injection point: the point and its
    /// beans (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub injection: Option<InjectionJson>,
    /// What generated the target (`lombok`); absent for written targets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_generated_by: Option<&'static str>,
}

/// One implementation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ImplementationJson {
    /// Element id of the overriding method or subtype.
    pub id: String,
    /// `class`, `method`, `anonymous_class`, ...
    pub kind: &'static str,
    /// Repository-relative file.
    pub file: String,
    /// Line of its name.
    pub line: u32,
    /// UTF-16 column of its name.
    pub col: u32,
    /// The element it directly overrides or extends on the way from the
    /// element asked about.
    pub overrides: String,
    /// 1 for a direct override or subtype, 2 for one of those's, ...
    pub depth: u32,
}

impl SubjectJson {
    /// Converts a found element.
    pub fn from_found(found: &FoundElement) -> Self {
        let declared = found.declared.as_ref();
        Self {
            id: found.id.clone(),
            kind: declared.map(|view| view.record.kind.as_str()),
            file: declared.map(|view| view.path.clone()),
            line: declared.map(|view| view.record.name_line),
        }
    }
}

impl HitJson {
    /// Converts an engine hit.
    pub fn from_hit(hit: &RefHit) -> Self {
        Self {
            file: hit.path.clone(),
            line: hit.line,
            col: hit.col,
            kind: hit.kind.as_str(),
            confidence: hit.confidence.as_str(),
            target: hit.target.clone(),
            name: hit.name.clone(),
            enclosing: hit.enclosing.clone(),
            enclosing_named: hit.enclosing_named.clone(),
            via: hit.via.clone(),
            decl_file: hit.decl_file.clone(),
            decl_line: hit.decl_line,
            alternatives: hit.alternatives.clone(),
            injection: hit.injection.as_ref().map(InjectionJson::from_injection),
            target_generated_by: match hit.target_origin {
                refscope_engine::Origin::Source => None,
                origin => Some(origin.as_str()),
            },
        }
    }

    fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.col)
    }

    fn target_text(&self) -> String {
        match &self.target {
            Some(target) => target.clone(),
            None => format!("?{}", self.name),
        }
    }
}

impl ImplementationJson {
    /// Converts an engine implementation.
    pub fn from_implementation(implementation: &Implementation) -> Self {
        let record = &implementation.view.record;
        Self {
            id: record.element_id.clone(),
            kind: record.kind.as_str(),
            file: implementation.view.path.clone(),
            line: record.name_line,
            col: record.name_col,
            overrides: implementation.overrides.clone(),
            depth: implementation.depth,
        }
    }
}

/// Callers as text: location, kind, confidence, the calling element, and
/// `via M` for polymorphic callers.
pub fn callers_text(hits: &[HitJson]) -> String {
    table(
        hits.iter()
            .map(|h| {
                vec![
                    h.location(),
                    h.kind.to_string(),
                    h.confidence.to_string(),
                    h.enclosing.clone().unwrap_or_default(),
                    [
                        h.via.as_ref().map(|v| format!("via {v}")),
                        h.injection.as_ref().map(InjectionJson::text),
                    ]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(", "),
                ]
            })
            .collect(),
    )
}

/// Callees as text: location, kind, confidence, target (`?name` when
/// unresolved), and where the target is declared when in the repository.
pub fn callees_text(hits: &[HitJson]) -> String {
    table(
        hits.iter()
            .map(|h| {
                vec![
                    h.location(),
                    h.kind.to_string(),
                    h.confidence.to_string(),
                    h.target_text(),
                    match (&h.decl_file, h.decl_line, &h.injection) {
                        (_, _, Some(injection)) => injection.text(),
                        (Some(file), Some(line), None) => format!("{file}:{line}"),
                        _ => String::new(),
                    },
                ]
            })
            .collect(),
    )
}

/// References as text: location, kind, confidence, target, and the
/// element containing the site.
pub fn references_text(hits: &[HitJson]) -> String {
    table(
        hits.iter()
            .map(|h| {
                vec![
                    h.location(),
                    h.kind.to_string(),
                    h.confidence.to_string(),
                    h.target_text(),
                    h.enclosing.clone().unwrap_or_default(),
                ]
            })
            .collect(),
    )
}

/// Implementations as text: id, kind, location, and `via E` for those
/// found through another implementation.
pub fn implementations_text(items: &[ImplementationJson]) -> String {
    table(
        items
            .iter()
            .map(|i| {
                vec![
                    i.id.clone(),
                    i.kind.to_string(),
                    format!("{}:{}:{}", i.file, i.line, i.col),
                    if i.depth > 1 {
                        format!("via {}", i.overrides)
                    } else {
                        String::new()
                    },
                ]
            })
            .collect(),
    )
}

/// Cells wider than this stick out of their column instead of widening it
/// for every row.
const MAX_ALIGNED_WIDTH: usize = 80;

/// Rows as lines of columns padded to the widest cell (up to
/// [`MAX_ALIGNED_WIDTH`]), at least two spaces apart, without trailing
/// blanks.
pub(crate) fn table(rows: Vec<Vec<String>>) -> String {
    let n_columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n_columns)
        .map(|c| {
            rows.iter()
                .filter_map(|row| row.get(c))
                .map(|cell| cell.chars().count())
                .filter(|&n| n <= MAX_ALIGNED_WIDTH)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (cell, width) in row.iter().zip(&widths) {
            line.push_str(cell);
            let n = cell.chars().count();
            for _ in n..(*width).max(n) + 2 {
                line.push(' ');
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns_and_trim_trailing_blanks() {
        let rows = vec![
            vec!["a.java:1:2".to_string(), "call".into(), String::new()],
            vec!["b.java:10:20".to_string(), "field".into(), "via x".into()],
            vec!["x".repeat(MAX_ALIGNED_WIDTH + 1), "new".into(), "y".into()],
        ];
        let text = table(rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "a.java:1:2    call");
        assert_eq!(lines[1], "b.java:10:20  field  via x");
        // Too wide to align: it sticks out, the others stay narrow.
        assert_eq!(
            lines[2],
            format!("{}  new    y", "x".repeat(MAX_ALIGNED_WIDTH + 1))
        );
    }
}
