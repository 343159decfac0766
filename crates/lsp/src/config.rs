//! How the server indexes and where it keeps the index.

use std::path::PathBuf;
use std::time::Duration;

use refscope_engine::{IndexConfig, SourceLimits};

/// How long changes are gathered before the work tree is indexed again in
/// the background: a burst of keystrokes or of file events is one update.
/// A request does not wait for it: it has the changes before it indexed at
/// once.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The work tree served when the client names none (no `rootUri` or
    /// workspace folder in `initialize`).
    pub default_root: PathBuf,
    /// The store directory; by default the one `refscope watch` uses for
    /// the root (`.git/refscope` in a repository, `.refscope` in a plain
    /// directory).
    pub store: Option<PathBuf>,
    /// How each update is indexed (worker threads, the JDK, the class
    /// path); work-tree revisions always replace the previous one.
    pub index: IndexConfig,
    /// Which files are skipped.
    pub limits: SourceLimits,
    /// How long changes are gathered before a background update.
    pub debounce: Duration,
    /// At most this many `workspace/symbol` results.
    pub max_workspace_symbols: usize,
}

impl ServerConfig {
    /// The defaults, serving `default_root` when the client names no root.
    pub fn new(default_root: PathBuf) -> Self {
        Self {
            default_root,
            store: None,
            index: IndexConfig::default(),
            limits: SourceLimits::default(),
            debounce: DEFAULT_DEBOUNCE,
            max_workspace_symbols: 256,
        }
    }
}
