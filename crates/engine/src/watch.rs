//! Keeping the index of a directory's files current while they change.
//!
//! File system events (notify) are gathered until the directory has been
//! quiet for a moment (editors save in bursts: a temporary file, a rename)
//! and no write is visibly unfinished (see [`burst`]), then only the paths
//! they name are read again, and their changes are indexed as a work-tree
//! revision layered over the previous one: a body edit parses and resolves
//! one file, whatever the size of the tree. Each
//! update commits in one transaction that also removes the previous
//! work-tree revision, so readers see the last complete state and never a
//! half-written one.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::error::Error;
use crate::index::{IndexConfig, IndexSummary, Indexer, Progress};
use crate::source::{Revision, Source, SourceLimits, WorkTree};
use burst::{Burst, git_index_lock, may_change_files};
use refscope_store::Store;

mod burst;

/// The default quiet period. Short, because a burst is also known to go on
/// while a Java file written to is open or git holds its index lock.
pub const DEFAULT_QUIET_MS: u64 = 5;

/// How to watch.
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// How long the directory must be quiet before an update starts (and
    /// no Java file written to is still open, no git operation under way).
    pub quiet_period: Duration,
    /// Which files to skip.
    pub limits: SourceLimits,
    /// How to index each update.
    pub index: IndexConfig,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self {
            quiet_period: Duration::from_millis(DEFAULT_QUIET_MS),
            limits: SourceLimits::default(),
            index: IndexConfig::default(),
        }
    }
}

/// What the watcher reports.
#[derive(Debug)]
pub enum WatchEvent {
    /// The files on disk were indexed: the first time, or after changes.
    Updated {
        /// The indexing run.
        summary: IndexSummary,
        /// Java files added, changed or removed since the last update
        /// (every file the first time).
        n_changed: usize,
        /// From the first event of the burst (or the start) to the commit.
        elapsed: Duration,
    },
    /// An update failed; the previous state stays readable and watching
    /// goes on.
    Failed(Error),
    /// Progress of an indexing run.
    Progress(Progress),
}

/// Indexes the files under `root` into `store`, then again after every
/// burst of changes, until `on_event` breaks (or the watcher fails).
pub fn watch(
    root: &Path,
    store: &Store,
    config: WatchConfig,
    on_event: &mut dyn FnMut(WatchEvent) -> ControlFlow<()>,
) -> Result<(), Error> {
    let source = Source::open_directory(root)?;
    let root = source.root().to_path_buf();
    let git_lock = git_index_lock(&root);
    let (sender, events) = channel();
    let watch_error = |e: notify::Error| Error::Io {
        path: root.clone(),
        source: std::io::Error::other(format!("cannot watch for changes: {e}")),
    };
    // Watching starts before the first scan, so no change is missed
    // between the two.
    let mut watcher = notify::recommended_watcher(sender).map_err(watch_error)?;
    watcher
        .watch(&root, RecursiveMode::Recursive)
        .map_err(watch_error)?;

    let mut indexer = Indexer::new(
        store,
        IndexConfig {
            replace_worktree: true,
            // The files the tree lists are the ones the revisions hold.
            limits: config.limits.clone(),
            ..config.index.clone()
        },
    );
    let started = Instant::now();
    let mut tree = WorkTree::scan(&root, &config.limits);
    let revision = tree.revision();
    let n_files = match &revision.files {
        crate::source::Files::All { files, .. } => files.len(),
        _ => 0,
    };
    let mut base = match update(&mut indexer, &source, &revision, n_files, started, on_event) {
        ControlFlow::Break(()) => return Ok(()),
        ControlFlow::Continue(base) => base,
    };
    loop {
        let Ok(first) = events.recv() else {
            return Err(watch_error(notify::Error::generic("the watcher stopped")));
        };
        if let Ok(event) = &first
            && !may_change_files(event)
        {
            continue;
        }
        let burst_started = Instant::now();
        let mut burst = Burst::default();
        burst.take(first);
        let mut last_event = Instant::now();
        loop {
            match events.recv_timeout(config.quiet_period) {
                Ok(event) => {
                    burst.take(event);
                    last_event = Instant::now();
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(wait) = burst.unfinished(git_lock.as_deref())
                        && last_event.elapsed() < wait
                    {
                        continue;
                    }
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(watch_error(notify::Error::generic("the watcher stopped")));
                }
            }
        }
        let Burst {
            mut paths, rescan, ..
        } = burst;
        let (revision, n_changed) = if rescan {
            tree = WorkTree::scan(&root, &config.limits);
            (tree.revision(), usize::MAX)
        } else {
            paths.sort();
            paths.dedup();
            let n_changed = tree.refresh(&paths);
            if n_changed == 0 {
                continue;
            }
            let over = base.as_deref().map(|base| tree.changes_since(base));
            (over.unwrap_or_else(|| tree.revision()), n_changed)
        };
        let n_changed = match (n_changed, &revision.files) {
            (usize::MAX, crate::source::Files::All { files, .. }) => files.len(),
            (n, _) => n,
        };
        match update(
            &mut indexer,
            &source,
            &revision,
            n_changed,
            burst_started,
            on_event,
        ) {
            ControlFlow::Break(()) => return Ok(()),
            ControlFlow::Continue(Some(indexed)) => base = Some(indexed),
            // The update failed (reported): the next one lists every file.
            ControlFlow::Continue(None) => base = None,
        }
    }
}

/// Indexes `revision` and reports it; the name of the revision indexed,
/// or `None` when it failed.
fn update(
    indexer: &mut Indexer<'_>,
    source: &Source,
    revision: &Revision,
    n_changed: usize,
    started: Instant,
    on_event: &mut dyn FnMut(WatchEvent) -> ControlFlow<()>,
) -> ControlFlow<(), Option<String>> {
    let mut progress_events = Vec::new();
    let result = indexer.index(source, revision, &mut |p| progress_events.push(p));
    for progress in progress_events {
        if on_event(WatchEvent::Progress(progress)).is_break() {
            return ControlFlow::Break(());
        }
    }
    match result {
        Ok(summary) => {
            let name = summary.revision.clone();
            let reported = on_event(WatchEvent::Updated {
                summary,
                n_changed,
                elapsed: started.elapsed(),
            });
            match reported {
                ControlFlow::Break(()) => ControlFlow::Break(()),
                ControlFlow::Continue(()) => ControlFlow::Continue(Some(name)),
            }
        }
        Err(error) => match on_event(WatchEvent::Failed(error)) {
            ControlFlow::Break(()) => ControlFlow::Break(()),
            ControlFlow::Continue(()) => ControlFlow::Continue(None),
        },
    }
}
