//! The fixtures against javac: their declarations and resolved
//! references, and the `zoo` fixture's reference graph, exactly as the
//! javac oracle (`oracle/`) reports them.

/// One reference of the javac oracle: file, line, column, kind.
type Site = (String, u64, u64, String);

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::{fixture_projects, index_files_into, index_files_with, run, workspace_root};

/// The identifying and positional fields of a decl record.
fn decl_keys(jsonl: &str) -> BTreeSet<String> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["t"] == "decl")
        .map(|v| {
            format!(
                "{} {} {} {} {} lines {}-{} name {}:{}",
                v["file"].as_str().unwrap(),
                v["kind"].as_str().unwrap(),
                v["owner"],
                v["name"].as_str().unwrap(),
                v["params"],
                v["start_line"],
                v["end_line"],
                v["name_line"],
                v["name_col"]
            )
        })
        .collect()
}

/// The jars a fixture project lists in its `jars` file (none without
/// one): javac gets them as class path and annotation processors, refscope
/// as class path.
fn fixture_jars(project: &Path) -> Option<String> {
    let list = std::fs::read_to_string(project.join("jars")).ok()?;
    let jars: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for jar in &jars {
        assert!(
            Path::new(jar).is_file(),
            "{jar} is missing: {} needs it (Debian's liblombok-java; .ci/run installs it)",
            project.display()
        );
    }
    Some(jars.join(":"))
}

/// Runs the javac oracle over a fixture project; returns its JSON lines.
fn javac_truth(project: &Path, out: &Path) -> String {
    let oracle = workspace_root().join("oracle/javac-oracle");
    assert!(
        oracle.is_file(),
        "{} is missing: the fixture tests need the javac oracle beside the repository",
        oracle.display()
    );
    let truth = out.join("truth.jsonl");
    let mut command = std::process::Command::new("bash");
    command
        .arg(&oracle)
        .arg("--root")
        .arg(project.join("src/main/java"))
        .arg("--out")
        .arg(&truth);
    if let Some(jars) = fixture_jars(project) {
        command
            .args(["--classpath", &jars])
            .args(["--processor-path", &jars]);
    }
    let status = command.status().unwrap();
    assert!(
        status.success(),
        "javac-oracle failed on {}",
        project.display()
    );
    std::fs::read_to_string(&truth).unwrap()
}

/// The compared fields of the resolved `ref` records, one string per
/// record (duplicates kept: the same call twice on a line counts twice).
fn ref_keys(jsonl: &str) -> Vec<String> {
    let mut keys: Vec<String> = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["t"] == "ref" && v["resolved"] == true)
        .map(|v| {
            format!(
                "{}:{} {} {}#{}({}) static={} decl={}:{}",
                v["file"].as_str().unwrap(),
                v["line"],
                v["kind"].as_str().unwrap(),
                v["owner"].as_str().unwrap_or("?"),
                v["name"].as_str().unwrap(),
                v["params"]
                    .as_array()
                    .map(|p| p
                        .iter()
                        .map(|x| x.as_str().unwrap_or("?"))
                        .collect::<Vec<_>>()
                        .join(","))
                    .unwrap_or_default(),
                v["static"],
                v["decl_file"],
                v["decl_line"],
            )
        })
        .collect();
    keys.sort();
    keys
}

/// Elements of `a` not in `b`, as multisets.
fn multiset_minus<'a>(a: &'a [String], b: &[String]) -> Vec<&'a str> {
    let mut rest: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for k in b {
        *rest.entry(k.as_str()).or_default() += 1;
    }
    a.iter()
        .filter(|k| match rest.get_mut(k.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .map(String::as_str)
        .collect()
}

/// Indexes a fixture project into `store`, with the jars it lists.
fn index_fixture(project: &Path, store: &Path) {
    match fixture_jars(project) {
        Some(jars) => index_files_with(project, store, &["--classpath", &jars]),
        None => index_files_into(project, store),
    }
}

/// Indexes a fixture project into `out` and exports `what` (`--decls` or
/// `--refs`) with paths relative to its source root, as the oracle writes
/// them.
fn export(project: &Path, out: &Path, what: &str) -> String {
    let store = out.join("store");
    index_fixture(project, &store);
    run(
        project,
        &[
            "export",
            what,
            "--under",
            "src/main/java",
            "--store",
            store.to_str().unwrap(),
            "--repo",
            project.to_str().unwrap(),
        ],
    )
    .ok()
}

#[test]
fn fixture_declarations_match_javac() {
    for project in fixture_projects() {
        let out = tempfile::tempdir().unwrap();
        let truth = javac_truth(&project, out.path());
        let ours = export(&project, out.path(), "--decls");
        let expected = decl_keys(&truth);
        let got = decl_keys(&ours);
        let missing: Vec<&String> = expected.difference(&got).collect();
        let extra: Vec<&String> = got.difference(&expected).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{}: declarations differ from javac\nmissing (javac has, we lack):\n  {}\nextra (we have, javac lacks):\n  {}",
            project.display(),
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  "),
            extra
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  ")
        );
        assert!(
            expected.len() >= 50,
            "only {} declarations in {}",
            expected.len(),
            project.display()
        );
    }
}

#[test]
fn fixture_references_match_javac() {
    for project in fixture_projects() {
        let out = tempfile::tempdir().unwrap();
        let expected = ref_keys(&javac_truth(&project, out.path()));
        let got = ref_keys(&export(&project, out.path(), "--refs"));
        let missing = multiset_minus(&expected, &got);
        let extra = multiset_minus(&got, &expected);
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{}: references differ from javac\nmissing (javac has, we lack):\n  {}\nextra (we have, javac lacks):\n  {}",
            project.display(),
            missing.join("\n  "),
            extra.join("\n  ")
        );
        assert!(
            expected.len() >= 50,
            "only {} references in {}",
            expected.len(),
            project.display()
        );
    }
}

#[test]
fn references_match_javac() {
    graph_matches_javac("zoo");
}

/// Callers of what Lombok generates (getters, builders, factories), as
/// javac with Lombok's processor finds them.
#[test]
fn references_to_lombok_members_match_javac() {
    graph_matches_javac("lombok");
}

/// `refs` of every target in a fixture that javac resolves a reference
/// to gives exactly javac's sites.
fn graph_matches_javac(fixture: &str) {
    let project = workspace_root().join("corpora/fixtures").join(fixture);
    let store = tempfile::tempdir().unwrap();
    index_fixture(&project, store.path());
    let truth = javac_truth(&project, store.path());
    // Every target javac resolves into the sources, with its sites.
    let mut expected: BTreeMap<String, BTreeSet<Site>> = BTreeMap::new();
    for line in truth.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        if record["t"] != "ref" || record["decl_file"].is_null() {
            continue;
        }
        let owner = record["owner"].as_str().unwrap();
        let name = record["name"].as_str().unwrap();
        let kind = record["kind"].as_str().unwrap().to_string();
        let target = if kind == "field" {
            format!("{owner}#{name}")
        } else {
            let params: Vec<&str> = record["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            format!("{owner}#{name}({})", params.join(","))
        };
        let file = format!("src/main/java/{}", record["file"].as_str().unwrap());
        expected.entry(target).or_default().insert((
            file,
            record["line"].as_u64().unwrap(),
            record["col"].as_u64().unwrap(),
            kind,
        ));
    }
    assert!(expected.len() >= 30, "only {} targets", expected.len());
    let mut failures = Vec::new();
    for (target, sites) in &expected {
        let answer = run(
            &project,
            &[
                "refs",
                target,
                "--json",
                "--store",
                store.path().to_str().unwrap(),
                "--repo",
                project.to_str().unwrap(),
            ],
        )
        .ok();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let got: BTreeSet<Site> = answer["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["file"].as_str().unwrap().to_string(),
                    h["line"].as_u64().unwrap(),
                    h["col"].as_u64().unwrap(),
                    h["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        if &got != sites {
            failures.push(format!(
                "{target}\n    javac    {sites:?}\n    refscope {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "references differ from javac:\n{}",
        failures.join("\n")
    );
}
