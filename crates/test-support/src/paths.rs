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
