//! `refscope mcp` driven by a real MCP client: the official Python SDK
//! (PyPI `mcp` 2.3), over stdio and over streamable HTTP. The client script
//! is `mcp-bridge/tests/python/context_client.py`.
//!
//! The SDK lives in a virtual environment that `.ci/run` creates at
//! `target/mcp-venv`; `REFSCOPE_MCP_PYTHON` names another interpreter.
//! Without it these tests fail, saying how to install it.

mod common;

use std::path::Path;
use std::process::Command;

use common::{TestRepo, python_with_mcp, run, workspace_root};

/// A git repository of the zoo fixture and a store holding task `zoo`.
fn zoo_task() -> (TestRepo, tempfile::TempDir) {
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
    let python = python_with_mcp();
    let (repo, store) = zoo_task();
    let script = workspace_root().join("mcp-bridge/tests/python/context_client.py");
    let output = Command::new(python)
        .arg(script)
        .args(["--refscope", env!("CARGO_BIN_EXE_refscope")])
        .args(["--store", store.path().to_str().unwrap()])
        .args(["--task", "zoo", "--transport", transport])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the Python MCP client failed over {transport}\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("ok: {transport}")
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
