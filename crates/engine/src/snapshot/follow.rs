//! Following a work tree from one indexed revision to the next: a reader
//! that always answers from the newest work-tree revision (the language
//! server, after each edit) keeps what it decoded of the files the new
//! revision did not write, instead of decoding the whole answer again.

use std::collections::HashSet;

use refscope_store::{RevisionRow, Store};

use super::Snapshot;
use super::cache::RevisionCache;
use crate::error::Error;

impl<'s> Snapshot<'s> {
    /// A snapshot of `revision`, indexed as a layer over the revision
    /// `previous` caches and writing the files at `written` (every path
    /// whose content or resolution differs: the revision's
    /// `IndexSummary::dirty`), on a new cache that takes over what
    /// `previous` decoded of every other file (`previous` decodes again
    /// what it is asked for next). Each carried file is still checked
    /// against `revision`'s entry on use, as always. The lines of the
    /// declarations in written files are read again when asked for
    /// (resolutions name their targets' declarations by ordinal, not by
    /// line). Memoized callers and the revision's files by unit depend on
    /// every file: they start empty.
    pub fn following(
        store: &'s Store,
        revision: RevisionRow,
        previous: &RevisionCache,
        written: &[String],
    ) -> Result<Self, Error> {
        let snapshot = Self::new(store, revision)?;
        let written: HashSet<&str> = written.iter().map(String::as_str).collect();
        let mut lines = previous
            .signature_lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        lines.retain(|path, _| !written.contains(path.as_str()));
        *snapshot.lock_signature_lines() = lines;
        for data in previous.take_files_by_age() {
            if written.contains(data.entry.path.as_str()) {
                continue;
            }
            snapshot.cache.keep_file(data);
        }
        Ok(snapshot)
    }
}
