//! Leaving paths out of the index: `--include`/`--exclude` and the
//! `[index]` table of `refscope.toml`.

use crate::common::{TestRepo, run};

const APP: &str = "package app;
public class App {
    int run(lib.Lib lib) {
        return lib.value();
    }
}
";

const LIB: &str = "package lib;
public class Lib {
    public int value() {
        return 1;
    }
}
";

const LIB_CHANGED: &str = "package lib;
public class Lib {
    public int value() {
        return 2;
    }
}
";

const GENERATED: &str = "package app.gen;
public class Made {
}
";

fn summaries(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn excluded_trees_are_no_part_of_a_commit_and_their_changes_cost_nothing() {
    let repo = TestRepo::new();
    let first = repo.commit(
        &[
            ("src/app/App.java", APP),
            ("vendor/lib/Lib.java", LIB),
            ("src/app/gen/Made.java", GENERATED),
        ],
        "app, a vendored library, generated code",
    );
    let second = repo.commit(&[("vendor/lib/Lib.java", LIB_CHANGED)], "vendor drop");
    std::fs::write(
        repo.path().join("refscope.toml"),
        "[index]\nexclude = [\"**/gen/**\"]\n",
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let out = run(
        repo.path(),
        &[
            "index",
            "--rev",
            &first,
            "--rev",
            &second,
            "--exclude",
            "vendor/**",
            "--json",
            "--store",
            store_arg,
        ],
    )
    .ok();
    let first_two = summaries(&out);
    // Only App: the vendored tree (the option) and the generated one (the
    // file) are left out, and not listed as skipped either.
    assert_eq!(first_two[0]["files"], 1, "{out}");
    assert_eq!(first_two[0]["skipped"], 0, "{out}");
    // The second commit changes only the vendored tree: nothing to do.
    assert_eq!(first_two[1]["parent"], first.as_str(), "{out}");
    assert_eq!(first_two[1]["files"], 1, "{out}");
    assert_eq!(first_two[1]["parsed"], 0, "{out}");
    assert_eq!(first_two[1]["resolved"], 0, "{out}");

    // A commit indexed with other globs is not layered over these.
    let third = repo.commit(&[("src/app/App.java", &APP.replace("run", "go"))], "rename");
    let out = run(
        repo.path(),
        &["index", "--rev", &third, "--json", "--store", store_arg],
    )
    .ok();
    let third_alone = summaries(&out);
    assert!(third_alone[0]["parent"].is_null(), "{out}");
    // Without the option, the vendored library is indexed (the generated
    // code stays out: the file says so).
    assert_eq!(third_alone[0]["files"], 2, "{out}");
}

#[test]
fn includes_narrow_a_directorys_files_too() {
    let repo = TestRepo::new();
    repo.commit(
        &[("src/app/App.java", APP), ("vendor/lib/Lib.java", LIB)],
        "two trees",
    );
    let store = tempfile::tempdir().unwrap();
    let out = run(
        repo.path(),
        &[
            "index",
            "--files",
            "--include",
            "src/**",
            "--json",
            "--store",
            store.path().to_str().unwrap(),
        ],
    )
    .ok();
    assert_eq!(summaries(&out)[0]["files"], 1, "{out}");
}

#[test]
fn a_bad_glob_or_config_file_is_refused_with_one_line() {
    let repo = TestRepo::new();
    repo.commit(&[("src/app/App.java", APP)], "one file");
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    let error = run(
        repo.path(),
        &["index", "--exclude", "src/[a-", "--store", store_arg],
    )
    .fails_with(2);
    assert!(error.contains("src/[a-"), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
    std::fs::write(repo.path().join("refscope.toml"), "[index]\nexclude = 3\n").unwrap();
    let error = run(repo.path(), &["index", "--store", store_arg]).fails_with(2);
    assert!(error.contains("refscope.toml"), "{error}");
    assert!(error.contains("line 2"), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
}
