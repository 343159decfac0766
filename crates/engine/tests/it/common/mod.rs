//! What the engine's integration tests share: a real git repository
//! written commit by commit, and indexing one of its revisions.

#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;

use refscope_engine::{IndexConfig, IndexSummary, Indexer, JdkTypes, Source, SourceLimits, Store};
use refscope_test_support::Change;

/// Writes `files` into the work tree of `repo`, removes `removed`, and
/// commits with `message`: the new commit's id.
pub fn commit(
    repo: &git2::Repository,
    files: &[(&str, &str)],
    removed: &[&str],
    message: &str,
) -> String {
    let changes: Vec<Change<'_>> = files
        .iter()
        .map(|&(path, text)| Change::write(path, text))
        .chain(removed.iter().map(|&path| Change::Delete(path)))
        .collect();
    refscope_test_support::commit(repo, &changes, message)
}

/// Indexes revision `rev` (HEAD when `None`) of the repository in `dir`.
pub fn index(dir: &Path, store: &Store, rev: Option<&str>) -> IndexSummary {
    let source = Source::open(dir).unwrap();
    let revision = source
        .resolve_revision(rev, &SourceLimits::default())
        .unwrap();
    Indexer::new(store, config())
        .index(&source, &revision, &mut |_| {})
        .unwrap()
}

/// How the tests index: with the stub JDK
/// ([`refscope_test_support::jdk_stub_home`]), whatever JDK the machine has.
pub fn config() -> IndexConfig {
    IndexConfig {
        jdk: Some(JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap()),
        ..IndexConfig::default()
    }
}
