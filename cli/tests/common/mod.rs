//! Helpers shared by the CLI tests: a fresh temporary repository per test and
//! a runner that shows the command and its output on failure.

#![allow(dead_code, unused_imports)] // each test binary uses its own part

pub mod doc_examples;
pub mod oracle;
pub mod scip;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use refscope_test_support::TestRepo;
pub use refscope_test_support::paths::workspace_root;

/// The `refscope` binary under test. It reads the stub JDK
/// ([`refscope_test_support::jdk_stub_home`]) whatever JDK the machine has,
/// unless the test binary says it compares with javac, which sees the
/// installed JDK (`INSTALLED_JDK` in its `main.rs`).
pub fn refscope() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_refscope"));
    if !crate::INSTALLED_JDK {
        command.env("JAVA_HOME", refscope_test_support::jdk_stub_home());
    }
    // Hermetic: dependency jars are looked up in no directory of this
    // machine unless a test names one (--maven-repo).
    command.env(
        "REFSCOPE_MAVEN_REPOS",
        workspace_root().join("target/no-maven-repo"),
    );
    command
}

/// Runs a command, returning its output; the command line is kept for
/// failure messages.
pub struct Run {
    pub line: String,
    pub output: Output,
}

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// Asserts success and returns stdout.
    pub fn ok(&self) -> String {
        assert!(
            self.output.status.success(),
            "`{}` failed ({:?})\n--- stdout\n{}\n--- stderr\n{}",
            self.line,
            self.output.status,
            self.stdout(),
            self.stderr()
        );
        self.stdout()
    }

    /// Asserts failure with `code` and returns stderr.
    pub fn fails_with(&self, code: i32) -> String {
        assert_eq!(
            self.code(),
            Some(code),
            "`{}` should exit {code}\n--- stdout\n{}\n--- stderr\n{}",
            self.line,
            self.stdout(),
            self.stderr()
        );
        self.stderr()
    }
}

/// Runs `refscope ARGS` in `cwd`.
pub fn run(cwd: &Path, args: &[&str]) -> Run {
    let output = refscope().current_dir(cwd).args(args).output().unwrap();
    Run {
        line: format!("refscope {}", args.join(" ")),
        output,
    }
}

/// Runs `command` (`what` names it) to completion; its output. Panics
/// with what it printed on standard error when it fails.
pub fn run_ok(what: &str, command: &mut Command) -> std::process::Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    assert!(
        output.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Fetches a Debian source package with `corpora/fetch` and returns its
/// directory; panics with fetch's messages when that fails.
pub fn fetch_corpus(name: &str) -> PathBuf {
    let mut fetch = Command::new("bash");
    fetch.arg(workspace_root().join("corpora/fetch")).arg(name);
    let fetched = run_ok(&format!("corpora/fetch {name}"), &mut fetch);
    PathBuf::from(String::from_utf8(fetched.stdout).unwrap().trim())
}

/// The interpreter with the MCP SDK (`target/mcp-venv`, made by `.ci/run`,
/// or `REFSCOPE_MCP_PYTHON`), or a failure that says how to get one.
pub fn python_with_mcp() -> PathBuf {
    let python = std::env::var_os("REFSCOPE_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/mcp-venv/bin/python"));
    let install = "python3 -m venv target/mcp-venv && target/mcp-venv/bin/pip install 'mcp>=2.3,<2.4' (what .ci/run does), or set REFSCOPE_MCP_PYTHON to an interpreter that has it";
    let probe = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m, mcp; print(m.version('mcp'))",
        ])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {}: {e}; install it: {install}",
                python.display()
            )
        });
    let version = String::from_utf8_lossy(&probe.stdout).trim().to_string();
    assert!(
        probe.status.success() && version.starts_with("2.3"),
        "{} lacks the MCP SDK 2.3 (found '{version}'; {}); install it: {install}",
        python.display(),
        String::from_utf8_lossy(&probe.stderr).trim()
    );
    python
}

/// Runs the Python MCP client `crates/mcp-bridge/tests/python/SCRIPT` against the
/// `refscope` under test over `transport` (`stdio` or `http`) with `args`,
/// in `cwd`, and asserts it reports `ok: TRANSPORT`.
pub fn run_python_client(script: &str, transport: &str, args: &[&str], cwd: &Path) {
    let script_path = workspace_root()
        .join("crates/mcp-bridge/tests/python")
        .join(script);
    let output = Command::new(python_with_mcp())
        .arg(script_path)
        .args(["--refscope", env!("CARGO_BIN_EXE_refscope")])
        .args(["--transport", transport])
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the Python MCP client {script} failed over {transport}\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("ok: {transport}")
    );
}

/// `refscope export --decls --refs` of `rev` from `store`.
pub fn export_revision(repo: &Path, store: &Path, rev: &str) -> String {
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
pub fn export_from_scratch(repo: &Path, rev: &str) -> String {
    let store = tempfile::tempdir().unwrap();
    let store_arg = store.path().to_str().unwrap();
    run(repo, &["index", "--rev", rev, "--store", store_arg]).ok();
    export_revision(repo, store.path(), rev)
}

/// The `(N parsed, M resolved)` counts of an index summary line.
pub fn parsed_and_resolved(summary: &str) -> (u64, u64) {
    let counts = summary
        .split_once(" files (")
        .and_then(|(_, rest)| rest.split_once(" resolved)"))
        .map(|(counts, _)| counts.to_string())
        .unwrap_or_else(|| panic!("no counts in {summary:?}"));
    let (parsed, resolved) = counts.split_once(" parsed, ").unwrap();
    (parsed.parse().unwrap(), resolved.parse().unwrap())
}

/// Indexes `dir` as a plain directory (with `extra` index arguments) and
/// returns `export --decls --refs`.
pub fn export_of(dir: &Path, extra: &[&str]) -> String {
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    let store = store.to_str().unwrap();
    let dir = dir.to_str().unwrap();
    let mut index = vec!["index", "--files", dir, "--store", store];
    index.extend_from_slice(extra);
    run(work.path(), &index).ok();
    run(
        work.path(),
        &[
            "export", "--decls", "--refs", "--store", store, "--repo", dir,
        ],
    )
    .ok()
}

/// Fixture projects: folders of `corpora/fixtures` with a `src/main/java`.
pub fn fixture_projects() -> Vec<PathBuf> {
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

pub fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            java_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

/// Indexes directory `corpus` into `store` with the jars of `class_path`
/// (`:`-separated), from `cwd`.
pub fn index_with_class_path(cwd: &Path, corpus: &str, store: &str, class_path: &str) {
    run(
        cwd,
        &["index", corpus, "--store", store, "--classpath", class_path],
    )
    .ok();
}

/// Indexes the files of directory `project` into `store`.
pub fn index_files_into(project: &Path, store: &Path) {
    index_files_with(project, store, &[]);
}

/// [`index_files_into`] with more arguments for `index`.
pub fn index_files_with(project: &Path, store: &Path, more: &[&str]) {
    let mut args = vec![
        "index",
        "--files",
        project.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    run(&std::env::temp_dir(), &args).ok();
}

/// Runs `git ARGS` in `repo` (the git command, as a user would: checkouts
/// and commits that a watcher sees), quietly; panics if it fails.
pub fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(repo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Two classes of package `p`: `Stock#take(String, int)` and a `Shop`
/// whose `order(Stock)` calls it; the tests' smallest repository.
pub const STOCK: &str = "package p;
public class Stock {
    public int take(String item, int n) {
        return n;
    }
}
";

/// See [`STOCK`].
pub const SHOP: &str = "package p;
public class Shop {
    int order(Stock stock) {
        return stock.take(\"tea\", 1);
    }
}
";
