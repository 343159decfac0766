//! What the engine's integration tests share: a real git repository
//! written commit by commit, and indexing one of its revisions.

#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;

use refscope_engine::{IndexConfig, IndexSummary, Indexer, Source, SourceLimits, Store};

/// Writes `files` into the work tree of `repo`, removes `removed`, and
/// commits with `message`: the new commit's id.
pub fn commit(
    repo: &git2::Repository,
    files: &[(&str, &str)],
    removed: &[&str],
    message: &str,
) -> String {
    let root = repo.workdir().unwrap().to_path_buf();
    let mut index = repo.index().unwrap();
    for (path, text) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
        index.add_path(Path::new(path)).unwrap();
    }
    for path in removed {
        std::fs::remove_file(root.join(path)).unwrap();
        index.remove_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let signature = git2::Signature::now("Test", "test@example.com").unwrap();
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parent_refs,
    )
    .unwrap()
    .to_string()
}

/// Indexes revision `rev` (HEAD when `None`) of the repository in `dir`.
pub fn index(dir: &Path, store: &Store, rev: Option<&str>) -> IndexSummary {
    let source = Source::open(dir).unwrap();
    let revision = source
        .resolve_revision(rev, &SourceLimits::default())
        .unwrap();
    Indexer::new(store, IndexConfig::default())
        .index(&source, &revision, &mut |_| {})
        .unwrap()
}
