//! Review tasks: a named pairing of a repository, the revision under review
//! and, optionally, the base revision of its diff.
//!
//! Tasks live in `tasks.sqlite` beside the store's database
//! ([`TaskTable`]): removing it loses the task names and nothing else.
//!
//! A task records the revisions as given (`main`, `HEAD~1`) and as resolved
//! when it was added (commit ids), so it keeps naming the same code when a
//! branch moves. A git task's revisions are indexed on first use
//! ([`TaskRevisions::open`]); a plain directory has no history, so its files
//! are indexed when the task is added, the only moment their content is
//! known.
//!
//! ```no_run
//! use refscope_mcp_bridge::task::{NewTask, TaskStore};
//!
//! let tasks = TaskStore::open("/repo/.git/refscope".as_ref())?;
//! let store = refscope_engine::Store::open("/repo/.git/refscope".as_ref())?;
//! let new = NewTask { id: "pr-42".into(), repo: "/repo".into(), rev: Some("HEAD".into()), base: Some("HEAD~1".into()), svn: None };
//! let task = tasks.register(new, &store, &mut |_| {})?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use refscope_engine::{
    IndexConfig, Indexer, Progress, RevisionRow, Source, SourceLimits, Store, TaskTable,
};
pub use refscope_engine::{TASKS_FILE, Task};

/// A task as a user describes it, before its revisions are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTask {
    /// The task's name.
    pub id: String,
    /// The repository or directory.
    pub repo: PathBuf,
    /// The revision under review (default: HEAD, or a directory's files).
    pub rev: Option<String>,
    /// The base revision of the diff.
    pub base: Option<String>,
    /// A Subversion repository URL the review tools read: `repo` is then
    /// its working copy (or an export), indexed as a plain directory, and
    /// `rev`/`base` are revisions of the URL (numbers, or `HEAD`).
    pub svn: Option<String>,
}

/// What can go wrong with tasks.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// No task has this id.
    #[error("no task '{id}' in store {}; {}", store.display(), known_hint(known))]
    UnknownTask {
        /// The id asked for.
        id: String,
        /// The store directory.
        store: PathBuf,
        /// The ids the store holds.
        known: Vec<String>,
    },
    /// A task with this id exists already.
    #[error("task '{id}' exists already in store {}; remove it with `refscope task remove {id}` or pick another id", store.display())]
    DuplicateTask {
        /// The id.
        id: String,
        /// The store directory.
        store: PathBuf,
    },
    /// The id is empty or has characters that would not survive a URL or
    /// a shell.
    #[error("task id '{id}' is not usable; use letters, digits, '.', '_' and '-'")]
    BadTaskId {
        /// The id given.
        id: String,
    },
    /// A base revision was given for a plain directory.
    #[error("{}: a plain directory has no history, so it cannot have a base revision; use a git repository", repo.display())]
    BaseOnDirectory {
        /// The directory.
        repo: PathBuf,
    },
    /// A directory task's files changed on disk after the task was added and
    /// before its snapshot was indexed.
    #[error("the files of {} changed since task '{id}' was added; add the task again", repo.display())]
    DirectoryChanged {
        /// The task.
        id: String,
        /// The directory.
        repo: PathBuf,
    },
    /// The engine failed (a missing repository or revision, an unreadable
    /// store).
    #[error(transparent)]
    Engine(#[from] refscope_engine::Error),
    /// The Subversion repository of a task cannot be read, or has no such
    /// revision.
    #[error(transparent)]
    Svn(#[from] refscope_aicr::ReviewTargetError),
}

impl From<refscope_engine::StoreError> for TaskError {
    fn from(e: refscope_engine::StoreError) -> Self {
        Self::Engine(e.into())
    }
}

fn known_hint(known: &[String]) -> String {
    if known.is_empty() {
        "add one with `refscope task add --id ID --repo PATH --rev REV`".to_string()
    } else {
        format!("known tasks: {}", known.join(", "))
    }
}

/// The tasks of one store directory.
pub struct TaskStore {
    dir: PathBuf,
    table: TaskTable,
}

impl TaskStore {
    /// Opens (creating if needed) the tasks of the store in `dir`.
    pub fn open(dir: &Path) -> Result<Self, TaskError> {
        let table = TaskTable::open(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            table,
        })
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds a task; an existing id is refused.
    pub fn add(&self, task: &Task) -> Result<(), TaskError> {
        if self.find(&task.id)?.is_some() {
            return Err(TaskError::DuplicateTask {
                id: task.id.clone(),
                store: self.dir.clone(),
            });
        }
        Ok(self.table.insert(task)?)
    }

    /// The task with this id, if any.
    pub fn find(&self, id: &str) -> Result<Option<Task>, TaskError> {
        Ok(self.table.find(id)?)
    }

    /// The task with this id; an unknown id is an error listing the known
    /// ones.
    pub fn get(&self, id: &str) -> Result<Task, TaskError> {
        match self.find(id)? {
            Some(task) => Ok(task),
            None => Err(TaskError::UnknownTask {
                id: id.to_string(),
                store: self.dir.clone(),
                known: self.list()?.into_iter().map(|t| t.id).collect(),
            }),
        }
    }

    /// Every task, by id.
    pub fn list(&self) -> Result<Vec<Task>, TaskError> {
        Ok(self.table.list()?)
    }

    /// Resolves a new task and adds it. A directory task's files are
    /// indexed into `store` now (see the module documentation); `progress`
    /// hears about that work.
    pub fn register(
        &self,
        new: NewTask,
        store: &Store,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Task, TaskError> {
        if self.find(&new.id)?.is_some() {
            return Err(TaskError::DuplicateTask {
                id: new.id,
                store: self.dir.clone(),
            });
        }
        let task = new.resolve()?;
        // A directory snapshot is named `worktree:<digest>` by the engine.
        if task.revision.starts_with("worktree:") {
            TaskRevisions::open(store, &task, progress)?;
        }
        self.add(&task)?;
        Ok(task)
    }

    /// Removes a task; an unknown id is an error.
    pub fn remove(&self, id: &str) -> Result<Task, TaskError> {
        let task = self.get(id)?;
        self.table.delete(id)?;
        Ok(task)
    }
}

impl NewTask {
    /// Checks the id, opens the repository and resolves the revisions:
    /// commit ids for git, the snapshot name of a directory's files. A
    /// missing repository or revision is an error naming it.
    pub fn resolve(self) -> Result<Task, TaskError> {
        let usable = !self.id.is_empty()
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !usable {
            return Err(TaskError::BadTaskId { id: self.id });
        }
        if let Some(url) = self.svn.clone() {
            return self.resolve_svn(url);
        }
        let source = Source::open(&self.repo)?;
        let repo = source.root().to_path_buf();
        let (revision, base_revision) = match &source {
            Source::Git { .. } => {
                let rev = self.rev.as_deref().unwrap_or("HEAD");
                // Reviewed as forges do: against the merge base, so that
                // what the base gained since the branch left it does not
                // show as if the branch had taken it out. Histories with
                // no common commit have none: the diff is then of the base
                // as given, and the task says so.
                let base = match self.base.as_deref() {
                    None => None,
                    Some(b) => Some(match source.merge_base(b, rev) {
                        Ok(merge_base) => (merge_base, true),
                        Err(refscope_engine::Error::NoMergeBase { .. }) => {
                            (source.commit_id(b)?, false)
                        }
                        Err(e) => return Err(e.into()),
                    }),
                };
                (source.commit_id(rev)?, base)
            }
            Source::Directory { root } => {
                if self.base.is_some() {
                    return Err(TaskError::BaseOnDirectory { repo: root.clone() });
                }
                let snapshot =
                    source.resolve_revision(self.rev.as_deref(), &SourceLimits::default())?;
                (snapshot.name, None)
            }
        };
        let rev = match source {
            Source::Git { .. } => Some(self.rev.unwrap_or_else(|| "HEAD".to_string())),
            Source::Directory { .. } => None,
        };
        Ok(Task {
            id: self.id,
            repo,
            rev,
            revision,
            base_rev: self.base,
            base_is_merge_base: base_revision.as_ref().is_some_and(|(_, merge)| *merge),
            base_revision: base_revision.map(|(commit, _)| commit),
            svn: None,
        })
    }

    /// A Subversion task: the URL's revisions as numbers, and the working
    /// copy's files as the snapshot the code context reads.
    fn resolve_svn(self, url: String) -> Result<Task, TaskError> {
        let rev = self.rev.unwrap_or_else(|| "HEAD".to_string());
        let revision = refscope_aicr::svn_revision(&url, &rev)?;
        let base = self
            .base
            .as_deref()
            .map(|base| refscope_aicr::svn_revision(&url, base))
            .transpose()?;
        let source = Source::open_directory(&self.repo)?;
        let snapshot = source.resolve_revision(None, &SourceLimits::default())?;
        Ok(Task {
            id: self.id,
            repo: source.root().to_path_buf(),
            rev: Some(rev),
            revision: snapshot.name,
            base_rev: self.base,
            base_revision: None,
            base_is_merge_base: false,
            svn: Some(refscope_engine::SvnReview {
                url: url.trim_end_matches('/').to_string(),
                revision,
                base,
            }),
        })
    }
}

/// A task's revisions, indexed in a store.
#[derive(Debug, Clone)]
pub struct TaskRevisions {
    /// The task.
    pub task: Task,
    /// The revision under review.
    pub revision: RevisionRow,
    /// The base revision, when the task has one.
    pub base: Option<RevisionRow>,
}

impl TaskRevisions {
    /// [`Self::open`] for a tool set: indexing work is logged, since a
    /// server has no progress bar.
    pub fn open_for_tools(store: &Store, task: &Task) -> Result<Self, TaskError> {
        Self::open(store, task, &mut |event| {
            tracing::info!(task = %task.id, ?event, "indexing the task's revisions on first use");
        })
    }

    /// The task's revisions in `store`, indexing those that are not indexed
    /// yet. `progress` hears about indexing work (phases, files).
    pub fn open(
        store: &Store,
        task: &Task,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Self, TaskError> {
        let revision = ensure_indexed(store, task, &task.revision, progress)?;
        let base = task
            .base_revision
            .as_deref()
            .map(|base| ensure_indexed(store, task, base, progress))
            .transpose()?;
        Ok(Self {
            task: task.clone(),
            revision,
            base,
        })
    }
}

fn ensure_indexed(
    store: &Store,
    task: &Task,
    name: &str,
    progress: &mut dyn FnMut(Progress),
) -> Result<RevisionRow, TaskError> {
    if let Some(row) = store.revision(name)? {
        return Ok(row);
    }
    let source = Source::open(&task.repo)?;
    let limits = SourceLimits::default();
    let revision = match &source {
        Source::Git { .. } => source.resolve_revision(Some(name), &limits)?,
        Source::Directory { .. } => source.resolve_revision(None, &limits)?,
    };
    if revision.name != name {
        return Err(TaskError::DirectoryChanged {
            id: task.id.clone(),
            repo: task.repo.clone(),
        });
    }
    Indexer::new(store, IndexConfig::default()).index(&source, &revision, progress)?;
    store.revision(name)?.ok_or_else(|| {
        TaskError::Engine(refscope_engine::Error::NotIndexed {
            store: store.dir().to_path_buf(),
            revision: name.to_string(),
        })
    })
}

/// How many tasks a tool set keeps open at once. An open task holds its
/// repository and what was read of its revisions (up to some 150 MiB of
/// decoded files each): a server reviewing many pull requests keeps the
/// most recently used ones warm and reopens the others on demand.
pub const MAX_OPEN_TASKS: usize = 4;

/// Tasks opened by a tool set, by id: at most [`MAX_OPEN_TASKS`], the
/// least recently used closed first.
#[derive(Debug)]
pub struct OpenTasks<T> {
    open: std::collections::HashMap<String, (T, u64)>,
    clock: u64,
}

impl<T> Default for OpenTasks<T> {
    fn default() -> Self {
        Self {
            open: std::collections::HashMap::new(),
            clock: 0,
        }
    }
}

impl<T> OpenTasks<T> {
    /// The open task `id` when `current` says it still fits (the task was
    /// not redefined since), else the one `open` makes, kept for next time.
    pub fn get_or_open<E>(
        &mut self,
        id: &str,
        current: impl FnOnce(&T) -> bool,
        open: impl FnOnce() -> Result<T, E>,
    ) -> Result<&T, E> {
        self.clock += 1;
        let fits = self.open.get(id).is_some_and(|(value, _)| current(value));
        if !fits {
            let value = open()?;
            self.open.remove(id);
            if self.open.len() >= MAX_OPEN_TASKS
                && let Some(oldest) = self
                    .open
                    .iter()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(key, _)| key.clone())
            {
                self.open.remove(&oldest);
            }
            self.open.insert(id.to_string(), (value, 0));
        }
        let entry = self
            .open
            .get_mut(id)
            .expect("the task was just found or inserted");
        entry.1 = self.clock;
        Ok(&entry.0)
    }

    /// How many tasks are open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// Whether no task is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod open_tasks_tests {
    use super::{MAX_OPEN_TASKS, OpenTasks};

    #[test]
    fn keeps_the_most_recently_used_tasks_and_reopens_redefined_ones() {
        let mut open: OpenTasks<(String, u32)> = OpenTasks::default();
        let opened = std::cell::Cell::new(0);
        let get = |open: &mut OpenTasks<(String, u32)>, id: &str, version: u32| {
            open.get_or_open(
                id,
                |value| value.1 == version,
                || {
                    opened.set(opened.get() + 1);
                    Ok::<_, ()>((id.to_string(), version))
                },
            )
            .unwrap()
            .clone()
        };
        for i in 0..MAX_OPEN_TASKS {
            get(&mut open, &format!("t{i}"), 1);
        }
        assert_eq!(get(&mut open, "t0", 1), ("t0".to_string(), 1));
        assert_eq!(open.len(), MAX_OPEN_TASKS);
        // A new task closes the least recently used one: t1, not t0.
        get(&mut open, "new", 1);
        assert_eq!(open.len(), MAX_OPEN_TASKS);
        let before = opened.get();
        get(&mut open, "t0", 1);
        assert_eq!(opened.get(), before, "t0 stayed open");
        get(&mut open, "t1", 1);
        assert_eq!(
            opened.get(),
            before + 1,
            "t1 was closed and is opened again"
        );
        // A redefined task is opened again, in place.
        assert_eq!(get(&mut open, "t1", 2), ("t1".to_string(), 2));
        assert_eq!(opened.get(), before + 2);
        assert_eq!(open.len(), MAX_OPEN_TASKS);
    }

    #[test]
    fn a_failed_open_keeps_what_was_open() {
        let mut open: OpenTasks<u32> = OpenTasks::default();
        open.get_or_open("a", |_| true, || Ok::<_, &str>(1))
            .unwrap();
        assert_eq!(
            open.get_or_open("a", |_| false, || Err("gone")),
            Err("gone")
        );
        assert_eq!(open.get_or_open("a", |_| true, || Err("unused")), Ok(&1));
    }
}
