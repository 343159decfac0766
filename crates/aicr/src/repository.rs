//! The task's repository as the review tools see it: one revision under
//! review, read in-process with libgit2 for git or through the `svn`
//! client for Subversion (`svn.rs`), each requested path checked first
//! (`read.rs`).

use std::path::Path;

use super::diff::DiffLines;
use super::read::{
    Content, MAX_SYMLINK_HOPS, PathProblem, ResolvedFile, checked_components, linked_components,
};
use super::svn::SvnRepository;
use super::target::{Repository, ReviewTarget, ReviewTargetError};

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
