//! A git commit's Java files, read in-process with libgit2.

use super::revision::{
    Changes, Files, Revision, RevisionKind, SourceFile, SourceLimits, is_java_path,
};
use crate::error::Error;
use refscope_store::BlobId;
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

/// The blob id of a git object id.
pub(super) fn blob_id_of(oid: git2::Oid) -> BlobId {
    let mut id = [0u8; 20];
    id.copy_from_slice(oid.as_bytes());
    BlobId(id)
}

/// Where each of `blobs` lies in the packs of the repository at
/// `git_dir`: the pack (numbered in the order of the packs' names) and the
/// offset in it. Blobs in no pack (loose objects, alternates) are left
/// out, and so is any pack whose index cannot be read: the positions only
/// order the reads (see `parse_new_blobs`), and reading still goes through
/// libgit2, which reports a damaged pack itself.
pub(crate) fn pack_positions(
    git_dir: &Path,
    blobs: &FxHashSet<BlobId>,
) -> FxHashMap<BlobId, (u32, u64)> {
    let mut indexes: Vec<_> = std::fs::read_dir(git_dir.join("objects").join("pack"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "idx"))
        .collect();
    indexes.sort();
    let mut positions = FxHashMap::default();
    for (pack, path) in indexes.iter().enumerate() {
        let Ok(index) = gix_pack::index::File::at(path, gix_hash::Kind::Sha1) else {
            continue;
        };
        // Each blob looked up in the index: a commit reads a few blobs of a
        // repository that may hold millions of objects.
        for id in blobs {
            if positions.contains_key(id) {
                continue;
            }
            if let Some(at) = index.lookup(gix_hash::oid::from_bytes_unchecked(&id.0)) {
                positions.insert(*id, (pack as u32, index.pack_offset_at_index(at)));
            }
        }
    }
    positions
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
                Some(git2::ObjectType::Tree) if limits.paths.enters(&path) => {
                    let subtree = repo.find_tree(entry.id()).map_err(git_error(root))?;
                    pending.push((subtree, format!("{path}/")));
                }
                Some(git2::ObjectType::Blob)
                    if is_java_path(name) && limits.paths.admits(&path) =>
                {
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

/// The Java files that differ between commits `base` and `commit`: their
/// trees compared entry by entry, descending only into subtrees whose ids
/// differ, so a commit's work follows what it changed, not the size of
/// the tree.
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
    let mut diff = TreeDiff {
        repo,
        root,
        odb: &odb,
        limits,
        changes: Changes::default(),
    };
    diff.trees(Some(&old), Some(&new), "")?;
    let mut changes = diff.changes;
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

/// One side of a tree entry compared: its id, mode and kind.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Side {
    oid: git2::Oid,
    mode: i32,
    kind: Option<git2::ObjectType>,
}

/// The walk of [`commit_changes`].
struct TreeDiff<'a, 'r> {
    repo: &'r git2::Repository,
    root: &'a Path,
    odb: &'a git2::Odb<'r>,
    limits: &'a SourceLimits,
    changes: Changes,
}

impl TreeDiff<'_, '_> {
    /// Compares the directory `prefix` in the old tree and the new (`None`:
    /// absent on that side).
    fn trees(
        &mut self,
        old: Option<&git2::Tree>,
        new: Option<&git2::Tree>,
        prefix: &str,
    ) -> Result<(), Error> {
        let mut entries: std::collections::BTreeMap<Vec<u8>, [Option<Side>; 2]> =
            std::collections::BTreeMap::new();
        for (at, tree) in [old, new].into_iter().enumerate() {
            for entry in tree.into_iter().flat_map(git2::Tree::iter) {
                let side = Side {
                    oid: entry.id(),
                    mode: entry.filemode(),
                    kind: entry.kind(),
                };
                entries.entry(entry.name_bytes().to_vec()).or_default()[at] = Some(side);
            }
        }
        for (name, [old, new]) in entries {
            if old == new {
                continue;
            }
            // A name that is not UTF-8 is left out whole, as in a full
            // listing of the commit ([`commit_files`]).
            let Ok(name) = std::str::from_utf8(&name) else {
                let lossy = format!("{prefix}{}", String::from_utf8_lossy(&name));
                if old.is_some() {
                    self.changes.unskipped.push(lossy.clone());
                }
                if new.is_some() {
                    self.changes
                        .skipped
                        .push((lossy, "name is not UTF-8".to_string()));
                }
                continue;
            };
            let path = format!("{prefix}{name}");
            let subtree = |side: Option<Side>| -> Result<Option<git2::Tree>, Error> {
                match side {
                    Some(s) if s.kind == Some(git2::ObjectType::Tree) => self
                        .repo
                        .find_tree(s.oid)
                        .map(Some)
                        .map_err(git_error(self.root)),
                    _ => Ok(None),
                }
            };
            if self.limits.paths.enters(&path) {
                let (old_tree, new_tree) = (subtree(old)?, subtree(new)?);
                if old_tree.is_some() || new_tree.is_some() {
                    self.trees(old_tree.as_ref(), new_tree.as_ref(), &format!("{path}/"))?;
                }
            }
            if !is_java_path(name) || !self.limits.paths.admits(&path) {
                continue;
            }
            if is_blob(old) {
                self.changes.removed.push(path.clone());
            }
            if let Some(new) = new.filter(|s| is_blob(Some(*s))) {
                match classify(self.odb, path, new.oid, new.mode as u32, self.limits) {
                    Ok(file) => self.changes.changed.push(file),
                    Err(left_out) => self.changes.skipped.push(left_out),
                }
            }
        }
        Ok(())
    }
}

/// Whether a tree entry is a file (a blob: regular, executable or link).
fn is_blob(side: Option<Side>) -> bool {
    side.is_some_and(|s| s.kind == Some(git2::ObjectType::Blob))
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

    #[test]
    fn pack_positions_are_where_git_packed_each_blob() {
        use refscope_test_support::git::TestRepo;
        let repo = TestRepo::new();
        let texts: Vec<String> = (0..30)
            .map(|i| format!("class C{i} {{ int f{i}; /* {} */ }}\n", "x".repeat(i * 40)))
            .collect();
        let files: Vec<(String, &str)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("p/C{i}.java"), t.as_str()))
            .collect();
        let named: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        repo.commit(&named, "base");
        let blob = |text: &str| {
            super::blob_id_of(
                git2::Oid::hash_object(git2::ObjectType::Blob, text.as_bytes()).unwrap(),
            )
        };
        let loose = blob("class Loose {}\n");
        let wanted: rustc_hash::FxHashSet<BlobId> =
            texts.iter().map(|t| blob(t)).chain([loose]).collect();
        let git_dir = repo.path().join(".git");
        // Loose objects only: nothing is in a pack yet.
        assert!(super::pack_positions(&git_dir, &wanted).is_empty());
        let gc = std::process::Command::new("git")
            .args(["gc", "--quiet"])
            .current_dir(repo.path())
            .status()
            .unwrap();
        assert!(gc.success());
        let positions = super::pack_positions(&git_dir, &wanted);
        // What git says of its own pack: `git show-index` lists offset and
        // id of every object.
        let index = std::fs::read_dir(git_dir.join("objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "idx"))
            .unwrap();
        let shown = std::process::Command::new("git")
            .arg("show-index")
            .stdin(std::fs::File::open(index).unwrap())
            .output()
            .unwrap();
        let offsets: rustc_hash::FxHashMap<String, u64> = String::from_utf8(shown.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let mut words = line.split_whitespace();
                let offset = words.next().unwrap().parse().unwrap();
                (words.next().unwrap().to_string(), offset)
            })
            .collect();
        assert_eq!(
            positions.len(),
            texts.len(),
            "every committed blob, not the loose one"
        );
        for text in &texts {
            let id = blob(text);
            assert_eq!(positions[&id], (0, offsets[&id.to_string()]), "{text}");
        }
        assert!(!positions.contains_key(&loose));
    }

    #[test]
    fn a_commit_changes_what_its_tree_diff_says() {
        use refscope_test_support::git::{Change, TestRepo};
        let repo = TestRepo::new();
        let base = repo.commit(
            &[
                ("a/X.java", "class X {}"),
                ("b/c/Y.java", "class Y {}"),
                ("b/c/notes.txt", "n"),
                ("d/Z.java", "class Z {}"),
                ("Top.java", "class Top {}"),
            ],
            "base",
        );
        // A file changed, a directory removed, one added, and a file that
        // becomes a directory; `d` is the same on both sides.
        let next = repo.commit_changes(
            &[
                Change::write("a/X.java", "class X { int x; }"),
                Change::Delete("b/c/Y.java"),
                Change::Delete("b/c/notes.txt"),
                Change::write("e/f/W.java", "class W {}"),
                Change::Delete("Top.java"),
                Change::write("Top.java/Inner.java", "class Inner {}"),
            ],
            "next",
        );
        let (repo, dir) = (&repo.repo, repo.path());
        let limits = super::SourceLimits::default();
        let changes = super::commit_changes(repo, dir, &base, &next, &limits).unwrap();
        let changed: Vec<&str> = changes.changed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(changed, ["Top.java/Inner.java", "a/X.java", "e/f/W.java"]);
        assert_eq!(changes.removed, ["Top.java", "b/c/Y.java"]);
        assert!(changes.skipped.is_empty() && changes.unskipped.is_empty());
        // And back: the same paths, the other way round.
        let back = super::commit_changes(repo, dir, &next, &base, &limits).unwrap();
        let changed: Vec<&str> = back.changed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(changed, ["Top.java", "a/X.java", "b/c/Y.java"]);
        assert_eq!(back.removed, ["Top.java/Inner.java", "e/f/W.java"]);
    }
}
