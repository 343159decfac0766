//! What happened to an owning element since the base revision: its
//! change status, and the callers it gained or lost.

use refscope_engine::{CallersConfig, ChangeKind, DiffConfig, Snapshot};
use serde_json::{Map, Value, json};

use super::Answer;
use super::callers::is_test_path;
use super::request::ContextError;
use crate::context::keys::{Key, key};
use crate::context::settings::KeyStyle;

impl Answer<'_, '_> {
    /// What happened to element `id` since the base revision: whether its
    /// signature or body changed, and which callers it gained or lost
    /// (compared by file and calling element, since lines move).
    pub(super) fn change_since(
        &mut self,
        base: &Snapshot<'_>,
        id: &str,
        with_callers: bool,
    ) -> Result<Value, ContextError> {
        let style = self.style();
        let snapshot = self.cache.snapshot;
        let config = DiffConfig {
            blobs: Some(self.cache.blobs),
        };
        let change = snapshot.change_of(base, id, &config)?;
        let (status, signature_changed, body_changed) = match &change {
            None => ("unchanged", false, false),
            Some(c) => (
                c.kind.as_str(),
                c.kind == ChangeKind::SignatureChanged,
                c.body_changed,
            ),
        };
        let mut out = Map::new();
        out.insert(key(style, Key::ChangeStatus).into(), json!(status));
        out.insert(
            key(style, Key::SignatureChanged).into(),
            json!(signature_changed),
        );
        out.insert(key(style, Key::BodyChanged).into(), json!(body_changed));
        if with_callers {
            let is_added = change.as_ref().is_some_and(|c| c.kind == ChangeKind::Added);
            // Only the files whose resolution differs between the two
            // revisions are read.
            let (added, removed) = if is_added {
                (self.direct_callers(snapshot, id)?.to_vec(), Vec::new())
            } else {
                let include_tests = self.settings.include_tests;
                let shown = move |path: &str| include_tests || !is_test_path(path);
                snapshot.callers_gained_and_lost(base, id, &CallersConfig::default(), &shown)?
            };
            for (name, hits) in [(Key::CallersAdded, added), (Key::CallersRemoved, removed)] {
                let total = hits.len();
                let kept = total.min(self.settings.max_callers as usize);
                if kept < total {
                    let what = format!("{} of {id}", key(KeyStyle::En, name));
                    let note = "raise max_callers to see more, or continue with next_cursor";
                    if let Some(page) = self.pages.cut(
                        &mut self.truncated,
                        what,
                        key(style, name),
                        kept,
                        total,
                        note,
                    )? {
                        let items = hits[page].iter().map(|hit| self.location(hit, 1)).collect();
                        self.pages.continue_with(Value::Array(items));
                    }
                }
                let list: Vec<Value> = hits
                    .iter()
                    .take(kept)
                    .map(|hit| self.location(hit, 1))
                    .collect();
                out.insert(key(style, name).into(), Value::Array(list));
            }
        }
        Ok(Value::Object(out))
    }
}
