//! Where the callers of one element are, file by file: what `window.rs`
//! works out once per element and the revision's cache keeps.

use refscope_store::FileEntry;

/// Where the callers of one element are, file by file.
#[derive(Debug)]
pub(super) struct CallerPlan {
    /// What a caller's site targets: the element (no `via`), then, for
    /// polymorphic callers, each method it overrides (as its own `via`).
    pub(super) targets: Vec<(String, Option<String>)>,
    /// The class declaring the element.
    pub(super) own_class: String,
    /// The element.
    pub(super) id: String,
    /// Whether the element has a body, so that calls through Spring
    /// injection points may reach it (see `spring.rs`), once asked.
    pub(super) runs: std::sync::OnceLock<bool>,
    /// Each file with callers, by path.
    pub(super) files: Vec<PlannedFile>,
}

/// A file with callers of the element.
#[derive(Debug)]
pub(super) struct PlannedFile {
    pub(super) entry: FileEntry,
    /// How many.
    pub(super) callers: usize,
    /// Whether they were counted by reading the file (calls on `this`,
    /// whose dispatch depends on the classes of the revision), not from
    /// the counts kept with the index alone.
    pub(super) read: bool,
}

impl CallerPlan {
    /// How many files it names: what keeping it costs.
    pub(super) fn weight(&self) -> u64 {
        1 + self.files.len() as u64
    }
}
