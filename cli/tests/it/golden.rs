//! The exports of every test corpus against the golden exports checked in
//! under `corpora/golden/`: the fixtures in full, a fetched corpus as the
//! SHA-256 of its sorted export. A change that means to change what
//! refscope resolves regenerates them in a commit of its own
//! (`UPDATE_EXPECT=1 cargo test -p refscope-cli --test it golden`); any other
//! difference is a regression.

use crate::common::{export_of, workspace_root};

fn check_fixture(name: &str) {
    let dir = workspace_root().join("corpora/fixtures").join(name);
    let golden = workspace_root().join(format!("corpora/golden/{name}.jsonl"));
    expect_test::expect_file![golden].assert_eq(&export_of(&dir, &[]));
}

#[test]
fn shop_exports_its_golden_export() {
    check_fixture("shop");
}

#[test]
fn zoo_exports_its_golden_export() {
    check_fixture("zoo");
}

#[test]
fn resolve_exports_its_golden_export() {
    check_fixture("resolve");
}

#[test]
fn lombok_exports_its_golden_export() {
    check_fixture("lombok");
}

#[test]
fn spring_exports_its_golden_export() {
    check_fixture("spring");
}
