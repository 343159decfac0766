//! `code_history` in process: a task on a git repository whose method two
//! commits changed after the one that added it.

use refscope_engine::{IndexConfig, Indexer, JdkTypes, Source, SourceLimits, Store};
use refscope_mcp_bridge::query_tool::{CodeHistoryInput, QueryTools};
use refscope_mcp_bridge::task::{NewTask, TaskStore};
use refscope_test_support::git::TestRepo;
use serde_json::Value;

fn a_java(body: &str) -> String {
    format!("package p;\nclass A {{\n    int m() {{\n        {body}\n    }}\n}}\n")
}

#[test]
fn code_history_answers_the_commits_within_its_limit() {
    let repo = TestRepo::new();
    let added = repo.commit(&[("src/p/A.java", &a_java("return 1;"))], "add m");
    let second = repo.commit(&[("src/p/A.java", &a_java("return 2;"))], "two");
    let third = repo.commit(&[("src/p/A.java", &a_java("return 3;"))], "three");
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(store_dir.path()).unwrap();
    let source = Source::open(repo.path()).unwrap();
    let revision = source
        .resolve_revision(None, &SourceLimits::default())
        .unwrap();
    let config = IndexConfig {
        jdk: Some(JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap()),
        ..IndexConfig::default()
    };
    Indexer::new(&store, config)
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    let new = NewTask {
        id: "t".into(),
        repo: repo.path_buf(),
        rev: Some("HEAD".into()),
        base: None,
        svn: None,
    };
    TaskStore::open(store_dir.path())
        .unwrap()
        .register(new, &store, &mut |_| {})
        .unwrap();
    let mut tools = QueryTools::open(store_dir.path()).unwrap();
    let page = |tools: &mut QueryTools, element: &str, limit, cursor: Option<&Value>| {
        tools.code_history(&CodeHistoryInput {
            task_id: "t".into(),
            element: element.into(),
            limit,
            cursor: cursor.map(|c| c.as_str().unwrap().to_string()),
        })
    };
    let history = |tools: &mut QueryTools, element: &str, limit| -> Value {
        page(tools, element, limit, None).unwrap()
    };
    let commits = |answer: &Value| -> Vec<(String, String)> {
        answer["commits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["commit"].as_str().unwrap().to_string(),
                    c["change"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let whole = history(&mut tools, "p.A#m()", None);
    assert_eq!(
        commits(&whole),
        [
            (third.clone(), "body".to_string()),
            (second.clone(), "body".to_string()),
            (added, "added".to_string())
        ]
    );
    assert_eq!(whole["truncated"], false);
    let cut = history(&mut tools, "src/p/A.java:3", Some(2));
    assert_eq!(
        commits(&cut),
        [(third, "body".to_string()), (second, "body".to_string())]
    );
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["total"], 3);
    // The next page continues where the first ended, and is the last.
    let rest = page(&mut tools, "p.A#m()", Some(2), Some(&cut["next_cursor"])).unwrap();
    assert_eq!(
        commits(&rest),
        [(commits(&whole)[2].0.clone(), "added".to_string())]
    );
    assert_eq!(rest["total"], 3);
    assert_eq!(rest["next_cursor"], Value::Null);
    assert_eq!(rest["truncated"], false);
    // A cursor of another element's history is refused.
    let foreign = page(&mut tools, "p.A", Some(2), Some(&cut["next_cursor"])).unwrap_err();
    assert!(
        foreign.message.contains("another query, revision or store"),
        "{}",
        foreign.message
    );
    let refused = tools
        .code_history(&CodeHistoryInput {
            task_id: "t".into(),
            element: "p.A#m()".into(),
            limit: Some(0),
            cursor: None,
        })
        .unwrap_err();
    assert!(
        refused.message.contains("at least 1"),
        "{}",
        refused.message
    );
}
