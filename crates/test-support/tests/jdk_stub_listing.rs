//! The stub JDK's listing is what the installed JDK 17 says of the same
//! classes (`jdk-stub/make-listing --check`): the stub the default tests
//! resolve against does not drift from the JDK it stands for. Opt-in: it
//! needs Python and a JDK with jmods.

#![cfg(feature = "full-tests")]

#[test]
fn the_stub_listing_matches_the_installed_jdk() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jdk-stub/make-listing");
    let output = std::process::Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{} --check failed:\n{}{}",
        script.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
