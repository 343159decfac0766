//! The set operations on rows: each id kept once, and the union,
//! intersection and difference of two sets of rows, in order.

use std::collections::HashSet;

use super::super::ast::SetOp;
use super::row::Row;

/// Rows with each id once, the first kept.
pub(super) fn distinct(rows: Vec<Row>) -> Vec<Row> {
    let mut seen = HashSet::new();
    rows.into_iter()
        .filter(|row| seen.insert(row.id.clone()))
        .collect()
}

pub(super) fn combine(op: SetOp, left: Vec<Row>, right: Vec<Row>) -> Vec<Row> {
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
