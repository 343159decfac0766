//! A real git repository for tests, written with libgit2 commit by commit.

use std::path::{Path, PathBuf};

/// One change of a commit.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// Writes a file (creating its directories).
    Write(&'a str, &'a [u8]),
    /// Deletes a file.
    Delete(&'a str),
    /// Makes a symbolic link at the first path pointing at the second.
    Symlink(&'a str, &'a str),
}

impl<'a> Change<'a> {
    /// Writes `text` at `path`.
    pub fn write(path: &'a str, text: &'a str) -> Self {
        Self::Write(path, text.as_bytes())
    }
}

/// Who commits, and when.
#[derive(Debug, Clone, Copy)]
pub struct Author<'a> {
    /// The name.
    pub name: &'a str,
    /// The e-mail address.
    pub email: &'a str,
    /// Seconds since the epoch and the UTC offset in minutes; `None` for
    /// now.
    pub time: Option<(i64, i32)>,
}

impl Default for Author<'_> {
    /// `Test <test@example.com>`, now.
    fn default() -> Self {
        Self {
            name: "Test",
            email: "test@example.com",
            time: None,
        }
    }
}

/// Applies `changes` to the work tree and the index of `repo` and commits
/// them on HEAD as the default test author; the new commit's id.
pub fn commit(repo: &git2::Repository, changes: &[Change<'_>], message: &str) -> String {
    commit_as(repo, &Author::default(), changes, message)
}

/// [`commit`] as `author`.
pub fn commit_as(
    repo: &git2::Repository,
    author: &Author<'_>,
    changes: &[Change<'_>],
    message: &str,
) -> String {
    let root = repo
        .workdir()
        .expect("a repository with a work tree")
        .to_path_buf();
    let mut index = repo.index().unwrap();
    for change in changes {
        match *change {
            Change::Write(path, bytes) => {
                let on_disk = root.join(path);
                std::fs::create_dir_all(on_disk.parent().unwrap()).unwrap();
                std::fs::write(&on_disk, bytes).unwrap();
                index.add_path(Path::new(path)).unwrap();
            }
            Change::Delete(path) => {
                std::fs::remove_file(root.join(path)).unwrap();
                index.remove_path(Path::new(path)).unwrap();
            }
            Change::Symlink(path, target) => {
                let on_disk = root.join(path);
                std::fs::create_dir_all(on_disk.parent().unwrap()).unwrap();
                std::os::unix::fs::symlink(target, &on_disk).unwrap();
                index.add_path(Path::new(path)).unwrap();
            }
        }
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let signature = match author.time {
        Some((seconds, offset)) => {
            git2::Signature::new(author.name, author.email, &git2::Time::new(seconds, offset))
        }
        None => git2::Signature::now(author.name, author.email),
    }
    .unwrap();
    let parent = repo.head().ok().and_then(|head| head.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parents,
    )
    .unwrap()
    .to_string()
}

/// A git repository in a temporary directory, removed on drop.
pub struct TestRepo {
    /// The work tree.
    pub dir: tempfile::TempDir,
    /// The repository.
    pub repo: git2::Repository,
}

impl TestRepo {
    /// An empty repository.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        Self { dir, repo }
    }

    /// The work tree.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The work tree as an owned path.
    pub fn path_buf(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Writes `files` (path, text) and commits them; the commit id.
    pub fn commit(&self, files: &[(&str, &str)], message: &str) -> String {
        let changes: Vec<Change<'_>> = files
            .iter()
            .map(|&(path, text)| Change::write(path, text))
            .collect();
        commit(&self.repo, &changes, message)
    }

    /// Applies `changes` and commits them; the commit id.
    pub fn commit_changes(&self, changes: &[Change<'_>], message: &str) -> String {
        commit(&self.repo, changes, message)
    }
}

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_follow_each_other_with_writes_deletes_and_links() {
        let repo = TestRepo::new();
        let first = repo.commit(
            &[("a/A.java", "class A {}"), ("B.java", "class B {}")],
            "one",
        );
        let second = repo.commit_changes(
            &[
                Change::Delete("B.java"),
                Change::Symlink("a/link", "A.java"),
            ],
            "two",
        );
        let head = repo.repo.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.id().to_string(), second);
        assert_eq!(head.parent(0).unwrap().id().to_string(), first);
        let tree = head.tree().unwrap();
        assert!(tree.get_path(Path::new("B.java")).is_err());
        assert!(tree.get_path(Path::new("a/A.java")).is_ok());
        assert_eq!(
            tree.get_path(Path::new("a/link")).unwrap().filemode(),
            0o120000
        );
    }
}
