//! What an index tells its caller: progress while it runs
//! ([`Progress`]) and what it did ([`IndexSummary`]).

/// Progress reported while indexing.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Another process holds the store's write lock; waiting for it.
    WaitingForLock {
        /// The holder's pid, as recorded in the lock file.
        pid: String,
    },
    /// A phase starts, with the amount of work in it.
    Phase {
        /// `parse`, `signatures`, `resolve` or `finish` (the links of a
        /// revision's resolutions and the commit).
        name: &'static str,
        /// Units of work (files; none for `finish`).
        total: u64,
    },
    /// Some units of work of the current phase are done.
    Advance(u64),
    /// No JDK was found: library names stay unqualified.
    NoJdk,
    /// Something the user should know that does not stop the run, in one
    /// line.
    Notice(String),
}

/// What an indexing run did.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSummary {
    /// The revision's name (commit id or `worktree:<digest>`).
    pub revision: String,
    /// The revision was indexed before; nothing was done.
    pub already_indexed: bool,
    /// Java files in the revision.
    pub n_files: u64,
    /// Files parsed in this run (blobs not seen before).
    pub n_parsed: u64,
    /// Of those, files a thread had parsed ahead while earlier revisions
    /// were indexed ([`Indexer::parse_ahead`](crate::Indexer::parse_ahead)).
    pub n_parsed_ahead: u64,
    /// Files resolved in this run; the others share the resolution of an
    /// earlier revision in which they and every signature they can see
    /// were the same.
    pub n_resolved: u64,
    /// Elements over all files.
    pub n_elements: u64,
    /// Reference sites over all files.
    pub n_ref_sites: u64,
    /// Files skipped (too large, binary, unreadable).
    pub n_skipped: u64,
    /// Syntax error nodes over all files.
    pub n_syntax_errors: u64,
    /// Files with bytes that were not UTF-8.
    pub n_invalid_utf8_files: u64,
    /// For a revision written as a layer over another: the paths it
    /// resolved (its dirty set), sorted; `None` when it was indexed from
    /// scratch (every file) or was indexed already.
    pub dirty: Option<Vec<String>>,
    /// The revision it was written as a layer over, if any.
    pub parent: Option<String>,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Size of the store afterwards, in bytes.
    pub store_bytes: u64,
}
