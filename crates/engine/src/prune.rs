//! Pruning a store: removing old revisions and what only they used.
//!
//! Which revisions go is decided here (the newest N stay, or those indexed
//! since a moment; revisions that a review task names always stay); the
//! store removes them and collects what no remaining revision uses
//! ([`Store::remove_revisions`]). Every remaining revision answers as
//! before: its manifest, units, blobs and layers are all kept.

use std::path::Path;

use refscope_store::{Removed, RevisionRow, Store, TASKS_FILE, TaskTable};

use crate::error::Error;

/// Which revisions a prune keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The N most recently indexed.
    Newest(usize),
    /// Those indexed at or after this Unix time.
    IndexedSince(i64),
}

/// What a prune did, or would do.
#[derive(Debug, Clone)]
pub struct PruneReport {
    /// The revisions removed (to be removed, on a dry run), newest first.
    pub removed: Vec<RevisionRow>,
    /// Revisions the rule would have removed but a review task names,
    /// with the task's id.
    pub kept_for_tasks: Vec<(RevisionRow, String)>,
    /// Revisions that remain.
    pub remaining: usize,
    /// What the store collected (also when no revision went: what replaced
    /// work-tree states left); `None` on a dry run.
    pub collected: Option<Removed>,
    /// The store's size on disk before and after.
    pub bytes_before: u64,
    /// See [`Self::bytes_before`].
    pub bytes_after: u64,
}

/// Removes the revisions `keep` does not keep from `store` (only lists them
/// when `dry_run`). Takes the store's write lock, calling `on_wait` with
/// the holder's pid if another process has it.
pub fn prune(
    store: &Store,
    keep: Keep,
    dry_run: bool,
    on_wait: impl FnOnce(&str),
) -> Result<PruneReport, Error> {
    let _lock = store.lock_for_writing(on_wait)?;
    let revisions = store.revisions()?;
    let tasks = task_revisions(store.dir())?;
    let bytes_before = store.size_on_disk();
    let mut report = PruneReport {
        removed: Vec::new(),
        kept_for_tasks: Vec::new(),
        remaining: 0,
        collected: None,
        bytes_before,
        bytes_after: bytes_before,
    };
    // Newest first: the order they were indexed in, backwards.
    for (at, revision) in revisions.into_iter().enumerate() {
        let kept = match keep {
            Keep::Newest(n) => at < n,
            Keep::IndexedSince(since) => revision.indexed_at >= since,
        };
        if kept {
            report.remaining += 1;
        } else if let Some((_, task)) = tasks.iter().find(|(name, _)| *name == revision.name) {
            report.kept_for_tasks.push((revision, task.clone()));
            report.remaining += 1;
        } else {
            report.removed.push(revision);
        }
    }
    if dry_run {
        return Ok(report);
    }
    let names: Vec<String> = report.removed.iter().map(|r| r.name.clone()).collect();
    report.collected = Some(store.remove_revisions(&names)?);
    report.bytes_after = store.size_on_disk();
    Ok(report)
}

/// The revisions the store's review tasks name (under review, and base),
/// each with its task's id.
fn task_revisions(dir: &Path) -> Result<Vec<(String, String)>, Error> {
    if !dir.join(TASKS_FILE).is_file() {
        return Ok(Vec::new());
    }
    let mut named = Vec::new();
    for task in TaskTable::open(dir)?.list()? {
        named.push((task.revision.clone(), task.id.clone()));
        if let Some(base) = &task.base_revision {
            named.push((base.clone(), task.id.clone()));
        }
    }
    Ok(named)
}
