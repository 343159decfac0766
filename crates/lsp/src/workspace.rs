//! The work tree and its index, on a thread of their own: each update
//! takes the changed paths and the open documents' overlays, brings the
//! work tree up to date and indexes it as a work-tree revision layered
//! over the previous one, which it replaces (as `refscope watch` does).
//! The first update lists and indexes everything.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, unbounded};
use lsp_server::Message;
use lsp_types::ProgressToken;
use refscope_engine::{IndexConfig, IndexSummary, Indexer, Source, SourceLimits, Store, WorkTree};

use crate::progress::ProgressReporter;

/// What changed since the last update.
#[derive(Debug, Default)]
pub struct Update {
    /// Which update this is (increasing).
    pub generation: u64,
    /// Files whose content is now the given text (an open document), or
    /// the disk's again (`None`, a closed one), by absolute path.
    pub overlays: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Files or directories that may have changed on disk.
    pub paths: Vec<PathBuf>,
    /// Report the update's progress under this token.
    pub progress: Option<ProgressToken>,
    /// Log what the update did.
    pub log_summary: bool,
}

/// How an update ended.
#[derive(Debug)]
pub enum Outcome {
    /// A new revision is indexed (or was already).
    Indexed(Box<IndexSummary>),
    /// No file changed: the last revision stands.
    Unchanged,
    /// Indexing failed; the last revision stands.
    Failed(String),
}

/// An update done.
#[derive(Debug)]
pub struct Indexed {
    /// The update's generation.
    pub generation: u64,
    /// What came of it.
    pub outcome: Outcome,
}

/// The indexing thread.
pub struct Workspace {
    updates: Sender<Update>,
    /// Updates done, in order.
    pub indexed: Receiver<Indexed>,
    _thread: JoinHandle<()>,
}

/// Where the work tree is and how to index it.
pub struct WorkspaceConfig {
    /// The work tree (canonical).
    pub root: PathBuf,
    /// The store.
    pub store_dir: PathBuf,
    /// How to index.
    pub index: IndexConfig,
    /// Which files to skip.
    pub limits: SourceLimits,
}

impl Workspace {
    /// Starts the thread; it waits for the first update.
    pub fn start(config: WorkspaceConfig, client: Sender<Message>) -> Self {
        let (updates, incoming) = unbounded();
        let (done, indexed) = unbounded();
        let thread = std::thread::Builder::new()
            .name("lsp-index".into())
            .spawn(move || run(config, incoming, done, client))
            .expect("a thread can be started");
        Self {
            updates,
            indexed,
            _thread: thread,
        }
    }

    /// Hands an update to the thread.
    pub fn send(&self, update: Update) {
        let _ = self.updates.send(update);
    }
}

fn run(
    config: WorkspaceConfig,
    updates: Receiver<Update>,
    done: Sender<Indexed>,
    client: Sender<Message>,
) {
    let opened = Source::open_directory(&config.root).and_then(|source| {
        let store = Store::open(&config.store_dir)?;
        Ok((source, store))
    });
    let (source, store) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            for update in updates {
                let outcome = Outcome::Failed(e.to_string());
                let _ = done.send(Indexed {
                    generation: update.generation,
                    outcome,
                });
            }
            return;
        }
    };
    let mut indexer = Indexer::new(
        &store,
        IndexConfig {
            replace_worktree: true,
            ..config.index.clone()
        },
    );
    let mut tree: Option<WorkTree> = None;
    // The last revision indexed, which the next is layered over.
    let mut base: Option<String> = None;
    for update in updates {
        let reporter = update.progress.clone().map(|token| {
            ProgressReporter::begin(client.clone(), Some(token), "refscope: indexing")
        });
        let mut reporter =
            reporter.unwrap_or_else(|| ProgressReporter::begin(client.clone(), None, ""));
        let revision = match &mut tree {
            None => {
                let mut scanned = WorkTree::scan(&config.root, &config.limits);
                for (path, content) in update.overlays {
                    scanned.set_overlay(&path, content);
                }
                let revision = scanned.revision();
                tree = Some(scanned);
                revision
            }
            Some(tree) => {
                let mut n_changed = 0;
                for (path, content) in update.overlays {
                    n_changed += tree.set_overlay(&path, content);
                }
                n_changed += tree.refresh(&update.paths);
                match &base {
                    Some(_) if n_changed == 0 => {
                        reporter.end("no change".into());
                        let _ = done.send(Indexed {
                            generation: update.generation,
                            outcome: Outcome::Unchanged,
                        });
                        continue;
                    }
                    Some(base) => tree.changes_since(base),
                    None => tree.revision(),
                }
            }
        };
        // A panic in the engine fails the update, not the server.
        let result = catch_unwind(AssertUnwindSafe(|| {
            indexer.index(&source, &revision, &mut |progress| reporter.on(&progress))
        }))
        .unwrap_or_else(|_| {
            Err(refscope_engine::Error::Io {
                path: config.root.clone(),
                source: std::io::Error::other("indexing panicked"),
            })
        });
        let outcome = match result {
            Ok(summary) => {
                base = Some(summary.revision.clone());
                let message = format!(
                    "{}: {} files, {} parsed, {} resolved, {:.0} ms",
                    short_name(&summary.revision),
                    summary.n_files,
                    summary.n_parsed,
                    summary.n_resolved,
                    summary.seconds * 1000.0
                );
                if update.log_summary {
                    crate::progress::log_message(
                        &client,
                        lsp_types::MessageType::INFO,
                        format!("refscope: indexed {message}"),
                    );
                }
                reporter.end(message);
                Outcome::Indexed(Box::new(summary))
            }
            Err(e) => {
                // The next update lists every file.
                base = None;
                reporter.end(format!("failed: {e}"));
                Outcome::Failed(e.to_string())
            }
        };
        let _ = done.send(Indexed {
            generation: update.generation,
            outcome,
        });
    }
}

/// A revision's name shortened for messages.
fn short_name(revision: &str) -> String {
    revision.chars().take(19).collect()
}
