//! The `code_query` tool: the query language (`docs/query-language.md`)
//! over a review task's revision, answered as the JSON of
//! `refscope query --format json`.

use std::path::Path;
use std::sync::Arc;

use refscope_engine::RevisionCache;
use refscope_engine::{Snapshot, Source, Store};
use refscope_query::lang::{AnswerJson, ErrorJson, Evaluator, run};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::tool::input_schema;
use crate::task::{OpenTasks, TaskError, TaskRevisions, TaskStore};
use refscope_tool::{ToolDefinition, ToolError, ToolSet};

/// The tool's canonical name.
pub const CODE_QUERY: &str = "code_query";

const CODE_QUERY_DESCRIPTION: &str = "\
Runs one query of refscope's query language over a review task's revision and returns the matching elements as JSON.

Inputs: task_id (the review task: repository and revision under review), query (one query, e.g. `src/main/java/com/acme/Shop.java:42 | callers depth 2 | where kind = method and path !~ \"*Test*\"`, `com.acme.Shop#order | callees`, `com.acme.Repo | impls`, `changed BASE..HEAD | where kind = method`, `... | count`).

The language: selectors (an element id, parameter types optional, `*` wildcards: `com.acme.*#get*`; FILE:LINE or FILE:START-END for the owning elements; `file PATH`; `methods NAME in PACKAGE under PATH` and the other kinds: types, classes, interfaces, fields, constructors, lambdas, ...; `changed A..B`), relations after `|` (callers, callees, refs, impls, overrides, supertypes, subtypes, members, owner; `depth N`; `callers direct` without polymorphic callers), stages (`where kind = method and path !~ \"*Test*\"` over kind, name, id, path, package, modifier, annotation, type, confidence, change; `limit N`; `count` last), sets (union, intersect, except, parentheses) and `at REV QUERY`.

Output: {revision, query, count, elements: [{id, kind, element: {class, name, kind, type, modifiers, annotations, parameters, exceptions, start_line, end_line, source_file, ...}, edge: {relation, from, depth, site: {file, line, col, kind, confidence, via}}, change}]} (elements is null for `| count`).

When to use: a precise follow-up question the code_context answer does not cover (callers two levels up, every implementation of an interface, what changed between two revisions). Use code_context first for a diff.

Caveats: line numbers refer to the task's revision; polymorphic callers (calls through an overridden method) are included and marked with `via`; library elements (JDK, jars) have no declaration. A query that does not parse is refused with the column and what was expected there.";

/// The arguments of `code_query`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeQueryInput {
    /// The review task whose revision the query reads (`refscope task
    /// add`).
    pub task_id: String,
    /// One query of the query language.
    pub query: String,
}

/// The query tool set over one store: its tasks and its index. A task's
/// revision is opened (and indexed) on first use and kept open with what
/// was read of it, so later calls are warm.
pub struct QueryTools {
    store: Store,
    tasks: TaskStore,
    opened: OpenTasks<OpenedTask>,
}

struct OpenedTask {
    revisions: TaskRevisions,
    source: Source,
    cache: Arc<RevisionCache>,
}

impl QueryTools {
    /// The tools over the store in `store_dir` (created if missing).
    pub fn open(store_dir: &Path) -> Result<Self, TaskError> {
        Ok(Self {
            store: Store::open(store_dir)?,
            tasks: TaskStore::open(store_dir)?,
            opened: OpenTasks::default(),
        })
    }

    /// The answer to one `code_query` call.
    pub fn code_query(&mut self, input: &CodeQueryInput) -> Result<Value, ToolError> {
        let task = self
            .tasks
            .get(&input.task_id)
            .map_err(|e| ToolError::new(e.to_string()))?;
        let store = &self.store;
        let opened = self.opened.get_or_open(
            &task.id,
            |opened| opened.revisions.task == task,
            || {
                let revisions = TaskRevisions::open_for_tools(store, &task)
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let source = Source::open(&task.repo).map_err(|e| ToolError::new(e.to_string()))?;
                let cache = Arc::new(RevisionCache::new(revisions.revision.clone()));
                Ok(OpenedTask {
                    revisions,
                    source,
                    cache,
                })
            },
        )?;
        let snapshot = Snapshot::with_cache(&self.store, opened.cache.clone())
            .map_err(|e| ToolError::new(e.to_string()))?;
        let evaluator = Evaluator::new(&self.store, Some(&opened.source), snapshot);
        let query = input.query.trim();
        match run(&evaluator, query) {
            Ok(answer) => serde_json::to_value(AnswerJson::new(query, &answer))
                .map_err(|e| ToolError::new(format!("the answer does not serialise: {e}"))),
            Err(error) => {
                let detail = ErrorJson::new(query, &error).error;
                let mut message = format!("code_query: {}", error.render(query));
                if !detail.expected.is_empty() {
                    message.push_str(&format!("\nexpected: {}", detail.expected.join(", ")));
                }
                Err(ToolError::new(message))
            }
        }
    }
}

impl ToolSet for QueryTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: CODE_QUERY,
            description: CODE_QUERY_DESCRIPTION,
            input_schema: input_schema::<CodeQueryInput>(),
        }]
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        refscope_tool::canonical_tool_name(requested, [CODE_QUERY])
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        debug_assert_eq!(name, CODE_QUERY);
        let input: CodeQueryInput = serde_json::from_value(Value::Object(arguments.clone()))
            .map_err(|e| {
                ToolError::new(format!(
                    "code_query arguments are not valid: {e}; give task_id (string) and query (string)"
                ))
            })?;
        self.code_query(&input)
    }
}
