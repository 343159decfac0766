//! The units a `watch` session wrote and alone holds, so that a save can
//! remove those of the version it replaces.
//!
//! A work-tree revision replaces the previous one of its directory
//! ([`IndexConfig::replace_worktree`](super::IndexConfig)); the units only
//! the replaced one held would stay until a `prune`. Which those are is
//! known without walking the store: a unit this indexer stored (its id is
//! above the largest one when the update began, because this indexer
//! holds the write lock) can be held by no revision but this directory's
//! work-tree revisions, as long as no other revision was written or
//! removed since — any other writer's revision row gets a larger id than
//! this indexer's last one, and a removal counts in
//! [`Store::prunes`](refscope_store::Store::prunes). When either happens,
//! every unit known so far is left alone (to `prune`).

use rustc_hash::FxHashMap;

use refscope_store::Store;

use crate::error::Error;

/// The units this indexer stored for its directory's work-tree revisions
/// that no other revision holds, each with how many paths of the newest
/// one hold it.
#[derive(Debug, Default)]
pub(super) struct WorktreeUnits {
    /// The id of the revision row this indexer wrote last, and the
    /// store's removal count then.
    last: Option<(i64, u64)>,
    held: FxHashMap<i64, u32>,
}

/// One update's view of [`WorktreeUnits`]: taken when it begins, given
/// back once it commits (an update that fails leaves none known).
#[derive(Debug)]
pub(super) struct Update {
    /// The revision the counts are of: this indexer's last.
    counted: Option<i64>,
    /// Units with larger ids were stored by this update.
    newest_before: i64,
    prunes: u64,
    held: FxHashMap<i64, u32>,
}

impl WorktreeUnits {
    /// Begins an update, under the write lock: the units known, unless
    /// another process wrote or removed a revision since the last one.
    pub(super) fn begin(&mut self, store: &Store) -> Result<Update, Error> {
        let prunes = store.prunes()?;
        let mut held = std::mem::take(&mut self.held);
        let counted = match self.last.take() {
            Some((revision, prunes_then))
                if prunes_then == prunes && store.newest_revision_id()? == Some(revision) =>
            {
                Some(revision)
            }
            _ => None,
        };
        if counted.is_none() {
            held.clear();
        }
        Ok(Update {
            counted,
            newest_before: store.max_unit_id()?,
            prunes,
            held,
        })
    }

    /// Ends an update that committed revision `revision`.
    pub(super) fn committed(&mut self, update: Update, revision: i64) {
        self.last = Some((revision, update.prunes));
        self.held = update.held;
    }
}

impl Update {
    /// The update is written as a layer over revision `parent`: the
    /// counts hold only if that is the revision they are of.
    pub(super) fn over(&mut self, parent: i64) {
        if self.counted != Some(parent) {
            self.held.clear();
        }
    }

    /// Counts paths that changed from holding `before` to holding `after`
    /// (each `None` for no file); the units that no path holds any more.
    pub(super) fn replace(
        &mut self,
        changes: impl IntoIterator<Item = (Option<i64>, Option<i64>)>,
    ) -> Vec<i64> {
        let mut released = Vec::new();
        for (before, after) in changes {
            if before == after {
                continue;
            }
            if let Some(unit) = after
                && (unit > self.newest_before || self.held.contains_key(&unit))
            {
                *self.held.entry(unit).or_default() += 1;
            }
            if let Some(unit) = before
                && let Some(count) = self.held.get_mut(&unit)
            {
                *count -= 1;
                if *count == 0 {
                    self.held.remove(&unit);
                    released.push(unit);
                }
            }
        }
        released.sort_unstable();
        released.dedup();
        released
    }

    /// Counts anew for a revision written whole, whose files hold `units`;
    /// the units known before that no path holds any more.
    pub(super) fn replace_all(&mut self, units: impl IntoIterator<Item = i64>) -> Vec<i64> {
        let before = std::mem::take(&mut self.held);
        for unit in units {
            if unit > self.newest_before || before.contains_key(&unit) {
                *self.held.entry(unit).or_default() += 1;
            }
        }
        let mut released: Vec<i64> = before
            .into_keys()
            .filter(|unit| !self.held.contains_key(unit))
            .collect();
        released.sort_unstable();
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(newest_before: i64, held: &[(i64, u32)]) -> Update {
        Update {
            counted: None,
            newest_before,
            prunes: 0,
            held: held.iter().copied().collect(),
        }
    }

    #[test]
    fn a_unit_goes_when_the_last_path_holding_it_changes() {
        // Units 1-10 were there before the session; 11 and 12 it stored,
        // 12 at two paths.
        let mut u = update(12, &[(11, 1), (12, 2)]);
        // A path moves from 12 to a new unit 13, another from 11 to 14.
        assert_eq!(
            u.replace([(Some(12), Some(13)), (Some(11), Some(14))]),
            [11]
        );
        // The second path holding 12 is removed.
        assert_eq!(u.replace([(Some(12), None)]), [12]);
        // A unit from before the session is never counted, nor released.
        assert_eq!(u.replace([(Some(3), Some(4)), (Some(13), Some(3))]), [13]);
        assert_eq!(u.held, [(14, 1)].into_iter().collect());
    }

    #[test]
    fn a_path_coming_back_to_a_held_unit_keeps_it() {
        let mut u = update(20, &[(15, 1)]);
        // Unchanged paths release nothing; a second path takes unit 15
        // before the first lets it go.
        assert_eq!(u.replace([(Some(15), Some(15))]), Vec::<i64>::new());
        assert_eq!(
            u.replace([(None, Some(15)), (Some(15), Some(21))]),
            Vec::<i64>::new()
        );
        assert_eq!(u.held, [(15, 1), (21, 1)].into_iter().collect());
    }

    #[test]
    fn a_whole_revision_counts_anew() {
        let mut u = update(30, &[(25, 1), (26, 1)]);
        assert_eq!(u.replace_all([26, 31, 31, 2]), [25]);
        assert_eq!(u.held, [(26, 1), (31, 2)].into_iter().collect());
    }
}
