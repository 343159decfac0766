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

    /// The diff of a unified diff text as `svn diff` writes it: each file
    /// after an `Index: PATH` line, its hunks' new sides from their
    /// `@@ -a,b +c,d @@` headers. A file whose new side is
    /// `(nonexistent)` was deleted and is left out; one with no hunks
    /// (binary, or properties only) is listed without lines.
    pub fn from_unified(text: &str) -> Self {
        let mut lines = Self::default();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(path) = line.strip_prefix("Index: ") {
                let path = path.trim().to_string();
                lines.files.entry(path.clone()).or_default();
                current = Some(path);
            } else if let Some(new_side) = line.strip_prefix("+++ ") {
                if new_side.trim_end().ends_with("(nonexistent)")
                    && let Some(path) = current.take()
                {
                    lines.files.remove(&path);
                }
            } else if let (Some(path), Some(header)) = (&current, line.strip_prefix("@@ "))
                && let Some(hunk) = new_side_of(header)
            {
                lines.files.entry(path.clone()).or_default().push(hunk);
            }
        }
        lines
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

/// The new side of a hunk header's rest (`-a,b +c,d @@`), when it has
/// lines.
fn new_side_of(header: &str) -> Option<NewSideHunk> {
    let new_side = header
        .split_whitespace()
        .find(|part| part.starts_with('+'))?;
    let mut numbers = new_side[1..].splitn(2, ',');
    let start: u32 = numbers.next()?.parse().ok()?;
    let count: u32 = match numbers.next() {
        Some(count) => count.parse().ok()?,
        None => 1,
    };
    (count > 0).then(|| NewSideHunk {
        first_line: start,
        last_line: start + count - 1,
    })
}

impl std::fmt::Display for NewSideHunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first_line, self.last_line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_svn_diff_reads_as_new_side_hunks() {
        let text = "Index: src/A.java
===================================================================
--- src/A.java\t(revision 1)
+++ src/A.java\t(revision 2)
@@ -1,5 +1,6 @@
 class A {
+  int b;
@@ -20 +21,0 @@
-  gone
Index: src/Gone.java
===================================================================
--- src/Gone.java\t(revision 1)
+++ src/Gone.java\t(nonexistent)
@@ -1,2 +0,0 @@
-class Gone {
-}
Index: src/New.java
===================================================================
--- src/New.java\t(nonexistent)
+++ src/New.java\t(revision 2)
@@ -0,0 +1 @@
+class New {}
Index: logo.png
===================================================================
Cannot display: file marked as a binary type.
svn:mime-type = application/octet-stream
";
        let lines = DiffLines::from_unified(text);
        assert_eq!(
            lines.changed_paths().collect::<Vec<_>>(),
            ["logo.png", "src/A.java", "src/New.java"]
        );
        assert_eq!(
            lines.hunks("src/A.java").unwrap(),
            [NewSideHunk {
                first_line: 1,
                last_line: 6
            }]
        );
        assert_eq!(
            lines.hunk_of("src/New.java", 1).map(|h| h.last_line),
            Some(1)
        );
        assert_eq!(lines.hunks("logo.png"), Some(&[][..]));
        assert_eq!(lines.hunks("src/Gone.java"), None);
    }
}
