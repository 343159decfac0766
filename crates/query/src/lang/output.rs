//! Answers for people (aligned text) and programs (JSON, a schema of its
//! own documented in `docs/query-language.md`).

use serde::Serialize;

use super::error::{ErrorStage, QueryError};
use super::eval::{Answer, ElementHistory, Row};
use super::page::Page;
use crate::graph::table;
use crate::render::ElementJson;
use refscope_engine::HistoryEntry;

/// An answer as JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AnswerJson {
    /// The revision read.
    pub revision: String,
    /// The query as given.
    pub query: String,
    /// How many elements the answer holds.
    pub count: usize,
    /// The elements; `None` for a query ending in `| count`.
    pub elements: Option<Vec<RowJson>>,
    /// For a query ending in `| history`: each declared element's commits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histories: Option<Vec<HistoryJson>>,
    /// For a page of an answer: how many elements the whole answer holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// For a page of an answer: the cursor of the next page, `null` on the
    /// last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Option<String>>,
    /// The time budget ran out: the elements are those found until then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// The commits that changed one element.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HistoryJson {
    /// The element.
    pub id: String,
    /// Its file at the revision read.
    pub path: String,
    /// The commits, newest first.
    pub commits: Vec<CommitJson>,
}

/// The answer of `refscope history --json` and of the `code_history`
/// tool: one element's commits, or a page of them.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ElementHistoryJson {
    /// The element's id.
    pub element: String,
    /// The revision the history starts from.
    pub revision: String,
    /// The element's file at that revision.
    pub path: String,
    /// The declaration's first line at that revision.
    pub start_line: u32,
    /// The declaration's last line at that revision.
    pub end_line: u32,
    /// The commits, newest first.
    pub commits: Vec<CommitJson>,
    /// For a page: how many commits the whole history holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// For a page: the cursor of the next page, `null` on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Option<String>>,
}

/// One commit of an element's history.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CommitJson {
    /// The full commit id.
    pub commit: String,
    /// Its author.
    pub author: String,
    /// Its author's e-mail address.
    pub author_email: String,
    /// Its author time, RFC 3339.
    pub date: String,
    /// The first line of its message.
    pub summary: String,
    /// `body`, `signature`, `whitespace`, `moved`, `renamed` or `added`.
    pub change: &'static str,
    /// The element's file in that commit.
    pub path: String,
    /// The element's lines in that commit.
    pub start_line: u32,
    pub end_line: u32,
}

impl CommitJson {
    /// Converts a history entry.
    pub fn of(entry: &HistoryEntry) -> Self {
        Self {
            commit: entry.commit.clone(),
            author: entry.author.clone(),
            author_email: entry.author_email.clone(),
            date: entry.date.clone(),
            summary: entry.summary.clone(),
            change: entry.change.as_str(),
            path: entry.path.clone(),
            start_line: entry.start_line,
            end_line: entry.end_line,
        }
    }
}

impl HistoryJson {
    /// Converts an element's history.
    pub fn of(history: &ElementHistory) -> Self {
        Self {
            id: history.id.clone(),
            path: history.path.clone(),
            commits: history.commits.iter().map(CommitJson::of).collect(),
        }
    }
}

/// One element of an answer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RowJson {
    /// Its element id.
    pub id: String,
    /// Its kind; `None` for a library type.
    pub kind: Option<&'static str>,
    /// Its declaration (the element metadata of the code-context JSON);
    /// `None` when the revision's sources do not declare it.
    pub element: Option<ElementJson>,
    /// How the last relation reached it; `None` for selected elements.
    pub edge: Option<EdgeJson>,
    /// For `changed`: `added`, `removed`, `signature_changed` or
    /// `body_changed`.
    pub change: Option<&'static str>,
}

/// How a relation reached an element.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EdgeJson {
    /// The relation (`callers`, `callees`, `impls`, ...).
    pub relation: &'static str,
    /// The element it was followed from.
    pub from: String,
    /// 1 for direct, 2 for one step further, ...
    pub depth: u32,
    /// For callers, callees and refs: the reference site.
    pub site: Option<SiteJson>,
}

/// A reference site.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SiteJson {
    /// Repository-relative file.
    pub file: String,
    /// Line of the referenced name.
    pub line: u32,
    /// UTF-16 column of the referenced name.
    pub col: u32,
    /// `call`, `new`, `method_ref`, `ctor_call` or `field`.
    pub kind: &'static str,
    /// `exact`, `external`, `ambiguous` or `unresolved`.
    pub confidence: &'static str,
    /// For polymorphic callers: the overridden method the call targets.
    pub via: Option<String>,
    /// For a call through a Spring injection point: the point and its
    /// beans (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub injection: Option<crate::graph::InjectionJson>,
}

/// An error as JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorJson {
    /// The query as given.
    pub query: String,
    /// What went wrong.
    pub error: ErrorDetailJson,
}

/// What went wrong, where.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorDetailJson {
    /// `syntax` or `evaluation`.
    pub stage: ErrorStage,
    /// One line.
    pub message: String,
    /// 1-based column (characters) of the offending part, if any.
    pub column: Option<usize>,
    /// What would have been accepted there.
    pub expected: Vec<String>,
    /// The nearest known keyword or element.
    pub suggestion: Option<String>,
}

impl AnswerJson {
    /// Converts an answer.
    pub fn new(query: &str, answer: &Answer) -> Self {
        Self {
            revision: answer.revision.clone(),
            query: query.to_string(),
            count: answer.rows.len(),
            elements: (!answer.count_only)
                .then(|| answer.rows.iter().map(RowJson::from_row).collect()),
            histories: answer
                .histories
                .as_ref()
                .map(|histories| histories.iter().map(HistoryJson::of).collect()),
            total: None,
            next_cursor: None,
            partial: answer.partial,
        }
    }

    /// Converts a page of an answer (see [`super::page`]).
    pub fn paged(query: &str, answer: &Answer, page: Option<&Page>) -> Self {
        let mut json = Self::new(query, answer);
        if let Some(page) = page {
            json.total = Some(page.total);
            json.next_cursor = Some(page.next_cursor.clone());
        }
        json
    }
}

impl RowJson {
    /// Converts a row.
    pub fn from_row(row: &Row) -> Self {
        Self {
            id: row.id.clone(),
            kind: row.kind(),
            element: row.view.as_ref().map(ElementJson::from_view),
            edge: row.edge.as_ref().map(|edge| EdgeJson {
                relation: edge.relation.as_str(),
                from: edge.from.clone(),
                depth: edge.depth,
                site: edge.site.as_ref().map(|site| SiteJson {
                    file: site.file.clone(),
                    line: site.line,
                    col: site.col,
                    kind: site.kind,
                    confidence: site.confidence,
                    via: site.via.clone(),
                    injection: site
                        .injection
                        .as_ref()
                        .map(crate::graph::InjectionJson::from_injection),
                }),
            }),
            change: row.change.map(|c| c.as_str()),
        }
    }
}

impl ErrorJson {
    /// Converts an error.
    pub fn new(query: &str, error: &QueryError) -> Self {
        Self {
            query: query.to_string(),
            error: ErrorDetailJson {
                stage: error.stage,
                message: error.message.clone(),
                column: error.column(query),
                expected: error.expected.clone(),
                suggestion: error.suggestion.clone(),
            },
        }
    }
}

/// An answer as text: the count alone for `| count`; else one line per
/// element — `file:line` of its name (`-` for library elements), kind, id
/// — followed, for elements reached by a relation, by the site
/// (`kind confidence file:line:col`), `via M` for polymorphic callers,
/// `depth N` beyond the first step, and the change for `changed`.
pub fn answer_text(answer: &Answer) -> String {
    if answer.count_only {
        return format!("{}\n", answer.rows.len());
    }
    if let Some(histories) = &answer.histories {
        return histories.iter().map(history_text).collect();
    }
    table(answer.rows.iter().map(row_cells).collect())
}

/// An element's history as text: the element, then one line per commit:
/// the commit's first 12 digits, its date, author, change and summary.
pub fn history_text(history: &ElementHistory) -> String {
    let mut text = format!("{} ({})\n", history.id, history.path);
    let rows: Vec<Vec<String>> = history
        .commits
        .iter()
        .map(|entry| {
            vec![
                format!("  {}", entry.commit.get(..12).unwrap_or(&entry.commit)),
                entry.date.get(..10).unwrap_or(&entry.date).to_string(),
                entry.author.clone(),
                entry.change.as_str().to_string(),
                entry.summary.clone(),
            ]
        })
        .collect();
    text.push_str(&table(rows));
    text
}

fn row_cells(row: &Row) -> Vec<String> {
    let location = match &row.view {
        Some(view) => format!("{}:{}", view.path, view.record.name_line),
        None => "-".to_string(),
    };
    let mut cells = vec![
        location,
        row.kind().unwrap_or("type").to_string(),
        row.id.clone(),
    ];
    let mut notes: Vec<String> = Vec::new();
    if let Some(change) = row.change {
        notes.push(change.as_str().to_string());
    }
    if let Some(edge) = &row.edge {
        if let Some(site) = &edge.site {
            notes.push(format!(
                "{} {} {}:{}:{}",
                site.kind, site.confidence, site.file, site.line, site.col
            ));
            if let Some(via) = &site.via {
                notes.push(format!("via {via}"));
            }
            if let Some(injection) = &site.injection {
                notes.push(crate::graph::InjectionJson::from_injection(injection).text());
            }
        }
        if edge.depth > 1 {
            notes.push(format!("depth {}", edge.depth));
        }
    }
    if !notes.is_empty() {
        cells.push(notes.join("  "));
    }
    cells
}
