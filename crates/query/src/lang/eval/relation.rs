//! The relations walked from rows: breadth first up to a depth, every
//! element expanded once (so cycles end); one step of each relation
//! through the engine's read API; and `impls` and `subtypes`, which the
//! engine walks down the hierarchy in one go.

use std::collections::HashSet;
use std::sync::Arc;

use refscope_engine::{CallersConfig, ElementKind, ElementView, Error, RefHit, Snapshot};

use super::super::ast::Relation;
use super::Evaluator;
use super::row::{Edge, Row, Site};

impl<'s> Evaluator<'s> {
    /// Follows `relation` from every row, breadth first, up to `depth`
    /// steps; every element is expanded once.
    pub(super) fn relate(
        &self,
        snapshot: &Snapshot<'s>,
        rows: Vec<Row>,
        relation: Relation,
        depth: u32,
        direct: bool,
    ) -> Result<Vec<Row>, Error> {
        if matches!(relation, Relation::Impls | Relation::Subtypes) {
            let mut rows = rows;
            self.read_declarations(snapshot, &mut rows)?;
            return self.implementations(snapshot, rows, relation, depth);
        }
        let mut expanded: HashSet<String> = HashSet::new();
        let mut out: Vec<Row> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut frontier = rows;
        let mut level = 0;
        while level < depth && !frontier.is_empty() && !self.out_of_time() {
            level += 1;
            let mut next = Vec::new();
            frontier.retain(|row| expanded.insert(row.id.clone()));
            self.read_declarations(snapshot, &mut frontier)?;
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
                if self.out_of_time() {
                    break;
                }
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
                let edge = Edge {
                    relation,
                    from: row.id.clone(),
                    depth: 1,
                    site: Some(site_of(&hit)),
                };
                out.push(match &hit.decl_file {
                    Some(file) => Row::unread(target, file.clone(), edge),
                    None => Row::reached(target, None, edge),
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
                    Arc::new(snapshot.references(&id)?)
                } else {
                    snapshot.callers_shared(
                        &id,
                        &CallersConfig {
                            polymorphic: !direct,
                        },
                    )?
                };
                let mut out = Vec::new();
                for hit in hits.iter() {
                    let Some(caller) = hit.enclosing_named.clone() else {
                        continue;
                    };
                    let path = hit.path.clone();
                    out.push(Row::unread(caller, path, edge(Some(site_of(hit)))));
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
                    let view = self.declared_view(snapshot, &id)?;
                    out.push(Row::reached(id, view, edge(None)));
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
                    .map(|member| {
                        Row::reached(member.record.element_id.clone(), Some(member), edge(None))
                    })
                    .collect())
            }
            Relation::Owner => {
                let Some(view) = &row.view else {
                    // A library member's owner is its type, by its id.
                    return Ok(row
                        .id
                        .split_once('#')
                        .map(|(owner, _)| Row::reached(owner.to_string(), None, edge(None)))
                        .into_iter()
                        .collect());
                };
                Ok(snapshot
                    .owner_of(view)?
                    .map(|owner| {
                        Row::reached(owner.record.element_id.clone(), Some(owner), edge(None))
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
            if self.out_of_time() {
                break;
            }
            if relation == Relation::Subtypes && !row_is_type(&row) {
                continue;
            }
            for found in snapshot.implementations(&row.id)? {
                if found.depth > depth || !seen.insert(found.view.record.element_id.clone()) {
                    continue;
                }
                let edge = Edge {
                    relation,
                    from: found.overrides,
                    depth: found.depth,
                    site: None,
                };
                out.push(Row::reached(
                    found.view.record.element_id.clone(),
                    Some(found.view),
                    edge,
                ));
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
        injection: hit.injection.clone(),
    }
}
