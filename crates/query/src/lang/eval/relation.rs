//! The relations walked from rows: breadth first up to a depth, every
//! element expanded once (so cycles end); one step of each relation
//! through the engine's read API; and `impls` and `subtypes`, which the
//! engine walks down the hierarchy in one go.

use std::collections::HashSet;

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
