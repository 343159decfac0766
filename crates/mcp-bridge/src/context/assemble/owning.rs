//! The elements owning the diff's lines, each with the sites that
//! reference it and, with a base revision, what changed since it.

use refscope_engine::ElementKind;
use serde_json::{Map, Value, json};

use super::Answer;
use super::callers::has_callers;
use super::file_cache::LoadedFile;
use super::request::ContextError;
use crate::context::keys::{Key, key};

impl Answer<'_, '_> {
    /// The elements owning lines `start..=end` of a file: the engine's
    /// owners, with lambdas standing for the element around them (a
    /// reviewer asks who calls the method, not the lambda).
    pub(super) fn owning_elements(
        &mut self,
        file: &LoadedFile,
        start: u32,
        end: u32,
    ) -> Result<Vec<u32>, ContextError> {
        let views = self
            .cache
            .snapshot
            .elements_at(&file.entry.path, start, end)?;
        let mut out: Vec<u32> = Vec::new();
        for view in views {
            let named = file
                .facts
                .ancestry(view.record.idx)
                .find(|&i| file.facts.elements[i as usize].kind != ElementKind::Lambda)
                .unwrap_or(view.record.idx);
            if !out.contains(&named) {
                out.push(named);
            }
        }
        Ok(out)
    }

    /// `{element_id, reference_locations}` for one owning element.
    pub(super) fn owning_entry(
        &mut self,
        file: &LoadedFile,
        index: u32,
    ) -> Result<Value, ContextError> {
        let style = self.style();
        let record = &file.records[index as usize];
        let kind = record.kind;
        let id = record.element_id.clone();
        let mut entry = Map::new();
        let short = self.short_id(&id, Some((file.entry.path.clone(), index)), None, 0);
        entry.insert(key(style, Key::ElementId).into(), json!(short));
        let locations = if self.settings.caller_depth > 0 && has_callers(kind) {
            self.reference_locations(&id)?
        } else {
            Vec::new()
        };
        entry.insert(
            key(style, Key::ReferenceLocations).into(),
            Value::Array(locations),
        );
        if let Some(base) = self.base {
            let change = self.change_since(base, &id, has_callers(kind))?;
            entry.insert(key(style, Key::Change).into(), change);
        }
        if self.settings.include_history {
            let last = self.last_change(&file.entry.path, index);
            entry.insert(key(style, Key::LastChange).into(), last);
        }
        Ok(Value::Object(entry))
    }

    /// The commit that last changed element `index` of `path`, or `null`
    /// with a note when the history cannot be read (a plain directory).
    fn last_change(&mut self, path: &str, index: u32) -> Value {
        let revision = self.cache.snapshot.revision().name.clone();
        let Some((source, store)) = self.history else {
            return Value::Null;
        };
        match source.element_history(store, &revision, path, index, Some(1)) {
            Ok(commits) => commits.first().map_or(Value::Null, |last| {
                json!({
                    "commit": last.commit,
                    "author": last.author,
                    "date": last.date,
                    "summary": last.summary,
                    "change": last.change.as_str(),
                })
            }),
            Err(error) => {
                let note = format!("no element history: {error}");
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
                Value::Null
            }
        }
    }
}
