//! Building one code-context answer from a snapshot (and, with a base
//! revision, a second one).
//!
//! This module holds the entry point, [`assemble`], and the answer under
//! construction with its registry of short element ids. Each concern of
//! the answer lives in a child module that adds its methods to `Answer`:
//! [`owning`] finds the elements owning the diff's lines, [`callers`]
//! who references them and [`change`] what changed since the base;
//! [`referenced`] lists the elements each line uses; [`info`] describes
//! every element with its source text; [`pages`] gives each cut list a
//! cursor and answers the next page of one. [`request`] holds what is
//! asked and the errors, [`file_cache`] the files read, and
//! [`kind_labels`] the names of element kinds.

mod callers;
mod change;
mod file_cache;
mod info;
mod kind_labels;
mod owning;
mod pages;
mod referenced;
mod request;

use std::collections::{HashMap, HashSet};

use refscope_engine::RefTargetKind;
use refscope_engine::Snapshot;
use refscope_engine::{Source, Store};
use serde_json::{Map, Value, json};

use super::keys::{Key, key};
use super::settings::{ContextSettings, KeyStyle};
use file_cache::FileCache;
use pages::Pages;
use request::parse_ranges;

pub use request::{ContextError, ContextRequest, ContextSources};

/// Builds the answer for `request` (the schema is in
/// `docs/code-context.md`, "The code-context JSON").
pub fn assemble(
    sources: &ContextSources<'_, '_>,
    request: &ContextRequest<'_>,
) -> Result<Value, ContextError> {
    let ranges = parse_ranges(request.diff_lines)?;
    let settings = request.settings;
    let style = settings.key_style;
    let snapshot = sources.snapshot;
    let pages = Pages::new(request.binding, request.cursor)?;
    let mut answer = Answer::new(sources, settings, pages);

    let mut owning = Map::new();
    let mut referenced = Map::new();
    if !request.file.ends_with(".java") {
        answer.notes.push(format!(
            "{} is not a Java file: refscope indexes Java sources only, so it has no element relations",
            request.file
        ));
    } else {
        let file = answer.cache.load(request.file)?;
        let n_lines = file.facts.n_lines.max(1);
        let mut budget = settings.max_diff_lines;
        let mut cut_lines = 0u64;
        for &(start, end) in &ranges {
            if end > n_lines {
                return Err(ContextError::PastEnd {
                    start,
                    end,
                    file: request.file.to_string(),
                    n_lines: file.facts.n_lines,
                    revision: snapshot.revision().name.clone(),
                });
            }
        }
        let total_lines: u64 = ranges.iter().map(|&(s, e)| u64::from(e - s + 1)).sum();
        for &(start, end) in &ranges {
            let range_key = format!("{start}_{end}");
            if budget == 0 {
                cut_lines += u64::from(end - start + 1);
                continue;
            }
            let kept_end = end.min(start + budget - 1);
            cut_lines += u64::from(end - kept_end);
            let end = kept_end;
            budget -= end - start + 1;
            let mut entries = Vec::new();
            for index in answer.owning_elements(&file, start, end)? {
                entries.push(answer.owning_entry(&file, index)?);
            }
            owning.insert(range_key, Value::Array(entries));
            if settings.callee_depth > 0 {
                answer.referenced_on_lines(&file, start, end, &mut referenced)?;
            }
        }
        if cut_lines > 0 {
            answer.truncated.push(json!({
                "what": "diff_lines",
                "kept": total_lines - cut_lines,
                "total": total_lines,
                "note": format!("only the first {} diff lines are described (max_diff_lines); ask again with the remaining ranges", settings.max_diff_lines),
            }));
        }
        answer.expand_callees()?;
    }

    let mut relations = Map::new();
    relations.insert(
        key(style, Key::OwningElements).into(),
        Value::Object(owning),
    );
    relations.insert(
        key(style, Key::ReferencedElements).into(),
        Value::Object(referenced),
    );
    let element_info = answer.element_info()?;
    let mut out = Map::new();
    out.insert("task_id".into(), json!(request.task_id));
    out.insert("revision".into(), json!(snapshot.revision().name));
    out.insert(
        "base_revision".into(),
        json!(sources.base.map(|b| b.revision().name.clone())),
    );
    out.insert("file".into(), json!(request.file));
    if answer.pages.continues() {
        return answer.pages.continuation(out);
    }
    out.insert(
        key(style, Key::ElementRelations).into(),
        Value::Object(relations),
    );
    out.insert(
        key(style, Key::ElementInfo).into(),
        Value::Object(element_info),
    );
    out.insert("truncated".into(), Value::Array(answer.truncated));
    if !answer.notes.is_empty() {
        out.insert("notes".into(), json!(answer.notes));
    }
    Ok(Value::Object(out))
}

/// An element the answer describes, under its short id.
struct InfoSlot {
    /// The stable element id.
    id: String,
    /// Where it is declared, when the revision's sources declare it.
    declared: Option<(String, u32)>,
    /// How it was referenced, for library elements (no declaration).
    referenced_as: Option<RefTargetKind>,
    /// 0 for owning elements, 1 for referenced ones, 2 for what those
    /// use, ...
    level: u32,
    /// What it uses (`calls`), filled for levels below the callee depth.
    calls: Option<Vec<String>>,
}

/// The answer under construction.
struct Answer<'a, 's> {
    cache: FileCache<'a, 's>,
    base: Option<&'a Snapshot<'s>>,
    history: Option<(&'a Source, &'a Store)>,
    settings: &'a ContextSettings,
    slots: Vec<InfoSlot>,
    short_ids: HashMap<String, usize>,
    truncated: Vec<Value>,
    notes: Vec<String>,
    /// Elements met once the answer held `max_elements`, in order: listed
    /// by a continuation of `element_info`, never expanded.
    cut_slots: Vec<InfoSlot>,
    cut_ids: HashSet<String>,
    /// The lists cut, and the page a continuation call asks for.
    pages: Pages,
}

impl<'a, 's> Answer<'a, 's> {
    fn new(sources: &ContextSources<'a, 's>, settings: &'a ContextSettings, pages: Pages) -> Self {
        Self {
            cache: FileCache {
                snapshot: sources.snapshot,
                blobs: sources.blobs,
                files: HashMap::new(),
                lines: HashMap::new(),
            },
            base: sources.base,
            history: sources.history,
            settings,
            slots: Vec::new(),
            short_ids: HashMap::new(),
            truncated: Vec::new(),
            notes: Vec::new(),
            cut_slots: Vec::new(),
            cut_ids: HashSet::new(),
            pages,
        }
    }

    fn style(&self) -> KeyStyle {
        self.settings.key_style
    }

    /// The short id of an element, registering it on first sight; `None`
    /// once the answer holds `max_elements` entries.
    fn short_id(
        &mut self,
        id: &str,
        declared: Option<(String, u32)>,
        referenced_as: Option<RefTargetKind>,
        level: u32,
    ) -> Option<String> {
        if let Some(&slot) = self.short_ids.get(id) {
            return Some(format!("E{}", slot + 1));
        }
        if self.slots.len() >= self.settings.max_elements as usize {
            if self.cut_ids.insert(id.to_string()) {
                self.cut_slots.push(InfoSlot {
                    id: id.to_string(),
                    declared,
                    referenced_as,
                    level,
                    calls: None,
                });
            }
            return None;
        }
        self.slots.push(InfoSlot {
            id: id.to_string(),
            declared,
            referenced_as,
            level,
            calls: None,
        });
        self.short_ids.insert(id.to_string(), self.slots.len() - 1);
        Some(format!("E{}", self.slots.len()))
    }
}
