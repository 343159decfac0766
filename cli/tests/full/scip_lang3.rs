//! `refscope export --scip` of a real library: commons-lang3 (main and test
//! sources, fetched from Debian by `corpora/fetch`), indexed as a plain
//! directory with its test libraries on the class path. Every symbol
//! parses, every exact and external reference of `export --refs` is an
//! occurrence of its target's symbol, the sources carry the coordinates of
//! the corpus's `pom.xml` (a child of `commons-parent`), and references
//! into a jar named by its path in `/usr/share/maven-repo` carry that
//! jar's coordinates.

use crate::common::scip::{check_references, check_symbols_parse, export_both};
use crate::common::{fetch_corpus, index_with_class_path};

/// The test libraries, from Debian's Maven repository where it has them
/// (so that their coordinates show), else from `/usr/share/java`; each
/// with the Debian package installing it.
const JARS: [(&str, &str); 9] = [
    (
        "/usr/share/maven-repo/org/junit/jupiter/junit-jupiter-api/*/junit-jupiter-api-*.jar",
        "junit5",
    ),
    ("/usr/share/java/junit-jupiter-params.jar", "junit5"),
    ("/usr/share/java/opentest4j.jar", "libopentest4j-java"),
    ("/usr/share/java/apiguardian-api.jar", "libapiguardian-java"),
    ("/usr/share/java/junit-platform-commons.jar", "junit5"),
    ("/usr/share/java/hamcrest.jar", "libhamcrest-java"),
    ("/usr/share/java/easymock.jar", "libeasymock-java"),
    ("/usr/share/java/junit4.jar", "junit4"),
    ("/usr/share/java/jsr305.jar", "libjsr305-java"),
];

/// The class path: each jar of [`JARS`], a `*` in a Maven repository path
/// standing for the one version installed.
fn class_path() -> String {
    let mut jars = Vec::new();
    for (pattern, package) in JARS {
        let path = match pattern.split_once("/*/") {
            Some((artifact_dir, _)) => std::fs::read_dir(artifact_dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|version| version.path())
                .filter(|version| !version.ends_with("debian"))
                .flat_map(|version| std::fs::read_dir(version).into_iter().flatten().flatten())
                .map(|jar| jar.path())
                .find(|jar| jar.extension().is_some_and(|e| e == "jar")),
            None => Some(pattern.into()).filter(|p: &std::path::PathBuf| p.is_file()),
        };
        let path = path.unwrap_or_else(|| {
            panic!("{pattern} is missing: apt-get install {package} (what .ci/run does)")
        });
        jars.push(path.to_string_lossy().into_owned());
    }
    jars.join(":")
}

#[test]
fn commons_lang3_exports_a_scip_index_of_every_reference() {
    let class_path = class_path();
    let corpus = fetch_corpus("libcommons-lang3-java");
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    let (store, corpus) = (store.to_str().unwrap(), corpus.to_str().unwrap());
    index_with_class_path(work.path(), corpus, store, &class_path);
    let export = export_both(work.path(), store, corpus, &["--classpath", &class_path]);
    let n_symbols = check_symbols_parse("commons-lang3", &export.index);
    let counts = check_references("commons-lang3", &export);
    eprintln!("commons-lang3: {n_symbols} symbols parse");
    assert!(
        counts.exact > 30_000 && counts.external > 10_000,
        "{counts:?}"
    );

    let lang3 = "semanticdb maven maven/org.apache.commons/commons-lang3 ";
    let string_utils = export
        .index
        .documents
        .iter()
        .find(|d| d.relative_path == "src/main/java/org/apache/commons/lang3/StringUtils.java")
        .expect("StringUtils.java");
    assert!(
        string_utils
            .occurrences
            .iter()
            .any(|o| o.symbol.starts_with(lang3)
                && o.symbol.ends_with(" org/apache/commons/lang3/StringUtils#")),
        "StringUtils is defined in the pom's package"
    );
    let externals: Vec<&str> = export
        .index
        .external_symbols
        .iter()
        .map(|s| s.symbol.as_str())
        .collect();
    for prefix in [
        "semanticdb maven jdk ",
        "semanticdb maven maven/org.junit.jupiter/junit-jupiter-api ",
    ] {
        assert!(
            externals.iter().any(|s| s.starts_with(prefix)),
            "no external symbol starts with {prefix}"
        );
    }
}
