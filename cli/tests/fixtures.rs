//! The hand-written fixtures in `corpora/fixtures/` carry their own
//! expectations:
//!
//! * `// at: ID | ID` at the end of a line: `refscope at FILE:LINE` answers
//!   exactly these element ids, in order (`// at: -` for none);
//! * `// at S-E: ID | ID`: the same for the line range S–E.
//!
//! Their declarations and resolved references are also compared with what
//! javac reports, through the oracle in `oracle/`: both must be
//! exactly javac's.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{run, workspace_root};

/// Fixture projects: folders of `corpora/fixtures` with a `src/main/java`.
fn fixture_projects() -> Vec<PathBuf> {
    let root = workspace_root().join("corpora/fixtures");
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src/main/java").is_dir())
        .collect();
    projects.sort();
    assert!(
        !projects.is_empty(),
        "no fixture projects in {}",
        root.display()
    );
    projects
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            java_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

/// One expectation: lines of a file and the element ids expected there.
#[derive(Debug)]
struct Expectation {
    file: String,
    start: u32,
    end: u32,
    ids: Vec<String>,
}

fn expectations(project: &Path) -> Vec<Expectation> {
    let mut files = Vec::new();
    java_files(project, &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(project)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("// at") else {
                continue;
            };
            let marker = &line[at + "// at".len()..];
            let Some((range, ids)) = marker.split_once(':') else {
                continue;
            };
            let line_no = i as u32 + 1;
            let (start, end) = match range.trim() {
                "" => (line_no, line_no),
                range => {
                    let (a, b) = range
                        .split_once('-')
                        .unwrap_or_else(|| panic!("{rel}:{line_no}: bad marker range '{range}'"));
                    (a.trim().parse().unwrap(), b.trim().parse().unwrap())
                }
            };
            let ids: Vec<String> = match ids.trim() {
                "-" => Vec::new(),
                ids => ids.split(" | ").map(|s| s.trim().to_string()).collect(),
            };
            out.push(Expectation {
                file: rel.clone(),
                start,
                end,
                ids,
            });
        }
    }
    out
}

fn index_into(project: &Path, store: &Path) {
    let cwd = std::env::temp_dir();
    run(
        &cwd,
        &[
            "index",
            "--files",
            project.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    )
    .ok();
}

#[test]
fn at_answers_every_fixture_marker() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for project in fixture_projects() {
        let store = tempfile::tempdir().unwrap();
        index_into(&project, store.path());
        for expectation in expectations(&project) {
            let location = format!(
                "{}:{}-{}",
                expectation.file, expectation.start, expectation.end
            );
            let answer = run(
                &project,
                &[
                    "at",
                    &location,
                    "--json",
                    "--store",
                    store.path().to_str().unwrap(),
                    "--repo",
                    project.to_str().unwrap(),
                ],
            )
            .ok();
            let value: serde_json::Value = serde_json::from_str(&answer).unwrap();
            let got: Vec<String> = value["elements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["element_id"].as_str().unwrap().to_string())
                .collect();
            checked += 1;
            if got != expectation.ids {
                failures.push(format!(
                    "{location}\n    expected {:?}\n    got      {got:?}",
                    expectation.ids
                ));
            }
        }
    }
    assert!(checked >= 50, "only {checked} markers found");
    assert!(
        failures.is_empty(),
        "{} of {checked} markers wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

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

/// Runs the javac oracle over a fixture project; returns its JSON lines.
fn javac_truth(project: &Path, out: &Path) -> String {
    let oracle = workspace_root().join("oracle/javac-oracle");
    assert!(
        oracle.is_file(),
        "{} is missing: the fixture tests need the javac oracle beside the repository",
        oracle.display()
    );
    let truth = out.join("truth.jsonl");
    let status = std::process::Command::new("bash")
        .arg(&oracle)
        .arg("--root")
        .arg(project.join("src/main/java"))
        .arg("--out")
        .arg(&truth)
        .status()
        .unwrap();
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

/// Indexes a fixture project into `out` and exports `what` (`--decls` or
/// `--refs`) with paths relative to its source root, as the oracle writes
/// them.
fn export(project: &Path, out: &Path, what: &str) -> String {
    let store = out.join("store");
    index_into(project, &store);
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
