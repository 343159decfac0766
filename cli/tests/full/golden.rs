//! The export of commons-lang3 against its golden digest: the SHA-256 of
//! its export's lines sorted bytewise, with the test libraries of
//! `corpus_lang3` on the class path (see `it/golden.rs` for the fixtures).

use crate::common::{export_of, fetch_corpus, workspace_root};

/// commons-lang3 with the test libraries of `corpus_lang3.rs` on the class
/// path: the SHA-256 of its export's lines, sorted bytewise.
#[test]
fn commons_lang3_exports_its_golden_digest() {
    let corpus = fetch_corpus("libcommons-lang3-java");
    let class_path = [
        "/usr/share/java/junit-jupiter-api.jar",
        "/usr/share/java/junit-jupiter-params.jar",
        "/usr/share/java/opentest4j.jar",
        "/usr/share/java/apiguardian-api.jar",
        "/usr/share/java/junit-platform-commons.jar",
        "/usr/share/java/hamcrest.jar",
        "/usr/share/java/easymock.jar",
        "/usr/share/java/junit4.jar",
        "/usr/share/java/jsr305.jar",
    ]
    .join(":");
    let export = export_of(&corpus, &["--classpath", &class_path]);
    let mut lines: Vec<&str> = export.lines().collect();
    lines.sort_unstable();
    let mut sorted = lines.join("\n");
    sorted.push('\n');
    let digest = sha256_hex(sorted.as_bytes());
    let golden = workspace_root().join("corpora/golden/commons-lang3.sha256");
    expect_test::expect_file![golden].assert_eq(&format!("{digest}  {} lines\n", lines.len()));
}

/// The SHA-256 of `bytes` in hex, from `sha256sum` (coreutils), so that
/// the digest can be checked by hand with the same tool.
fn sha256_hex(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) runs");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()[..64].to_string()
}
