//! Where the workspace's test data is.

use std::path::{Path, PathBuf};

/// The workspace root (the directory holding `corpora/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/test-support sits two levels below the workspace")
        .to_path_buf()
}

/// The hand-written fixture project `name` (`corpora/fixtures/NAME`).
pub fn fixture_dir(name: &str) -> PathBuf {
    workspace_root().join("corpora/fixtures").join(name)
}

/// The golden exports (`corpora/golden`).
pub fn golden_dir() -> PathBuf {
    workspace_root().join("corpora/golden")
}

/// Every input kept in the corpus of fuzz target `target`
/// (`fuzz/corpus/TARGET`), with its file name: what once made the target
/// find something new, replayed by the owning crate's ordinary tests.
/// Panics if the corpus is missing or empty, so that a replay never passes
/// on nothing.
pub fn fuzz_corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = workspace_root().join("fuzz/corpus").join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    assert!(!inputs.is_empty(), "fuzz corpus {} is empty", dir.display());
    inputs.sort();
    inputs
}
