//! The `code_query` tool: the query language (`docs/query-language.md`)
//! over a review task's revision, answered as the JSON of
//! `refscope query --format json`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use refscope_engine::RevisionCache;
use refscope_engine::{Snapshot, Source, Store};
use refscope_query::lang::{
    AnswerJson, CommitJson, ElementHistoryJson, ErrorJson, Evaluator, PageRequest, binding,
    history_binding, page_of, run_page,
};
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

Paging: limit (default 100) and cursor (the next_cursor of the previous answer to the same query); budget_ms (default 2000) bounds how long the query walks relations: past it the answer holds what was found, with partial: true.

Output: {revision, query, count, total, next_cursor, partial (only when true), elements: [{id, kind, element: {class, name, kind, type, modifiers, annotations, parameters, exceptions, start_line, end_line, source_file, ...}, edge: {relation, from, depth, site: {file, line, col, kind, confidence, via}}, change}]} (elements is null for `| count`).

When to use: a precise follow-up question the code_context answer does not cover (callers two levels up, every implementation of an interface, what changed between two revisions). Use code_context first for a diff.

Caveats: line numbers refer to the task's revision; polymorphic callers (calls through an overridden method) are included and marked with `via`; library elements (JDK, jars) have no declaration. A query that does not parse is refused with the column and what was expected there.";

/// The history tool's canonical name.
pub const CODE_HISTORY: &str = "code_history";

/// How many commits `code_history` answers unless told otherwise.
pub const DEFAULT_HISTORY_LIMIT: u32 = 20;

const CODE_HISTORY_DESCRIPTION: &str = "\
Lists the commits that changed one element's declaration, newest first, back to the commit that added it, at a review task's revision.

Inputs: task_id (the review task), element (an element id such as `com.acme.Shop#order(java.lang.String,int)`, parameter types optional when one overload has the name; or FILE:LINE, the file repository-relative, for the element declared on that line), limit (at most this many commits, default 20), cursor (the next_cursor of a previous answer about the same element, for the next page).

Output: {element, revision, path, start_line, end_line, commits: [{commit (40 hex), author, author_email, date (RFC 3339), summary, change, path, start_line, end_line}], total, next_cursor, truncated}. change is body, signature (the lines before the body), whitespace, renamed, moved (the element followed across the rename or move) or added (the oldest entry). total counts every commit of the history; next_cursor is null on the last page; truncated is true when more commits follow.

When to use: who last changed a method under review and how, whether a line of the diff belongs to recently churned code, which commit introduced an element. A commit counts when a line of the declaration changed, as `git log -L` finds them.

Caveats: the walk follows first parents (a change on a merged branch shows as the merge); the task's repository must be a git repository.";

/// The arguments of `code_history`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeHistoryInput {
    /// The review task whose revision the history starts from.
    pub task_id: String,
    /// An element id, or FILE:LINE of its declaration.
    pub element: String,
    /// At most this many commits (default 20).
    #[serde(default)]
    pub limit: Option<u32>,
    /// The `next_cursor` of a previous answer about the same element, to
    /// continue where it ended.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The arguments of `code_query`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeQueryInput {
    /// The review task whose revision the query reads (`refscope task
    /// add`).
    pub task_id: String,
    /// One query of the query language.
    pub query: String,
    /// At most this many elements (default 100); the answer gives `total`
    /// and a `next_cursor` for the rest.
    #[serde(default)]
    pub limit: Option<u32>,
    /// The `next_cursor` of a previous answer to the same query, to
    /// continue it.
    #[serde(default)]
    pub cursor: Option<String>,
    /// How long the query may walk relations before it answers with what
    /// it found, marked `partial` (default 2000 ms).
    #[serde(default)]
    pub budget_ms: Option<u64>,
}

/// How many elements `code_query` answers unless told otherwise.
pub const DEFAULT_QUERY_LIMIT: u32 = 100;

/// How long a `code_query` may walk relations unless told otherwise.
pub const DEFAULT_QUERY_BUDGET_MS: u64 = 2000;

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
        let opened = open_task(&self.store, &self.tasks, &mut self.opened, &input.task_id)?;
        let snapshot = Snapshot::with_cache(&self.store, opened.cache.clone())
            .map_err(|e| ToolError::new(e.to_string()))?;
        let revision = snapshot.revision().name.clone();
        let budget = input.budget_ms.unwrap_or(DEFAULT_QUERY_BUDGET_MS);
        let evaluator = Evaluator::new(&self.store, Some(&opened.source), snapshot)
            .with_budget(Duration::from_millis(budget));
        let query = input.query.trim();
        let request = PageRequest {
            limit: Some(input.limit.unwrap_or(DEFAULT_QUERY_LIMIT).max(1) as usize),
            cursor: input.cursor.clone(),
        };
        let bound = binding(self.store.dir(), &revision, query);
        let paged = run_page(&evaluator, query, &request, bound);
        match paged {
            Ok((answer, page)) => {
                serde_json::to_value(AnswerJson::paged(query, &answer, page.as_ref()))
                    .map_err(|e| ToolError::new(format!("the answer does not serialise: {e}")))
            }
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

    /// The answer to one `code_history` call.
    pub fn code_history(&mut self, input: &CodeHistoryInput) -> Result<Value, ToolError> {
        let refuse = |message: String| ToolError::new(format!("code_history: {message}"));
        let limit = input.limit.unwrap_or(DEFAULT_HISTORY_LIMIT);
        if limit == 0 {
            return Err(refuse("limit must be at least 1".into()));
        }
        let opened = open_task(&self.store, &self.tasks, &mut self.opened, &input.task_id)?;
        let snapshot = Snapshot::with_cache(&self.store, opened.cache.clone())
            .map_err(|e| refuse(e.to_string()))?;
        let element = input.element.trim();
        let found = match element.rsplit_once(':') {
            Some((path, line)) if line.bytes().all(|b| b.is_ascii_digit()) && !line.is_empty() => {
                let line = line.parse::<u32>().map_err(|e| refuse(e.to_string()))?;
                snapshot.element_declared_on_line(path.trim_start_matches("./"), line)
            }
            _ => snapshot.find_element(element),
        }
        .map_err(|e| refuse(e.to_string()))?;
        let Some(view) = &found.declared else {
            return Err(refuse(format!(
                "{} is not declared in the task's sources; history follows a declaration",
                found.id
            )));
        };
        let revision = snapshot.revision().name.clone();
        let mut commits = opened
            .source
            .element_history(&self.store, &revision, &view.path, view.record.idx, None)
            .map_err(|e| refuse(e.to_string()))?;
        let request = PageRequest {
            limit: Some(limit as usize),
            cursor: input.cursor.clone(),
        };
        let bound = history_binding(self.store.dir(), &revision, &found.id);
        let page = page_of(&mut commits, &request, bound)
            .map_err(|e| refuse(e.message))?
            .expect("a limit asks for a page");
        let answer = ElementHistoryJson {
            element: found.id.clone(),
            revision,
            path: view.path.clone(),
            start_line: view.record.start_line,
            end_line: view.record.end_line,
            commits: commits.iter().map(CommitJson::of).collect(),
            total: Some(page.total),
            next_cursor: Some(page.next_cursor.clone()),
        };
        let mut json = serde_json::to_value(answer)
            .map_err(|e| refuse(format!("the answer does not serialise: {e}")))?;
        json["truncated"] = Value::Bool(page.next_cursor.is_some());
        Ok(json)
    }
}

/// The task `task_id` of `tasks`, opened (and its revisions indexed into
/// `store`) on first use and kept in `opened`.
fn open_task<'o>(
    store: &Store,
    tasks: &TaskStore,
    opened: &'o mut OpenTasks<OpenedTask>,
    task_id: &str,
) -> Result<&'o OpenedTask, ToolError> {
    let task = tasks
        .get(task_id)
        .map_err(|e| ToolError::new(e.to_string()))?;
    opened.get_or_open(
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
    )
}

impl ToolSet for QueryTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        vec![
            ToolDefinition {
                name: CODE_QUERY,
                description: CODE_QUERY_DESCRIPTION,
                input_schema: input_schema::<CodeQueryInput>(),
            },
            ToolDefinition {
                name: CODE_HISTORY,
                description: CODE_HISTORY_DESCRIPTION,
                input_schema: input_schema::<CodeHistoryInput>(),
            },
        ]
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        refscope_tool::canonical_tool_name(requested, [CODE_QUERY, CODE_HISTORY])
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        let arguments = Value::Object(arguments.clone());
        if name == CODE_HISTORY {
            let input: CodeHistoryInput = serde_json::from_value(arguments).map_err(|e| {
                ToolError::new(format!(
                    "code_history arguments are not valid: {e}; give task_id (string), element (string) and optionally limit (number)"
                ))
            })?;
            return self.code_history(&input);
        }
        debug_assert_eq!(name, CODE_QUERY);
        let input: CodeQueryInput = serde_json::from_value(arguments).map_err(|e| {
            ToolError::new(format!(
                "code_query arguments are not valid: {e}; give task_id (string) and query (string)"
            ))
        })?;
        self.code_query(&input)
    }
}
