//! `refscope mcp` driven by a real MCP client: the official Python SDK
//! (PyPI `mcp` 2.3), over stdio and over streamable HTTP. The client script
//! is `mcp-bridge/tests/python/context_client.py`.
//!
//! The SDK lives in a virtual environment that `.ci/run` creates at
//! `target/mcp-venv`; `REFSCOPE_MCP_PYTHON` names another interpreter.
//! Without it these tests fail, saying how to install it.

use std::path::Path;

use crate::common::{TestRepo, run, run_python_client, workspace_root};

/// A git repository of the zoo fixture and a store holding task `zoo`.
pub(crate) fn zoo_task() -> (TestRepo, tempfile::TempDir) {
    let repo = TestRepo::new();
    let fixture = workspace_root().join("corpora/fixtures/zoo");
    let mut files = Vec::new();
    collect_files(&fixture, &fixture, &mut files);
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    repo.commit(&borrowed, "zoo");
    let store = tempfile::tempdir().unwrap();
    let repo_arg = repo.path().to_str().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(
        repo.path(),
        &[
            "task", "add", "--id", "zoo", "--repo", repo_arg, "--store", store_arg,
        ],
    )
    .ok();
    (repo, store)
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn run_client(transport: &str) {
    let (repo, store) = zoo_task();
    run_python_client(
        "context_client.py",
        transport,
        &["--store", store.path().to_str().unwrap(), "--task", "zoo"],
        repo.path(),
    );
}

#[test]
fn python_sdk_client_over_stdio() {
    run_client("stdio");
}

#[test]
fn python_sdk_client_over_streamable_http() {
    run_client("http");
}
