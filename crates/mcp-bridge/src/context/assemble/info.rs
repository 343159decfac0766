//! `element_info`: what each element of the answer is, declared in the
//! revision's sources (with its source text, cut at `max_source_lines`)
//! or known only from how a library element is referenced.

use refscope_engine::ElementKind;
use refscope_engine::RefTargetKind;
use serde_json::{Map, Value, json};

use super::Answer;
use super::file_cache::LoadedFile;
use super::kind_labels::{kind_label, ref_kind_label};
use super::pages::ELEMENT_INFO;
use super::request::ContextError;
use crate::context::keys::{Family, InfoKey, Key, info_key, key};

impl Answer<'_, '_> {
    /// `element_info`: every registered element under its short id.
    pub(super) fn element_info(&mut self) -> Result<Map<String, Value>, ContextError> {
        let mut out = Map::new();
        let kept = self.slots.len();
        for slot in 0..kept {
            let info = self.info(slot)?;
            out.insert(format!("E{}", slot + 1), info);
        }
        if self.cut_slots.is_empty() {
            return Ok(out);
        }
        let total = kept + self.cut_slots.len();
        let note = "the answer holds at most max_elements elements: continue with next_cursor, or ask about fewer lines";
        let list_key = key(self.style(), Key::ElementInfo);
        if let Some(page) = self.pages.cut(
            &mut self.truncated,
            ELEMENT_INFO.into(),
            list_key,
            kept,
            total,
            note,
        )? {
            // The elements past the cap are described only on their page.
            let cut = std::mem::take(&mut self.cut_slots);
            self.slots.extend(cut);
            let mut items = Map::new();
            for slot in page {
                let info = self.info(slot)?;
                items.insert(format!("E{}", slot + 1), info);
            }
            self.slots.truncate(kept);
            self.pages.continue_with(Value::Object(items));
        }
        Ok(out)
    }

    fn info(&mut self, slot: usize) -> Result<Value, ContextError> {
        let style = self.style();
        let id = self.slots[slot].id.clone();
        let calls = self.slots[slot].calls.clone();
        let mut out = Map::new();
        let Some((path, index)) = self.slots[slot].declared.clone() else {
            // A library element: what its id and the reference say.
            let kind = self.slots[slot]
                .referenced_as
                .map_or("UNKNOWN", ref_kind_label);
            let family = if kind == "FIELD" {
                Family::Field
            } else {
                Family::Method
            };
            let k = |k| info_key(style, family, k).to_string();
            let (class, name, params) = split_id(&id);
            out.insert(k(InfoKey::QualifiedId), json!(id));
            out.insert(k(InfoKey::Kind), json!(kind));
            out.insert(k(InfoKey::Class), json!(class));
            out.insert(k(InfoKey::Name), json!(name));
            if family == Family::Method {
                let params: Vec<Value> = params
                    .iter()
                    .map(|t| json!({"name": null, "type": t}))
                    .collect();
                out.insert(k(InfoKey::Parameters), Value::Array(params));
            }
            out.insert(k(InfoKey::SourceFile), Value::Null);
            return Ok(Value::Object(out));
        };
        let file = self.cache.load(&path)?;
        let record = &file.records[index as usize];
        let element = &file.facts.elements[index as usize];
        let family = match record.kind {
            ElementKind::Field | ElementKind::EnumConstant | ElementKind::RecordComponent => {
                Family::Field
            }
            _ => Family::Method,
        };
        let k = |k| info_key(style, family, k).to_string();
        let class = if record.kind.is_type() {
            Some(record.element_id.clone())
        } else {
            record.owner.clone()
        };
        out.insert(k(InfoKey::QualifiedId), json!(id));
        out.insert(k(InfoKey::Kind), json!(kind_label(record.kind)));
        out.insert(k(InfoKey::Class), json!(class));
        out.insert(k(InfoKey::Name), json!(record.name));
        out.insert(k(InfoKey::Type), json!(element.type_text));
        let modifiers: Vec<&str> = element.modifiers.keywords().collect();
        out.insert(k(InfoKey::Modifiers), json!(modifiers));
        out.insert(k(InfoKey::Annotations), json!(element.annotations));
        if family == Family::Method {
            let params: Vec<Value> = element
                .params
                .iter()
                .map(|p| json!({"name": p.name, "type": p.type_text}))
                .collect();
            out.insert(k(InfoKey::Parameters), Value::Array(params));
            out.insert(k(InfoKey::Exceptions), json!(element.throws));
        }
        out.insert(k(InfoKey::StartLine), json!(record.start_line));
        out.insert(k(InfoKey::EndLine), json!(record.end_line));
        let view = file.view(index);
        if family == Family::Method
            && !record.kind.is_type()
            && let Some(view) = &view
        {
            let mut fields: Vec<String> = Vec::new();
            for hit in self.cache.snapshot.callees(view)? {
                if hit.kind == RefTargetKind::Field
                    && let Some(target) = hit.target
                    && !fields.contains(&target)
                {
                    fields.push(target);
                }
            }
            out.insert(k(InfoKey::FieldsUsed), json!(fields));
        }
        out.insert(k(InfoKey::SourceFile), json!(path));
        if is_abstract_method(&file, index) {
            let implementations: Vec<Value> = self
                .cache
                .snapshot
                .implementations(&id)?
                .into_iter()
                .map(|i| {
                    json!({
                        key(style, Key::ElementId): i.view.record.element_id,
                        key(style, Key::File): i.view.path,
                        key(style, Key::Line): i.view.record.name_line,
                    })
                })
                .collect();
            out.insert(k(InfoKey::Implementations), Value::Array(implementations));
        }
        if let Some(calls) = calls {
            out.insert(k(InfoKey::Calls), json!(calls));
        }
        let source = self.source_text(&file, record.start_line, record.end_line, &id);
        out.insert(k(InfoKey::Source), json!(source));
        Ok(Value::Object(out))
    }

    /// The element's lines, cut at `max_source_lines` with a marker line.
    fn source_text(&mut self, file: &LoadedFile, start: u32, end: u32, id: &str) -> Option<String> {
        let lines = self.cache.lines(file)?;
        let from = (start.max(1) - 1) as usize;
        let to = (end as usize).min(lines.len());
        if from >= to {
            return Some(String::new());
        }
        let total = to - from;
        let max = self.settings.max_source_lines as usize;
        if total <= max {
            return Some(lines[from..to].join("\n"));
        }
        self.truncated.push(json!({
            "what": format!("source of {id}"),
            "kept": max,
            "total": total,
            "note": "raise max_source_lines to see more",
        }));
        let mut text = lines[from..from + max].join("\n");
        text.push_str(&format!(
            "\n// ... {} more lines cut (max_source_lines = {max})",
            total - max
        ));
        Some(text)
    }
}

/// Whether the element is a method without a body of its own: `abstract`,
/// or declared in an interface without `default`, `static` or `private`.
fn is_abstract_method(file: &LoadedFile, index: u32) -> bool {
    let element = &file.facts.elements[index as usize];
    if element.kind != ElementKind::Method {
        return false;
    }
    if element.modifiers.has("abstract") {
        return true;
    }
    let in_interface = file
        .facts
        .elements
        .get(element.parent as usize)
        .is_some_and(|parent| parent.kind == ElementKind::Interface);
    in_interface
        && !["default", "static", "private"]
            .iter()
            .any(|m| element.modifiers.has(m))
}

/// `(class, name, parameter types)` of an element id such as
/// `java.util.List#add(int,java.lang.Object)`.
fn split_id(id: &str) -> (&str, &str, Vec<&str>) {
    let (class, member) = id.split_once('#').unwrap_or((id, ""));
    match member.split_once('(') {
        Some((name, params)) => {
            let params = params.trim_end_matches(')');
            let params = if params.is_empty() {
                Vec::new()
            } else {
                params.split(',').collect()
            };
            (class, name, params)
        }
        None => (class, member, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::split_id;

    #[test]
    fn element_ids_split_into_class_name_and_parameters() {
        assert_eq!(
            split_id("java.util.List#add(int,java.lang.Object)"),
            ("java.util.List", "add", vec!["int", "java.lang.Object"])
        );
        assert_eq!(split_id("com.acme.A#f"), ("com.acme.A", "f", vec![]));
        assert_eq!(
            split_id("com.acme.A#<init>()"),
            ("com.acme.A", "<init>", vec![])
        );
    }
}
