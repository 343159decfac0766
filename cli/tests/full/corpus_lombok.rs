//! A real library that uses Lombok against javac with Lombok's processor:
//! jcabi-log 0.19 (`@ToString`, `@EqualsAndHashCode`, `@Getter`), fetched
//! from Debian by `corpora/fetch`, indexed with the jars javac gets. Its
//! declarations and in-source references must meet the framework issue's
//! bar; indexed with `--no-frameworks`, the same corpus must show the gap
//! that the Lombok pass closes.

use std::path::Path;
use std::process::Command;

use crate::common::oracle::{
    RefScope, RefScoreConfig, parse_decls, parse_refs, score_decls, score_refs,
};
use crate::common::{fetch_corpus, run, run_ok, workspace_root};

/// The jars of its `pom.xml` that Debian has, with their packages, and
/// Lombok's, which is also javac's annotation processor.
const JARS: [(&str, &str); 4] = [
    ("/usr/share/java/lombok.jar", "liblombok-java"),
    ("/usr/share/java/slf4j-api.jar", "libslf4j-java"),
    ("/usr/share/java/log4j-over-slf4j.jar", "libslf4j-java"),
    ("/usr/share/java/commons-lang3.jar", "libcommons-lang3-java"),
];

const ROOT: &str = "src/main/java";

/// The bar for a real Lombok-using corpus, in source.
const PRECISION_FLOOR: f64 = 0.995;
const RECALL_FLOOR: f64 = 0.99;
/// Declarations matched, with the pass.
const DECL_RECALL_FLOOR: f64 = 0.995;
/// Without the pass, at least this share of javac's declarations is
/// missing (19 % when measured).
const GAP_FLOOR: f64 = 0.1;

fn class_path() -> String {
    for (jar, package) in JARS {
        assert!(
            Path::new(jar).is_file(),
            "{jar} is missing: install Debian's {package} (.ci/run does)"
        );
    }
    JARS.map(|(jar, _)| jar).join(":")
}

/// Indexes the corpus into `store` with `more` arguments; its export of
/// the oracle's root.
fn export(corpus: &Path, store: &Path, class_path: &str, more: &[&str]) -> String {
    let corpus = corpus.to_str().unwrap();
    let store = store.to_str().unwrap();
    let mut index = vec![
        "index",
        "--files",
        corpus,
        "--store",
        store,
        "--classpath",
        class_path,
        "--no-auto-classpath",
    ];
    index.extend_from_slice(more);
    run(&std::env::temp_dir(), &index).ok();
    run(
        &std::env::temp_dir(),
        &[
            "export", "--decls", "--refs", "--under", ROOT, "--store", store, "--repo", corpus,
        ],
    )
    .ok()
}

#[test]
fn jcabi_log_matches_javac_with_lombok_and_shows_the_gap_without() {
    let class_path = class_path();
    let corpus = fetch_corpus("libjcabi-log-java");
    let work = tempfile::tempdir().unwrap();
    let truth_path = work.path().join("truth.jsonl");
    run_ok(
        "javac-oracle",
        Command::new("bash")
            .arg(workspace_root().join("oracle/javac-oracle"))
            .args(["--root", ROOT, "--classpath", &class_path])
            .args(["--processor-path", JARS[0].0])
            .arg("--out")
            .arg(&truth_path)
            .current_dir(&corpus),
    );
    let truth = std::fs::read_to_string(&truth_path).unwrap();
    let ours = export(&corpus, &work.path().join("store"), &class_path, &[]);
    let plain = export(
        &corpus,
        &work.path().join("plain"),
        &class_path,
        &["--no-frameworks"],
    );

    let truth_decls = parse_decls(&truth);
    let decls = score_decls(&truth_decls, &parse_decls(&ours), 10);
    let plain_decls = score_decls(&truth_decls, &parse_decls(&plain), 0);
    let config = RefScoreConfig {
        scope: RefScope::InSource,
        ..RefScoreConfig::default()
    };
    let refs = score_refs(&parse_refs(&truth), &parse_refs(&ours), &config);
    let (precision, recall) = (refs.precision().unwrap(), refs.recall().unwrap());
    eprintln!(
        "jcabi-log: declarations {}/{} (recall {:.4}; {:.4} without the pass); \
         in-source references P {precision:.4} R {recall:.4} of {}",
        decls.n_matched,
        decls.n_truth,
        decls.recall(),
        plain_decls.recall(),
        refs.n_truth,
    );
    assert!(decls.n_truth > 250 && refs.n_truth > 300, "a small truth");
    assert!(
        decls.recall() >= DECL_RECALL_FLOOR,
        "declaration recall {:.4}; missed e.g. {:?}",
        decls.recall(),
        decls.missed
    );
    assert!(
        precision >= PRECISION_FLOOR && recall >= RECALL_FLOOR,
        "in-source P {precision:.4} R {recall:.4}; missed {:?}, wrong {:?}",
        refs.missed,
        refs.wrong
    );
    assert!(
        1.0 - plain_decls.recall() >= GAP_FLOOR,
        "without the Lombok pass only {:.4} of the declarations are missing",
        1.0 - plain_decls.recall()
    );
}
