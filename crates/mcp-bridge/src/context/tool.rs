//! The `code_context` tool: tasks, settings and the answer, behind the
//! [`ToolSet`] seam the server serves.

use std::path::Path;
use std::sync::Arc;

use refscope_engine::BlobReader;
use refscope_engine::RevisionCache;
use refscope_engine::{Snapshot, Source, Store};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::settings::{ContextSettings, KeyStyle, SettingsOverrides};
use super::{ContextRequest, ContextSources, assemble};
use crate::task::{OpenTasks, Task, TaskError, TaskRevisions, TaskStore};
use refscope_tool::{ToolDefinition, ToolError, ToolSet};

/// The canonical name of the tool.
pub const CODE_CONTEXT: &str = "code_context";

const CODE_CONTEXT_DESCRIPTION: &str = "\
Explains a diff of one Java file in one call: which elements (methods, constructors, fields) own each changed line range and where the rest of the repository references them, which methods and fields each changed line uses, and what every one of those elements is.

Inputs: task_id (the review task: repository, revision under review, optional base revision), file_path (repository-relative, as in the diff), diff_lines (the diff's line ranges in the new file as a flat list [start1, end1, start2, end2, ...], 1-based, inclusive). Optional: caller_depth (default 1; 2 adds callers of callers), callee_depth (default 1; 2 adds what the used methods use), max_source_lines (default 80), max_callers (default 20), include_tests (default true), include_history (default false: true adds to each owning element its last_change, the commit that last changed it: commit, author, date, summary, change), key_style (\"en\" or \"zh\" for the original design document's Chinese field names), cursor (the next_cursor of a list a previous answer to the same call cut: the answer is then that list's next page).

Output: JSON with task_id, revision, file; element_relations.owning_elements: per range key \"start_end\", a list of {element_id, reference_locations: [{file, line, caller}]}; element_relations.referenced_elements: per line key, a list of {element_id, name, kind} in order of appearance; element_info: per short id (E1, E2, ...) the element's qualified_id, kind, class, name, return or field type, modifiers, annotations, parameters, exceptions, start_line, end_line, fields_used, source_file, implementations (interface and abstract methods), source; truncated: what was cut, how much (kept, total) and, for a cut list of sites or elements, the next_cursor that continues it; notes. With cursor: {task_id, revision, base_revision, file, continues (the list), the list's next page under its own key (reference_locations, callers_added, callers_removed or element_info), total, next_cursor}.

When to use: first, for every changed Java file of a review, before judging a change; its reference_locations answer \"does this change break a caller?\".

Caveats: line numbers refer to the revision under review; a range past the end of the file is an error (check the revision). Library elements (JDK, jars) have no source. Callers through interfaces are included (polymorphic callers), so they over-approximate. Unresolvable references are left out with a note. Non-Java files give empty relations and a note.";

/// The arguments of `code_context`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeContextInput {
    /// The review task's id (see `refscope task add`): it names the
    /// repository, the revision under review and the optional base revision.
    pub task_id: String,
    /// The file, repository-relative as in the diff, e.g.
    /// "src/main/java/com/acme/Shop.java".
    pub file_path: String,
    /// The diff's line ranges in the file at the revision under review, as
    /// a flat list of 1-based inclusive pairs: [start1, end1, start2, end2, ...].
    pub diff_lines: Vec<i64>,
    /// Levels of callers per owning element (default 1; 0 for none).
    #[serde(default)]
    pub caller_depth: Option<u32>,
    /// Levels of used elements (default 1: what each diff line uses; 2
    /// adds what those methods use; 0 for none).
    #[serde(default)]
    pub callee_depth: Option<u32>,
    /// Source lines shown per element before it is cut (default 80).
    #[serde(default)]
    pub max_source_lines: Option<u32>,
    /// Reference locations listed per element (default 20).
    #[serde(default)]
    pub max_callers: Option<u32>,
    /// Whether callers in test sources are listed (default true).
    #[serde(default)]
    pub include_tests: Option<bool>,
    /// Whether each owning element says which commit last changed it
    /// (default false).
    #[serde(default)]
    pub include_history: Option<bool>,
    /// Field names of the answer: "en" (default) or "zh".
    #[serde(default)]
    pub key_style: Option<KeyStyle>,
    /// The `next_cursor` of a list that a previous answer to the same call
    /// cut (see `truncated`): the answer is then that list's next page.
    #[serde(default)]
    pub cursor: Option<String>,
}

impl CodeContextInput {
    /// The required arguments, default settings.
    pub fn new(task_id: &str, file_path: &str, diff_lines: Vec<i64>) -> Self {
        Self {
            task_id: task_id.to_string(),
            file_path: file_path.to_string(),
            diff_lines,
            caller_depth: None,
            callee_depth: None,
            max_source_lines: None,
            max_callers: None,
            include_tests: None,
            include_history: None,
            key_style: None,
            cursor: None,
        }
    }

    /// These arguments with the settings of `overrides`.
    pub fn with_overrides(self, overrides: &SettingsOverrides) -> Self {
        Self {
            caller_depth: overrides.caller_depth,
            callee_depth: overrides.callee_depth,
            max_source_lines: overrides.max_source_lines,
            max_callers: overrides.max_callers,
            include_tests: overrides.include_tests,
            include_history: overrides.include_history,
            key_style: overrides.key_style,
            ..self
        }
    }

    /// The settings this call overrides.
    pub fn overrides(&self) -> SettingsOverrides {
        SettingsOverrides {
            caller_depth: self.caller_depth,
            callee_depth: self.callee_depth,
            max_source_lines: self.max_source_lines,
            max_callers: self.max_callers,
            include_tests: self.include_tests,
            include_history: self.include_history,
            key_style: self.key_style,
        }
    }
}

/// The context tool set over one store: its tasks, its index, configured
/// settings. Tasks are opened (and their revisions indexed) on first use
/// and kept open, so later calls are warm.
pub struct ContextTools {
    store: Store,
    tasks: TaskStore,
    settings: ContextSettings,
    opened: OpenTasks<OpenedTask>,
}

struct OpenedTask {
    revisions: TaskRevisions,
    /// The task's repository, for the history of elements.
    source: Source,
    blobs: BlobReader,
    /// What the calls so far read and derived of the revision and of the
    /// base: indexed revisions never change, so later calls reuse it.
    cache: Arc<RevisionCache>,
    base_cache: Option<Arc<RevisionCache>>,
}

impl ContextTools {
    /// The tools over the store in `store_dir` (created if missing), with
    /// these configured settings.
    pub fn open(store_dir: &Path, settings: ContextSettings) -> Result<Self, TaskError> {
        Ok(Self {
            store: Store::open(store_dir)?,
            tasks: TaskStore::open(store_dir)?,
            settings,
            opened: OpenTasks::default(),
        })
    }

    /// The store's tasks.
    pub fn tasks(&self) -> &TaskStore {
        &self.tasks
    }

    /// The answer to one `code_context` call.
    pub fn code_context(&mut self, input: &CodeContextInput) -> Result<Value, ToolError> {
        let task = self.tasks.get(&input.task_id).map_err(tool_error)?;
        self.context_for_task(
            &task,
            Some(&input.task_id),
            &input.file_path,
            &input.diff_lines,
            &input.overrides(),
            input.cursor.as_deref(),
        )
    }

    /// The answer for a task that need not be stored (`refscope context
    /// --repo`): `echo_id` is the `task_id` the answer shows.
    pub fn context_for_task(
        &mut self,
        task: &Task,
        echo_id: Option<&str>,
        file_path: &str,
        diff_lines: &[i64],
        overrides: &SettingsOverrides,
        cursor: Option<&str>,
    ) -> Result<Value, ToolError> {
        let settings = self.settings.with(overrides);
        let file_path = file_path.trim_start_matches("./");
        let store = &self.store;
        let opened = self.opened.get_or_open(
            &task.id,
            |opened| opened.revisions.task == *task,
            || {
                let revisions = TaskRevisions::open_for_tools(store, task).map_err(tool_error)?;
                let source = Source::open(&task.repo).map_err(|e| ToolError::new(e.to_string()))?;
                let blobs = source
                    .reader_spec()
                    .open()
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let cache = Arc::new(RevisionCache::new(revisions.revision.clone()));
                let base_cache = revisions
                    .base
                    .clone()
                    .map(|row| Arc::new(RevisionCache::new(row)));
                Ok(OpenedTask {
                    revisions,
                    source,
                    blobs,
                    cache,
                    base_cache,
                })
            },
        )?;
        let engine_error = |e: refscope_engine::Error| ToolError::new(e.to_string());
        let snapshot =
            Snapshot::with_cache(&self.store, opened.cache.clone()).map_err(engine_error)?;
        let base = match &opened.base_cache {
            Some(cache) => {
                Some(Snapshot::with_cache(&self.store, cache.clone()).map_err(engine_error)?)
            }
            None => None,
        };
        let binding = ContextRequest::binding(
            self.store.dir(),
            &snapshot.revision().name,
            file_path,
            diff_lines,
            &settings,
        );
        let request = ContextRequest {
            task_id: echo_id,
            file: file_path,
            diff_lines,
            settings: &settings,
            binding,
            cursor,
        };
        let sources = ContextSources {
            snapshot: &snapshot,
            base: base.as_ref(),
            blobs: &opened.blobs,
            history: Some((&opened.source, &self.store)),
        };
        assemble(&sources, &request).map_err(|e| ToolError::new(e.to_string()))
    }
}

fn tool_error(error: TaskError) -> ToolError {
    ToolError::new(error.to_string())
}

impl ToolSet for ContextTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: CODE_CONTEXT,
            description: CODE_CONTEXT_DESCRIPTION,
            input_schema: input_schema::<CodeContextInput>(),
        }]
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        refscope_tool::canonical_tool_name(requested, [CODE_CONTEXT])
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        debug_assert_eq!(name, CODE_CONTEXT);
        let input: CodeContextInput = serde_json::from_value(Value::Object(arguments.clone()))
            .map_err(|e| {
                ToolError::new(format!(
                    "code_context arguments are not valid: {e}; give task_id (string), file_path (string) and diff_lines (array of integers)"
                ))
            })?;
        self.code_context(&input)
    }
}

/// The JSON Schema of a tool's arguments, as an object schema.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(mut map)) => {
            map.remove("$schema");
            map
        }
        _ => Map::new(),
    }
}
