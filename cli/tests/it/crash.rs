//! A run killed in the middle of indexing leaves every revision indexed
//! before it queryable, and the next run completes.

use std::time::Duration;

use crate::common::{TestRepo, refscope, run};

/// A generated Java file of some size, different per `n`.
pub(crate) fn generated_file(n: usize) -> String {
    let mut text = format!("package gen.p{};\n\npublic class C{n} {{\n", n % 40);
    for m in 0..40 {
        text.push_str(&format!(
            "    /** Method {m}. */\n    public int m{m}(int a, String b) {{\n        int x = a + {m};\n        return b.length() + x + helper{m}(x);\n    }}\n    private int helper{m}(int v) {{ return v * {n}; }}\n"
        ));
    }
    text.push_str("}\n");
    text
}

/// Commits 1,500 generated files (`gen/p{n % 40}/C{n}.java`); returns the
/// commit.
pub(crate) fn commit_generated_files(repo: &TestRepo) -> String {
    let files: Vec<(String, String)> = (0..1500)
        .map(|n| (format!("gen/p{}/C{n}.java", n % 40), generated_file(n)))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    repo.commit(&refs, "big")
}

#[test]
fn killed_index_keeps_previous_revisions() {
    let repo = TestRepo::new();
    let small = repo.commit(&[("Small.java", "class Small { void m() {} }\n")], "small");
    let cwd = repo.path();
    run(cwd, &["index"]).ok();

    // A large second revision.
    let big = commit_generated_files(&repo);

    let pack = cwd.join(".git/refscope/facts.pack");
    let committed = std::fs::metadata(&pack).unwrap().len();
    let mut child = refscope()
        .current_dir(cwd)
        .args(["index", "--jobs", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has written part of the new facts, before it commits.
    let mut waited = 0;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "the index finished ({status}) before it could be killed; make the input larger"
            );
        }
        let len = std::fs::metadata(&pack).map(|m| m.len()).unwrap_or(0);
        if len > committed + 64 * 1024 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
        waited += 1;
        assert!(waited < 60_000, "the index never started writing");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Only the first revision is there, and it answers.
    let revisions = run(cwd, &["revisions"]).ok();
    assert_eq!(revisions.lines().count(), 1, "{revisions}");
    assert!(revisions.starts_with(&small), "{revisions}");
    let answer = run(cwd, &["at", "Small.java:1", "--rev", &small]).ok();
    assert!(answer.contains("Small#m()"), "{answer}");
    let error = run(cwd, &["at", "Small.java:1", "--rev", &big]).fails_with(1);
    assert!(error.contains("not indexed"), "{error}");

    // The next run starts over and completes.
    let summary = run(cwd, &["index"]).ok();
    assert!(summary.contains("1501 files"), "{summary}");
    let answer = run(cwd, &["at", "gen/p7/C7.java:6"]).ok();
    assert!(
        answer.contains("gen.p7.C7#m0(int,java.lang.String)"),
        "{answer}"
    );
}

#[test]
fn killed_resolution_keeps_the_parsed_files() {
    let repo = TestRepo::new();
    commit_generated_files(&repo);
    let cwd = repo.path();

    // Kill it as soon as the parse phase is over: its timing line is
    // printed when the next phase starts, after the parsed files commit.
    let mut child = refscope()
        .current_dir(cwd)
        .args(["index", "--jobs", "2", "--timings"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    for line in std::io::BufRead::lines(stderr) {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("phase parse:") {
            break;
        }
    }
    assert!(seen.contains("phase parse:"), "{seen}");
    if let Some(status) = child.try_wait().unwrap() {
        panic!("the index finished ({status}) before it could be killed; make the input larger");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Nothing is visible yet, and the next run parses nothing again.
    let revisions = run(cwd, &["revisions"]).ok();
    assert_eq!(revisions.lines().count(), 0, "{revisions}");
    let summary = run(cwd, &["index"]).ok();
    assert!(summary.contains("1500 files (0 parsed"), "{summary}");
    let answer = run(cwd, &["at", "gen/p7/C7.java:6"]).ok();
    assert!(
        answer.contains("gen.p7.C7#m0(int,java.lang.String)"),
        "{answer}"
    );
}
