//! A git commit's Java files, read in-process with libgit2.

use super::revision::{Revision, RevisionKind, SourceFile, SourceLimits, is_java_path};
use crate::error::Error;
use refscope_store::BlobId;
use std::path::Path;

/// The blob id of a git object id.
pub(super) fn blob_id_of(oid: git2::Oid) -> BlobId {
    let mut id = [0u8; 20];
    id.copy_from_slice(oid.as_bytes());
    BlobId(id)
}

pub(super) fn git_revision(
    repo: &git2::Repository,
    root: &Path,
    rev: Option<&str>,
    limits: &SourceLimits,
) -> Result<Revision, Error> {
    let not_found = |revision: &str| Error::RevisionNotFound {
        repo: root.to_path_buf(),
        revision: revision.to_string(),
    };
    let git_error = |e: git2::Error| Error::Git {
        repo: root.to_path_buf(),
        message: e.message().to_string(),
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
    let tree = commit.tree().map_err(git_error)?;
    let odb = repo.odb().map_err(git_error)?;
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
                    let subtree = repo.find_tree(entry.id()).map_err(git_error)?;
                    pending.push((subtree, format!("{path}/")));
                }
                Some(git2::ObjectType::Blob) if is_java_path(name) => {
                    // A symlink's blob holds its target, not Java source.
                    if entry.filemode() == 0o120000 {
                        skipped.push((path, "symbolic link".to_string()));
                        continue;
                    }
                    let size = odb
                        .read_header(entry.id())
                        .map(|(len, _)| len as u64)
                        .unwrap_or(0);
                    if size > limits.max_file_bytes {
                        skipped
                            .push((path, format!("larger than {} bytes", limits.max_file_bytes)));
                        continue;
                    }
                    files.push(SourceFile {
                        path,
                        blob_id: blob_id_of(entry.id()),
                        size,
                    });
                }
                // Other blobs, and submodules (commits).
                _ => {}
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Revision {
        name: commit.id().to_string(),
        kind: RevisionKind::Commit,
        branch,
        files,
        skipped,
        prefetched: None,
    })
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
