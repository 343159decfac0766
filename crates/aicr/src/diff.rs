//! Which lines of the revision a finding may point at when the task has a
//! base: the *commentable* lines of the diff base..revision.
//!
//! A line is commentable when it lies in a hunk's new-side range: an added
//! line, or one of the unchanged context lines (three on either side, as
//! `git diff` shows them) around the changes. That is what a code host lets
//! a reviewer comment on in a pull request's diff. Lines of deleted files
//! and removed lines have no new-side number and are never commentable; a
//! renamed file is known by its new path.

use std::collections::BTreeMap;

/// The new-side hunks of every file the diff changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct DiffLines {
    /// New path → its hunks' new-side line ranges, in order. A file in the
    /// map with no hunks changed only its mode, or is binary or deleted.
    files: BTreeMap<String, Vec<NewSideHunk>>,
}

/// The new-side lines of one hunk, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NewSideHunk {
    pub first_line: u32,
    pub last_line: u32,
}

/// How many context lines a hunk carries on each side of its changes.
const CONTEXT_LINES: u32 = 3;

impl DiffLines {
    /// The diff of the trees of two commits, renames detected.
    pub fn between(
        repo: &git2::Repository,
        base: git2::Oid,
        revision: git2::Oid,
    ) -> Result<Self, git2::Error> {
        let base_tree = repo.find_commit(base)?.tree()?;
        let revision_tree = repo.find_commit(revision)?.tree()?;
        let mut options = git2::DiffOptions::new();
        options.context_lines(CONTEXT_LINES);
        let mut diff =
            repo.diff_tree_to_tree(Some(&base_tree), Some(&revision_tree), Some(&mut options))?;
        let mut find = git2::DiffFindOptions::new();
        find.renames(true);
        diff.find_similar(Some(&mut find))?;
        let mut lines = Self::default();
        let new_path = |delta: &git2::DiffDelta<'_>| {
            (delta.status() != git2::Delta::Deleted)
                .then(|| delta.new_file().path())
                .flatten()
                .map(|path| path.to_string_lossy().replace('\\', "/"))
        };
        for delta in diff.deltas() {
            if let Some(path) = new_path(&delta) {
                lines.files.entry(path).or_default();
            }
        }
        diff.foreach(
            &mut |_delta, _progress| true,
            None,
            Some(&mut |delta, hunk| {
                if let Some(path) = new_path(&delta)
                    && hunk.new_lines() > 0
                {
                    lines.files.entry(path).or_default().push(NewSideHunk {
                        first_line: hunk.new_start(),
                        last_line: hunk.new_start() + hunk.new_lines() - 1,
                    });
                }
                true
            }),
            None,
        )?;
        Ok(lines)
    }

    /// The hunks of `path`, or `None` when the diff does not change it.
    pub fn hunks(&self, path: &str) -> Option<&[NewSideHunk]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// The hunk holding `line` of `path`.
    pub fn hunk_of(&self, path: &str, line: u32) -> Option<NewSideHunk> {
        self.hunks(path)?
            .iter()
            .copied()
            .find(|hunk| hunk.first_line <= line && line <= hunk.last_line)
    }

    /// The paths the diff changes (new paths), sorted.
    pub fn changed_paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl std::fmt::Display for NewSideHunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first_line, self.last_line)
    }
}
