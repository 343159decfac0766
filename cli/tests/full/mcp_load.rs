//! `benches/mcp-load` on the zoo fixture: clients at once over streamable
//! HTTP, with stalled connections beside them, and not one failed call.
//! (Latencies and memory are the bench's to report, on the JDK.)

use std::process::Command;

use crate::common::{python_with_mcp, workspace_root};
use crate::mcp_python::zoo_task;

#[test]
fn many_clients_at_once_get_every_answer() {
    let (_repo, store) = zoo_task();
    let output = Command::new(python_with_mcp())
        .arg(workspace_root().join("benches/mcp-load"))
        .args(["--store", store.path().to_str().unwrap(), "--task", "zoo"])
        .args([
            "--file",
            "src/main/java/com/zoo/Keeper.java",
            "--lines",
            "22,25",
        ])
        .args(["--query", "src/main/java/com/zoo/Keeper.java:22 | callers"])
        .args(["--clients", "20", "--calls", "20", "--stalled", "2"])
        .args(["--refscope", env!("CARGO_BIN_EXE_refscope")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("errors: 0 "),
        "mcp-load failed\n--- stdout\n{stdout}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("20 clients (2 stalled beside): 400 calls"),
        "{stdout}"
    );
}
