//! The `aicr.*` review tools of `refscope mcp`, driven by the official MCP
//! Python SDK (PyPI `mcp` 2.3) over stdio and streamable HTTP: every tool
//! with valid and invalid input, the state file checked after each call.
//! The client script is `mcp-bridge/tests/python/aicr_client.py`; the
//! repository is the review fixture of `mcp-bridge/tests/aicr_fixture`.
//! Without the SDK these tests fail, saying how to install it.

#[path = "../../mcp-bridge/tests/aicr_fixture/mod.rs"]
mod aicr_fixture;
mod common;

use std::process::Command;

use aicr_fixture::ReviewRepo;
use common::{python_with_mcp, run, workspace_root};

fn run_client(transport: &str) {
    let python = python_with_mcp();
    let repo = ReviewRepo::build();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(
        repo.path(),
        &[
            "task",
            "add",
            "--id",
            "review",
            "--repo",
            repo.path().to_str().unwrap(),
            "--rev",
            &repo.revision,
            "--base",
            &repo.base,
            "--store",
            store_arg,
        ],
    )
    .ok();
    let script = workspace_root().join("mcp-bridge/tests/python/aicr_client.py");
    let output = Command::new(python)
        .arg(script)
        .args(["--refscope", env!("CARGO_BIN_EXE_refscope")])
        .args(["--store", store_arg, "--task", "review"])
        .args(["--first", &repo.first, "--base", &repo.base])
        .args(["--revision", &repo.revision, "--transport", transport])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the Python MCP client of the review tools failed over {transport}\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("ok: {transport}")
    );
}

#[test]
fn review_tools_with_the_python_sdk_over_stdio() {
    run_client("stdio");
}

#[test]
fn review_tools_with_the_python_sdk_over_streamable_http() {
    run_client("http");
}
