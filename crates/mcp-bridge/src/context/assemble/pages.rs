//! Continuations of the lists an answer cuts: each cut list (the
//! reference locations of an element, the callers added or removed since
//! the base, the elements past `max_elements`) says in its `truncated`
//! entry how many it holds in all and gives a cursor; the same call with
//! that cursor answers the list's next page instead of the whole answer.
//!
//! A list's cursor is bound to the call (store, revision, file, diff
//! lines and settings) and to the list, so a cursor of another call, list
//! or revision is refused. Items past the page are counted, never built.

use std::ops::Range;

use refscope_query::lang::{binding_of, cursor, offset_of};
use serde_json::{Map, Value, json};

use super::request::ContextError;

/// The name of the list of elements past `max_elements`.
pub(super) const ELEMENT_INFO: &str = "element_info";

/// The cut lists of one answer, and the page a continuation call asks
/// for.
pub(super) struct Pages {
    /// What the cursors of the answer are bound to.
    call: u64,
    /// The list this call continues, if it is a continuation.
    wanted: Option<Wanted>,
    /// That list's page, once found.
    continued: Option<Continued>,
}

/// What a continuation call asks for.
struct Wanted {
    /// The binding of the list the cursor continues.
    list: u64,
    /// The cursor as given.
    cursor: String,
}

/// A continued list's page.
struct Continued {
    /// The list, as its `truncated` entry names it.
    what: String,
    /// Its key in the answer (`reference_locations`, `element_info`, ...).
    key: String,
    /// The page's items.
    items: Value,
    /// Items in the whole list.
    total: usize,
    /// The cursor of the page after this one.
    next_cursor: Option<String>,
}

/// The binding of list `what` of the call bound to `call`.
fn list_binding(call: u64, what: &str) -> u64 {
    let mut bytes = call.to_le_bytes().to_vec();
    bytes.extend_from_slice(what.as_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

impl Pages {
    /// The lists of a call bound to `call`, continuing the list of
    /// `cursor` when one is given; refused when it is not one of
    /// refscope's cursors.
    pub(super) fn new(call: u64, cursor: Option<&str>) -> Result<Self, ContextError> {
        let wanted = cursor
            .map(|cursor| {
                let list = binding_of(cursor).ok_or_else(|| ContextError::Cursor {
                    cursor: cursor.to_string(),
                    why: "is not a cursor of refscope's answers".into(),
                })?;
                Ok::<_, ContextError>(Wanted {
                    list,
                    cursor: cursor.to_string(),
                })
            })
            .transpose()?;
        Ok(Self {
            call,
            wanted,
            continued: None,
        })
    }

    /// Whether this call continues a list rather than asking for the
    /// whole answer.
    pub(super) fn continues(&self) -> bool {
        self.wanted.is_some()
    }

    /// Records in `truncated` that list `what` (its key in the answer
    /// `key`) holds `total` items of which the answer keeps the first
    /// `kept`, with the cursor of the rest. When this call continues the
    /// list, returns the range of the page it asks for; the caller builds
    /// those items and hands them to [`Self::continue_with`].
    pub(super) fn cut(
        &mut self,
        truncated: &mut Vec<Value>,
        what: String,
        key: &str,
        kept: usize,
        total: usize,
        note: &str,
    ) -> Result<Option<Range<usize>>, ContextError> {
        let list = list_binding(self.call, &what);
        truncated.push(json!({
            "what": what,
            "kept": kept,
            "total": total,
            "next_cursor": cursor(list, kept),
            "note": note,
        }));
        let Some(wanted) = &self.wanted else {
            return Ok(None);
        };
        if wanted.list != list || self.continued.is_some() {
            return Ok(None);
        }
        let offset = offset_of(&wanted.cursor, list).map_err(|e| ContextError::Cursor {
            cursor: wanted.cursor.clone(),
            why: e.message,
        })?;
        if offset > total {
            return Err(ContextError::Cursor {
                cursor: wanted.cursor.clone(),
                why: format!("points past the end of the list ({total} in all)"),
            });
        }
        let end = offset.saturating_add(kept.max(1)).min(total);
        self.continued = Some(Continued {
            what,
            key: key.to_string(),
            items: Value::Null,
            total,
            next_cursor: (end < total).then(|| cursor(list, end)),
        });
        Ok(Some(offset..end))
    }

    /// The items of the page [`Self::cut`] asked for.
    pub(super) fn continue_with(&mut self, items: Value) {
        if let Some(continued) = &mut self.continued {
            continued.items = items;
        }
    }

    /// The answer to a continuation call, after `head` (what was asked
    /// about): the page of the list its cursor names; refused when no list
    /// of this call has that cursor.
    pub(super) fn continuation(&mut self, head: Map<String, Value>) -> Result<Value, ContextError> {
        let Some(continued) = self.continued.take() else {
            let cursor = self.wanted.as_ref().map(|w| w.cursor.clone());
            return Err(ContextError::Cursor {
                cursor: cursor.unwrap_or_default(),
                why: "was made for another call, list, revision or store (a cursor continues the call that gave it, with the same arguments)".into(),
            });
        };
        let mut out = head;
        out.insert("continues".into(), json!(continued.what));
        out.insert(continued.key, continued.items);
        out.insert("total".into(), json!(continued.total));
        out.insert("next_cursor".into(), json!(continued.next_cursor));
        Ok(Value::Object(out))
    }
}
