//! Spring's injection edges on the `spring` fixture, against the edges
//! written down by hand in `corpora/fixtures/spring/injections.tsv`: every
//! one is found, and no other call is marked as going through an
//! injection point.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::common::{index_files_into, index_files_with, run, workspace_root};

fn fixture() -> PathBuf {
    workspace_root().join("corpora/fixtures/spring")
}

/// One edge: site, bean method, point, candidates, `all` or `one`.
type Edge = (String, String, String, u64, String);

fn expected() -> BTreeSet<Edge> {
    let text = std::fs::read_to_string(fixture().join("injections.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].to_string(),
            )
        })
        .collect()
}

/// The methods the fixture declares (not Spring's stand-ins).
fn methods(store: &str) -> Vec<String> {
    let out = run(
        &fixture(),
        &[
            "export",
            "--decls",
            "--store",
            store,
            "--repo",
            fixture().to_str().unwrap(),
        ],
    )
    .ok();
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["kind"] == "method" && d["owner"].as_str().unwrap().starts_with("com.acme"))
        .map(|d| {
            let params: Vec<&str> = d["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            format!(
                "{}#{}({})",
                d["owner"].as_str().unwrap(),
                d["name"].as_str().unwrap(),
                params.join(",")
            )
        })
        .collect()
}

#[test]
fn every_injection_edge_is_found_and_none_is_invented() {
    let store = tempfile::tempdir().unwrap();
    index_files_into(&fixture(), store.path());
    let store = store.path().to_str().unwrap();
    let methods = methods(store);
    assert!(methods.len() >= 15, "{methods:?}");
    let mut found = BTreeSet::new();
    for method in &methods {
        let out = run(&fixture(), &["callers", method, "--json", "--store", store]).ok();
        let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
        for hit in answer["hits"].as_array().unwrap() {
            let Some(injection) = hit.get("injection") else {
                continue;
            };
            let candidates = injection["candidates"].as_u64().unwrap();
            let all = injection.get("many").is_some_and(|m| m == true);
            assert_eq!(
                injection["beans"].as_array().unwrap().len() as u64,
                candidates,
                "{hit}"
            );
            let guess = candidates > 1 && !all;
            assert_eq!(
                hit["confidence"],
                if guess { "ambiguous" } else { "exact" },
                "a guess among beans is never exact: {hit}"
            );
            found.insert((
                format!("{}:{}", hit["file"].as_str().unwrap(), hit["line"]),
                method.clone(),
                injection["point"].as_str().unwrap().to_string(),
                candidates,
                if all { "all" } else { "one" }.to_string(),
            ));
        }
    }
    let expected = expected();
    let missing: Vec<_> = expected.difference(&found).collect();
    let invented: Vec<_> = found.difference(&expected).collect();
    assert!(
        missing.is_empty() && invented.is_empty(),
        "missing: {missing:#?}\ninvented: {invented:#?}"
    );
}

#[test]
fn a_call_through_a_point_lists_its_beans_among_the_callees() {
    let store = tempfile::tempdir().unwrap();
    index_files_into(&fixture(), store.path());
    let out = run(
        &fixture(),
        &[
            "callees",
            "com.acme.orders.Alerts#alert",
            "--json",
            "--store",
            store.path().to_str().unwrap(),
        ],
    )
    .ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let beans: Vec<(u64, Vec<String>)> = answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h.get("injection").map(|i| (h["line"].as_u64().unwrap(), i)))
        .map(|(line, i)| {
            let mut beans: Vec<String> = i["beans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_str().unwrap().to_string())
                .collect();
            beans.sort();
            (line, beans)
        })
        .collect();
    let both = vec![
        "com.acme.orders.EmailNotifier".to_string(),
        "com.acme.orders.SmsNotifier".to_string(),
    ];
    assert_eq!(
        beans,
        [
            (23, both.clone()),
            (25, both),
            (26, vec!["com.acme.orders.FedexShipping".to_string()]),
        ]
    );
}

#[test]
fn no_frameworks_marks_no_injection() {
    let store = tempfile::tempdir().unwrap();
    index_files_with(&fixture(), store.path(), &["--no-frameworks"]);
    let store = store.path().to_str().unwrap();
    let out = run(
        &fixture(),
        &[
            "callers",
            "com.acme.orders.PlaceOrder#run",
            "--json",
            "--store",
            store,
        ],
    )
    .ok();
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hits = answer["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "both calls are still callers: {answer}");
    assert!(
        hits.iter().all(|h| h.get("injection").is_none()),
        "{answer}"
    );
}
