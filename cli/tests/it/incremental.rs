//! Incremental indexing: commits indexed after their parents must answer
//! exactly what a from-scratch index of the same commit answers, while
//! resolving only the files whose resolution can change.

use crate::common::{TestRepo, export_from_scratch, export_revision, parsed_and_resolved, run};

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
    let exported = export_revision(repo.path(), store.path(), &second);
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
        export_revision(repo.path(), store.path(), &first),
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
    // Stock itself, and Shop, which calls take; not Report, which looks
    // Stock up but never names take, nor Clock.
    assert_eq!(parsed_and_resolved(&summary), (1, 2), "{summary}");
    let summary = run(
        repo.path(),
        &["index", "--rev", &third, "--store", store_arg],
    )
    .ok();
    // Only the new file: nothing else looked up q.Audit.
    assert_eq!(parsed_and_resolved(&summary), (1, 1), "{summary}");
    for commit in [&first, &second, &third] {
        assert_eq!(
            export_revision(repo.path(), store.path(), commit),
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
            export_revision(repo.path(), store.path(), commit),
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
