//! The sites referencing an element, level by level up to the caller
//! depth, and which elements have callers at all. Test sources are left
//! out unless asked for.

use std::sync::Arc;

use refscope_engine::ElementKind;
use refscope_engine::{CallersConfig, RefHit, Snapshot};
use serde_json::{Map, Value, json};

use super::Answer;
use super::request::ContextError;
use crate::context::keys::{Key, key};

impl Answer<'_, '_> {
    /// The callers of `id` in one revision, test sources left out unless
    /// asked for. Shared with the snapshot's cache when nothing is left
    /// out.
    pub(super) fn direct_callers(
        &self,
        snapshot: &Snapshot<'_>,
        id: &str,
    ) -> Result<Arc<Vec<RefHit>>, ContextError> {
        let all = snapshot.callers_shared(id, &CallersConfig::default())?;
        if self.settings.include_tests {
            return Ok(all);
        }
        Ok(Arc::new(
            all.iter()
                .filter(|hit| !is_test_path(&hit.path))
                .cloned()
                .collect(),
        ))
    }

    /// `{file, line, caller}` of a site, with `depth` beyond the first
    /// level.
    pub(super) fn location(&self, hit: &RefHit, depth: u32) -> Value {
        let style = self.style();
        let mut location = Map::new();
        location.insert(key(style, Key::File).into(), json!(hit.path));
        location.insert(key(style, Key::Line).into(), json!(hit.line));
        location.insert(key(style, Key::Caller).into(), json!(hit.enclosing_named));
        if let Some(injection) = &hit.injection {
            location.insert(
                key(style, Key::Injection).into(),
                json!({
                    key(style, Key::InjectionPoint): injection.point,
                    key(style, Key::Candidates): injection.candidates,
                }),
            );
        }
        if depth > 1 {
            location.insert(key(style, Key::Depth).into(), json!(depth));
        }
        Value::Object(location)
    }

    /// The sites referencing `id`, level by level up to the caller depth.
    /// A list cut at `max_callers` is counted, not built past the cut:
    /// only the files holding the callers shown are read.
    pub(super) fn reference_locations(&mut self, id: &str) -> Result<Vec<Value>, ContextError> {
        let include_tests = self.settings.include_tests;
        let shown = move |path: &str| include_tests || !is_test_path(path);
        let config = CallersConfig::default();
        let max = self.settings.max_callers as usize;
        let list_key = key(self.style(), Key::ReferenceLocations);
        let mut out = Vec::new();
        let mut frontier = vec![id.to_string()];
        let mut seen = vec![id.to_string()];
        for depth in 1..=self.settings.caller_depth {
            let mut next = Vec::new();
            for element in &frontier {
                let snapshot = &self.cache.snapshot;
                let (first, total) = snapshot.callers_window(element, &config, &shown, 0..max)?;
                let kept = first.len();
                if kept < total {
                    let what = format!("reference_locations of {element}");
                    let note = "raise max_callers to see more, or continue with next_cursor";
                    if let Some(page) =
                        self.pages
                            .cut(&mut self.truncated, what, list_key, kept, total, note)?
                    {
                        let (hits, _) = self
                            .cache
                            .snapshot
                            .callers_window(element, &config, &shown, page)?;
                        let items = hits.iter().map(|hit| self.location(hit, depth)).collect();
                        self.pages.continue_with(Value::Array(items));
                    }
                }
                for hit in &first {
                    out.push(self.location(hit, depth));
                    if let Some(caller) = hit.enclosing_named.clone()
                        && caller.contains('(')
                        && !seen.contains(&caller)
                    {
                        seen.push(caller.clone());
                        next.push(caller);
                    }
                }
            }
            frontier = next;
        }
        Ok(out)
    }
}

/// Whether callers of this kind of element are looked up: methods,
/// constructors and fields are called or read; types, initializers and
/// lambdas are not.
pub(super) fn has_callers(kind: ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Method
            | ElementKind::Constructor
            | ElementKind::AnnotationElement
            | ElementKind::Field
            | ElementKind::EnumConstant
            | ElementKind::RecordComponent
    )
}

/// Test sources by the usual layouts: a `test` or `tests` directory, or a
/// class named `*Test`, `*Tests` or `*IT`.
pub(super) fn is_test_path(path: &str) -> bool {
    let in_test_dir = path
        .split('/')
        .rev()
        .skip(1)
        .any(|dir| dir == "test" || dir == "tests");
    let name = path.rsplit('/').next().unwrap_or(path);
    in_test_dir
        || ["Test.java", "Tests.java", "IT.java"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_paths_follow_the_usual_layouts() {
        for path in [
            "src/test/java/com/acme/ShopTest.java",
            "tests/Foo.java",
            "src/main/java/com/acme/ShopIT.java",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/main/java/com/acme/Shop.java",
            "src/main/java/test.java",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
