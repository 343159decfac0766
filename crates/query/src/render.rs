//! Rendering elements for people (aligned text) and for programs (JSON).
//!
//! The JSON types here are this crate's own: they are converted from the
//! engine's types by hand, so the engine can change its internals without
//! changing what scripts read.

use std::fmt::Write as _;

use refscope_engine::ElementView;
use refscope_engine::{Modifiers, Origin};
use serde::Serialize;

/// One element as JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ElementJson {
    /// Stable element id, e.g. `com.acme.Shop#order(java.lang.String,int)`.
    pub element_id: String,
    /// `class`, `method`, `field`, `lambda`, ...
    pub kind: &'static str,
    /// Simple name (`<init>` for constructors).
    pub name: String,
    /// Binary name of the declaring or enclosing type.
    pub owner: Option<String>,
    /// Repository-relative file.
    pub file: String,
    /// First line (first annotation or modifier).
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Line of the name.
    pub name_line: u32,
    /// UTF-16 column of the name.
    pub name_col: u32,
    /// Written modifiers in canonical order.
    pub modifiers: Vec<&'static str>,
    /// Annotations as written.
    pub annotations: Vec<String>,
    /// Declared type as written (return type, field type).
    #[serde(rename = "type")]
    pub type_written: String,
    /// Declared type erased and qualified.
    pub type_erased: String,
    /// Parameters.
    pub params: Vec<ParamJson>,
    /// `throws` clause as written.
    pub throws: Vec<String>,
    /// Type parameter names.
    pub type_params: Vec<String>,
    /// Javadoc lines, if any.
    pub javadoc: Option<[u32; 2]>,
    /// What generated the element (`lombok`); absent for written code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_by: Option<&'static str>,
    /// What the reader should know that the rest does not say (an
    /// annotation whose members are not modelled); filled by answers
    /// that read them ([`refscope_engine::Snapshot::notes_of`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One parameter as JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ParamJson {
    /// Parameter name.
    pub name: String,
    /// Type as written.
    #[serde(rename = "type")]
    pub type_written: String,
    /// Type erased and qualified.
    pub type_erased: String,
    /// Whether it is a varargs parameter.
    pub varargs: bool,
}

impl ElementJson {
    /// Converts an engine element view.
    pub fn from_view(view: &ElementView) -> Self {
        let element = &view.element;
        let record = &view.record;
        Self {
            element_id: record.element_id.clone(),
            kind: element.kind.as_str(),
            name: record.name.clone(),
            owner: record.owner.clone(),
            file: view.path.clone(),
            start_line: record.start_line,
            end_line: record.end_line,
            name_line: record.name_line,
            name_col: record.name_col,
            modifiers: modifier_names(element.modifiers),
            annotations: element.annotations.clone(),
            type_written: element.type_text.clone(),
            type_erased: record.type_name.clone(),
            params: element
                .params
                .iter()
                .zip(
                    record
                        .params
                        .iter()
                        .chain(std::iter::repeat(&String::new())),
                )
                .map(|(p, erased)| ParamJson {
                    name: p.name.clone(),
                    type_written: p.type_text.clone(),
                    type_erased: erased.clone(),
                    varargs: p.varargs,
                })
                .collect(),
            throws: element.throws.clone(),
            type_params: element.type_params.iter().map(|t| t.name.clone()).collect(),
            javadoc: element.javadoc.map(|(a, b)| [a, b]),
            generated_by: match element.origin {
                Origin::Source => None,
                origin => Some(origin.as_str()),
            },
            notes: Vec::new(),
        }
    }
}

fn modifier_names(modifiers: Modifiers) -> Vec<&'static str> {
    modifiers.keywords().collect()
}

/// Renders elements as aligned text, one block per element.
pub fn elements_text(elements: &[ElementJson]) -> String {
    let mut out = String::new();
    for (i, e) in elements.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{:<12}{}", e.kind, e.element_id);
        let _ = writeln!(
            out,
            "  {:<10}{}:{}-{} (name at {}:{})",
            "at", e.file, e.start_line, e.end_line, e.name_line, e.name_col
        );
        if let Some(by) = e.generated_by {
            let by = match by {
                "lombok" => "Lombok",
                other => other,
            };
            let _ = writeln!(out, "  {:<10}by {by}", "generated");
        }
        if !e.modifiers.is_empty() || !e.annotations.is_empty() {
            let mut words: Vec<String> = e.annotations.clone();
            words.extend(e.modifiers.iter().map(|m| m.to_string()));
            let _ = writeln!(out, "  {:<10}{}", "modifiers", words.join(" "));
        }
        if !e.type_written.is_empty() {
            let label = match e.kind {
                "method" | "annotation_element" => "returns",
                "anonymous_class" => "extends",
                _ => "type",
            };
            let _ = writeln!(out, "  {:<10}{} ({})", label, e.type_written, e.type_erased);
        }
        if !e.type_params.is_empty() {
            let _ = writeln!(out, "  {:<10}<{}>", "generics", e.type_params.join(", "));
        }
        if !e.params.is_empty() {
            let params: Vec<String> = e
                .params
                .iter()
                .map(|p| {
                    if p.type_written.is_empty() {
                        p.name.clone()
                    } else {
                        format!("{} {}", p.type_written, p.name)
                    }
                })
                .collect();
            let _ = writeln!(out, "  {:<10}{}", "params", params.join(", "));
        }
        if !e.throws.is_empty() {
            let _ = writeln!(out, "  {:<10}{}", "throws", e.throws.join(", "));
        }
        if let Some([a, b]) = e.javadoc {
            let _ = writeln!(out, "  {:<10}{}-{}", "javadoc", a, b);
        }
        if let Some(owner) = &e.owner {
            let _ = writeln!(out, "  {:<10}{}", "in", owner);
        }
        for note in &e.notes {
            let _ = writeln!(out, "  {:<10}{}", "note", note);
        }
    }
    out
}
