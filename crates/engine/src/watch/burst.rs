//! A burst of file system events, and when it is over.
//!
//! A burst is over when the directory has been quiet for the quiet period
//! and nothing is visibly still writing: no Java file that was written to
//! is still open (inotify reports closes, so this is known on Linux), and
//! no git operation holds the repository's index lock (a checkout writes
//! its files under it; the lock counts as held until the event of its
//! removal has come, not only while it is on disk, as the events of the
//! files written under it may still be on their way). Each wait is bounded
//! after the last event ([`OPEN_FILE_WAIT`], [`GIT_LOCK_WAIT`]), so a file
//! held open for good or a stale lock left by a crashed git delays updates
//! but never stops them. This is what lets the quiet period be short: a
//! save that pauses halfway, or a branch switch on a loaded machine, still
//! becomes one update.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
use notify::{Event, EventKind};

/// The longest an update waits after the last event for a Java file
/// written to be closed.
pub(super) const OPEN_FILE_WAIT: Duration = Duration::from_secs(2);

/// The longest an update waits after the last event for git's index lock
/// to go: longer, as a git operation on a busy machine may pause between
/// files for seconds, and a lock left behind by a crashed git stops git
/// itself until someone removes it.
pub(super) const GIT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// The events of one burst.
#[derive(Debug, Default)]
pub(super) struct Burst {
    /// Every path an event named.
    pub(super) paths: Vec<PathBuf>,
    /// Events were lost: everything must be read again.
    pub(super) rescan: bool,
    /// Java files written to and not closed since.
    open_for_writing: HashSet<PathBuf>,
    /// Index locks whose creation has come as an event and whose removal
    /// (or rename into place) has not yet.
    locks_created: HashSet<PathBuf>,
}

impl Burst {
    /// Adds one event (or the error that says events were lost).
    pub(super) fn take(&mut self, event: notify::Result<Event>) {
        match event {
            Ok(event) if may_change_files(&event) => {
                self.rescan |= event.need_rescan();
                if closes_are_reported() {
                    self.follow_writes(&event);
                    self.follow_index_locks(&event);
                }
                self.paths.extend(event.paths);
            }
            Ok(_) => {}
            Err(_) => self.rescan = true,
        }
    }

    fn follow_writes(&mut self, event: &Event) {
        let java = |path: &&PathBuf| path.extension().is_some_and(|e| e == "java");
        match event.kind {
            EventKind::Create(CreateKind::File) | EventKind::Modify(ModifyKind::Data(_)) => {
                for path in event.paths.iter().filter(java) {
                    self.open_for_writing.insert(path.clone());
                }
            }
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
                for path in &event.paths {
                    self.open_for_writing.remove(path);
                }
            }
            // A file renamed while open is closed under its new name.
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                if let [from, to] = &event.paths[..]
                    && self.open_for_writing.remove(from)
                {
                    self.open_for_writing.insert(to.clone());
                }
            }
            _ => {}
        }
    }

    /// Follows git's index locks through events. inotify reports events in
    /// the order they happened, so once the lock's rename into place (or
    /// removal) has come, so has every write git made under it; the lock's
    /// absence on disk says less, as the events of a git operation already
    /// over may still be on their way (a watcher thread not yet scheduled).
    fn follow_index_locks(&mut self, event: &Event) {
        let lock = |path: &&PathBuf| path.file_name().is_some_and(|n| n == "index.lock");
        match event.kind {
            EventKind::Create(_) => {
                for path in event.paths.iter().filter(lock) {
                    self.locks_created.insert(path.clone());
                }
            }
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
                for path in event.paths.iter().filter(lock) {
                    self.locks_created.remove(path);
                }
            }
            _ => {}
        }
    }

    /// How long after the last event the update may wait for what is
    /// visibly still being written: git's index lock (`git_lock`) present,
    /// or its creation come as an event and its removal not yet, or a Java
    /// file left open after a write; `None` when nothing is.
    pub(super) fn unfinished(&self, git_lock: Option<&Path>) -> Option<Duration> {
        if git_lock.is_some_and(|lock| lock.exists() || self.locks_created.contains(lock)) {
            Some(GIT_LOCK_WAIT)
        } else if !self.open_for_writing.is_empty() {
            Some(OPEN_FILE_WAIT)
        } else {
            None
        }
    }
}

/// Whether an event may mean changed files. Reads are not changes: the
/// watcher's own reads of the tree (every update reads the files it
/// indexes; a rescan opens every directory) come back as access events,
/// and following them would rescan and rehash the tree after every save.
/// A file closed after writing is a change.
pub(super) fn may_change_files(event: &Event) -> bool {
    match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => event.need_rescan(),
        _ => true,
    }
}

/// Whether the platform's watcher reports a written file's close (inotify
/// does; FSEvents and the Windows API do not, and there a write is never
/// known to be unfinished).
fn closes_are_reported() -> bool {
    cfg!(any(target_os = "linux", target_os = "android"))
}

/// The index lock of the git repository whose work tree holds `root`, if
/// any: `.git/index.lock`, or the lock in the directory a `.git` file
/// names (a linked work tree or a submodule).
pub(super) fn git_index_lock(root: &Path) -> Option<PathBuf> {
    for dir in root.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git.join("index.lock"));
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            return Some(dir.join(named).join("index.lock"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use notify::event::{DataChange, Flag, RemoveKind};
    use notify::{Event, EventKind};

    use super::*;

    fn event(kind: EventKind, paths: &[&str]) -> notify::Result<Event> {
        let mut event = Event::new(kind);
        for path in paths {
            event = event.add_path(PathBuf::from(path));
        }
        Ok(event)
    }

    const WRITTEN: EventKind = EventKind::Modify(ModifyKind::Data(DataChange::Any));
    const CLOSED: EventKind = EventKind::Access(AccessKind::Close(AccessMode::Write));

    #[test]
    fn a_java_file_written_and_not_closed_is_unfinished() {
        if !closes_are_reported() {
            return;
        }
        let mut burst = Burst::default();
        burst.take(event(EventKind::Create(CreateKind::File), &["/t/A.java"]));
        burst.take(event(WRITTEN, &["/t/A.java"]));
        assert_eq!(burst.unfinished(None), Some(OPEN_FILE_WAIT));
        burst.take(event(CLOSED, &["/t/A.java"]));
        assert_eq!(burst.unfinished(None), None);

        // Other files written and left open do not hold an update back.
        burst.take(event(WRITTEN, &["/t/build.log"]));
        assert_eq!(burst.unfinished(None), None);

        // Renamed while open, then closed under the new name.
        burst.take(event(WRITTEN, &["/t/B.java"]));
        burst.take(event(
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
            &["/t/B.java", "/t/C.java"],
        ));
        assert_eq!(burst.unfinished(None), Some(OPEN_FILE_WAIT));
        burst.take(event(CLOSED, &["/t/C.java"]));
        assert_eq!(burst.unfinished(None), None);

        // Removed while open.
        burst.take(event(WRITTEN, &["/t/D.java"]));
        burst.take(event(EventKind::Remove(RemoveKind::File), &["/t/D.java"]));
        assert_eq!(burst.unfinished(None), None);
        assert_eq!(burst.paths.len(), 10);
    }

    #[test]
    fn git_holding_its_index_lock_is_unfinished() {
        let tree = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tree.path().join(".git")).unwrap();
        std::fs::create_dir_all(tree.path().join("src/main")).unwrap();
        let lock = git_index_lock(&tree.path().join("src/main")).unwrap();
        assert_eq!(lock, tree.path().join(".git/index.lock"));
        let burst = Burst::default();
        assert_eq!(burst.unfinished(Some(&lock)), None);
        std::fs::write(&lock, "").unwrap();
        assert_eq!(burst.unfinished(Some(&lock)), Some(GIT_LOCK_WAIT));

        // A linked work tree names its git directory in a `.git` file.
        let linked = tempfile::tempdir().unwrap();
        std::fs::write(
            linked.path().join(".git"),
            format!(
                "gitdir: {}\n",
                tree.path().join(".git/worktrees/x").display()
            ),
        )
        .unwrap();
        assert_eq!(
            git_index_lock(linked.path()).unwrap(),
            tree.path().join(".git/worktrees/x/index.lock")
        );
    }

    #[test]
    fn a_git_lock_gone_from_disk_is_held_until_its_removal_comes_as_an_event() {
        if !closes_are_reported() {
            return;
        }
        let tree = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tree.path().join(".git")).unwrap();
        let lock = git_index_lock(tree.path()).unwrap();
        let lock_str = lock.to_str().unwrap();
        let index = tree.path().join(".git/index");
        let java = tree.path().join("Shop.java");
        let mut burst = Burst::default();
        // The lock was created, a file written under it, and the lock
        // renamed into place; only the first events have come so far.
        burst.take(event(EventKind::Create(CreateKind::File), &[lock_str]));
        burst.take(event(CLOSED, &[java.to_str().unwrap()]));
        assert!(!lock.exists());
        assert_eq!(burst.unfinished(Some(&lock)), Some(GIT_LOCK_WAIT));
        burst.take(event(
            EventKind::Modify(ModifyKind::Name(RenameMode::From)),
            &[lock_str],
        ));
        burst.take(event(
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
            &[lock_str, index.to_str().unwrap()],
        ));
        assert_eq!(burst.unfinished(Some(&lock)), None);

        // A lock removed rather than renamed (a rolled back operation).
        burst.take(event(EventKind::Create(CreateKind::File), &[lock_str]));
        assert_eq!(burst.unfinished(Some(&lock)), Some(GIT_LOCK_WAIT));
        burst.take(event(EventKind::Remove(RemoveKind::File), &[lock_str]));
        assert_eq!(burst.unfinished(Some(&lock)), None);
    }

    fn one_path(kind: EventKind) -> Event {
        Event {
            kind,
            paths: vec!["/tree/A.java".into()],
            attrs: notify::event::EventAttributes::new(),
        }
    }

    #[test]
    fn reads_are_not_changes_but_writes_and_lost_events_are() {
        for read in [
            AccessKind::Open(AccessMode::Read),
            AccessKind::Open(AccessMode::Any),
            AccessKind::Read,
            AccessKind::Close(AccessMode::Read),
            AccessKind::Any,
        ] {
            assert!(
                !may_change_files(&one_path(EventKind::Access(read))),
                "{read:?}"
            );
        }
        for change in [
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Modify(ModifyKind::Data(DataChange::Any)),
            EventKind::Create(CreateKind::File),
            EventKind::Remove(RemoveKind::Any),
            EventKind::Any,
            EventKind::Other,
        ] {
            assert!(may_change_files(&one_path(change)), "{change:?}");
        }
        let lost = one_path(EventKind::Access(AccessKind::Any)).set_flag(Flag::Rescan);
        assert!(may_change_files(&lost));
    }
}
