//! The `aicr.*` review tools of `refscope mcp`, driven by the official MCP
//! Python SDK (PyPI `mcp` 2.3) over stdio and streamable HTTP: every tool
//! with valid and invalid input, the state file checked after each call.
//! The client script is `crates/mcp-bridge/tests/python/aicr_client.py`; the
//! repository is the review fixture of `refscope_test_support::review`.
//! Without the SDK these tests fail, saying how to install it.

use crate::common::{run, run_python_client};
use refscope_test_support::review::ReviewRepo;

fn run_client(transport: &str) {
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
    run_python_client(
        "aicr_client.py",
        transport,
        &[
            "--store",
            store_arg,
            "--task",
            "review",
            "--first",
            &repo.first,
            "--base",
            &repo.base,
            "--revision",
            &repo.revision,
        ],
        repo.path(),
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
