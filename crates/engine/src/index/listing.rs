//! A revision's listing against its parent's: the changes a directory's
//! files make, and the whole listing of a revision given as changes.

use std::collections::{BTreeMap, HashMap};

use refscope_store::{BlobId, RevisionRow, Store};

use crate::error::Error;
use crate::source::{Changes, SourceFile};

/// The changes from `parent`'s files to the listing `files` and
/// `skipped` (a directory's files, all of them).
pub(super) fn changes_from_listing(
    store: &Store,
    parent: &RevisionRow,
    files: &[SourceFile],
    skipped: &[(String, String)],
) -> Result<Changes, Error> {
    let before: HashMap<String, BlobId> = store
        .manifest(parent)?
        .into_iter()
        .map(|f| (f.path, f.blob_id))
        .collect();
    let mut changes = Changes::default();
    for file in files {
        if before.get(&file.path) != Some(&file.blob_id) {
            changes.changed.push(file.clone());
        }
    }
    let now: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    changes.removed = before
        .into_keys()
        .filter(|path| !now.contains(path.as_str()))
        .collect();
    changes.removed.sort();
    let skipped_before: BTreeMap<String, String> =
        store.skipped_files(parent)?.into_iter().collect();
    let skipped_now: BTreeMap<&str, &str> = skipped
        .iter()
        .map(|(p, r)| (p.as_str(), r.as_str()))
        .collect();
    for (path, reason) in skipped {
        if skipped_before.get(path) != Some(reason) {
            changes.skipped.push((path.clone(), reason.clone()));
        }
    }
    changes.unskipped = skipped_before
        .into_keys()
        .filter(|path| !skipped_now.contains_key(path.as_str()))
        .collect();
    Ok(changes)
}

/// A revision's files and the files left out, with why.
type Listing = (Vec<SourceFile>, Vec<(String, String)>);

/// The whole listing of `parent` with `changes` applied, for a revision
/// given as changes but indexed from scratch.
pub(super) fn listing_over(
    store: &Store,
    parent: &RevisionRow,
    changes: &Changes,
) -> Result<Listing, Error> {
    let mut files: BTreeMap<String, SourceFile> = store
        .manifest(parent)?
        .into_iter()
        .map(|f| {
            let file = SourceFile {
                path: f.path.clone(),
                blob_id: f.blob_id,
                size: 0,
            };
            (f.path, file)
        })
        .collect();
    for path in &changes.removed {
        files.remove(path);
    }
    for (path, _) in &changes.skipped {
        files.remove(path);
    }
    for file in &changes.changed {
        files.insert(file.path.clone(), file.clone());
    }
    let skipped = skipped_over(store, parent, changes)?;
    Ok((files.into_values().collect(), skipped))
}

/// The files left out of a revision given as `changes` over `parent`.
pub(super) fn skipped_over(
    store: &Store,
    parent: &RevisionRow,
    changes: &Changes,
) -> Result<Vec<(String, String)>, Error> {
    let mut skipped: BTreeMap<String, String> = store.skipped_files(parent)?.into_iter().collect();
    for path in changes
        .unskipped
        .iter()
        .chain(&changes.removed)
        .chain(changes.changed.iter().map(|f| &f.path))
    {
        skipped.remove(path);
    }
    skipped.extend(changes.skipped.iter().cloned());
    Ok(skipped.into_iter().collect())
}
