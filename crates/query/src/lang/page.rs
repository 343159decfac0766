//! Answers a page at a time: a limit on the rows an answer shows, the
//! number of rows in all, and a cursor that continues where the page
//! ended.
//!
//! A cursor (`q1.BINDING.OFFSET`) is bound to the store, the revision read
//! and the query text; one made for another of them is refused, never
//! read as an offset into a different answer.

use std::path::Path;

use super::ast::Query;
use super::error::QueryError;
use super::eval::{Answer, Evaluator};

/// What a caller asks of an answer's rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Continue after the page this cursor ended.
    pub cursor: Option<String>,
}

/// Where a page lies in its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Rows in the whole answer.
    pub total: usize,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// What a cursor is bound to: the store (by its directory), the revision
/// read and the query.
pub fn binding(store_dir: &Path, revision: &str, query: &str) -> u64 {
    let store = std::fs::canonicalize(store_dir).unwrap_or_else(|_| store_dir.to_path_buf());
    let mut bytes = store.to_string_lossy().into_owned().into_bytes();
    for part in [revision, query.trim()] {
        bytes.push(0);
        bytes.extend_from_slice(part.as_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// What a cursor of an element's history is bound to: the store, the
/// revision the history starts from and the element.
pub fn history_binding(store_dir: &Path, revision: &str, element: &str) -> u64 {
    binding(store_dir, revision, &format!("history of {element}"))
}

/// Evaluates a parsed query and cuts its answer to the page `request`
/// asks for ([`page`]; `binding` binds its cursors). Only the rows of the
/// page have their declarations read and their histories walked: the rows
/// cut off are counted, not decoded.
pub fn evaluate_page(
    evaluator: &Evaluator,
    query: &Query,
    request: &PageRequest,
    binding: u64,
) -> Result<(Answer, Option<Page>), QueryError> {
    let mut answer = evaluator.evaluate_rows(query)?;
    let page = page(&mut answer, request, binding)?;
    evaluator.complete(query, &mut answer)?;
    Ok((answer, page))
}

/// Cuts `answer` to the page `request` asks for; `None` when it asks for
/// none, or the answer is a count (the answer is left whole). A cursor made for another binding, or
/// past the end, is refused.
pub fn page(
    answer: &mut Answer,
    request: &PageRequest,
    binding: u64,
) -> Result<Option<Page>, QueryError> {
    // A count is one number, whatever the limit.
    if answer.count_only {
        return Ok(None);
    }
    let page = page_of(&mut answer.rows, request, binding)?;
    if let Some(histories) = &mut answer.histories {
        histories.retain(|history| answer.rows.iter().any(|row| row.id == history.id));
    }
    Ok(page)
}

/// Cuts any list of answers (sites, implementations) to the page
/// `request` asks for, as [`page`] cuts an answer's rows.
pub fn page_of<T>(
    items: &mut Vec<T>,
    request: &PageRequest,
    binding: u64,
) -> Result<Option<Page>, QueryError> {
    if request.limit.is_none() && request.cursor.is_none() {
        return Ok(None);
    }
    let offset = match &request.cursor {
        Some(cursor) => offset_of(cursor, binding)?,
        None => 0,
    };
    let total = items.len();
    if offset > total {
        return Err(QueryError::evaluation(
            None,
            format!(
                "the cursor points past the end of the answer ({total} in all); run it again without a cursor"
            ),
        ));
    }
    let end = request
        .limit
        .map_or(total, |limit| offset.saturating_add(limit).min(total));
    items.truncate(end);
    items.drain(..offset);
    Ok(Some(Page {
        total,
        next_cursor: (end < total).then(|| cursor(binding, end)),
    }))
}

/// The cursor that continues an answer bound to `binding` at `offset`.
pub fn cursor(binding: u64, offset: usize) -> String {
    format!("q1.{binding:016x}.{offset}")
}

/// The binding a cursor was made for, when it is one of refscope's
/// cursors.
pub fn binding_of(cursor: &str) -> Option<u64> {
    let mut parts = cursor.trim().split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("q1"), Some(bound), Some(offset), None) if offset.parse::<usize>().is_ok() => {
            u64::from_str_radix(bound, 16).ok()
        }
        _ => None,
    }
}

/// The offset a cursor continues at, when it is bound to `binding`.
pub fn offset_of(cursor: &str, binding: u64) -> Result<usize, QueryError> {
    let refused = |why: &str| {
        QueryError::evaluation(
            None,
            format!("cursor `{cursor}` {why}; run the query again without a cursor"),
        )
    };
    let mut parts = cursor.trim().split('.');
    let (Some("q1"), Some(bound), Some(offset), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refused("is not a cursor of refscope's answers"));
    };
    if u64::from_str_radix(bound, 16).ok() != Some(binding) {
        return Err(refused("was made for another query, revision or store"));
    }
    offset
        .parse()
        .map_err(|_| refused("is not a cursor of refscope's answers"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::eval::Row;

    fn answer(n: usize) -> Answer {
        Answer {
            revision: "r".into(),
            rows: (0..n)
                .map(|i| Row {
                    id: format!("p.A#m{i}()"),
                    view: None,
                    edge: None,
                    change: None,
                    declared_in: None,
                })
                .collect(),
            count_only: false,
            histories: None,
            partial: false,
        }
    }

    #[test]
    fn pages_cover_the_answer_once_in_order() {
        let binding = binding(Path::new("/tmp/store"), "r", "q");
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let mut whole = answer(7);
            let request = PageRequest {
                limit: Some(3),
                cursor: cursor.clone(),
            };
            let page = page(&mut whole, &request, binding).unwrap().unwrap();
            assert_eq!(page.total, 7);
            assert!(whole.rows.len() <= 3);
            seen.extend(whole.rows.into_iter().map(|row| row.id));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let all: Vec<String> = answer(7).rows.into_iter().map(|row| row.id).collect();
        assert_eq!(seen, all);
    }

    #[test]
    fn a_cursor_of_another_binding_is_refused() {
        let ours = binding(Path::new("/tmp/store"), "r", "q");
        let mut whole = answer(5);
        let first = page(
            &mut whole,
            &PageRequest {
                limit: Some(2),
                cursor: None,
            },
            ours,
        )
        .unwrap()
        .unwrap();
        let cursor = first.next_cursor.unwrap();
        for other in [
            binding(Path::new("/tmp/other-store"), "r", "q"),
            binding(Path::new("/tmp/store"), "r2", "q"),
            binding(Path::new("/tmp/store"), "r", "q2"),
        ] {
            let request = PageRequest {
                limit: Some(2),
                cursor: Some(cursor.clone()),
            };
            let error = page(&mut answer(5), &request, other).unwrap_err();
            assert!(
                error.message.contains("another query, revision or store"),
                "{}",
                error.message
            );
        }
        for bad in ["", "q1.zz.1", "q2.0.1", "q1.00.x.y"] {
            let request = PageRequest {
                limit: None,
                cursor: Some(bad.into()),
            };
            assert!(page(&mut answer(5), &request, ours).is_err(), "{bad}");
        }
    }
}
