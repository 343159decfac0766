//! `refscope export --scip`: the index decodes with the official SCIP
//! bindings and every symbol in it parses with their symbol parser; every
//! exact and external reference of `export --refs` is an occurrence of its
//! target's symbol, and every exact target's symbol is defined; the
//! fixtures' indexes render as their golden snapshots
//! (`corpora/golden/NAME.scip.txt`, re-blessed with `UPDATE_EXPECT=1 cargo
//! test -p refscope-cli --test it scip`); sources take the coordinates of
//! their nearest `pom.xml` at the exported commit; a revision that is not
//! indexed is refused.

use std::collections::HashSet;

use refscope_scip_export::decode_index;
use refscope_scip_export::scip::types::{PositionEncoding, TextEncoding};
use refscope_scip_export::snapshot::render_snapshot;

use crate::common::scip::{
    ScipExport, check_references, check_symbols_parse, export_both, is_definition,
};
use crate::common::{SHOP, STOCK, TestRepo, run, workspace_root};

/// A fixture indexed as a plain directory, exported both ways.
fn export_fixture(name: &str) -> ScipExport {
    let dir = workspace_root().join("corpora/fixtures").join(name);
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    let (store, dir) = (store.to_str().unwrap(), dir.to_str().unwrap());
    run(work.path(), &["index", "--files", dir, "--store", store]).ok();
    export_both(work.path(), store, dir, &[])
}

#[test]
fn the_index_decodes_and_every_symbol_parses() {
    for name in ["shop", "zoo", "resolve"] {
        let ScipExport { index, records } = export_fixture(name);
        let metadata = index.metadata.as_ref().unwrap();
        assert_eq!(metadata.tool_info.name, "refscope");
        assert_eq!(metadata.tool_info.version, env!("CARGO_PKG_VERSION"));
        assert!(
            metadata.project_root.starts_with("file:///")
                && metadata
                    .project_root
                    .ends_with(&format!("/corpora/fixtures/{name}")),
            "{}",
            metadata.project_root
        );
        assert_eq!(
            metadata.text_document_encoding.enum_value(),
            Ok(TextEncoding::UTF8)
        );
        let files: HashSet<&str> = records.iter().filter_map(|r| r["file"].as_str()).collect();
        let documents: HashSet<&str> = index
            .documents
            .iter()
            .map(|d| d.relative_path.as_str())
            .collect();
        assert!(
            files.is_subset(&documents),
            "{name}: {files:?} {documents:?}"
        );
        for document in &index.documents {
            assert_eq!(document.language, "java");
            assert_eq!(
                document.position_encoding.enum_value(),
                Ok(PositionEncoding::UTF16CodeUnitOffsetFromLineStart)
            );
        }
        let n_symbols = check_symbols_parse(name, &index);
        assert!(n_symbols > 100, "{name}: {n_symbols} symbols");
    }
}

#[test]
fn every_exact_and_external_reference_is_an_occurrence_of_its_target() {
    let (mut exact, mut implicit, mut external) = (0, 0, 0);
    for name in ["shop", "zoo", "resolve"] {
        let counts = check_references(name, &export_fixture(name));
        assert!(counts.exact > 0 && counts.external > 0, "{name}");
        exact += counts.exact;
        implicit += counts.implicit;
        external += counts.external;
    }
    eprintln!(
        "fixtures: {exact} exact references ({implicit} to members the compiler declares) and {external} external references checked"
    );
    assert!(
        implicit > 0,
        "the fixtures reference members the compiler declares"
    );
}

fn check_snapshot(name: &str) {
    let dir = workspace_root().join("corpora/fixtures").join(name);
    let ScipExport { index, .. } = export_fixture(name);
    let rendered = render_snapshot(&index, &mut |path| {
        std::fs::read_to_string(dir.join(path)).ok()
    });
    let golden = workspace_root().join(format!("corpora/golden/{name}.scip.txt"));
    expect_test::expect_file![golden].assert_eq(&rendered);
}

#[test]
fn zoo_renders_as_its_golden_snapshot() {
    check_snapshot("zoo");
}

#[test]
fn shop_renders_as_its_golden_snapshot() {
    check_snapshot("shop");
}

const ROOT_POM: &str = "<?xml version=\"1.0\"?>
<project xmlns=\"http://maven.apache.org/POM/4.0.0\">
  <groupId>org.acme</groupId>
  <artifactId>acme-parent</artifactId>
  <version>1.2.3</version>
  <packaging>pom</packaging>
</project>
";

const MODULE_POM: &str = "<project>
  <parent>
    <groupId>org.acme</groupId>
    <artifactId>acme-parent</artifactId>
    <version>1.2.3</version>
  </parent>
  <artifactId>core</artifactId>
</project>
";

#[test]
fn sources_carry_the_coordinates_of_their_nearest_pom_at_the_commit() {
    let repo = TestRepo::new();
    repo.commit(
        &[
            ("pom.xml", ROOT_POM),
            ("core/pom.xml", MODULE_POM),
            ("core/src/main/java/p/Stock.java", STOCK),
            ("core/src/main/java/p/Shop.java", SHOP),
            ("tools/T.java", "package t;\nclass T {\n}\n"),
        ],
        "one",
    );
    let cwd = repo.path();
    run(cwd, &["index"]).ok();
    // The work tree's pom is not the commit's.
    std::fs::write(
        cwd.join("core/pom.xml"),
        MODULE_POM.replace("<artifactId>core", "<version>9.9</version><artifactId>core"),
    )
    .unwrap();
    run(cwd, &["export", "--scip", "--out", "index.scip"]).ok();
    let index = decode_index(&std::fs::read(cwd.join("index.scip")).unwrap()).unwrap();
    let document = |path: &str| {
        index
            .documents
            .iter()
            .find(|d| d.relative_path == path)
            .unwrap_or_else(|| panic!("no document {path}"))
    };
    let core = "semanticdb maven maven/org.acme/core 1.2.3 ";
    let take = format!("{core}p/Stock#take().");
    let stock = document("core/src/main/java/p/Stock.java");
    let definition = stock
        .occurrences
        .iter()
        .find(|o| o.symbol == take)
        .unwrap_or_else(|| panic!("no {take} in {:#?}", stock.occurrences));
    assert!(is_definition(definition.symbol_roles));
    assert_eq!(definition.range, [2, 15, 19]);
    // The method's lines, from its modifier to its closing brace, read
    // from the commit.
    assert_eq!(definition.enclosing_range, [2, 4, 4, 5]);
    let shop = document("core/src/main/java/p/Shop.java");
    let call = shop.occurrences.iter().find(|o| o.symbol == take).unwrap();
    assert_eq!(
        (call.range.as_slice(), call.symbol_roles),
        (&[3, 21, 25][..], 0)
    );
    assert!(
        document("tools/T.java").occurrences.iter().all(|o| o
            .symbol
            .starts_with("semanticdb maven maven/org.acme/acme-parent 1.2.3 ")),
        "the root pom's coordinates outside the module"
    );
}

#[test]
fn an_unindexed_revision_or_a_wrong_command_line_is_refused() {
    let repo = TestRepo::new();
    repo.commit(&[("p/Stock.java", STOCK)], "one");
    let cwd = repo.path();
    run(cwd, &["index"]).ok();
    let second = repo.commit(&[("p/Shop.java", SHOP)], "two");
    let error = run(
        cwd,
        &["export", "--scip", "--rev", &second, "--out", "index.scip"],
    )
    .fails_with(1);
    assert!(
        error.contains(&format!("revision {second} is not indexed"))
            && error.contains("refscope index --rev"),
        "{error}"
    );
    assert!(!cwd.join("index.scip").exists() && !cwd.join("index.scip.partial").exists());
    let error = run(cwd, &["export", "--scip"]).fails_with(2);
    assert!(error.contains("--out"), "{error}");
    let error = run(cwd, &["export", "--scip", "--refs", "--out", "x"]).fails_with(2);
    assert!(error.contains("--refs"), "{error}");
    // The newest indexed commit of HEAD's history is the default.
    run(cwd, &["export", "--scip", "--out", "index.scip"]).ok();
    let index = decode_index(&std::fs::read(cwd.join("index.scip")).unwrap()).unwrap();
    assert_eq!(index.documents.len(), 1);
}
