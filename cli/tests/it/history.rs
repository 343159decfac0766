//! `refscope history`: on a generated history of method edits, the commits
//! it lists for every method equal those `git log -L START,END:FILE` lists
//! for the method's lines, whether the revisions were indexed (facts from
//! the store) or not (read from git); renames, moves and signature changes
//! are followed and named.

use std::process::Command;

use serde_json::Value;

use crate::common::{TestRepo, run};

const PATH: &str = "src/p/Ledger.java";

/// A deterministic stream of small numbers.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// A method as lines: its header, its body statements.
#[derive(Clone)]
struct Method {
    returns: &'static str,
    name: String,
    body: Vec<String>,
}

fn render(methods: &[Method]) -> String {
    let mut text = String::from("package p;\n\npublic class Ledger {\n    int total;\n");
    for method in methods {
        text.push_str(&format!(
            "\n    {} {}(int n) {{\n",
            method.returns, method.name
        ));
        for line in &method.body {
            text.push_str(&format!("        {line}\n"));
        }
        text.push_str("    }\n");
    }
    text.push_str("}\n");
    text
}

/// 40 commits over `Ledger.java`: body edits, inserted and removed lines,
/// whitespace, return types changed, methods added; some commits touch only
/// another file. The commit ids, oldest first.
fn generated_history(repo: &TestRepo) -> Vec<String> {
    let mut random = Lcg(7);
    let mut methods: Vec<Method> = (0..6)
        .map(|i| Method {
            returns: "int",
            name: format!("m{i}"),
            body: vec![format!("total += n + {i};"), "return total;".into()],
        })
        .collect();
    let mut commits = vec![repo.commit(&[(PATH, &render(&methods))], "Ledger")];
    let mut counter = 0;
    for step in 0..40 {
        counter += 1;
        let message = match random.below(8) {
            0 => {
                methods.push(Method {
                    returns: "int",
                    name: format!("added{step}"),
                    body: vec![format!("return n * {step};")],
                });
                "add a method"
            }
            1 => {
                let m = random.below(methods.len());
                let at = random.below(methods[m].body.len());
                methods[m].body.insert(at, format!("total -= {counter};"));
                "insert a line"
            }
            2 => {
                let m = random.below(methods.len());
                if methods[m].body.len() > 1 {
                    let at = random.below(methods[m].body.len() - 1);
                    methods[m].body.remove(at);
                }
                "remove a line"
            }
            3 => {
                let m = random.below(methods.len());
                let at = random.below(methods[m].body.len());
                methods[m].body[at].push_str("  ");
                "whitespace"
            }
            4 => {
                let m = random.below(methods.len());
                methods[m].returns = if methods[m].returns == "int" {
                    "long"
                } else {
                    "int"
                };
                "return type"
            }
            5 => {
                let other = format!("package p;\nclass Other{step} {{}}\n");
                commits.push(repo.commit(&[("src/p/Other.java", &other)], "another file"));
                continue;
            }
            _ => {
                let m = random.below(methods.len());
                let at = random.below(methods[m].body.len());
                methods[m].body[at] = format!("total *= {counter};");
                "edit a line"
            }
        };
        commits.push(repo.commit(&[(PATH, &render(&methods))], message));
    }
    commits
}

/// The commits `git log -L` lists for lines `start..=end` of `PATH` at HEAD.
fn git_log_l(repo: &TestRepo, start: u64, end: u64) -> Vec<String> {
    let output = Command::new("git")
        .current_dir(repo.path())
        .args([
            "log",
            "-L",
            &format!("{start},{end}:{PATH}"),
            "--format=%H",
            "-s",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| line.len() == 40)
        .map(str::to_string)
        .collect()
}

fn history(repo: &TestRepo, store: &str, element: &str) -> Value {
    let out = run(
        repo.path(),
        &["history", element, "--json", "--store", store],
    )
    .ok();
    serde_json::from_str(&out).unwrap()
}

fn commits_of(answer: &Value) -> Vec<String> {
    answer["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["commit"].as_str().unwrap().to_string())
        .collect()
}

/// A generated history, every commit indexed into a store of its own.
fn indexed_history() -> (TestRepo, tempfile::TempDir, Vec<String>) {
    let repo = TestRepo::new();
    let commits = generated_history(&repo);
    let store = tempfile::tempdir().unwrap();
    run(
        repo.path(),
        &["index", "--store", store.path().to_str().unwrap()],
    )
    .ok();
    (repo, store, commits)
}

/// The JSON answer of `refscope query --format json ARGS` on `store`.
fn query_json(repo: &TestRepo, store: &str, args: &[&str]) -> Value {
    let mut all = vec!["query", "--store", store, "--format", "json"];
    all.extend(args);
    serde_json::from_str(&run(repo.path(), &all).ok()).unwrap()
}

#[test]
fn history_lists_the_commits_git_log_l_lists() {
    let repo = TestRepo::new();
    let commits = generated_history(&repo);
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    // The second half indexed, commit by commit; the first half is read
    // from git.
    let range = format!("{}..{}", commits[20], commits.last().unwrap());
    run(
        repo.path(),
        &["index", "--rev", &range, "--store", store_arg],
    )
    .ok();
    let at_head = run(
        repo.path(),
        &[
            "query",
            "--store",
            store_arg,
            "--format",
            "json",
            "methods in p",
        ],
    )
    .ok();
    let methods: Value = serde_json::from_str(&at_head).unwrap();
    let ids: Vec<String> = methods["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .filter(|id| id.starts_with("p.Ledger#"))
        .collect();
    assert!(ids.len() >= 6, "{ids:?}");
    let mut with_changes = 0;
    for id in ids.iter().take(20) {
        let answer = history(&repo, store_arg, id);
        let ours = commits_of(&answer);
        let git = git_log_l(
            &repo,
            answer["start_line"].as_u64().unwrap(),
            answer["end_line"].as_u64().unwrap(),
        );
        assert_eq!(ours, git, "{id}: refscope history and git log -L differ");
        let last = answer["commits"].as_array().unwrap().last().unwrap();
        assert_eq!(last["change"], "added", "{id}");
        with_changes += usize::from(ours.len() > 2);
    }
    assert!(
        with_changes >= 3,
        "the history changes methods more than once"
    );
}

#[test]
fn renames_moves_and_signatures_are_followed() {
    let repo = TestRepo::new();
    let body = "        int total = n * 2;\n        return total + 1;\n";
    let a = |name: &str, param: &str| {
        format!("package p;\nclass A {{\n    int {name}({param} n) {{\n{body}    }}\n}}\n")
    };
    let added = repo.commit(&[("src/p/A.java", &a("twice", "int"))], "add twice");
    let renamed = repo.commit(&[("src/p/A.java", &a("doubled", "int"))], "rename it");
    let retyped = repo.commit(&[("src/p/A.java", &a("doubled", "long"))], "long");
    let moved = repo.commit_changes(
        &[
            refscope_test_support::git::Change::write("src/p/A.java", "package p;\nclass A {\n}\n"),
            refscope_test_support::git::Change::write(
                "src/p/B.java",
                &a("doubled", "long").replace("class A", "class B"),
            ),
        ],
        "move it to B",
    );
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(repo.path(), &["index", "--store", store_arg]).ok();
    let answer = history(&repo, store_arg, "p.B#doubled(long)");
    let found: Vec<(String, String, String)> = answer["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["commit"].as_str().unwrap().to_string(),
                entry["change"].as_str().unwrap().to_string(),
                entry["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        (moved, "moved", "src/p/B.java"),
        (retyped, "signature", "src/p/A.java"),
        (renamed, "renamed", "src/p/A.java"),
        (added, "added", "src/p/A.java"),
    ]
    .map(|(commit, change, path)| (commit, change.to_string(), path.to_string()));
    assert_eq!(found, expected);
    let first = &answer["commits"][0];
    assert_eq!(first["author"], "Test");
    assert!(first["date"].as_str().unwrap().contains('T'), "{first}");
    assert_eq!(first["summary"], "move it to B");

    let limited = run(
        repo.path(),
        &[
            "history",
            "p.B#doubled(long)",
            "--limit",
            "2",
            "--store",
            store_arg,
        ],
    )
    .ok();
    assert_eq!(
        limited.lines().count(),
        3,
        "the element and two commits: {limited}"
    );
}

#[test]
fn the_query_stage_history_answers_the_same_commits() {
    let (repo, store, commits) = indexed_history();
    let store_arg = store.path().to_str().unwrap();
    let by_command = history(&repo, store_arg, "p.Ledger#m2(int)");
    let query = |text: &str| query_json(&repo, store_arg, &[text]);
    let answer = query("p.Ledger#m2(int) | history");
    let histories = answer["histories"].as_array().unwrap();
    assert_eq!(histories.len(), 1);
    assert_eq!(histories[0]["commits"], by_command["commits"]);
    let limited = query("methods m* in p | history 1");
    for history in limited["histories"].as_array().unwrap() {
        assert_eq!(history["commits"].as_array().unwrap().len(), 1, "{history}");
    }
    assert!(commits.len() > 40);

    let misplaced = run(
        repo.path(),
        &[
            "query",
            "--store",
            store_arg,
            "p.Ledger#m2(int) | history | count",
        ],
    );
    assert!(
        misplaced.stderr().contains("history comes last"),
        "{}",
        misplaced.stderr()
    );
}

#[test]
fn a_history_comes_a_page_at_a_time() {
    let (repo, store, _) = indexed_history();
    let store_arg = store.path().to_str().unwrap();
    // The method changed most often, and another one.
    let answer = query_json(&repo, store_arg, &["methods m* in p | history"]);
    let mut histories: Vec<(usize, String)> = answer["histories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let id = h["id"].as_str().unwrap().to_string();
            (h["commits"].as_array().unwrap().len(), id)
        })
        .collect();
    histories.sort();
    let (_, element) = histories.pop().unwrap();
    let (_, other) = histories.pop().unwrap();
    let element = element.as_str();
    let whole = commits_of(&history(&repo, store_arg, element));
    assert!(whole.len() >= 4, "{whole:?}");
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec!["history", element, "--json", "--limit", "2"];
        args.extend(["--store", store_arg]);
        if let Some(cursor) = &cursor {
            args.extend(["--cursor", cursor.as_str()]);
        }
        let answer: Value = serde_json::from_str(&run(repo.path(), &args).ok()).unwrap();
        assert_eq!(answer["total"], whole.len(), "{answer}");
        let page = commits_of(&answer);
        assert!(!page.is_empty() && page.len() <= 2, "{answer}");
        pages.extend(page);
        match answer["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, whole, "the pages cover the history once, in order");

    // A cursor is refused for another element's history.
    let first: Value = serde_json::from_str(
        &run(
            repo.path(),
            &[
                "history", element, "--json", "--limit", "1", "--store", store_arg,
            ],
        )
        .ok(),
    )
    .unwrap();
    let cursor = first["next_cursor"].as_str().unwrap();
    let refused = run(
        repo.path(),
        &[
            "history", &other, "--limit", "1", "--cursor", cursor, "--store", store_arg,
        ],
    );
    assert!(
        refused
            .stderr()
            .contains("another query, revision or store"),
        "{}",
        refused.stderr()
    );
}

#[test]
fn a_paged_query_walks_the_histories_of_its_page_only() {
    let (repo, store, _) = indexed_history();
    let store_arg = store.path().to_str().unwrap();
    let answer = query_json(
        &repo,
        store_arg,
        &["--limit", "2", "methods m* in p | history 1"],
    );
    let shown: Vec<&str> = answer["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap())
        .collect();
    let walked: Vec<&str> = answer["histories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|history| history["id"].as_str().unwrap())
        .collect();
    assert_eq!(shown.len(), 2);
    assert_eq!(walked, shown);
    assert!(answer["total"].as_u64().unwrap() > 2, "{answer}");
}
