//! The conditions of `where`: whether a row holds a condition, by the
//! values it has for a field (none, one or several) compared with `=`,
//! `!=` or a glob.

use refscope_engine::{ElementKind, glob_matches, id_matches, package_of};

use super::super::ast::{CompareOp, Condition, Field};
use super::row::Row;

pub(super) fn holds(condition: &Condition, row: &Row) -> bool {
    match condition {
        Condition::And(a, b) => holds(a, row) && holds(b, row),
        Condition::Or(a, b) => holds(a, row) || holds(b, row),
        Condition::Not(inner) => !holds(inner, row),
        Condition::Compare {
            field, op, value, ..
        } => {
            let values = field_values(*field, row);
            let any = |test: &dyn Fn(&str) -> bool| values.iter().any(|v| test(v));
            match op {
                CompareOp::Eq => any(&|v| field_equals(*field, v, value)),
                CompareOp::NotEq => !any(&|v| field_equals(*field, v, value)),
                CompareOp::Matches => any(&|v| glob_or_id_matches(*field, value, v)),
                CompareOp::NotMatches => !any(&|v| glob_or_id_matches(*field, value, v)),
            }
        }
    }
}

fn field_equals(field: Field, actual: &str, wanted: &str) -> bool {
    match field {
        Field::Kind if wanted == "type" => {
            ElementKind::parse(actual).is_some_and(ElementKind::is_type) || actual == "type"
        }
        _ => actual == wanted,
    }
}

fn glob_or_id_matches(field: Field, pattern: &str, actual: &str) -> bool {
    match field {
        Field::Id => id_matches(pattern, actual),
        _ => glob_matches(pattern, actual),
    }
}

/// The values a row has for a field: none, one, or (modifiers,
/// annotations) several.
fn field_values(field: Field, row: &Row) -> Vec<String> {
    let view = row.view.as_ref();
    match field {
        Field::Kind => vec![row.kind().unwrap_or("type").to_string()],
        Field::Name => vec![row.name().to_string()],
        Field::Id => vec![row.id.clone()],
        Field::Path => view.map(|v| v.path.clone()).into_iter().collect(),
        Field::Package => vec![package_of(&row.id).to_string()],
        Field::Modifier => view
            .map(|v| v.element.modifiers.keywords().map(str::to_string).collect())
            .unwrap_or_default(),
        Field::Annotation => view
            .map(|v| {
                v.element
                    .annotations
                    .iter()
                    .map(|a| annotation_name(a).to_string())
                    .collect()
            })
            .unwrap_or_default(),
        Field::Type => view
            .map(|v| v.record.type_name.clone())
            .into_iter()
            .collect(),
        Field::Confidence => row
            .edge
            .as_ref()
            .and_then(|e| e.site.as_ref())
            .map(|s| s.confidence.to_string())
            .into_iter()
            .collect(),
        Field::Change => row
            .change
            .map(|c| c.as_str().to_string())
            .into_iter()
            .collect(),
    }
}

/// `Deprecated` of `@Deprecated(since = "9")`, `Nullable` of
/// `@javax.annotation.Nullable`.
fn annotation_name(written: &str) -> &str {
    let bare = written.trim_start_matches('@');
    let bare = bare.split('(').next().unwrap_or(bare).trim();
    bare.rsplit('.').next().unwrap_or(bare)
}
