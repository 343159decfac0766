//! Every resolver case of `tests/resolve` held to javac: each case is
//! compiled by the javac oracle (`oracle/javac-oracle`), and every
//! expectation must be what javac resolves at that site (or, for
//! `overrides`, what javac says the method overrides). So the cases the
//! default suite checks refscope against are javac's answers, not ours.
//! Opt-in (`--features full-tests`): it needs a JDK with javac.

#![cfg(feature = "full-tests")]

#[path = "resolve/calls.rs"]
mod calls;
#[path = "resolve/fields.rs"]
mod fields;
// The harness is shared with the default suite, which uses the rest of it.
#[allow(dead_code)]
#[path = "resolve/fixture.rs"]
mod fixture;
#[path = "resolve/generics.rs"]
mod generics;
#[path = "resolve/lambdas.rs"]
mod lambdas;
#[path = "resolve/library.rs"]
mod library;
#[path = "resolve/overloads.rs"]
mod overloads;
#[path = "resolve/types.rs"]
mod types;

use std::path::Path;

use serde_json::Value;

/// Writes a case's files under `dir` (for javac).
fn write_files(files: &[(String, String)], dir: &Path) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// What javac says at an expectation's position, as `kind target`.
fn javac_at(records: &[Value], expected: &fixture::Expectation) -> Vec<String> {
    let at = |v: &Value, line: &str, col: &str| {
        v["file"].as_str() == Some(expected.path.as_str())
            && v[line].as_u64() == Some(u64::from(expected.line))
            && v[col].as_u64() == Some(u64::from(expected.col))
    };
    if expected.kind == "overrides" {
        return records
            .iter()
            .filter(|v| v["t"] == "decl" && at(v, "name_line", "name_col"))
            .flat_map(|v| v["overrides"].as_array().cloned().unwrap_or_default())
            .map(|o| format!("overrides {}", o.as_str().unwrap()))
            .collect();
    }
    records
        .iter()
        .filter(|v| v["t"] == "ref" && at(v, "line", "col"))
        .map(|v| {
            let kind = v["kind"].as_str().unwrap();
            if v["resolved"] == false {
                return format!("{kind} unresolved");
            }
            let owner = v["owner"].as_str().unwrap();
            let name = v["name"].as_str().unwrap();
            if kind == "field" {
                return format!("{kind} {owner}#{name}");
            }
            let params: Vec<&str> = v["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            format!("{kind} {owner}#{name}({})", params.join(","))
        })
        .collect()
}

#[test]
fn every_case_expects_what_javac_resolves() {
    let oracle = refscope_test_support::paths::workspace_root().join("oracle/javac-oracle");
    let groups = [
        calls::CASES,
        fields::CASES,
        generics::CASES,
        lambdas::CASES,
        library::CASES,
        overloads::CASES,
        types::CASES,
    ];
    let mut failures = Vec::new();
    let mut n_checked = 0;
    for case in groups.into_iter().flatten() {
        let files = fixture::files(case);
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        write_files(&files, &src);
        let truth = dir.path().join("truth.jsonl");
        let output = std::process::Command::new("bash")
            .arg(&oracle)
            .arg("--root")
            .arg(&src)
            .arg("--out")
            .arg(&truth)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "javac-oracle failed on case {}:\n{}",
            case.name,
            String::from_utf8_lossy(&output.stderr)
        );
        let records: Vec<Value> = std::fs::read_to_string(&truth)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for expected in fixture::expectations(&files) {
            n_checked += 1;
            let want = format!("{} {}", expected.kind, expected.target);
            let javac = javac_at(&records, &expected);
            if !javac.contains(&want) {
                failures.push(format!(
                    "{} — {}:{}:{}\n    the case expects {want}\n    javac resolves   {javac:?}",
                    case.name, expected.path, expected.line, expected.col
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n_checked} expectations are not javac's:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
