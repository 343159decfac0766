//! Evaluation: a parsed [`Query`] → rows of elements, over the engine's
//! read API.
//!
//! Every set is an ordered list of distinct elements (by id); each row
//! keeps how it was reached (the relation, the site, its confidence, the
//! depth) and, for `changed`, how it changed. Relations walk breadth
//! first and never expand an element twice, so cycles end.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use refscope_engine::BlobReader;
use refscope_engine::ElementRecord;
use refscope_engine::{
    CallersConfig, ChangeKind, DiffConfig, ElementSearch, RefHit, glob_matches, id_matches,
    package_of,
};
use refscope_engine::{ElementKind, FileFacts};
use refscope_engine::{ElementView, Error, Snapshot, Source, Store};

use super::ast::{
    CompareOp, Condition, Expr, Field, KindSelector, Query, Relation, Revision, Selector, SetOp,
    Span, Stage,
};
use super::error::{QueryError, nearest_word};
use super::parser::KIND_WORDS;

/// Depth of the hierarchy relations when none is given: all the way.
const UNBOUNDED_DEPTH: u32 = u32::MAX;

/// One element of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its element id.
    pub id: String,
    /// Its declaration, when the revision's sources hold it (library
    /// elements and default constructors have none).
    pub view: Option<ElementView>,
    /// How the last relation reached it.
    pub edge: Option<Edge>,
    /// How it changed, for rows of `changed`.
    pub change: Option<ChangeKind>,
}

/// How a relation reached an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The relation followed.
    pub relation: Relation,
    /// The element it was followed from.
    pub from: String,
    /// 1 for a direct relation, 2 for one step further, ...
    pub depth: u32,
    /// For callers, callees and refs: the reference site.
    pub site: Option<Site>,
}

/// A reference site that connects two elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
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
}

/// The answer to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The revision the query read (the one it started at).
    pub revision: String,
    /// The elements, in order.
    pub rows: Vec<Row>,
    /// The query ended in `| count`.
    pub count_only: bool,
}

/// Evaluates queries against one store; keeps snapshots and files read,
/// so a batch of queries opens the store once.
pub struct Evaluator<'s> {
    store: &'s Store,
    source: Option<&'s Source>,
    snapshot: Rc<Snapshot<'s>>,
    snapshots: RefCell<HashMap<String, Rc<Snapshot<'s>>>>,
    files: RefCell<HashMap<(i64, String), Rc<LoadedFile>>>,
    blobs: RefCell<Option<Rc<Option<BlobReader>>>>,
}

struct LoadedFile {
    records: Vec<ElementRecord>,
    facts: FileFacts,
    by_id: HashMap<String, u32>,
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
        }
    }

    /// The snapshot queries read unless they say `at`.
    pub fn snapshot(&self) -> &Snapshot<'s> {
        &self.snapshot
    }

    /// Evaluates a parsed query.
    pub fn evaluate(&self, query: &Query) -> Result<Answer, QueryError> {
        let snapshot = self.snapshot.clone();
        let rows = self.expr(&snapshot, &query.expr)?;
        Ok(Answer {
            revision: snapshot.revision().name.clone(),
            rows,
            count_only: query.count,
        })
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
                let other = self.snapshot_at(revision)?;
                self.expr(&other, inner)
            }
        }
    }

    fn snapshot_at(&self, revision: &Revision) -> Result<Rc<Snapshot<'s>>, QueryError> {
        if let Some(known) = self.snapshots.borrow().get(&revision.name) {
            return Ok(known.clone());
        }
        let at = |e: Error| QueryError::evaluation(Some(revision.span), e.to_string());
        let row =
            Snapshot::pick_revision(self.store, self.source, Some(&revision.name)).map_err(at)?;
        let snapshot = Rc::new(Snapshot::new(self.store, row).map_err(at)?);
        self.snapshots
            .borrow_mut()
            .insert(revision.name.clone(), snapshot.clone());
        Ok(snapshot)
    }

    fn select(
        &self,
        snapshot: &Snapshot<'s>,
        selector: &Selector,
        span: Span,
    ) -> Result<Vec<Row>, QueryError> {
        let at = |e: Error| QueryError::evaluation(Some(span), e.to_string());
        match selector {
            Selector::Element(spec) if spec.contains(['*', '?']) => {
                let search = ElementSearch {
                    id: Some(spec.clone()),
                    ..ElementSearch::default()
                };
                let views = snapshot.search_elements(&search).map_err(at)?;
                Ok(distinct(views.into_iter().map(Row::declared).collect()))
            }
            Selector::Element(spec) => match snapshot.find_element(spec) {
                Ok(found) => Ok(vec![Row {
                    id: found.id,
                    view: found.declared,
                    edge: None,
                    change: None,
                }]),
                Err(e) => Err(self.unknown_element(snapshot, spec, span, e)),
            },
            Selector::Lines { file, start, end } => {
                if *start == 0 || end < start {
                    return Err(QueryError::evaluation(
                        Some(span),
                        format!(
                            "{file}:{start}-{end}: lines count from 1 and a range must not end before it starts"
                        ),
                    ));
                }
                match snapshot.elements_at(file, *start, *end) {
                    Ok(views) => Ok(distinct(views.into_iter().map(Row::declared).collect())),
                    Err(e @ Error::FileNotInRevision { .. }) => {
                        Err(self.unknown_file(snapshot, file, span, e))
                    }
                    Err(e) => Err(at(e)),
                }
            }
            Selector::File(pattern) => {
                let files = snapshot.files().map_err(at)?;
                let exact = !pattern.contains(['*', '?']);
                let matching: Vec<String> = files
                    .iter()
                    .map(|f| f.path.clone())
                    .filter(|path| {
                        if exact {
                            path == pattern || path.ends_with(&format!("/{pattern}"))
                        } else {
                            glob_matches(pattern, path)
                        }
                    })
                    .collect();
                if matching.is_empty() && exact {
                    let e = Error::FileNotInRevision {
                        path: pattern.clone(),
                        revision: snapshot.revision().name.clone(),
                    };
                    return Err(self.unknown_file(snapshot, pattern, span, e));
                }
                let mut rows = Vec::new();
                for path in matching {
                    let views = snapshot.elements_of_file(&path).map_err(at)?;
                    rows.extend(views.into_iter().map(Row::declared));
                }
                Ok(distinct(rows))
            }
            Selector::Kind(kind) => {
                let views = snapshot.search_elements(&kind_search(kind)).map_err(at)?;
                Ok(distinct(views.into_iter().map(Row::declared).collect()))
            }
            Selector::Changed { base, head } => {
                let base_snapshot = self.snapshot_at(base)?;
                let named_head;
                let head_snapshot: &Snapshot<'s> = match head {
                    Some(head) => {
                        named_head = self.snapshot_at(head)?;
                        &named_head
                    }
                    None => snapshot,
                };
                let blobs = self.blob_reader();
                let config = DiffConfig {
                    blobs: blobs.as_ref().as_ref(),
                };
                let diff = head_snapshot
                    .changes_since(&base_snapshot, &config)
                    .map_err(at)?;
                Ok(diff
                    .changes
                    .into_iter()
                    .map(|change| Row {
                        id: change.id,
                        view: change.head.or(change.base),
                        edge: None,
                        change: Some(change.kind),
                    })
                    .collect())
            }
        }
    }

    fn blob_reader(&self) -> Rc<Option<BlobReader>> {
        if let Some(reader) = self.blobs.borrow().as_ref() {
            return reader.clone();
        }
        let reader = Rc::new(
            self.source
                .and_then(|source| source.reader_spec().open().ok()),
        );
        *self.blobs.borrow_mut() = Some(reader.clone());
        reader
    }

    /// An unknown element, with the engine's nearest ids, else the nearest
    /// member or type by edit distance, else the nearest keyword.
    fn unknown_element(
        &self,
        snapshot: &Snapshot<'s>,
        spec: &str,
        span: Span,
        e: Error,
    ) -> QueryError {
        let mut error = QueryError::evaluation(Some(span), e.to_string());
        if let Error::UnknownElement { nearest, .. } = &e
            && nearest.is_empty()
        {
            // Same owner (for a member) or same package (for a type).
            let (scope, word) = match spec.split_once('#') {
                Some((owner, member)) => (
                    format!("{owner}#*"),
                    member.split('(').next().unwrap_or(member),
                ),
                None => match spec.rsplit_once('.') {
                    Some((package, name)) => (format!("{package}.*"), name),
                    None => (String::from("*"), spec),
                },
            };
            let search = ElementSearch {
                id: Some(scope),
                ..ElementSearch::default()
            };
            if spec.contains(['.', '#'])
                && let Ok(views) = snapshot.search_elements(&search)
            {
                let names: Vec<(String, String)> = views
                    .iter()
                    .filter(|v| v.record.kind != ElementKind::Lambda)
                    .map(|v| (v.record.name.clone(), v.record.element_id.clone()))
                    .collect();
                let simple: Vec<String> = names
                    .iter()
                    .map(|(name, id)| {
                        if spec.contains('#') {
                            name.clone()
                        } else {
                            id.rsplit(['.', '$']).next().unwrap_or(id).to_string()
                        }
                    })
                    .collect();
                if let Some(best) = nearest_word(word, simple.iter().map(String::as_str))
                    && let Some(index) = simple.iter().position(|s| s == best)
                {
                    error.suggestion = Some(names[index].1.clone());
                }
            } else if !spec.contains(['.', '#', '/']) {
                error = error.suggesting(
                    spec,
                    KIND_WORDS.iter().copied().chain(["file", "changed", "at"]),
                );
            }
        }
        error
    }

    /// An unknown file, with the file of the same name or the nearest path.
    fn unknown_file(
        &self,
        snapshot: &Snapshot<'s>,
        file: &str,
        span: Span,
        e: Error,
    ) -> QueryError {
        let mut error = QueryError::evaluation(Some(span), e.to_string());
        if let Ok(files) = snapshot.files() {
            let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
            let name = file.rsplit('/').next().unwrap_or(file);
            error.suggestion = paths
                .iter()
                .find(|p| p.ends_with(&format!("/{file}")) || p.rsplit('/').next() == Some(name))
                .map(|p| p.to_string())
                .or_else(|| nearest_word(file, paths.iter().copied()).map(str::to_string));
        }
        error
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
            Stage::Where(condition) => Ok(rows
                .into_iter()
                .filter(|row| holds(condition, row))
                .collect()),
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

    /// Follows `relation` from every row, breadth first, up to `depth`
    /// steps; every element is expanded once.
    fn relate(
        &self,
        snapshot: &Snapshot<'s>,
        rows: Vec<Row>,
        relation: Relation,
        depth: u32,
        direct: bool,
    ) -> Result<Vec<Row>, Error> {
        if matches!(relation, Relation::Impls | Relation::Subtypes) {
            return self.implementations(snapshot, rows, relation, depth);
        }
        let mut expanded: HashSet<String> = HashSet::new();
        let mut out: Vec<Row> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut frontier = rows;
        let mut level = 0;
        while level < depth && !frontier.is_empty() {
            level += 1;
            let mut next = Vec::new();
            frontier.retain(|row| expanded.insert(row.id.clone()));
            for mut reached in self.step_all(snapshot, &frontier, relation, direct)? {
                if let Some(edge) = &mut reached.edge {
                    edge.depth = level;
                }
                if seen.insert(reached.id.clone()) {
                    out.push(reached.clone());
                    next.push(reached);
                }
            }
            frontier = next;
        }
        Ok(out)
    }

    /// One step of a relation from each of `rows`, in order. Callees of
    /// elements in one file read the file once.
    fn step_all(
        &self,
        snapshot: &Snapshot<'s>,
        rows: &[Row],
        relation: Relation,
        direct: bool,
    ) -> Result<Vec<Row>, Error> {
        if relation != Relation::Callees {
            let mut out = Vec::new();
            for row in rows {
                out.extend(self.step(snapshot, row, relation, direct)?);
            }
            return Ok(out);
        }
        let declared: Vec<&Row> = rows.iter().filter(|row| row.view.is_some()).collect();
        let views: Vec<ElementView> = declared.iter().filter_map(|row| row.view.clone()).collect();
        let mut out = Vec::new();
        for (row, hits) in declared.iter().zip(snapshot.callees_of_each(&views)?) {
            for hit in hits {
                let Some(target) = hit.target.clone() else {
                    continue;
                };
                let view = match &hit.decl_file {
                    Some(file) => self.view_in_file(snapshot, file, &target)?,
                    None => None,
                };
                out.push(Row {
                    id: target,
                    view,
                    edge: Some(Edge {
                        relation,
                        from: row.id.clone(),
                        depth: 1,
                        site: Some(site_of(&hit)),
                    }),
                    change: None,
                });
            }
        }
        Ok(out)
    }

    /// One step of a relation from one element (callees go through
    /// [`Self::step_all`]).
    fn step(
        &self,
        snapshot: &Snapshot<'s>,
        row: &Row,
        relation: Relation,
        direct: bool,
    ) -> Result<Vec<Row>, Error> {
        let edge = |site: Option<Site>| Edge {
            relation,
            from: row.id.clone(),
            depth: 1,
            site,
        };
        match relation {
            Relation::Callers | Relation::Refs => {
                let target = self.named(snapshot, row)?;
                let Some((id, is_type)) = target else {
                    return Ok(Vec::new());
                };
                let hits = if is_type || relation == Relation::Refs {
                    snapshot.references(&id)?
                } else {
                    snapshot.callers(
                        &id,
                        &CallersConfig {
                            polymorphic: !direct,
                        },
                    )?
                };
                let mut out = Vec::new();
                for hit in hits {
                    let Some(caller) = hit.enclosing_named.clone() else {
                        continue;
                    };
                    let view = self.view_in_file(snapshot, &hit.path, &caller)?;
                    out.push(Row {
                        id: caller,
                        view,
                        edge: Some(edge(Some(site_of(&hit)))),
                        change: None,
                    });
                }
                Ok(out)
            }
            Relation::Supertypes | Relation::Overrides => {
                let wanted_type = relation == Relation::Supertypes;
                if row_is_type(row) != wanted_type {
                    return Ok(Vec::new());
                }
                let mut out = Vec::new();
                for id in snapshot.direct_supers(&row.id)? {
                    out.push(Row {
                        view: self.declared_view(snapshot, &id)?,
                        id,
                        edge: Some(edge(None)),
                        change: None,
                    });
                }
                Ok(out)
            }
            Relation::Members => {
                let Some(view) = &row.view else {
                    return Ok(Vec::new());
                };
                Ok(snapshot
                    .members_of(view)?
                    .into_iter()
                    .map(|member| Row {
                        id: member.record.element_id.clone(),
                        view: Some(member),
                        edge: Some(edge(None)),
                        change: None,
                    })
                    .collect())
            }
            Relation::Owner => {
                let Some(view) = &row.view else {
                    // A library member's owner is its type, by its id.
                    return Ok(row
                        .id
                        .split_once('#')
                        .map(|(owner, _)| Row {
                            id: owner.to_string(),
                            view: None,
                            edge: Some(edge(None)),
                            change: None,
                        })
                        .into_iter()
                        .collect());
                };
                Ok(snapshot
                    .owner_of(view)?
                    .map(|owner| Row {
                        id: owner.record.element_id.clone(),
                        view: Some(owner),
                        edge: Some(edge(None)),
                        change: None,
                    })
                    .into_iter()
                    .collect())
            }
            Relation::Callees => {
                self.step_all(snapshot, std::slice::from_ref(row), relation, direct)
            }
            Relation::Impls | Relation::Subtypes => unreachable!("walked by implementations()"),
        }
    }

    /// `impls` and `subtypes`: the engine walks the hierarchy down in one
    /// go; `depth` keeps the nearer ones.
    fn implementations(
        &self,
        snapshot: &Snapshot<'s>,
        rows: Vec<Row>,
        relation: Relation,
        depth: u32,
    ) -> Result<Vec<Row>, Error> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for row in rows {
            if relation == Relation::Subtypes && !row_is_type(&row) {
                continue;
            }
            for found in snapshot.implementations(&row.id)? {
                if found.depth > depth || !seen.insert(found.view.record.element_id.clone()) {
                    continue;
                }
                out.push(Row {
                    id: found.view.record.element_id.clone(),
                    view: Some(found.view),
                    edge: Some(Edge {
                        relation,
                        from: found.overrides,
                        depth: found.depth,
                        site: None,
                    }),
                    change: None,
                });
            }
        }
        Ok(out)
    }

    /// The element whose callers a row asks for: lambdas and anonymous
    /// classes stand for the named element around them. With whether it
    /// is a type.
    fn named(&self, snapshot: &Snapshot<'s>, row: &Row) -> Result<Option<(String, bool)>, Error> {
        let Some(mut view) = row.view.clone() else {
            return Ok(Some((row.id.clone(), !row.id.contains('#'))));
        };
        while matches!(
            view.record.kind,
            ElementKind::Lambda | ElementKind::AnonymousClass
        ) {
            match snapshot.owner_of(&view)? {
                Some(owner) => view = owner,
                None => return Ok(None),
            }
        }
        Ok(Some((
            view.record.element_id.clone(),
            view.record.kind.is_type(),
        )))
    }

    /// The declaration of `id` in the revision, if any (the first by path).
    fn declared_view(
        &self,
        snapshot: &Snapshot<'s>,
        id: &str,
    ) -> Result<Option<ElementView>, Error> {
        match snapshot.declarations_of(id)?.into_iter().next() {
            Some((file, _)) => self.view_in_file(snapshot, &file.path, id),
            None => Ok(None),
        }
    }

    /// The element `id` declared in file `path`, read through the cache.
    fn view_in_file(
        &self,
        snapshot: &Snapshot<'s>,
        path: &str,
        id: &str,
    ) -> Result<Option<ElementView>, Error> {
        let key = (snapshot.revision().id, path.to_string());
        let cached = self.files.borrow().get(&key).cloned();
        let loaded = match cached {
            Some(loaded) => loaded,
            None => {
                let file = snapshot.file(path)?;
                let records = snapshot.records(&file)?;
                let facts = snapshot.facts(&file)?;
                let by_id = records
                    .iter()
                    .map(|r| (r.element_id.clone(), r.idx))
                    .collect();
                let loaded = Rc::new(LoadedFile {
                    records,
                    facts,
                    by_id,
                });
                self.files.borrow_mut().insert(key, loaded.clone());
                loaded
            }
        };
        Ok(loaded.by_id.get(id).and_then(|&idx| {
            Some(ElementView {
                path: path.to_string(),
                record: loaded.records.get(idx as usize)?.clone(),
                element: loaded.facts.elements.get(idx as usize)?.clone(),
            })
        }))
    }
}

impl Row {
    fn declared(view: ElementView) -> Self {
        Self {
            id: view.record.element_id.clone(),
            view: Some(view),
            edge: None,
            change: None,
        }
    }

    /// The element kind: declared, or guessed from the id of a library
    /// element (`None` for a library type, whose kind the id does not say).
    pub fn kind(&self) -> Option<&'static str> {
        match &self.view {
            Some(view) => Some(view.record.kind.as_str()),
            None if self.id.contains("#<init>(") => Some("constructor"),
            None if self.id.contains('(') => Some("method"),
            None if self.id.contains('#') => Some("field"),
            None => None,
        }
    }

    /// The simple name.
    pub fn name(&self) -> &str {
        match &self.view {
            Some(view) => &view.record.name,
            None => {
                let before_params = self.id.split('(').next().unwrap_or(&self.id);
                before_params
                    .rsplit(['#', '.', '$'])
                    .next()
                    .unwrap_or(before_params)
            }
        }
    }
}

fn row_is_type(row: &Row) -> bool {
    match &row.view {
        Some(view) => view.record.kind.is_type(),
        None => !row.id.contains('#'),
    }
}

fn site_of(hit: &RefHit) -> Site {
    Site {
        file: hit.path.clone(),
        line: hit.line,
        col: hit.col,
        kind: hit.kind.as_str(),
        confidence: hit.confidence.as_str(),
        via: hit.via.clone(),
    }
}

/// Rows with each id once, the first kept.
fn distinct(rows: Vec<Row>) -> Vec<Row> {
    let mut seen = HashSet::new();
    rows.into_iter()
        .filter(|row| seen.insert(row.id.clone()))
        .collect()
}

fn combine(op: SetOp, left: Vec<Row>, right: Vec<Row>) -> Vec<Row> {
    match op {
        SetOp::Union => distinct(left.into_iter().chain(right).collect()),
        SetOp::Intersect => {
            let ids: HashSet<&str> = right.iter().map(|r| r.id.as_str()).collect();
            distinct(
                left.into_iter()
                    .filter(|r| ids.contains(r.id.as_str()))
                    .collect(),
            )
        }
        SetOp::Except => {
            let ids: HashSet<&str> = right.iter().map(|r| r.id.as_str()).collect();
            distinct(
                left.into_iter()
                    .filter(|r| !ids.contains(r.id.as_str()))
                    .collect(),
            )
        }
    }
}

/// The kinds a kind word selects.
pub fn kinds_of_word(word: &str) -> Vec<ElementKind> {
    use ElementKind as K;
    match word {
        "types" => K::ALL.into_iter().filter(|k| k.is_type()).collect(),
        "classes" => vec![K::Class],
        "interfaces" => vec![K::Interface],
        "enums" => vec![K::Enum],
        "records" => vec![K::Record],
        "annotations" => vec![K::AnnotationType],
        "methods" => vec![K::Method, K::AnnotationElement],
        "constructors" => vec![K::Constructor],
        "executables" => K::ALL.into_iter().filter(|k| k.is_executable()).collect(),
        "fields" => vec![K::Field, K::RecordComponent, K::EnumConstant],
        "constants" => vec![K::EnumConstant],
        "initializers" => vec![K::InstanceInitializer, K::StaticInitializer],
        "lambdas" => vec![K::Lambda],
        _ => Vec::new(),
    }
}

fn kind_search(kind: &KindSelector) -> ElementSearch {
    ElementSearch {
        kinds: kinds_of_word(&kind.kind_word),
        name: kind.name.clone(),
        id: None,
        package: kind.package.clone(),
        path: kind.path.clone(),
    }
}

fn holds(condition: &Condition, row: &Row) -> bool {
    match condition {
        Condition::And(a, b) => holds(a, row) && holds(b, row),
        Condition::Or(a, b) => holds(a, row) || holds(b, row),
        Condition::Not(inner) => !holds(inner, row),
        Condition::Compare {
            field, op, value, ..
        } => {
            let values = field_values(*field, row);
            let any = |test: &dyn Fn(&str) -> bool| values.iter().any(|v| test(v));
            match op {
                CompareOp::Eq => any(&|v| field_equals(*field, v, value)),
                CompareOp::NotEq => !any(&|v| field_equals(*field, v, value)),
                CompareOp::Matches => any(&|v| glob_or_id_matches(*field, value, v)),
                CompareOp::NotMatches => !any(&|v| glob_or_id_matches(*field, value, v)),
            }
        }
    }
}

fn field_equals(field: Field, actual: &str, wanted: &str) -> bool {
    match field {
        Field::Kind if wanted == "type" => {
            ElementKind::parse(actual).is_some_and(ElementKind::is_type) || actual == "type"
        }
        _ => actual == wanted,
    }
}

fn glob_or_id_matches(field: Field, pattern: &str, actual: &str) -> bool {
    match field {
        Field::Id => id_matches(pattern, actual),
        _ => glob_matches(pattern, actual),
    }
}

/// The values a row has for a field: none, one, or (modifiers,
/// annotations) several.
fn field_values(field: Field, row: &Row) -> Vec<String> {
    let view = row.view.as_ref();
    match field {
        Field::Kind => vec![row.kind().unwrap_or("type").to_string()],
        Field::Name => vec![row.name().to_string()],
        Field::Id => vec![row.id.clone()],
        Field::Path => view.map(|v| v.path.clone()).into_iter().collect(),
        Field::Package => vec![package_of(&row.id).to_string()],
        Field::Modifier => view
            .map(|v| v.element.modifiers.keywords().map(str::to_string).collect())
            .unwrap_or_default(),
        Field::Annotation => view
            .map(|v| {
                v.element
                    .annotations
                    .iter()
                    .map(|a| annotation_name(a).to_string())
                    .collect()
            })
            .unwrap_or_default(),
        Field::Type => view
            .map(|v| v.record.type_name.clone())
            .into_iter()
            .collect(),
        Field::Confidence => row
            .edge
            .as_ref()
            .and_then(|e| e.site.as_ref())
            .map(|s| s.confidence.to_string())
            .into_iter()
            .collect(),
        Field::Change => row
            .change
            .map(|c| c.as_str().to_string())
            .into_iter()
            .collect(),
    }
}

/// `Deprecated` of `@Deprecated(since = "9")`, `Nullable` of
/// `@javax.annotation.Nullable`.
fn annotation_name(written: &str) -> &str {
    let bare = written.trim_start_matches('@');
    let bare = bare.split('(').next().unwrap_or(bare).trim();
    bare.rsplit('.').next().unwrap_or(bare)
}
