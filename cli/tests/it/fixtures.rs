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

use std::path::Path;

use crate::common::{fixture_projects, index_files_into, java_files, run};

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

#[test]
fn at_answers_every_fixture_marker() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for project in fixture_projects() {
        let store = tempfile::tempdir().unwrap();
        index_files_into(&project, store.path());
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
