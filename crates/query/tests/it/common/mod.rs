//! What the query tests share: the `shop` fixture indexed into a store in
//! a temporary directory, once per test binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use refscope_engine::{IndexConfig, Indexer, JdkTypes, Snapshot, Source, SourceLimits, Store};
use refscope_query::lang::{AnswerJson, Evaluator, answer_text, run};

/// The repository root (the workspace).
pub fn workspace() -> PathBuf {
    refscope_test_support::paths::workspace_root()
}

/// The `shop` fixture's directory.
pub fn shop_dir() -> PathBuf {
    workspace().join("corpora/fixtures/shop")
}

/// A store holding the `shop` fixture as a directory snapshot; built on
/// first use and kept for the test binary's lifetime.
pub fn shop_store() -> &'static Path {
    static STORE: OnceLock<tempfile::TempDir> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let source = Source::open_directory(&shop_dir()).unwrap();
            let store = Store::open(dir.path()).unwrap();
            let revision = source
                .resolve_revision(None, &SourceLimits::default())
                .unwrap();
            Indexer::new(
                &store,
                IndexConfig {
                    jdk: Some(JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap()),
                    ..IndexConfig::default()
                },
            )
            .index(&source, &revision, &mut |_| {})
            .unwrap();
            dir
        })
        .path()
}

/// How a query answers, as `refscope query` prints it: the text (or
/// pretty JSON) of the answer, or `refscope: query: ` and the rendered
/// error.
pub fn answer(store_dir: &Path, source: &Source, query: &str, json: bool) -> String {
    let store = Store::open_existing(store_dir).unwrap();
    let row = Snapshot::pick_revision(&store, Some(source), None).unwrap();
    let snapshot = Snapshot::new(&store, row).unwrap();
    let evaluator = Evaluator::new(&store, Some(source), snapshot);
    // The store's temporary path changes from run to run.
    answer_with(&evaluator, query, json).replace(&store_dir.display().to_string(), "$STORE")
}

/// [`answer`] with an evaluator already open.
pub fn answer_with(evaluator: &Evaluator, query: &str, json: bool) -> String {
    match run(evaluator, query) {
        Ok(answer) if json => {
            serde_json::to_string_pretty(&AnswerJson::new(query, &answer)).unwrap() + "\n"
        }
        Ok(answer) => answer_text(&answer),
        Err(error) => format!("refscope: query: {}\n", error.render(query)),
    }
}

/// An answer over the `shop` fixture.
pub fn shop(query: &str) -> String {
    answer(shop_store(), &shop_source(), query, false)
}

/// The `shop` fixture as a plain directory.
pub fn shop_source() -> Source {
    Source::open_directory(&shop_dir()).unwrap()
}
