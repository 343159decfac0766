//! The task's repository as the review tools see it: one revision under
//! review, read in-process with libgit2 for git or through the `svn`
//! client for Subversion (`svn.rs`), and paths that must stay inside it.
//!
//! A requested path is checked before anything is read: it must be
//! relative, `/`-separated and free of `..`; symbolic links in the tree are
//! followed only while they stay inside the repository.

use std::path::{Path, PathBuf};

use super::diff::DiffLines;
use super::svn::SvnRepository;

/// Where a review's files and history are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repository {
    /// A git repository: its work tree or its `.git` directory.
    Git(PathBuf),
    /// A Subversion repository (or a directory of one), by URL: `file://`,
    /// `svn://`, `http(s)://`. Paths are read below it and nowhere else.
    Svn(String),
}

impl std::fmt::Display for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Git(path) => write!(f, "{}", path.display()),
            Self::Svn(url) => f.write_str(url),
        }
    }
}

/// What a review is bound to: a repository, the revision under review and,
/// optionally, the base revision of its diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewTarget {
    /// The repository.
    pub repository: Repository,
    /// The revision under review: any git revision expression, or a
    /// Subversion revision number (or `HEAD`).
    pub revision: String,
    /// The base revision of the diff under review, if any: for git, the
    /// diff starts at its merge base with `revision`; for Subversion, at
    /// the base itself.
    pub base_revision: Option<String>,
}

/// The repository or a revision of a [`ReviewTarget`] cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum ReviewTargetError {
    /// No git repository there.
    #[error("{path} is not a git repository ({message}); name the repository of the review task")]
    NotARepository { path: PathBuf, message: String },
    /// The revision does not name a commit (or a Subversion revision).
    #[error("revision `{revision}` is not {what} of {repository}; name an existing one")]
    RevisionNotFound {
        repository: String,
        revision: String,
        /// `a commit` or `a revision`.
        what: &'static str,
    },
    /// Reading the diff failed.
    #[error("cannot compute the diff {base}..{revision} in {repository}: {message}")]
    Diff {
        repository: String,
        base: String,
        revision: String,
        message: String,
    },
    /// The Subversion repository does not answer, or the client failed.
    #[error("cannot read the Subversion repository {url}: {message}")]
    Svn { url: String, message: String },
}

/// A review's repository: the revision under review, its files, and the
/// lines of its diff when there is a base.
pub(crate) struct ReviewRepository {
    backend: Backend,
    /// The revision under review as answers show it: a commit id, or
    /// `r12`.
    pub revision: String,
    /// Where the diff starts, shown the same way: for git, the merge base
    /// of the base as given and the revision.
    pub base_revision: Option<String>,
    /// The diff base..revision, when there is a base.
    pub diff: Option<DiffLines>,
}

enum Backend {
    Git(GitRepository),
    Svn(SvnRepository),
}

/// The git side of a review.
pub(crate) struct GitRepository {
    pub repo: git2::Repository,
    pub revision: git2::Oid,
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
    /// The repository could not be read (Subversion: the server or the
    /// client failed).
    Unreadable(String),
}

/// A file found at the revision.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedFile {
    /// Its path after following symbolic links.
    pub path: String,
    /// Its content.
    pub content: Content,
}

/// Where a resolved file's bytes are.
#[derive(Debug, Clone)]
pub(crate) enum Content {
    /// A git blob, read when asked for.
    Blob(git2::Oid),
    /// Bytes read already (Subversion reads a file to resolve it).
    Bytes(Vec<u8>),
}

/// The longest chain of symbolic links followed for one path.
pub(crate) const MAX_SYMLINK_HOPS: usize = 32;

/// The file mode git records for a symbolic link.
const SYMLINK_FILEMODE: i32 = 0o120000;

impl ReviewRepository {
    /// Opens the repository and resolves the revisions of `target`.
    pub fn open(target: &ReviewTarget) -> Result<Self, ReviewTargetError> {
        match &target.repository {
            Repository::Git(path) => Self::open_git(path, target),
            Repository::Svn(url) => {
                let svn = SvnRepository::open(url, &target.revision)?;
                let base = target
                    .base_revision
                    .as_deref()
                    .map(|base| svn.revision_number(base))
                    .transpose()?;
                let diff = base.map(|base| svn.diff_from(base)).transpose()?;
                Ok(Self {
                    revision: format!("r{}", svn.revision),
                    base_revision: base.map(|base| format!("r{base}")),
                    diff,
                    backend: Backend::Svn(svn),
                })
            }
        }
    }

    fn open_git(path: &Path, target: &ReviewTarget) -> Result<Self, ReviewTargetError> {
        let repo =
            git2::Repository::open(path).map_err(|error| ReviewTargetError::NotARepository {
                path: path.to_path_buf(),
                message: error.message().to_string(),
            })?;
        let commit_of = |revision: &str| {
            repo.revparse_single(revision)
                .and_then(|object| object.peel_to_commit())
                .map(|commit| commit.id())
                .map_err(|_| ReviewTargetError::RevisionNotFound {
                    repository: path.display().to_string(),
                    revision: revision.to_string(),
                    what: "a commit",
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
                    repository: path.display().to_string(),
                    base: base.to_string(),
                    revision: revision.to_string(),
                    message: error.message().to_string(),
                })
            })
            .transpose()?;
        Ok(Self {
            revision: revision.to_string(),
            base_revision: base_revision.map(|base| base.to_string()),
            diff,
            backend: Backend::Git(GitRepository { repo, revision }),
        })
    }

    /// The revision, abbreviated for messages.
    pub fn short_revision(&self) -> String {
        match &self.backend {
            Backend::Git(git) => git.revision.to_string()[..10].to_string(),
            Backend::Svn(_) => self.revision.clone(),
        }
    }

    /// Finds `requested` at the revision, following symbolic links inside
    /// the repository.
    pub fn resolve_file(&self, requested: &str) -> Result<ResolvedFile, PathProblem> {
        let components = checked_components(requested)?;
        match &self.backend {
            Backend::Git(git) => git.resolve_file(components),
            Backend::Svn(svn) => svn.resolve_file(components),
        }
    }

    /// The bytes of a resolved file.
    pub fn bytes(&self, file: &ResolvedFile) -> Result<Vec<u8>, String> {
        match (&file.content, &self.backend) {
            (Content::Bytes(bytes), _) => Ok(bytes.clone()),
            (Content::Blob(blob), Backend::Git(git)) => git
                .repo
                .find_blob(*blob)
                .map(|blob| blob.content().to_vec())
                .map_err(|error| error.message().to_string()),
            (Content::Blob(_), Backend::Svn(_)) => {
                unreachable!("Subversion files are read when resolved")
            }
        }
    }

    /// Blames `requested` (whole, or the range) at the revision; see
    /// `blame.rs`.
    pub fn blame(
        &self,
        requested: &str,
        range: Option<crate::arguments::LineRange>,
    ) -> Result<crate::blame::BlameAnswer, PathProblem> {
        crate::blame::blame(self, requested, range)
    }

    /// The backend, for the blame of each kind.
    pub(crate) fn git(&self) -> Option<&GitRepository> {
        match &self.backend {
            Backend::Git(git) => Some(git),
            Backend::Svn(_) => None,
        }
    }

    /// The Subversion backend, if it is one.
    pub(crate) fn svn(&self) -> Option<&SvnRepository> {
        match &self.backend {
            Backend::Svn(svn) => Some(svn),
            Backend::Git(_) => None,
        }
    }
}

impl GitRepository {
    /// Finds the file at `components`, following symbolic links inside the
    /// repository.
    fn resolve_file(&self, mut components: Vec<String>) -> Result<ResolvedFile, PathProblem> {
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
                        components = linked_components(&components, index, &target)?;
                        continue 'from_root;
                    }
                    Some(git2::ObjectType::Blob) if is_last => {
                        return Ok(ResolvedFile {
                            path: components.join("/"),
                            content: Content::Blob(id),
                        });
                    }
                    // A file used as a directory, or a submodule.
                    _ => return Err(PathProblem::Missing),
                }
            }
            return Err(PathProblem::Directory);
        }
    }
}

/// The components that `components` stands for once the symbolic link at
/// `index`, pointing at `target`, is followed; an error when it leads out
/// of the repository.
pub(crate) fn linked_components(
    components: &[String],
    index: usize,
    target: &str,
) -> Result<Vec<String>, PathProblem> {
    let linked = components[..index].join("/");
    Ok(follow_symlink(&components[..index], target)
        .ok_or_else(|| {
            PathProblem::SymlinkLeadsOut(format!(
                "{}{}{} -> {target}",
                linked,
                if linked.is_empty() { "" } else { "/" },
                components[index]
            ))
        })?
        .into_iter()
        .chain(components[index + 1..].iter().cloned())
        .collect())
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
            Self::Unreadable(message) => {
                return format!("cannot read `{requested}` at revision {revision}: {message}");
            }
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
pub(crate) fn checked_components(requested: &str) -> Result<Vec<String>, PathProblem> {
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
