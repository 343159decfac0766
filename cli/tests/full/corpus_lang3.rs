//! A real library against javac: commons-lang3 3.12 (main and test sources),
//! fetched from Debian by `corpora/fetch`, indexed as a plain directory with
//! its test libraries on the class path and compared with the javac oracle's
//! dump of the same sources and jars (`corpora/oracle-runs.md`).
//!
//! The same sources indexed with the jars their `pom.xml` declares, found
//! in Debian's repositories (`refscope deps`), must score as well as with
//! the jars named by hand.
//!
//! Declarations must meet the foundation issue's bar: 99.5 % of javac's
//! declarations matched by (file, kind, owner, name, params), and start, end
//! and name lines exact for 99 % of those. References of every kind are
//! scored with the oracle's rules (`crate::common::oracle`), in source and overall,
//! against the floors below.

use std::path::Path;
use std::process::Command;

use crate::common::oracle::{
    RefScope, RefScore, RefScoreConfig, parse_decls, parse_refs, score_decls, score_refs,
};
use crate::common::{fetch_corpus, index_with_class_path, run, run_ok, workspace_root};

/// Share of javac's declarations that must be matched.
const DECL_RECALL_FLOOR: f64 = 0.995;
/// Share of matched declarations whose three lines must be exact.
const DECL_LINES_EXACT_FLOOR: f64 = 0.99;

// Reference floors (kinds call, new, method_ref, ctor_call and field
// together), each set just below the level reached, so that a regression
// fails the test and an improvement is a one-line raise.
// Reached on 2026-12-02: in-source P 0.9996 R 0.9996, all P 0.9997 R 0.9996.
const REF_IN_SOURCE_PRECISION_FLOOR: f64 = 0.999;
const REF_IN_SOURCE_RECALL_FLOOR: f64 = 0.999;
const REF_ALL_PRECISION_FLOOR: f64 = 0.999;
const REF_ALL_RECALL_FLOOR: f64 = 0.999;

/// The test libraries javac and refscope both get, each with the Debian
/// package that installs it (the class path of `corpora/oracle-runs.md`).
const TEST_JARS: [(&str, &str); 9] = [
    ("/usr/share/java/junit-jupiter-api.jar", "junit5"),
    ("/usr/share/java/junit-jupiter-params.jar", "junit5"),
    ("/usr/share/java/opentest4j.jar", "libopentest4j-java"),
    ("/usr/share/java/apiguardian-api.jar", "libapiguardian-java"),
    ("/usr/share/java/junit-platform-commons.jar", "junit5"),
    ("/usr/share/java/hamcrest.jar", "libhamcrest-java"),
    ("/usr/share/java/easymock.jar", "libeasymock-java"),
    ("/usr/share/java/junit4.jar", "junit4"),
    ("/usr/share/java/jsr305.jar", "libjsr305-java"),
];

/// The oracle's source roots, relative to the corpus directory, which is
/// also its base: the dump's paths start with them.
const ORACLE_ROOTS: [&str; 2] = ["src/main/java", "src/test/java"];

/// The reference kinds under test, in the oracle README's order.
const REF_KINDS: [&str; 5] = ["call", "new", "method_ref", "ctor_call", "field"];

#[test]
fn commons_lang3_declarations_and_references_match_javac() {
    let class_path = test_class_path();
    let corpus = fetch_corpus("libcommons-lang3-java");
    let work = tempfile::tempdir().unwrap();
    let truth_path = work.path().join("truth.jsonl");
    run_javac_oracle(&corpus, &class_path, &truth_path);

    let store = work.path().join("store");
    let store = store.to_str().unwrap();
    let corpus = corpus.to_str().unwrap();
    index_with_class_path(work.path(), corpus, store, &class_path);
    let ours = run(
        work.path(),
        &[
            "export", "--decls", "--refs", "--store", store, "--repo", corpus,
        ],
    )
    .ok();
    let truth = std::fs::read_to_string(&truth_path).unwrap();

    let mut failures = Vec::new();

    let decls = score_decls(&parse_decls(&truth), &parse_decls(&ours), 10);
    eprintln!(
        "commons-lang3 declarations: {}/{} matched (recall {:.4}), lines exact {:.4}",
        decls.n_matched,
        decls.n_truth,
        decls.recall(),
        decls.lines_exact()
    );
    assert!(
        decls.n_truth > 10_000,
        "the oracle reported only {} declarations",
        decls.n_truth
    );
    if decls.recall() < DECL_RECALL_FLOOR {
        let missed: Vec<String> = decls.missed.iter().map(|k| format!("  {k}")).collect();
        failures.push(format!(
            "declaration recall {:.4} below {DECL_RECALL_FLOOR}; missed e.g.:\n{}",
            decls.recall(),
            missed.join("\n")
        ));
    }
    if decls.lines_exact() < DECL_LINES_EXACT_FLOOR {
        failures.push(format!(
            "declaration lines exact for {:.4} of matched, below {DECL_LINES_EXACT_FLOOR}",
            decls.lines_exact()
        ));
    }

    let truth_refs = parse_refs(&truth);
    let mut our_refs = parse_refs(&ours);
    // javac reports on nothing outside its roots (the corpus also holds
    // Debian's patch backups in .pc/), so such references could only count
    // as wrong.
    let n_exported = our_refs.len();
    our_refs.retain(|r| under_oracle_roots(&r.key.file));
    eprintln!(
        "commons-lang3: {} of {n_exported} exported references lie outside {ORACLE_ROOTS:?}, left out",
        n_exported - our_refs.len()
    );
    let checks = [
        (
            "in-source",
            RefScope::InSource,
            REF_IN_SOURCE_PRECISION_FLOOR,
            REF_IN_SOURCE_RECALL_FLOOR,
        ),
        (
            "all",
            RefScope::All,
            REF_ALL_PRECISION_FLOOR,
            REF_ALL_RECALL_FLOOR,
        ),
    ];
    // The same sources indexed with the jars their pom.xml declares, found
    // in Debian's repositories instead of named by hand (`refscope deps`).
    let auto_store = work.path().join("auto-store");
    let auto_store = auto_store.to_str().unwrap();
    let repos = [
        "--maven-repo",
        "/usr/share/maven-repo",
        "--maven-repo",
        "/usr/share/java",
    ];
    let mut index = vec!["index", corpus, "--store", auto_store];
    index.extend_from_slice(&repos);
    let indexed = run(work.path(), &index);
    eprintln!("{}", String::from_utf8_lossy(&indexed.output.stderr).trim());
    indexed.ok();
    let auto = run(
        work.path(),
        &[
            "export", "--decls", "--refs", "--store", auto_store, "--repo", corpus,
        ],
    )
    .ok();
    let mut auto_refs = parse_refs(&auto);
    auto_refs.retain(|r| under_oracle_roots(&r.key.file));
    for (scope_name, scope, precision_floor, recall_floor) in checks {
        let config = RefScoreConfig {
            kinds: REF_KINDS.iter().map(|k| k.to_string()).collect(),
            scope,
            ..RefScoreConfig::default()
        };
        let found = score_refs(&truth_refs, &auto_refs, &config);
        let score = score_refs(&truth_refs, &our_refs, &config);
        eprintln!(
            "commons-lang3 references ({scope_name}), jars found from pom.xml: matched {} of {}, \
             precision {:.4}, recall {:.4}; named by hand: matched {} of {}",
            found.n_matched,
            found.n_truth,
            found.precision().unwrap_or(0.0),
            found.recall().unwrap_or(0.0),
            score.n_matched,
            score.n_truth,
        );
        // As many right and no more wrong than with the jars named by hand.
        if found.n_matched < score.n_matched
            || found.n_candidate - found.n_matched > score.n_candidate - score.n_matched
        {
            failures.push(format!(
                "references ({scope_name}) with the jars found from pom.xml: {} matched and {} \
                 wrong, against {} and {} with them named by hand",
                found.n_matched,
                found.n_candidate - found.n_matched,
                score.n_matched,
                score.n_candidate - score.n_matched,
            ));
        }
        let precision = score.precision().unwrap_or(0.0);
        let recall = score.recall().unwrap_or(0.0);
        eprintln!(
            "commons-lang3 references ({scope_name}): truth {}, candidate {}, matched {}, \
             ignored {}, precision {precision:.4}, recall {recall:.4}",
            score.n_truth, score.n_candidate, score.n_matched, score.n_ignored
        );
        if scope == RefScope::All {
            assert!(
                score.n_truth > 70_000,
                "the oracle reported only {} resolved references",
                score.n_truth
            );
        }
        if precision < precision_floor || recall < recall_floor {
            failures.push(format!(
                "references ({scope_name}): precision {precision:.4} (floor {precision_floor}), \
                 recall {recall:.4} (floor {recall_floor})\n{}",
                examples(&score)
            ));
        }
    }

    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The scorer on a hand-made pair, with the figures `score --json` gives for
/// the same two files.
#[test]
fn reference_scorer_follows_the_oracle_rules() {
    let truth = parse_refs(
        r#"
{"t":"decl","file":"p/A.java","kind":"class","owner":null,"name":"A","params":[],"start_line":1,"end_line":9,"name_line":1,"name_col":7}
{"t":"ref","file":"p/A.java","line":3,"col":5,"kind":"call","name":"m","owner":"p.B","params":["int"],"static":false,"decl_file":"p/B.java","decl_line":2,"resolved":true}
{"t":"ref","file":"p/A.java","line":3,"col":12,"kind":"call","name":"m","owner":"p.B","params":["int"],"static":false,"decl_file":"p/B.java","decl_line":2,"resolved":true}
{"t":"ref","file":"p/A.java","line":4,"col":16,"kind":"field","name":"out","owner":"java.lang.System","params":[],"static":true,"decl_file":null,"decl_line":null,"resolved":true}
{"t":"ref","file":"p/A.java","line":5,"col":5,"kind":"call","name":"x","owner":null,"params":null,"static":false,"decl_file":null,"decl_line":null,"resolved":false}
{"t":"ref","file":"p/A.java","line":6,"col":9,"kind":"new","name":"<init>","owner":"p.B","params":[],"static":false,"decl_file":"p/B.java","decl_line":1,"resolved":true}
"#,
    );
    let candidate = parse_refs(
        r#"
{"t":"ref","file":"p/A.java","line":3,"col":5,"kind":"call","name":"m","owner":"p.B","params":["int"],"static":false,"decl_file":"p/B.java","decl_line":2,"resolved":true,"confidence":"exact"}
{"t":"ref","file":"p/A.java","line":4,"col":16,"kind":"field","name":"out","owner":"java.lang.System","params":null,"static":true,"decl_file":null,"decl_line":null,"resolved":true,"confidence":"external"}
{"t":"ref","file":"p/A.java","line":5,"col":5,"kind":"call","name":"x","owner":"p.C","params":[],"static":false,"decl_file":"p/C.java","decl_line":3,"resolved":true,"confidence":"ambiguous"}
{"t":"ref","file":"p/A.java","line":6,"col":9,"kind":"new","name":"<init>","owner":"p.C","params":[],"static":false,"decl_file":"p/C.java","decl_line":1,"resolved":true,"confidence":"exact"}
{"t":"ref","file":"p/A.java","line":7,"col":5,"kind":"call","name":"y","owner":null,"params":null,"static":false,"decl_file":null,"decl_line":null,"resolved":false,"confidence":"unresolved"}
"#,
    );
    let figures = |kinds: &[&str], scope| {
        let config = RefScoreConfig {
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
            scope,
            ..RefScoreConfig::default()
        };
        let score = score_refs(&truth, &candidate, &config);
        (
            score.n_truth,
            score.n_candidate,
            score.n_matched,
            score.n_ignored,
            score.precision(),
            score.recall(),
        )
    };
    // The line-5 candidate sits where javac could not resolve: ignored, in
    // source too, where it counts although the truth's record does not.
    assert_eq!(
        figures(&REF_KINDS, RefScope::All),
        (4, 4, 2, 1, Some(2.0 / 3.0), Some(0.5))
    );
    assert_eq!(
        figures(&REF_KINDS, RefScope::InSource),
        (3, 3, 1, 1, Some(0.5), Some(1.0 / 3.0))
    );
    assert_eq!(
        figures(&["call"], RefScope::All),
        (2, 2, 1, 1, Some(1.0), Some(0.5))
    );
    assert_eq!(
        figures(&["ctor_call"], RefScope::All),
        (0, 0, 0, 0, None, None)
    );

    let all = score_refs(&truth, &candidate, &RefScoreConfig::default());
    let shown = |keys: &[crate::common::oracle::RefKey]| {
        keys.iter().map(|k| k.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(
        shown(&all.missed),
        ["call p/A.java:3 m p.B(int)", "new p/A.java:6 <init> p.B()"]
    );
    assert_eq!(shown(&all.wrong), ["new p/A.java:6 <init> p.C()"]);
}

/// The test libraries as one class path; panics naming the Debian packages
/// to install when a jar is missing, since without them the test code's
/// references would drop out of the comparison unnoticed.
fn test_class_path() -> String {
    let missing: Vec<String> = TEST_JARS
        .iter()
        .filter(|(jar, _)| !Path::new(jar).is_file())
        .map(|(jar, package)| format!("{jar} (Debian package {package})"))
        .collect();
    let mut packages: Vec<&str> = TEST_JARS
        .iter()
        .filter(|(jar, _)| !Path::new(jar).is_file())
        .map(|(_, package)| *package)
        .collect();
    packages.sort();
    packages.dedup();
    assert!(
        missing.is_empty(),
        "missing test libraries: {}; install them with `apt-get install {}`",
        missing.join(", "),
        packages.join(" ")
    );
    TEST_JARS.map(|(jar, _)| jar).join(":")
}

/// Runs the javac oracle over the main and test sources, paths relative to
/// the corpus root, the way `corpora/oracle-runs.md` made the shared dump.
fn run_javac_oracle(corpus: &Path, class_path: &str, out: &Path) {
    run_ok(
        "javac-oracle",
        Command::new("bash")
            .arg(workspace_root().join("oracle/javac-oracle"))
            .args(ORACLE_ROOTS.iter().flat_map(|root| ["--root", root]))
            .args(["--base", ".", "--classpath", class_path])
            .arg("--out")
            .arg(out)
            .current_dir(corpus),
    );
}

fn under_oracle_roots(file: &str) -> bool {
    ORACLE_ROOTS.iter().any(|root| {
        file.strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Up to ten missed and ten wrong references, one per line.
fn examples(score: &RefScore) -> String {
    let mut lines = Vec::new();
    for key in &score.missed {
        lines.push(format!("  missed {key}"));
    }
    for key in &score.wrong {
        lines.push(format!("  wrong  {key}"));
    }
    lines.join("\n")
}
