//! Following a work tree from one indexed revision to the next: a reader
//! that always answers from the newest work-tree revision (the language
//! server, after each edit) keeps what it decoded of the files the new
//! revision did not write, instead of decoding the whole answer again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use refscope_store::{RevisionRow, Store};

use super::Snapshot;
use super::cache::RevisionCache;
use super::data::FileData;
use crate::error::Error;

impl<'s> Snapshot<'s> {
    /// A snapshot of `revision`, indexed as a layer over the revision
    /// `previous` caches and writing the files at `written` (every path
    /// whose content or resolution differs: the revision's
    /// `IndexSummary::dirty`), on a new cache that takes over what
    /// `previous` decoded of every other file (`previous` decodes again
    /// what it is asked for next). Each carried file is still checked
    /// against `revision`'s entry on use, as always; a carried resolution
    /// whose targets are declared in a written file, on lines that moved,
    /// gets the new lines (in place, unless another snapshot shares the
    /// file's data). Memoized callers and the revision's files by unit
    /// depend on every file: they start empty.
    pub fn following(
        store: &'s Store,
        revision: RevisionRow,
        previous: &RevisionCache,
        written: &[String],
    ) -> Result<Self, Error> {
        let snapshot = Self::new(store, revision)?;
        let written: HashSet<&str> = written.iter().map(String::as_str).collect();
        let known_lines = previous
            .signature_lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        // Every resolution `previous` holds took its targets' lines from
        // `known_lines`: a written file whose lines it never read is no
        // resolution's target by line.
        let mut lines = HashMap::with_capacity(known_lines.len());
        let mut moved: HashMap<String, Arc<Vec<u32>>> = HashMap::new();
        for (path, old) in known_lines {
            if written.contains(path.as_str()) {
                let new = Arc::new(snapshot.read_signature_lines(&path));
                if new != old {
                    moved.insert(path.clone(), new.clone());
                }
                lines.insert(path, new);
            } else {
                lines.insert(path, old);
            }
        }
        *snapshot.lock_signature_lines() = lines;
        let line_of = |path: &str, ordinal: u32| {
            moved
                .get(path)
                .map(|lines| lines.get(ordinal as usize).copied().unwrap_or(0))
        };
        for mut data in previous.take_files_by_age() {
            if written.contains(data.entry.path.as_str()) {
                continue;
            }
            if !moved.is_empty() {
                FileData::move_target_lines(&mut data, &line_of);
            }
            snapshot.cache.keep_file(data);
        }
        Ok(snapshot)
    }
}
