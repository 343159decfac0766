//! The elements each diff line uses (`referenced_elements`), and for
//! callee depths above 1 what those elements use in turn.

use refscope_engine::RefHit;
use serde_json::{Map, Value, json};

use super::Answer;
use super::file_cache::LoadedFile;
use super::kind_labels::{kind_label, ref_kind_label};
use super::request::ContextError;
use crate::context::keys::{Key, key};

impl Answer<'_, '_> {
    /// Adds, per diff line, the methods and fields used on it.
    pub(super) fn referenced_on_lines(
        &mut self,
        file: &LoadedFile,
        start: u32,
        end: u32,
        referenced: &mut Map<String, Value>,
    ) -> Result<(), ContextError> {
        let style = self.style();
        let hits = self
            .cache
            .snapshot
            .callees_on_lines(&file.entry.path, start, end)?;
        let mut n_unresolved = 0usize;
        for hit in hits {
            let Some(target) = hit.target.clone() else {
                n_unresolved += 1;
                continue;
            };
            let declared = self.declaration_of(&hit)?;
            let kind_name = match &declared {
                Some((path, index)) => {
                    let file = self.cache.load(path)?;
                    kind_label(file.records[*index as usize].kind)
                }
                None => ref_kind_label(hit.kind),
            };
            let Some(short) = self.short_id(&target, declared, Some(hit.kind), 1) else {
                continue;
            };
            let list = referenced
                .entry(hit.line.to_string())
                .or_insert_with(|| Value::Array(Vec::new()));
            let mut item = Map::new();
            item.insert(key(style, Key::ElementId).into(), json!(short));
            item.insert(key(style, Key::ElementName).into(), json!(hit.name));
            item.insert(key(style, Key::ElementKind).into(), json!(kind_name));
            if let Value::Array(list) = list
                && !list.iter().any(|v| v == &Value::Object(item.clone()))
            {
                list.push(Value::Object(item));
            }
        }
        if n_unresolved > 0 {
            self.notes.push(format!(
                "lines {start}-{end}: {n_unresolved} references could not be resolved (a missing dependency or broken code) and are left out"
            ));
        }
        Ok(())
    }

    /// Where the target of a hit is declared: its file and element index.
    fn declaration_of(&mut self, hit: &RefHit) -> Result<Option<(String, u32)>, ContextError> {
        let (Some(path), Some(target)) = (&hit.decl_file, &hit.target) else {
            return Ok(None);
        };
        let file = self.cache.load(path)?;
        Ok(file.index_of(target).map(|index| (path.clone(), index)))
    }

    /// For callee depths above 1: what the referenced methods use, level by
    /// level.
    pub(super) fn expand_callees(&mut self) -> Result<(), ContextError> {
        let mut next = 0;
        while next < self.slots.len() {
            let slot = next;
            next += 1;
            let level = self.slots[slot].level;
            if level == 0 || level >= self.settings.callee_depth {
                continue;
            }
            let Some((path, index)) = self.slots[slot].declared.clone() else {
                continue;
            };
            let file = self.cache.load(&path)?;
            let Some(view) = file.view(index) else {
                continue;
            };
            if view.record.kind.is_type() {
                continue;
            }
            let mut calls = Vec::new();
            for hit in self.cache.snapshot.callees(&view)? {
                let Some(target) = hit.target.clone() else {
                    continue;
                };
                let declared = self.declaration_of(&hit)?;
                if let Some(short) = self.short_id(&target, declared, Some(hit.kind), level + 1)
                    && !calls.contains(&short)
                {
                    calls.push(short);
                }
            }
            self.slots[slot].calls = Some(calls);
        }
        Ok(())
    }
}
