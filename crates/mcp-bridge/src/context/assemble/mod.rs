//! Building one code-context answer from a snapshot (and, with a base
//! revision, a second one).

use std::collections::{HashMap, HashSet};
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use refscope_engine::BlobReader;
use refscope_engine::ElementKind;
use refscope_engine::RefTargetKind;
use refscope_engine::{CallersConfig, ChangeKind, DiffConfig, FileData, RefHit};
use refscope_engine::{ElementView, Snapshot};
use serde_json::{Map, Value, json};

use super::keys::{Family, InfoKey, Key, info_key, key};
use super::settings::{ContextSettings, KeyStyle};

/// What to describe: a file of the revision and the diff's line ranges.
#[derive(Debug, Clone)]
pub struct ContextRequest<'a> {
    /// The task the answer is for, echoed as `task_id` (`None` when the
    /// revision was named directly).
    pub task_id: Option<&'a str>,
    /// Repository-relative path of the file.
    pub file: &'a str,
    /// `[start1, end1, start2, end2, ...]`, 1-based, inclusive.
    pub diff_lines: &'a [i64],
    /// What the answer holds.
    pub settings: &'a ContextSettings,
}

/// Where the answer's facts come from.
pub struct ContextSources<'a, 's> {
    /// The revision under review.
    pub snapshot: &'a Snapshot<'s>,
    /// The base revision of the diff, when the task has one: each owning
    /// element then says what changed since it.
    pub base: Option<&'a Snapshot<'s>>,
    /// Reads the file contents of both revisions (source text, bodies).
    pub blobs: &'a BlobReader,
}

/// A request that cannot be answered, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// An odd number of diff line values.
    #[error(
        "diff_lines holds {count} values; give pairs of start and end lines, e.g. [10, 25, 40, 41]"
    )]
    OddDiffLines {
        /// How many values were given.
        count: usize,
    },
    /// A line number below 1.
    #[error("diff_lines value {value} is not a line number; lines count from 1")]
    NotALine {
        /// The value.
        value: i64,
    },
    /// A range that ends before it starts.
    #[error(
        "diff range {start}-{end} ends before it starts; give each range as start, end with start <= end"
    )]
    Reversed {
        /// Its start.
        start: i64,
        /// Its end.
        end: i64,
    },
    /// A range past the end of the file.
    #[error(
        "diff range {start}-{end} lies past the end of {file} ({n_lines} lines at revision {revision}); check the file and the revision of the diff"
    )]
    PastEnd {
        /// Its start.
        start: u32,
        /// Its end.
        end: u32,
        /// The file.
        file: String,
        /// Its length.
        n_lines: u32,
        /// The revision.
        revision: String,
    },
    /// The engine could not answer (a file absent from the revision, an
    /// unreadable store).
    #[error(transparent)]
    Engine(#[from] refscope_engine::Error),
}

/// Builds the answer for `request` (see the README's "Code-context JSON"
/// for the schema).
pub fn assemble(
    sources: &ContextSources<'_, '_>,
    request: &ContextRequest<'_>,
) -> Result<Value, ContextError> {
    let ranges = parse_ranges(request.diff_lines)?;
    let settings = request.settings;
    let style = settings.key_style;
    let snapshot = sources.snapshot;
    let mut answer = Answer::new(sources, settings);

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

/// Checks the flat list of diff line values and pairs it up.
fn parse_ranges(values: &[i64]) -> Result<Vec<(u32, u32)>, ContextError> {
    if !values.len().is_multiple_of(2) {
        return Err(ContextError::OddDiffLines {
            count: values.len(),
        });
    }
    let mut ranges = Vec::new();
    for pair in values.chunks(2) {
        let (start, end) = (pair[0], pair[1]);
        for value in [start, end] {
            if !(1..=i64::from(u32::MAX)).contains(&value) {
                return Err(ContextError::NotALine { value });
            }
        }
        if start > end {
            return Err(ContextError::Reversed { start, end });
        }
        ranges.push((start as u32, end as u32));
    }
    Ok(ranges)
}

/// One file as the assembly reads it: decoded once per revision while
/// the snapshot's cache keeps it.
#[derive(Clone)]
struct LoadedFile(Arc<FileData>);

impl Deref for LoadedFile {
    type Target = FileData;

    fn deref(&self) -> &FileData {
        &self.0
    }
}

impl LoadedFile {
    fn view(&self, index: u32) -> Option<ElementView> {
        Some(ElementView {
            path: self.entry.path.clone(),
            record: self.records.get(index as usize)?.clone(),
            element: self.facts.elements.get(index as usize)?.clone(),
        })
    }

    fn index_of(&self, id: &str) -> Option<u32> {
        self.records
            .iter()
            .position(|r| r.element_id == id)
            .map(|i| i as u32)
    }
}

/// Files and file texts read while assembling one answer.
struct FileCache<'a, 's> {
    snapshot: &'a Snapshot<'s>,
    blobs: &'a BlobReader,
    files: HashMap<String, LoadedFile>,
    lines: HashMap<String, Option<Rc<Vec<String>>>>,
}

impl FileCache<'_, '_> {
    fn load(&mut self, path: &str) -> Result<LoadedFile, refscope_engine::Error> {
        if let Some(file) = self.files.get(path) {
            return Ok(file.clone());
        }
        let entry = self.snapshot.file(path)?;
        let file = LoadedFile(self.snapshot.file_data(&entry)?);
        self.files.insert(path.to_string(), file.clone());
        Ok(file)
    }

    /// The lines of a file's text, `None` when it cannot be read (a
    /// directory whose file changed on disk since it was indexed).
    fn lines(&mut self, file: &LoadedFile) -> Option<Rc<Vec<String>>> {
        if let Some(lines) = self.lines.get(&file.entry.path) {
            return lines.clone();
        }
        let lines = self
            .blobs
            .read_blob(&file.entry.path, &file.entry.blob_id)
            .ok()
            .map(|bytes| {
                Rc::new(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_string)
                        .collect(),
                )
            });
        self.lines.insert(file.entry.path.clone(), lines.clone());
        lines
    }
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
    settings: &'a ContextSettings,
    slots: Vec<InfoSlot>,
    short_ids: HashMap<String, usize>,
    truncated: Vec<Value>,
    notes: Vec<String>,
    n_elements_cut: u64,
}

impl<'a, 's> Answer<'a, 's> {
    fn new(sources: &ContextSources<'a, 's>, settings: &'a ContextSettings) -> Self {
        Self {
            cache: FileCache {
                snapshot: sources.snapshot,
                blobs: sources.blobs,
                files: HashMap::new(),
                lines: HashMap::new(),
            },
            base: sources.base,
            settings,
            slots: Vec::new(),
            short_ids: HashMap::new(),
            truncated: Vec::new(),
            notes: Vec::new(),
            n_elements_cut: 0,
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
            self.n_elements_cut += 1;
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

    /// The elements owning lines `start..=end` of a file: the engine's
    /// owners, with lambdas standing for the element around them (a
    /// reviewer asks who calls the method, not the lambda).
    fn owning_elements(
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
    fn owning_entry(&mut self, file: &LoadedFile, index: u32) -> Result<Value, ContextError> {
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
        Ok(Value::Object(entry))
    }

    /// What happened to element `id` since the base revision: whether its
    /// signature or body changed, and which callers it gained or lost
    /// (compared by file and calling element, since lines move).
    fn change_since(
        &mut self,
        base: &Snapshot<'_>,
        id: &str,
        with_callers: bool,
    ) -> Result<Value, ContextError> {
        let style = self.style();
        let snapshot = self.cache.snapshot;
        let config = DiffConfig {
            blobs: Some(self.cache.blobs),
        };
        let change = snapshot.change_of(base, id, &config)?;
        let (status, signature_changed, body_changed) = match &change {
            None => ("unchanged", false, false),
            Some(c) => (
                c.kind.as_str(),
                c.kind == ChangeKind::SignatureChanged,
                c.body_changed,
            ),
        };
        let mut out = Map::new();
        out.insert(key(style, Key::ChangeStatus).into(), json!(status));
        out.insert(
            key(style, Key::SignatureChanged).into(),
            json!(signature_changed),
        );
        out.insert(key(style, Key::BodyChanged).into(), json!(body_changed));
        if with_callers {
            let is_added = change.as_ref().is_some_and(|c| c.kind == ChangeKind::Added);
            let head_callers = self.direct_callers(snapshot, id)?;
            let base_callers = if is_added {
                Arc::default()
            } else {
                self.direct_callers(base, id)?
            };
            fn site(hit: &RefHit) -> (&str, Option<&str>) {
                (&hit.path, hit.enclosing_named.as_deref())
            }
            let head_sites: HashSet<_> = head_callers.iter().map(site).collect();
            let base_sites: HashSet<_> = base_callers.iter().map(site).collect();
            let added: Vec<&RefHit> = head_callers
                .iter()
                .filter(|h| !base_sites.contains(&site(h)))
                .collect();
            let removed: Vec<&RefHit> = base_callers
                .iter()
                .filter(|b| !head_sites.contains(&site(b)))
                .collect();
            for (name, hits) in [(Key::CallersAdded, added), (Key::CallersRemoved, removed)] {
                let total = hits.len();
                let kept = total.min(self.settings.max_callers as usize);
                if kept < total {
                    self.truncated.push(json!({
                        "what": format!("{} of {id}", key(KeyStyle::En, name)),
                        "kept": kept,
                        "total": total,
                        "note": "raise max_callers to see more",
                    }));
                }
                let list: Vec<Value> = hits
                    .into_iter()
                    .take(kept)
                    .map(|hit| self.location(hit, 1))
                    .collect();
                out.insert(key(style, name).into(), Value::Array(list));
            }
        }
        Ok(Value::Object(out))
    }

    /// The callers of `id` in one revision, test sources left out unless
    /// asked for. Shared with the snapshot's cache when nothing is left
    /// out.
    fn direct_callers(
        &self,
        snapshot: &Snapshot<'_>,
        id: &str,
    ) -> Result<Arc<Vec<RefHit>>, ContextError> {
        let all = snapshot.callers_shared(id, &CallersConfig::default())?;
        if self.settings.include_tests {
            return Ok(all);
        }
        Ok(Arc::new(
            all.iter()
                .filter(|hit| !is_test_path(&hit.path))
                .cloned()
                .collect(),
        ))
    }

    /// `{file, line, caller}` of a site, with `depth` beyond the first
    /// level.
    fn location(&self, hit: &RefHit, depth: u32) -> Value {
        let style = self.style();
        let mut location = Map::new();
        location.insert(key(style, Key::File).into(), json!(hit.path));
        location.insert(key(style, Key::Line).into(), json!(hit.line));
        location.insert(key(style, Key::Caller).into(), json!(hit.enclosing_named));
        if depth > 1 {
            location.insert(key(style, Key::Depth).into(), json!(depth));
        }
        Value::Object(location)
    }

    /// The sites referencing `id`, level by level up to the caller depth.
    fn reference_locations(&mut self, id: &str) -> Result<Vec<Value>, ContextError> {
        let mut out = Vec::new();
        let mut frontier = vec![id.to_string()];
        let mut seen = vec![id.to_string()];
        for depth in 1..=self.settings.caller_depth {
            let mut next = Vec::new();
            for element in &frontier {
                let all = self.direct_callers(self.cache.snapshot, element)?;
                let total = all.len();
                let kept = total.min(self.settings.max_callers as usize);
                if kept < total {
                    self.truncated.push(json!({
                        "what": format!("reference_locations of {element}"),
                        "kept": kept,
                        "total": total,
                        "note": "raise max_callers to see more",
                    }));
                }
                for hit in all.iter().take(kept) {
                    out.push(self.location(hit, depth));
                    if let Some(caller) = hit.enclosing_named.clone()
                        && caller.contains('(')
                        && !seen.contains(&caller)
                    {
                        seen.push(caller.clone());
                        next.push(caller);
                    }
                }
            }
            frontier = next;
        }
        Ok(out)
    }

    /// Adds, per diff line, the methods and fields used on it.
    fn referenced_on_lines(
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
    fn expand_callees(&mut self) -> Result<(), ContextError> {
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

    /// `element_info`: every registered element under its short id.
    fn element_info(&mut self) -> Result<Map<String, Value>, ContextError> {
        let mut out = Map::new();
        for slot in 0..self.slots.len() {
            let info = self.info(slot)?;
            out.insert(format!("E{}", slot + 1), info);
        }
        if self.n_elements_cut > 0 {
            self.truncated.push(json!({
                "what": "element_info",
                "kept": self.slots.len(),
                "total": self.slots.len() as u64 + self.n_elements_cut,
                "note": "the answer holds at most max_elements elements; ask about fewer lines",
            }));
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

/// Whether callers of this kind of element are looked up: methods,
/// constructors and fields are called or read; types, initializers and
/// lambdas are not.
fn has_callers(kind: ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Method
            | ElementKind::Constructor
            | ElementKind::AnnotationElement
            | ElementKind::Field
            | ElementKind::EnumConstant
            | ElementKind::RecordComponent
    )
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

/// Test sources by the usual layouts: a `test` or `tests` directory, or a
/// class named `*Test`, `*Tests` or `*IT`.
fn is_test_path(path: &str) -> bool {
    let in_test_dir = path
        .split('/')
        .rev()
        .skip(1)
        .any(|dir| dir == "test" || dir == "tests");
    let name = path.rsplit('/').next().unwrap_or(path);
    in_test_dir
        || ["Test.java", "Tests.java", "IT.java"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// `METHOD`, `FIELD`, `CLASS`, ...
fn kind_label(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Class => "CLASS",
        ElementKind::Interface => "INTERFACE",
        ElementKind::Enum => "ENUM",
        ElementKind::Record => "RECORD",
        ElementKind::AnnotationType => "ANNOTATION_TYPE",
        ElementKind::AnonymousClass => "ANONYMOUS_CLASS",
        ElementKind::Method => "METHOD",
        ElementKind::AnnotationElement => "ANNOTATION_ELEMENT",
        ElementKind::Constructor => "CONSTRUCTOR",
        ElementKind::Field => "FIELD",
        ElementKind::RecordComponent => "RECORD_COMPONENT",
        ElementKind::EnumConstant => "ENUM_CONSTANT",
        ElementKind::InstanceInitializer => "INITIALIZER",
        ElementKind::StaticInitializer => "STATIC_INITIALIZER",
        ElementKind::Lambda => "LAMBDA",
    }
}

/// The kind of a library element, known only from how it is referenced.
fn ref_kind_label(kind: RefTargetKind) -> &'static str {
    match kind {
        RefTargetKind::Call | RefTargetKind::MethodRef => "METHOD",
        RefTargetKind::New | RefTargetKind::CtorCall => "CONSTRUCTOR",
        RefTargetKind::Field => "FIELD",
    }
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
    use super::*;

    #[test]
    fn test_paths_follow_the_usual_layouts() {
        for path in [
            "src/test/java/com/acme/ShopTest.java",
            "tests/Foo.java",
            "src/main/java/com/acme/ShopIT.java",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/main/java/com/acme/Shop.java",
            "src/main/java/test.java",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }

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
