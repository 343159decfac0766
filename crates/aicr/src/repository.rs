//! The task's repository as the review tools see it: one commit under
//! review, read in-process with libgit2, and paths that must stay inside it.
//!
//! A requested path is checked before anything is read: it must be
//! relative, `/`-separated and free of `..`; symbolic links in the tree are
//! followed only while they stay inside the repository.

use std::path::{Path, PathBuf};

use super::diff::DiffLines;

/// What a review is bound to: a repository, the revision under review and,
/// optionally, the base revision of its diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewTarget {
    /// The repository (its work tree or its `.git` directory).
    pub repository: PathBuf,
    /// The revision under review: any git revision expression.
    pub revision: String,
    /// The base revision of the diff under review, if any: the diff
    /// starts at its merge base with `revision`.
    pub base_revision: Option<String>,
}

/// The repository or a revision of a [`ReviewTarget`] cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum ReviewTargetError {
    /// No git repository there.
    #[error("{path} is not a git repository ({message}); name the repository of the review task")]
    NotARepository { path: PathBuf, message: String },
    /// The revision does not name a commit.
    #[error("revision `{revision}` is not a commit of {repository}; name an existing commit")]
    RevisionNotFound {
        repository: PathBuf,
        revision: String,
    },
    /// libgit2 failed while reading the diff.
    #[error("cannot compute the diff {base}..{revision} in {repository}: {message}")]
    Diff {
        repository: PathBuf,
        base: String,
        revision: String,
        message: String,
    },
}

/// The git side of a review: the repository, the commit under review, and
/// the lines of its diff when there is a base.
pub(crate) struct ReviewRepository {
    pub repo: git2::Repository,
    pub revision: git2::Oid,
    /// The merge base of the base as given and the revision.
    pub base_revision: Option<git2::Oid>,
    /// The diff merge-base..revision, when there is a base.
    pub diff: Option<DiffLines>,
}

/// Why a requested path cannot be read. Each says to stop retrying the
/// path, since asking again cannot change the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathProblem {
    /// Not a relative `/`-separated path inside the repository.
    Malformed(&'static str),
    /// A symbolic link on the way leads out of the repository.
    SymlinkLeadsOut(String),
    /// Symbolic links refer to each other without end.
    SymlinkLoop,
    /// Nothing at this path at the revision.
    Missing,
    /// A directory, not a file.
    Directory,
}

/// A file found at the revision.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedFile {
    /// Its path after following symbolic links.
    pub path: String,
    /// Its blob.
    pub blob: git2::Oid,
}

/// The longest chain of symbolic links followed for one path.
const MAX_SYMLINK_HOPS: usize = 32;

/// The file mode git records for a symbolic link.
const SYMLINK_FILEMODE: i32 = 0o120000;

impl ReviewRepository {
    /// Opens the repository and resolves the revisions of `target`.
    pub fn open(target: &ReviewTarget) -> Result<Self, ReviewTargetError> {
        let repo = git2::Repository::open(&target.repository).map_err(|error| {
            ReviewTargetError::NotARepository {
                path: target.repository.clone(),
                message: error.message().to_string(),
            }
        })?;
        let commit_of = |revision: &str| {
            repo.revparse_single(revision)
                .and_then(|object| object.peel_to_commit())
                .map(|commit| commit.id())
                .map_err(|_| ReviewTargetError::RevisionNotFound {
                    repository: target.repository.clone(),
                    revision: revision.to_string(),
                })
        };
        let revision = commit_of(&target.revision)?;
        // The diff starts at the merge base, as a forge's does: what the
        // base gained after the branch left it is not the branch's change.
        // Histories with no common commit diff from the base as given, as
        // their task says.
        let base_revision = match target.base_revision.as_deref() {
            None => None,
            Some(base) => {
                let base_commit = commit_of(base)?;
                Some(
                    repo.merge_base(base_commit, revision)
                        .unwrap_or(base_commit),
                )
            }
        };
        let diff = base_revision
            .map(|base| {
                DiffLines::between(&repo, base, revision).map_err(|error| ReviewTargetError::Diff {
                    repository: target.repository.clone(),
                    base: base.to_string(),
                    revision: revision.to_string(),
                    message: error.message().to_string(),
                })
            })
            .transpose()?;
        Ok(Self {
            repo,
            revision,
            base_revision,
            diff,
        })
    }

    /// The revision's commit id, abbreviated for messages.
    pub fn short_revision(&self) -> String {
        self.revision.to_string()[..10].to_string()
    }

    /// Finds `requested` at the revision, following symbolic links inside
    /// the repository.
    pub fn resolve_file(&self, requested: &str) -> Result<ResolvedFile, PathProblem> {
        let mut components = checked_components(requested)?;
        let root = self
            .repo
            .find_commit(self.revision)
            .and_then(|commit| commit.tree())
            .map_err(|_| PathProblem::Missing)?;
        let mut hops = 0;
        'from_root: loop {
            let mut tree = root.clone();
            for (index, component) in components.iter().enumerate() {
                let (kind, filemode, id) = {
                    let entry = tree.get_name(component).ok_or(PathProblem::Missing)?;
                    (entry.kind(), entry.filemode(), entry.id())
                };
                let is_last = index + 1 == components.len();
                match kind {
                    Some(git2::ObjectType::Tree) if is_last => return Err(PathProblem::Directory),
                    Some(git2::ObjectType::Tree) => {
                        tree = self.repo.find_tree(id).map_err(|_| PathProblem::Missing)?;
                    }
                    Some(git2::ObjectType::Blob) if filemode == SYMLINK_FILEMODE => {
                        hops += 1;
                        if hops > MAX_SYMLINK_HOPS {
                            return Err(PathProblem::SymlinkLoop);
                        }
                        let link = self.repo.find_blob(id).map_err(|_| PathProblem::Missing)?;
                        let target = String::from_utf8_lossy(link.content()).into_owned();
                        let linked = components[..index].join("/");
                        components = follow_symlink(&components[..index], &target)
                            .ok_or_else(|| {
                                PathProblem::SymlinkLeadsOut(format!(
                                    "{}{}{component} -> {target}",
                                    linked,
                                    if linked.is_empty() { "" } else { "/" }
                                ))
                            })?
                            .into_iter()
                            .chain(components[index + 1..].iter().cloned())
                            .collect();
                        continue 'from_root;
                    }
                    Some(git2::ObjectType::Blob) if is_last => {
                        return Ok(ResolvedFile {
                            path: components.join("/"),
                            blob: id,
                        });
                    }
                    // A file used as a directory, or a submodule.
                    _ => return Err(PathProblem::Missing),
                }
            }
            return Err(PathProblem::Directory);
        }
    }

    /// The bytes of a blob.
    pub fn blob_bytes(&self, blob: git2::Oid) -> Result<Vec<u8>, git2::Error> {
        Ok(self.repo.find_blob(blob)?.content().to_vec())
    }
}

impl PathProblem {
    /// The message for the caller: what is wrong with `requested`, and that
    /// retrying it is pointless.
    pub fn message(&self, requested: &str, revision: &str) -> String {
        let what = match self {
            Self::Malformed(rule) => format!("path `{requested}` {rule}"),
            Self::SymlinkLeadsOut(link) => format!(
                "path `{requested}` leads out of the repository through the symbolic link {link}"
            ),
            Self::SymlinkLoop => {
                format!("path `{requested}` runs into a loop of symbolic links")
            }
            Self::Missing => {
                format!("path `{requested}` does not exist at revision {revision}")
            }
            Self::Directory => format!("path `{requested}` is a directory at revision {revision}"),
        };
        format!("{what}; stop retrying this path and name a file of the repository at the revision")
    }
}

/// The longest requested path looked at (as Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// `requested` as a plain repository path (`./` and doubled `/` dropped),
/// or why it is not a relative path inside the repository.
pub(crate) fn normalized_path(requested: &str) -> Result<String, PathProblem> {
    checked_components(requested).map(|components| components.join("/"))
}

/// The components of a requested path, or why it is not a relative
/// repository path. `.` and empty components are dropped.
fn checked_components(requested: &str) -> Result<Vec<String>, PathProblem> {
    let bytes = requested.as_bytes();
    if bytes.len() > MAX_PATH_BYTES {
        return Err(PathProblem::Malformed(
            "is longer than 4 KiB; no file of a repository has such a path",
        ));
    }
    if requested.starts_with('/') {
        return Err(PathProblem::Malformed(
            "is absolute; give it relative to the repository root",
        ));
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(PathProblem::Malformed(
            "is an absolute Windows path; give it relative to the repository root",
        ));
    }
    if requested.contains('\\') {
        return Err(PathProblem::Malformed(
            "contains '\\'; separate directories with '/'",
        ));
    }
    if requested.contains('\0') {
        return Err(PathProblem::Malformed("contains a NUL character"));
    }
    let components: Vec<String> = requested
        .split('/')
        .filter(|component| !component.is_empty() && *component != ".")
        .map(str::to_string)
        .collect();
    if components.iter().any(|component| component == "..") {
        return Err(PathProblem::Malformed(
            "contains '..'; paths must stay inside the repository",
        ));
    }
    if components.is_empty() {
        return Err(PathProblem::Malformed("names no file"));
    }
    Ok(components)
}

/// The components a symbolic link in directory `parent` pointing at `target`
/// stands for, or `None` when it leads out of the repository.
fn follow_symlink(parent: &[String], target: &str) -> Option<Vec<String>> {
    if target.starts_with('/') || Path::new(target).is_absolute() {
        return None;
    }
    let mut components = parent.to_vec();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                components.pop()?;
            }
            part => components.push(part.to_string()),
        }
    }
    Some(components)
}

/// Whether bytes look binary the way git decides it: a NUL in the first
/// 8000 bytes.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|byte| *byte == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_paths_are_checked_before_the_tree_is_read() {
        let table: &[(&str, Result<&[&str], &str>)] = &[
            ("src/A.java", Ok(&["src", "A.java"])),
            ("./src//A.java", Ok(&["src", "A.java"])),
            ("/etc/passwd", Err("absolute")),
            ("C:/x/A.java", Err("absolute Windows")),
            ("src\\A.java", Err("'\\'")),
            ("src/../../A.java", Err("'..'")),
            ("..", Err("'..'")),
            ("", Err("names no file")),
            ("./", Err("names no file")),
            ("src/A\0.java", Err("NUL")),
        ];
        let too_long = format!("src/{}.java", "a".repeat(4100));
        assert!(matches!(
            checked_components(&too_long),
            Err(PathProblem::Malformed(rule)) if rule.contains("4 KiB")
        ));
        for (requested, expected) in table {
            let actual = checked_components(requested);
            match (expected, &actual) {
                (Ok(components), Ok(actual)) => assert_eq!(actual, components, "{requested}"),
                (Err(rule), Err(PathProblem::Malformed(actual))) => {
                    assert!(actual.contains(rule), "{requested}: {actual}")
                }
                _ => panic!("{requested}: expected {expected:?}, got {actual:?}"),
            }
        }
    }

    #[test]
    fn symlinks_resolve_inside_the_repository_only() {
        let parent = vec!["src".to_string(), "main".to_string()];
        assert_eq!(
            follow_symlink(&parent, "../shared/B.java"),
            Some(vec!["src".into(), "shared".into(), "B.java".into()])
        );
        assert_eq!(follow_symlink(&parent, "../../../outside"), None);
        assert_eq!(follow_symlink(&parent, "/etc/passwd"), None);
    }
}
