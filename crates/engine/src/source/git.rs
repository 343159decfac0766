//! A git commit's Java files, read in-process with libgit2.

use super::revision::{
    Changes, Files, Revision, RevisionKind, SourceFile, SourceLimits, is_java_path,
};
use crate::error::Error;
use refscope_store::BlobId;
use std::path::Path;

/// The blob id of a git object id.
pub(super) fn blob_id_of(oid: git2::Oid) -> BlobId {
    let mut id = [0u8; 20];
    id.copy_from_slice(oid.as_bytes());
    BlobId(id)
}

/// The commit `rev` names (HEAD by default), and the branch when it was
/// resolved from HEAD.
pub(super) fn git_revision(
    repo: &git2::Repository,
    root: &Path,
    rev: Option<&str>,
) -> Result<Revision, Error> {
    let not_found = |revision: &str| Error::RevisionNotFound {
        repo: root.to_path_buf(),
        revision: revision.to_string(),
    };
    let (commit, branch) = match rev {
        Some(rev) => {
            let commit = repo
                .revparse_single(rev)
                .and_then(|o| o.peel_to_commit())
                .map_err(|_| not_found(rev))?;
            (commit, None)
        }
        None => {
            let head = repo.head().map_err(|e| match e.code() {
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound => Error::NoCommits {
                    repo: root.to_path_buf(),
                },
                _ => not_found("HEAD"),
            })?;
            let branch = head
                .shorthand()
                .ok()
                .filter(|_| head.is_branch())
                .map(str::to_string);
            (
                head.peel_to_commit().map_err(|_| not_found("HEAD"))?,
                branch,
            )
        }
    };
    Ok(Revision {
        name: commit.id().to_string(),
        kind: RevisionKind::Commit,
        branch,
        files: Files::Commit,
        prefetched: None,
    })
}

fn git_error(root: &Path) -> impl Fn(git2::Error) -> Error + '_ {
    move |e: git2::Error| Error::Git {
        repo: root.to_path_buf(),
        message: e.message().to_string(),
    }
}

fn commit_tree<'r>(
    repo: &'r git2::Repository,
    root: &Path,
    commit: &str,
) -> Result<git2::Tree<'r>, Error> {
    let oid = git2::Oid::from_str(commit).map_err(|_| Error::RevisionNotFound {
        repo: root.to_path_buf(),
        revision: commit.to_string(),
    })?;
    repo.find_commit(oid)
        .and_then(|c| c.tree())
        .map_err(git_error(root))
}

/// What a blob at `path` (mode `mode`, id `oid`) is to the index: a file,
/// or a reason to leave it out.
fn classify(
    odb: &git2::Odb,
    path: String,
    oid: git2::Oid,
    mode: u32,
    limits: &SourceLimits,
) -> Result<SourceFile, (String, String)> {
    // A symlink's blob holds its target, not Java source.
    if mode == 0o120000 {
        return Err((path, "symbolic link".to_string()));
    }
    let size = odb.read_header(oid).map(|(len, _)| len as u64).unwrap_or(0);
    if size > limits.max_file_bytes {
        return Err((path, format!("larger than {} bytes", limits.max_file_bytes)));
    }
    Ok(SourceFile {
        path,
        blob_id: blob_id_of(oid),
        size,
    })
}

/// Every Java file of commit `commit`, sorted by path, and the files left
/// out.
pub(super) fn commit_files(
    repo: &git2::Repository,
    root: &Path,
    commit: &str,
    limits: &SourceLimits,
) -> Result<Files, Error> {
    let tree = commit_tree(repo, root, commit)?;
    let odb = repo.odb().map_err(git_error(root))?;
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    // Walked by hand rather than with `Tree::walk`, whose callback cannot
    // take a directory name that is not UTF-8 and then aborts the walk.
    let mut pending: Vec<(git2::Tree, String)> = vec![(tree, String::new())];
    while let Some((tree, prefix)) = pending.pop() {
        for entry in tree.iter() {
            let Ok(name) = std::str::from_utf8(entry.name_bytes()) else {
                let lossy = String::from_utf8_lossy(entry.name_bytes()).into_owned();
                skipped.push((format!("{prefix}{lossy}"), "name is not UTF-8".to_string()));
                continue;
            };
            let path = format!("{prefix}{name}");
            match entry.kind() {
                Some(git2::ObjectType::Tree) => {
                    let subtree = repo.find_tree(entry.id()).map_err(git_error(root))?;
                    pending.push((subtree, format!("{path}/")));
                }
                Some(git2::ObjectType::Blob) if is_java_path(name) => {
                    match classify(&odb, path, entry.id(), entry.filemode() as u32, limits) {
                        Ok(file) => files.push(file),
                        Err(left_out) => skipped.push(left_out),
                    }
                }
                // Other blobs, and submodules (commits).
                _ => {}
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.sort();
    Ok(Files::All { files, skipped })
}

/// The Java files that differ between commits `base` and `commit`, from
/// git's diff of their trees, which skips every subtree the two share
/// without reading it.
pub(super) fn commit_changes(
    repo: &git2::Repository,
    root: &Path,
    base: &str,
    commit: &str,
    limits: &SourceLimits,
) -> Result<Changes, Error> {
    let old = commit_tree(repo, root, base)?;
    let new = commit_tree(repo, root, commit)?;
    let odb = repo.odb().map_err(git_error(root))?;
    let mut options = git2::DiffOptions::new();
    options.ignore_submodules(true);
    let diff = repo
        .diff_tree_to_tree(Some(&old), Some(&new), Some(&mut options))
        .map_err(git_error(root))?;
    let mut changes = Changes::default();
    let utf8 = |file: &git2::DiffFile| -> Option<Result<String, String>> {
        let bytes = file.path_bytes()?;
        Some(match std::str::from_utf8(bytes) {
            Ok(path) => Ok(path.to_string()),
            Err(_) => Err(String::from_utf8_lossy(bytes).into_owned()),
        })
    };
    for delta in diff.deltas() {
        let (old_file, new_file) = (delta.old_file(), delta.new_file());
        let blob = |file: &git2::DiffFile| {
            file.exists()
                && matches!(
                    file.mode(),
                    git2::FileMode::Blob | git2::FileMode::BlobExecutable | git2::FileMode::Link
                )
        };
        if blob(&old_file) {
            match utf8(&old_file) {
                Some(Ok(path)) if is_java_path(&path) => changes.removed.push(path),
                Some(Err(lossy)) => changes.unskipped.push(lossy),
                _ => {}
            }
        }
        if blob(&new_file) {
            match utf8(&new_file) {
                Some(Ok(path)) if is_java_path(&path) => {
                    let mode = u32::from(new_file.mode());
                    match classify(&odb, path, new_file.id(), mode, limits) {
                        Ok(file) => changes.changed.push(file),
                        Err(left_out) => changes.skipped.push(left_out),
                    }
                }
                Some(Err(lossy)) => changes
                    .skipped
                    .push((lossy, "name is not UTF-8".to_string())),
                _ => {}
            }
        }
    }
    // A path both removed and changed (a modified file) is changed.
    changes.changed.sort_by(|a, b| a.path.cmp(&b.path));
    changes.removed.sort();
    changes.removed.retain(|path| {
        changes
            .changed
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .is_err()
    });
    changes.skipped.sort();
    changes.unskipped.sort();
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use refscope_store::BlobId;

    #[test]
    fn blob_ids_are_the_ones_git_gives() {
        let long: Vec<u8> = (0..100_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let inputs: [&[u8]; 5] = [b"", b"class A {}\n", b"a\0b", &[0xff; 64], &long];
        for bytes in inputs {
            let git = git2::Oid::hash_object(git2::ObjectType::Blob, bytes).unwrap();
            assert_eq!(
                BlobId::of_bytes(bytes).to_string(),
                git.to_string(),
                "{} bytes",
                bytes.len()
            );
        }
    }
}
