//! Incremental indexing: commits indexed after their parents must answer
//! exactly what a from-scratch index of the same commit answers, while
//! resolving only the files whose resolution can change.

mod common;

use std::path::Path;

use common::{TestRepo, run};

const SHOP: &str = "package p;
public class Shop {
    private final Stock stock = new Stock();

    public int order(String item, int n) {
        return stock.take(item, n);
    }
}
";

const STOCK: &str = "package p;
public class Stock {
    public int take(String item, int n) {
        return n;
    }

    public int left(String item) {
        return 0;
    }
}
";

/// `Stock` with a longer body in `take`: `left` moves down two lines.
const STOCK_LONGER_BODY: &str = "package p;
public class Stock {
    public int take(String item, int n) {
        int asked = n;
        java.util.Objects.requireNonNull(item);
        return asked;
    }

    public int left(String item) {
        return 0;
    }
}
";

const REPORT: &str = "package p;
class Report {
    String show(Stock stock) {
        return \"left: \" + stock.left(\"tea\");
    }
}
";

/// `refscope export --decls --refs` of `rev` from `store`.
fn export(repo: &Path, store: &Path, rev: &str) -> String {
    run(
        repo,
        &[
            "export",
            "--decls",
            "--refs",
            "--rev",
            rev,
            "--store",
            store.to_str().unwrap(),
        ],
    )
    .ok()
}

/// Indexes `rev` into a fresh store and exports it.
fn export_from_scratch(repo: &Path, rev: &str) -> String {
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(repo, &["index", "--rev", rev, "--store", store_arg]).ok();
    export(repo, store.path(), rev)
}

/// The `(N parsed, M resolved)` counts of an index summary line.
fn parsed_and_resolved(summary: &str) -> (u64, u64) {
    let counts = summary
        .split_once(" files (")
        .and_then(|(_, rest)| rest.split_once(" resolved)"))
        .map(|(counts, _)| counts.to_string())
        .unwrap_or_else(|| panic!("no counts in {summary:?}"));
    let (parsed, resolved) = counts.split_once(" parsed, ").unwrap();
    (parsed.parse().unwrap(), resolved.parse().unwrap())
}

#[test]
fn a_body_edit_resolves_only_the_edited_file_and_moves_lines_elsewhere() {
    let repo = TestRepo::new();
    let first = repo.commit(
        &[
            ("src/p/Shop.java", SHOP),
            ("src/p/Stock.java", STOCK),
            ("src/p/Report.java", REPORT),
        ],
        "three files",
    );
    let second = repo.commit(&[("src/p/Stock.java", STOCK_LONGER_BODY)], "longer take");
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();

    let summary = run(
        repo.path(),
        &["index", "--rev", &first, "--store", store_arg],
    )
    .ok();
    assert_eq!(parsed_and_resolved(&summary), (3, 3), "{summary}");
    let summary = run(
        repo.path(),
        &["index", "--rev", &second, "--store", store_arg],
    )
    .ok();
    assert_eq!(parsed_and_resolved(&summary), (1, 1), "{summary}");

    // Report was not resolved again, yet its call of `left` points at the
    // line `left` moved to.
    let exported = export(repo.path(), store.path(), &second);
    let call_of_left = exported
        .lines()
        .find(|line| line.contains("\"name\":\"left\"") && line.contains("\"t\":\"ref\""))
        .expect("the call of left is exported");
    assert!(
        call_of_left.contains("\"decl_file\":\"src/p/Stock.java\",\"decl_line\":9"),
        "{call_of_left}"
    );
    assert_eq!(exported, export_from_scratch(repo.path(), &second));
    assert_eq!(
        export(repo.path(), store.path(), &first),
        export_from_scratch(repo.path(), &first)
    );
}

/// A class no other file of the tests uses, and that uses none of them.
const CLOCK: &str = "package p;
class Clock {
    long now() {
        return System.currentTimeMillis();
    }
}
";

#[test]
fn a_signature_change_resolves_the_files_that_see_it() {
    let repo = TestRepo::new();
    let first = repo.commit(
        &[
            ("src/p/Shop.java", SHOP),
            ("src/p/Stock.java", STOCK),
            ("src/p/Report.java", REPORT),
            ("src/p/Clock.java", CLOCK),
        ],
        "four files",
    );
    let second = repo.commit(
        &[(
            "src/p/Stock.java",
            &STOCK.replace(
                "int take(String item, int n)",
                "long take(String item, int n)",
            ),
        )],
        "take returns long",
    );
    // A new class in the package: files that looked its name up (none
    // here) and files it uses change; Clock does not.
    let third = repo.commit(
        &[(
            "src/q/Audit.java",
            "package q;\nclass Audit {\n    int check(p.Stock stock) { return stock.left(\"x\"); }\n}\n",
        )],
        "audit",
    );
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(
        repo.path(),
        &["index", "--rev", &first, "--store", store_arg],
    )
    .ok();
    let summary = run(
        repo.path(),
        &["index", "--rev", &second, "--store", store_arg],
    )
    .ok();
    // Stock itself, and Shop and Report, which look Stock up; not Clock.
    assert_eq!(parsed_and_resolved(&summary), (1, 3), "{summary}");
    let summary = run(
        repo.path(),
        &["index", "--rev", &third, "--store", store_arg],
    )
    .ok();
    // Only the new file: nothing else looked up q.Audit.
    assert_eq!(parsed_and_resolved(&summary), (1, 1), "{summary}");
    for commit in [&first, &second, &third] {
        assert_eq!(
            export(repo.path(), store.path(), commit),
            export_from_scratch(repo.path(), commit),
            "commit {commit}"
        );
    }
}

#[test]
fn a_range_indexes_first_parent_commits_oldest_first_and_resumes() {
    let repo = TestRepo::new();
    let first = repo.commit(&[("src/p/Stock.java", STOCK)], "stock");
    let second = repo.commit(&[("src/p/Shop.java", SHOP)], "shop");
    let third = repo.commit(&[("src/p/Report.java", REPORT)], "report");
    let fourth = repo.commit(&[("src/p/Stock.java", STOCK_LONGER_BODY)], "longer take");
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();

    let out = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &format!("{first}..{third}"),
            "--store",
            store_arg,
        ],
    )
    .ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with(&format!("[1/2] {}", &second[..19])),
        "{out}"
    );
    assert!(
        lines[1].starts_with(&format!("[2/2] {}", &third[..19])),
        "{out}"
    );

    // --branch picks up what is missing: the root commit and the newest.
    let branch = repo.repo.head().unwrap().shorthand().unwrap().to_string();
    let out = run(
        repo.path(),
        &["index", "--branch", &branch, "--store", store_arg],
    )
    .ok();
    assert!(
        out.contains(&first[..19]) && out.contains(&fourth[..19]),
        "{out}"
    );
    assert!(
        !out.contains(&second[..19]) && !out.contains(&third[..19]),
        "{out}"
    );
    let out = run(
        repo.path(),
        &["index", "--branch", &branch, "--store", store_arg],
    )
    .ok();
    assert!(out.starts_with("nothing to index"), "{out}");
    let revisions = run(repo.path(), &["revisions", "--store", store_arg]).ok();
    for commit in [&first, &second, &third, &fourth] {
        assert!(revisions.contains(&commit[..10]), "{commit} in {revisions}");
    }
    for commit in [&first, &second, &third, &fourth] {
        assert_eq!(
            export(repo.path(), store.path(), commit),
            export_from_scratch(repo.path(), commit),
            "commit {commit}"
        );
    }
}

#[test]
fn ranges_that_cannot_be_walked_are_refused() {
    let repo = TestRepo::new();
    let first = repo.commit(&[("src/p/Stock.java", STOCK)], "stock");
    let second = repo.commit(&[("src/p/Shop.java", SHOP)], "shop");
    // An unrelated history: an orphan commit.
    let tree = repo.repo.head().unwrap().peel_to_tree().unwrap();
    let signature = git2::Signature::now("Test", "test@example.com").unwrap();
    let orphan = repo
        .repo
        .commit(None, &signature, &signature, "orphan", &tree, &[])
        .unwrap()
        .to_string();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();

    let error = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &format!("{orphan}..{second}"),
            "--store",
            store_arg,
        ],
    )
    .fails_with(1);
    assert!(error.contains("share no history"), "{error}");
    let error = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &format!("{first}..nonesuch"),
            "--store",
            store_arg,
        ],
    )
    .fails_with(1);
    assert!(error.contains("'nonesuch' not found"), "{error}");
    let error = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &format!("..{second}"),
            "--store",
            store_arg,
        ],
    )
    .fails_with(2);
    assert!(error.contains("a range is A..B"), "{error}");
    // A range going backwards holds nothing to index.
    let out = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &format!("{second}..{first}"),
            "--store",
            store_arg,
        ],
    )
    .ok();
    assert!(out.starts_with("nothing to index"), "{out}");
}

/// The equality test: a 50-commit history generated from real code
/// (commons-lang3's main sources, with body edits, signature changes of
/// widely used methods, files added, deleted, renamed and moved between
/// packages) indexed commit after commit into one store exports, for every
/// commit, exactly what a from-scratch index of that commit exports.
#[test]
fn every_commit_of_a_generated_history_exports_as_from_scratch() {
    let corpus = common::fetch_corpus("libcommons-lang3-java").join("src/main/java");
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    let generated = std::process::Command::new("python3")
        .arg(common::workspace_root().join("corpora/make-history"))
        .args(["--corpus", corpus.to_str().unwrap()])
        .args(["--out", repo.to_str().unwrap()])
        .args(["--commits", "50", "--seed", "11"])
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "corpora/make-history failed:\n{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let log = std::process::Command::new("git")
        .args(["log", "--first-parent", "--reverse", "--format=%H %s"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let commits: Vec<(String, String)> = String::from_utf8(log.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (id, subject) = line.split_once(' ').unwrap();
            (id.to_string(), subject.to_string())
        })
        .collect();
    assert_eq!(commits.len(), 51, "{commits:?}");

    let store = work.path().join("store");
    let store_arg = store.to_str().unwrap();
    let out = run(&repo, &["index", "--branch", "HEAD", "--store", store_arg]).ok();
    let summaries: Vec<&str> = out.lines().collect();
    assert_eq!(summaries.len(), 51, "{out}");
    let mut n_body_only = 0;
    for ((commit, subject), summary) in commits.iter().zip(&summaries) {
        assert!(summary.contains(&commit[..19]), "{summary} for {commit}");
        // A commit that edits bodies only resolves only the files it edits.
        if subject.starts_with("Edit ") {
            let (parsed, resolved) = parsed_and_resolved(summary);
            assert_eq!(parsed, resolved, "{subject}: {summary}");
            n_body_only += 1;
        }
        assert_eq!(
            export(&repo, &store, commit),
            export_from_scratch(&repo, commit),
            "commit {commit} ({subject}): the incremental index differs from a fresh one"
        );
    }
    assert!(n_body_only >= 10, "only {n_body_only} body-edit commits");
}
