//! Review tasks as rows: a named pairing of a repository, the revision
//! under review and, optionally, the base revision of its diff.
//!
//! Tasks live in `tasks.sqlite` beside the store's database. It is a file
//! of its own so that the store's schema and format version do not govern
//! it: removing it loses the task names and nothing else.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Error;

/// The file holding the tasks, inside the store directory.
pub const TASKS_FILE: &str = "tasks.sqlite";

/// A review task as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The task's name, unique within the store.
    pub id: String,
    /// The repository or directory, absolute.
    pub repo: PathBuf,
    /// The revision under review as given (`None`: a directory's files).
    pub rev: Option<String>,
    /// The revision under review, resolved: a commit id, or the
    /// `worktree:...` name of a directory snapshot.
    pub revision: String,
    /// The base revision of the diff as given, if any.
    pub base_rev: Option<String>,
    /// The commit the diff starts from: the merge base of the base as given
    /// and the revision under review, or the base itself when the two have
    /// no common ancestor ([`Self::base_is_merge_base`] says which).
    pub base_revision: Option<String>,
    /// Whether `base_revision` is the merge base (false: the histories
    /// share no commit, and the diff is of the base as given).
    pub base_is_merge_base: bool,
    /// For a review of a Subversion repository: what the review tools
    /// read. `repo` is then its working copy (or an export), indexed as a
    /// plain directory, and `revision` that directory's snapshot.
    pub svn: Option<SvnReview>,
}

/// The Subversion side of a review task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvnReview {
    /// The repository URL (a directory of it) the review reads.
    pub url: String,
    /// The revision under review.
    pub revision: u64,
    /// The base revision of the diff, if any.
    pub base: Option<u64>,
}

/// `base_kind` of a task whose base revision is the merge base.
const MERGE_BASE: &str = "merge_base";

/// The tasks table of one store directory.
pub struct TaskTable {
    db_path: PathBuf,
    db: Connection,
}

impl TaskTable {
    /// Opens (creating if needed) the tasks of the store in `dir`.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let db_path = dir.join(TASKS_FILE);
        let sqlite = |source| Error::Tasks {
            path: db_path.clone(),
            source,
        };
        let db = Connection::open(&db_path).map_err(sqlite)?;
        db.execute_batch(
            "PRAGMA busy_timeout = 10000;
             PRAGMA journal_mode = WAL;
             CREATE TABLE IF NOT EXISTS tasks (
                 id TEXT PRIMARY KEY,
                 repo TEXT NOT NULL,
                 rev TEXT,
                 revision TEXT NOT NULL,
                 base_rev TEXT,
                 base_revision TEXT,
                 added_at INTEGER NOT NULL
             );",
        )
        .map_err(sqlite)?;
        // Tasks added before bases were merge bases have no such column:
        // their bases stay as given.
        let has_kind = db
            .prepare("SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'base_kind'")
            .and_then(|mut s| s.exists([]))
            .map_err(sqlite)?;
        if !has_kind {
            db.execute_batch("ALTER TABLE tasks ADD COLUMN base_kind TEXT")
                .map_err(sqlite)?;
        }
        // Nor do tasks added before Subversion reviews: they are git's.
        let has_svn = db
            .prepare("SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'svn_url'")
            .and_then(|mut s| s.exists([]))
            .map_err(sqlite)?;
        if !has_svn {
            db.execute_batch(
                "ALTER TABLE tasks ADD COLUMN svn_url TEXT;
                 ALTER TABLE tasks ADD COLUMN svn_revision INTEGER;
                 ALTER TABLE tasks ADD COLUMN svn_base INTEGER;",
            )
            .map_err(sqlite)?;
        }
        Ok(Self { db_path, db })
    }

    fn error(&self, source: rusqlite::Error) -> Error {
        Error::Tasks {
            path: self.db_path.clone(),
            source,
        }
    }

    /// Adds a task, now; the caller has checked that its id is new.
    pub fn insert(&self, task: &Task) -> Result<(), Error> {
        let added_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        self.db
            .execute(
                "INSERT INTO tasks \
                 (id, repo, rev, revision, base_rev, base_revision, added_at, base_kind, \
                  svn_url, svn_revision, svn_base) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    task.id,
                    task.repo.to_string_lossy(),
                    task.rev,
                    task.revision,
                    task.base_rev,
                    task.base_revision,
                    added_at,
                    task.base_is_merge_base.then_some(MERGE_BASE),
                    task.svn.as_ref().map(|svn| svn.url.as_str()),
                    task.svn.as_ref().map(|svn| svn.revision as i64),
                    task.svn
                        .as_ref()
                        .and_then(|svn| svn.base)
                        .map(|base| base as i64),
                ],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }

    /// The task with this id, if any.
    pub fn find(&self, id: &str) -> Result<Option<Task>, Error> {
        self.db
            .prepare_cached(
                "SELECT id, repo, rev, revision, base_rev, base_revision, base_kind, svn_url, \
                 svn_revision, svn_base FROM tasks WHERE id = ?1",
            )
            .and_then(|mut select| select.query_row(params![id], task_row).optional())
            .map_err(|e| self.error(e))
    }

    /// Every task, by id.
    pub fn list(&self) -> Result<Vec<Task>, Error> {
        let mut statement = self
            .db
            .prepare_cached(
                "SELECT id, repo, rev, revision, base_rev, base_revision, base_kind, svn_url, \
                 svn_revision, svn_base FROM tasks ORDER BY id",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([], task_row)
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.error(e))
    }

    /// Deletes the task with this id (none is fine).
    pub fn delete(&self, id: &str) -> Result<(), Error> {
        self.db
            .execute("DELETE FROM tasks WHERE id = ?1", params![id])
            .map(drop)
            .map_err(|e| self.error(e))
    }
}

fn task_row(r: &rusqlite::Row) -> rusqlite::Result<Task> {
    Ok(Task {
        id: r.get(0)?,
        repo: PathBuf::from(r.get::<_, String>(1)?),
        rev: r.get(2)?,
        revision: r.get(3)?,
        base_rev: r.get(4)?,
        base_revision: r.get(5)?,
        base_is_merge_base: r.get::<_, Option<String>>(6)?.as_deref() == Some(MERGE_BASE),
        svn: match (r.get::<_, Option<String>>(7)?, r.get::<_, Option<i64>>(8)?) {
            (Some(url), Some(revision)) => Some(SvnReview {
                url,
                revision: revision as u64,
                base: r.get::<_, Option<i64>>(9)?.map(|base| base as u64),
            }),
            _ => None,
        },
    })
}
