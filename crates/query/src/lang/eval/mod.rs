//! Evaluation: a parsed [`Query`] → rows of elements, over the engine's
//! read API.
//!
//! Every set is an ordered list of distinct elements (by id); each row
//! keeps how it was reached (the relation, the site, its confidence, the
//! depth) and, for `changed`, how it changed. Relations walk breadth
//! first and never expand an element twice, so cycles end.
//!
//! This module holds the evaluator, its caches and its entry points, and
//! dispatches an expression and the stages of a pipe. Each child holds one
//! concern: `row` the rows of an answer and how they were reached,
//! `select` the selectors a query starts from, `unknown` the errors for
//! names a selector does not find, `revision` the snapshots of `at` and
//! the diffs of `changed`, `relation` the relations walked from rows,
//! `declaration` the declarations read through the file cache,
//! `condition` the conditions of `where`, and `set_op` the set operations
//! that combine rows.

mod condition;
mod declaration;
mod relation;
mod revision;
mod row;
mod select;
mod set_op;
mod unknown;

pub use row::{Edge, Row, Site};
pub use select::kinds_of_word;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use refscope_engine::BlobReader;
use refscope_engine::{FileData, HistoryEntry, Snapshot, Source, Store};

use super::ast::{Expr, Query, Relation, Span, Stage};
use super::error::QueryError;
use condition::holds;
use set_op::combine;

/// Depth of the hierarchy relations when none is given: all the way.
const UNBOUNDED_DEPTH: u32 = u32::MAX;

/// The answer to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The revision the query read (the one it started at).
    pub revision: String,
    /// The elements, in order.
    pub rows: Vec<Row>,
    /// The query ended in `| count`.
    pub count_only: bool,
    /// For a query ending in `| history`: each declared element's commits.
    pub histories: Option<Vec<ElementHistory>>,
    /// The time budget ran out: the rows are those found until then.
    pub partial: bool,
}

/// The commits that changed one element, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementHistory {
    /// The element.
    pub id: String,
    /// Its file at the revision read.
    pub path: String,
    /// The commits.
    pub commits: Vec<HistoryEntry>,
}

/// Evaluates queries against one store; keeps snapshots and files read,
/// so a batch of queries opens the store once.
pub struct Evaluator<'s> {
    store: &'s Store,
    source: Option<&'s Source>,
    snapshot: Rc<Snapshot<'s>>,
    snapshots: RefCell<HashMap<String, Rc<Snapshot<'s>>>>,
    files: RefCell<HashMap<(i64, String), Arc<FileData>>>,
    blobs: RefCell<Option<Rc<Option<BlobReader>>>>,
    /// How long one query may take ([`Self::with_budget`]).
    budget: Option<Duration>,
    /// When the query being evaluated must stop, and whether it had to.
    deadline: Cell<Option<Instant>>,
    stopped: Cell<bool>,
}

impl<'s> Evaluator<'s> {
    /// An evaluator reading `snapshot` by default; `source` (the
    /// repository) resolves revision names of `at` and `changed` and reads
    /// file contents for `changed`.
    pub fn new(store: &'s Store, source: Option<&'s Source>, snapshot: Snapshot<'s>) -> Self {
        Self {
            store,
            source,
            snapshot: Rc::new(snapshot),
            snapshots: RefCell::new(HashMap::new()),
            files: RefCell::new(HashMap::new()),
            blobs: RefCell::new(None),
            budget: None,
            deadline: Cell::new(None),
            stopped: Cell::new(false),
        }
    }

    /// This evaluator with a time budget per query: a query still walking
    /// relations when it runs out answers with the rows found so far,
    /// marked [`Answer::partial`].
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Whether the query's time has run out (and, once it has, that it
    /// stopped early).
    pub(super) fn out_of_time(&self) -> bool {
        let late = self
            .deadline
            .get()
            .is_some_and(|deadline| Instant::now() >= deadline);
        if late {
            self.stopped.set(true);
        }
        late
    }

    /// The snapshot queries read unless they say `at`.
    pub fn snapshot(&self) -> &Snapshot<'s> {
        &self.snapshot
    }

    /// Evaluates a parsed query.
    pub fn evaluate(&self, query: &Query) -> Result<Answer, QueryError> {
        let mut answer = self.evaluate_rows(query)?;
        self.complete(query, &mut answer)?;
        Ok(answer)
    }

    /// Evaluates a parsed query as far as its rows: the rows a relation
    /// reached are not read from their files yet, and histories are not
    /// walked, so that an answer can be cut to a page first
    /// ([`Self::complete`] finishes it).
    pub(crate) fn evaluate_rows(&self, query: &Query) -> Result<Answer, QueryError> {
        self.deadline
            .set(self.budget.map(|budget| Instant::now() + budget));
        self.stopped.set(false);
        let snapshot = self.snapshot.clone();
        let rows = self.expr(&snapshot, &query.expr)?;
        Ok(Answer {
            revision: snapshot.revision().name.clone(),
            rows,
            count_only: query.count,
            histories: None,
            partial: self.stopped.get(),
        })
    }

    /// Finishes an answer of [`Self::evaluate_rows`] (or what is left of
    /// it): reads its rows' declarations and, for `| history`, walks their
    /// histories.
    pub(crate) fn complete(&self, query: &Query, answer: &mut Answer) -> Result<(), QueryError> {
        let snapshot = self.snapshot.clone();
        if !answer.count_only {
            self.read_declarations(&snapshot, &mut answer.rows)
                .map_err(|e| QueryError::evaluation(None, e.to_string()))?;
        }
        answer.histories = query
            .history
            .map(|stage| self.histories(&snapshot, &answer.rows, stage.limit))
            .transpose()?;
        Ok(())
    }

    /// The history of each declared element of `rows`.
    fn histories(
        &self,
        snapshot: &Snapshot<'s>,
        rows: &[Row],
        limit: Option<usize>,
    ) -> Result<Vec<ElementHistory>, QueryError> {
        let revision = &snapshot.revision().name;
        let source = match self.source {
            Some(source @ Source::Git { .. }) if !revision.starts_with("worktree:") => source,
            _ => {
                return Err(QueryError::evaluation(
                    None,
                    "history reads commits from git: query a git revision, where the repository is (or with --repo)",
                ));
            }
        };
        rows.iter()
            .filter_map(|row| row.view.as_ref().map(|view| (row, view)))
            .map(|(row, view)| {
                let commits = source
                    .element_history(self.store, revision, &view.path, view.record.idx, limit)
                    .map_err(|e| QueryError::evaluation(None, e.to_string()))?;
                Ok(ElementHistory {
                    id: row.id.clone(),
                    path: view.path.clone(),
                    commits,
                })
            })
            .collect()
    }

    fn expr(&self, snapshot: &Snapshot<'s>, expr: &Expr) -> Result<Vec<Row>, QueryError> {
        match expr {
            Expr::Select(selector, span) => self.select(snapshot, selector, *span),
            Expr::Pipe(input, stage, span) => {
                let rows = self.expr(snapshot, input)?;
                self.stage(snapshot, rows, stage, *span)
            }
            Expr::Combine(op, left, right) => {
                let left = self.expr(snapshot, left)?;
                let right = self.expr(snapshot, right)?;
                Ok(combine(*op, left, right))
            }
            Expr::At(revision, inner) => {
                // Rows leave the revision they were read at with their
                // declarations read.
                let other = self.snapshot_at(revision)?;
                let mut rows = self.expr(&other, inner)?;
                self.read_declarations(&other, &mut rows)
                    .map_err(|e| QueryError::evaluation(None, e.to_string()))?;
                Ok(rows)
            }
        }
    }

    fn stage(
        &self,
        snapshot: &Snapshot<'s>,
        rows: Vec<Row>,
        stage: &Stage,
        span: Span,
    ) -> Result<Vec<Row>, QueryError> {
        match stage {
            Stage::Limit(n) => Ok(rows.into_iter().take(*n).collect()),
            Stage::Where(condition) => {
                let mut rows = rows;
                self.read_declarations(snapshot, &mut rows)
                    .map_err(|e| QueryError::evaluation(Some(span), e.to_string()))?;
                Ok(rows
                    .into_iter()
                    .filter(|row| holds(condition, row))
                    .collect())
            }
            Stage::Relation {
                relation,
                depth,
                direct,
            } => {
                let depth = depth.unwrap_or(match relation {
                    Relation::Impls
                    | Relation::Subtypes
                    | Relation::Supertypes
                    | Relation::Overrides => UNBOUNDED_DEPTH,
                    _ => 1,
                });
                self.relate(snapshot, rows, *relation, depth, *direct)
                    .map_err(|e| QueryError::evaluation(Some(span), e.to_string()))
            }
        }
    }
}
