//! The small store the harnesses read: a copy of the `shop` fixture
//! (outside the workspace's git repository, so that it is a plain
//! directory) indexed as a directory snapshot against the stub JDK, with a
//! review task `shop` on it. Built once per process.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use refscope_engine::{IndexConfig, Indexer, JdkTypes, Source, SourceLimits, Store};
use refscope_mcp_bridge::task::{NewTask, TaskStore};

/// The id of the review task on the fixture.
pub(crate) const TASK: &str = "shop";

/// The fixture's store.
pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    /// The store directory.
    pub(crate) store_dir: PathBuf,
    /// The indexed directory.
    pub(crate) source_dir: PathBuf,
}

/// The fixture, built on first use.
pub(crate) fn shop() -> &'static Fixture {
    static SHOP: OnceLock<Fixture> = OnceLock::new();
    SHOP.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let source_dir = dir.path().join("shop");
        let store_dir = dir.path().join("store");
        copy_tree(
            &refscope_test_support::paths::fixture_dir("shop"),
            &source_dir,
        );
        {
            let store = Store::open(&store_dir).expect("a new store");
            let source = Source::open_directory(&source_dir).expect("the shop fixture");
            let revision = source
                .resolve_revision(None, &SourceLimits::default())
                .expect("the fixture's files");
            let jdk = JdkTypes::read(refscope_test_support::jdk_stub_home()).expect("the stub JDK");
            let config = IndexConfig {
                jdk: Some(jdk),
                ..IndexConfig::default()
            };
            Indexer::new(&store, config)
                .index(&source, &revision, &mut |_| {})
                .expect("the fixture indexes");
            // The task names the snapshot just indexed, so that no tool
            // indexes it again (against another JDK).
            let task = NewTask {
                id: TASK.to_string(),
                repo: source_dir.clone(),
                rev: None,
                base: None,
                svn: None,
            }
            .resolve()
            .expect("the fixture's task");
            assert_eq!(
                task.revision, revision.name,
                "the task names the indexed snapshot"
            );
            TaskStore::open(&store_dir)
                .and_then(|tasks| tasks.add(&task))
                .expect("the task is stored");
        }
        Fixture {
            _dir: dir,
            store_dir,
            source_dir,
        }
    })
}

/// Copies the files under `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory of the copy");
    for entry in std::fs::read_dir(from).expect("a fixture directory") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a fixture file copies");
        }
    }
}
