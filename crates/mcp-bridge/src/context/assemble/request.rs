//! What an answer is asked for and where its facts come from, the errors
//! of a request that cannot be answered, and the check of the diff's line
//! ranges.

use refscope_engine::BlobReader;
use refscope_engine::{Snapshot, Source, Store};

use crate::context::settings::ContextSettings;

/// What to describe: a file of the revision and the diff's line ranges.
#[derive(Debug, Clone)]
pub struct ContextRequest<'a> {
    /// The task the answer is for, echoed as `task_id` (`None` when the
    /// revision was named directly).
    pub task_id: Option<&'a str>,
    /// Repository-relative path of the file.
    pub file: &'a str,
    /// `[start1, end1, start2, end2, ...]`, 1-based, inclusive.
    pub diff_lines: &'a [i64],
    /// What the answer holds.
    pub settings: &'a ContextSettings,
    /// What the cursors of the answer are bound to: the store, the
    /// revision, the file, the diff lines and the settings
    /// ([`ContextRequest::binding`]).
    pub binding: u64,
    /// The `next_cursor` of a list a previous answer to the same call
    /// cut: the answer is then that list's next page.
    pub cursor: Option<&'a str>,
}

impl ContextRequest<'_> {
    /// The binding of a call: the store (by its directory), the revision,
    /// the file, the diff lines and the settings.
    pub fn binding(
        store_dir: &std::path::Path,
        revision: &str,
        file: &str,
        diff_lines: &[i64],
        settings: &ContextSettings,
    ) -> u64 {
        let call = format!("code_context {file} {diff_lines:?} {settings:?}");
        refscope_query::lang::binding(store_dir, revision, &call)
    }
}

/// Where the answer's facts come from.
pub struct ContextSources<'a, 's> {
    /// The revision under review.
    pub snapshot: &'a Snapshot<'s>,
    /// The base revision of the diff, when the task has one: each owning
    /// element then says what changed since it.
    pub base: Option<&'a Snapshot<'s>>,
    /// Reads the file contents of both revisions (source text, bodies).
    pub blobs: &'a BlobReader,
    /// The repository and store an element's history is read from, for
    /// `include_history`.
    pub history: Option<(&'a Source, &'a Store)>,
}

/// A request that cannot be answered, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// An odd number of diff line values.
    #[error(
        "diff_lines holds {count} values; give pairs of start and end lines, e.g. [10, 25, 40, 41]"
    )]
    OddDiffLines {
        /// How many values were given.
        count: usize,
    },
    /// A line number below 1.
    #[error("diff_lines value {value} is not a line number; lines count from 1")]
    NotALine {
        /// The value.
        value: i64,
    },
    /// A range that ends before it starts.
    #[error(
        "diff range {start}-{end} ends before it starts; give each range as start, end with start <= end"
    )]
    Reversed {
        /// Its start.
        start: i64,
        /// Its end.
        end: i64,
    },
    /// A range past the end of the file.
    #[error(
        "diff range {start}-{end} lies past the end of {file} ({n_lines} lines at revision {revision}); check the file and the revision of the diff"
    )]
    PastEnd {
        /// Its start.
        start: u32,
        /// Its end.
        end: u32,
        /// The file.
        file: String,
        /// Its length.
        n_lines: u32,
        /// The revision.
        revision: String,
    },
    /// A cursor that does not continue a list of this call.
    #[error("cursor `{cursor}` {why}; call again without a cursor")]
    Cursor {
        /// The cursor as given.
        cursor: String,
        /// Why it is refused.
        why: String,
    },
    /// The engine could not answer (a file absent from the revision, an
    /// unreadable store).
    #[error(transparent)]
    Engine(#[from] refscope_engine::Error),
}

/// Checks the flat list of diff line values and pairs it up.
pub(super) fn parse_ranges(values: &[i64]) -> Result<Vec<(u32, u32)>, ContextError> {
    if !values.len().is_multiple_of(2) {
        return Err(ContextError::OddDiffLines {
            count: values.len(),
        });
    }
    let mut ranges = Vec::new();
    for pair in values.chunks(2) {
        let (start, end) = (pair[0], pair[1]);
        for value in [start, end] {
            if !(1..=i64::from(u32::MAX)).contains(&value) {
                return Err(ContextError::NotALine { value });
            }
        }
        if start > end {
            return Err(ContextError::Reversed { start, end });
        }
        ranges.push((start as u32, end as u32));
    }
    Ok(ranges)
}
