//! Runs the shell examples of the README and the `docs/` pages in bash
//! sessions and compares what they print with the pages: the harness of
//! `it/doc_examples.rs`, whose module documentation states the rules, and
//! of `full/doc_examples.rs`, which runs the examples that need javac.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::workspace_root;

/// Where a page's session starts.
#[derive(Clone, Copy)]
pub enum Setup {
    /// An empty directory.
    Fresh,
    /// After the code-context example (`docs/code-context.md#an-example`,
    /// its first shell block), which the page must link to.
    ContextExample,
    /// After a command, which the page must quote.
    Command(&'static str),
}

const CONTEXT_PAGE: &str = "docs/code-context.md";
const CONTEXT_HEADING: &str = "### An example";

/// How long one page's session may take before it is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Commands this test never runs: a block using one must carry the not-run
/// marker.
const NEVER_RUN: &[&str] = &[
    "cargo", "javac", "java", "python", "python3", "pip", "apt", "apt-get", "sudo", "curl", "wget",
];
/// Repository scripts this test never runs (javac, Python, downloads).
const NEVER_RUN_SCRIPTS: &[&str] = &[
    "oracle/",
    "corpora/fetch",
    "corpora/score-refs",
    "corpora/make-history",
];

/// How the README runs refscope before it is installed.
const CARGO_RUN: &str = "cargo run --release -q -p refscope-cli --";

/// One ```` ```sh ```` block of a page.
struct Block {
    /// Where it comes from, for messages: `page:line` of its opening fence.
    page: String,
    line: usize,
    code: Vec<String>,
    /// The output block after it: the line of its first line, and its lines.
    shown: Option<(usize, Vec<String>)>,
    /// The reason of its not-run marker.
    not_run: Option<String>,
    /// The page it sets up, when it is run before another page's blocks.
    setting_up: Option<&'static str>,
}

impl Block {
    fn at(&self) -> String {
        match self.setting_up {
            None => format!("{}:{}", self.page, self.line),
            Some(page) => format!(
                "{}:{} (run before the blocks of {page})",
                self.page, self.line
            ),
        }
    }
}

/// The shell blocks of a page; malformed markers go to `problems`.
fn blocks(page: &str, text: &str, problems: &mut Vec<String>) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let close_of = |open: usize| {
        (open + 1..lines.len())
            .find(|&j| lines[j] == "```")
            .unwrap_or(lines.len())
    };
    let mut out = Vec::new();
    let mut marker: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.trim().strip_prefix("<!-- example:") {
            let reason = rest
                .strip_suffix("-->")
                .map(str::trim)
                .and_then(|r| r.strip_prefix("not run ("))
                .and_then(|r| r.strip_suffix(')'))
                .filter(|r| !r.trim().is_empty());
            match reason {
                Some(reason) => marker = Some(reason.to_string()),
                None => problems.push(format!(
                    "{page}:{}: `{line}` is no marker; the one marker is `<!-- example: not run (REASON) -->`",
                    i + 1
                )),
            }
            if lines.get(i + 1) != Some(&"```sh") {
                problems.push(format!(
                    "{page}:{}: the marker stands before no ```sh block",
                    i + 1
                ));
                marker = None;
            }
            i += 1;
            continue;
        }
        let Some(tag) = line.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let close = close_of(i);
        if tag != "sh" {
            i = close + 1;
            continue;
        }
        let mut next = close + 1;
        while lines.get(next).is_some_and(|l| l.trim().is_empty()) {
            next += 1;
        }
        let shown = if lines.get(next) == Some(&"```") {
            let end = close_of(next);
            let shown = lines[next + 1..end].iter().map(|l| l.to_string()).collect();
            let first = next + 2;
            next = end + 1;
            Some((first, shown))
        } else {
            next = close + 1;
            None
        };
        out.push(Block {
            page: page.to_string(),
            line: i + 1,
            code: lines[i + 1..close].iter().map(|l| l.to_string()).collect(),
            shown,
            not_run: marker.take(),
            setting_up: None,
        });
        i = next;
    }
    out
}

/// What in `code` this test never runs, if anything.
fn never_run(code: &str) -> Option<String> {
    let code = code.replace(CARGO_RUN, "refscope");
    let words = code.split(|c: char| c.is_whitespace() || ";|&()$\"'`".contains(c));
    for word in words {
        if NEVER_RUN.contains(&word) {
            return Some(word.to_string());
        }
        if let Some(script) = NEVER_RUN_SCRIPTS.iter().find(|s| word.starts_with(**s)) {
            return Some(script.to_string());
        }
    }
    None
}

/// The command as the session runs it (see the module's substitutions):
/// `paths` maps each path as the pages write it to the session's.
fn substitute(code: &str, paths: &[(&str, String)]) -> String {
    let mut code = code.replace(CARGO_RUN, "refscope");
    let path_char = |c: char| c.is_alphanumeric() || "_./-".contains(c);
    for (from, to) in paths {
        let mut out = String::new();
        let mut rest = code.as_str();
        while let Some(at) = rest.find(from) {
            let end = at + from.len();
            out.push_str(&rest[..at]);
            let before = out.chars().next_back();
            // `/tmp` ends a path or a directory name; `corpora/` starts one.
            let after = rest[end..].chars().next();
            let whole = !before.is_some_and(path_char)
                && (from.ends_with('/') || !after.is_some_and(|c| c != '/' && path_char(c)));
            out.push_str(if whole { to } else { from });
            rest = &rest[end..];
        }
        out.push_str(rest);
        code = out;
    }
    code
}

/// The expected exit code a line states (`# exit N`), if any.
fn stated_exit(line: &str) -> Option<i32> {
    let (_, comment) = line.split_once("# exit ")?;
    let digits: String = comment.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// One line with commit ids, times and sizes normalised (see the module).
pub fn normalise(line: &str) -> String {
    let chars: Vec<char> = line.trim_end().chars().collect();
    let alnum = |k: usize| chars.get(k).is_some_and(|c| c.is_alphanumeric());
    let mut out = String::new();
    let mut k = 0;
    while k < chars.len() {
        let starts_word = k == 0 || !alnum(k - 1);
        let token = if starts_word {
            token_at(&chars, k)
        } else {
            None
        };
        match token {
            Some((name, end)) => {
                out.push_str(name);
                k = end;
                if chars.get(k) == Some(&' ') {
                    out.push(' ');
                    while chars.get(k) == Some(&' ') {
                        k += 1;
                    }
                }
            }
            None => {
                out.push(chars[k]);
                k += 1;
            }
        }
    }
    out
}

/// The normalised token starting at `k`, and where it ends.
fn token_at(chars: &[char], k: usize) -> Option<(&'static str, usize)> {
    let alnum = |j: usize| chars.get(j).is_some_and(|c| c.is_alphanumeric());
    let run = |from: usize, f: fn(&char) -> bool| {
        (from..chars.len())
            .find(|&j| !f(&chars[j]))
            .unwrap_or(chars.len())
    };
    let hex_end = run(k, |c| c.is_ascii_digit() || ('a'..='f').contains(c));
    if hex_end - k >= 7 && !alnum(hex_end) {
        return Some(("<hex>", hex_end));
    }
    let mut end = run(k, char::is_ascii_digit);
    if end == k {
        return None;
    }
    if chars.get(end) == Some(&'.') && chars.get(end + 1).is_some_and(char::is_ascii_digit) {
        end = run(end + 1, char::is_ascii_digit);
    }
    if chars.get(end) != Some(&' ') {
        return None;
    }
    for (unit, name) in [
        ("s", "<time>"),
        ("ms", "<time>"),
        ("B", "<size>"),
        ("KiB", "<size>"),
        ("MiB", "<size>"),
        ("GiB", "<size>"),
    ] {
        let unit_end = end + 1 + unit.len();
        let matches = chars.len() >= unit_end
            && chars[end + 1..unit_end].iter().copied().eq(unit.chars())
            && !alnum(unit_end);
        if matches {
            return Some((name, unit_end));
        }
    }
    None
}

/// Compares the shown lines (with `...`) with the printed ones; `None` when
/// they match, else a diff (`-` shown, `+` printed).
pub fn diff(shown: &[String], printed: &[String]) -> Option<String> {
    let wildcard = |i: usize| shown[i].trim() == "...";
    let (n, m) = (shown.len(), printed.len());
    // cost[i][j]: the fewest unmatched lines aligning shown[i..] with printed[j..].
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            cost[i][j] = if i == n {
                m - j
            } else if wildcard(i) {
                let skip = cost[i + 1][j];
                if j < m {
                    skip.min(cost[i][j + 1])
                } else {
                    skip
                }
            } else {
                let mut best = 1 + cost[i + 1][j];
                if j < m {
                    best = best.min(1 + cost[i][j + 1]);
                    if shown[i] == printed[j] {
                        best = best.min(cost[i + 1][j + 1]);
                    }
                }
                best
            };
        }
    }
    if cost[0][0] == 0 {
        return None;
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && wildcard(i) {
            if j < m && cost[i][j + 1] == cost[i][j] {
                j += 1;
            } else {
                let _ = writeln!(out, "  {}", shown[i]);
                i += 1;
            }
        } else if i < n && j < m && shown[i] == printed[j] && cost[i + 1][j + 1] == cost[i][j] {
            let _ = writeln!(out, "  {}", shown[i]);
            i += 1;
            j += 1;
        } else if i < n && 1 + cost[i + 1][j] == cost[i][j] {
            let _ = writeln!(out, "- {}", shown[i]);
            i += 1;
        } else {
            let _ = writeln!(out, "+ {}", printed[j]);
            j += 1;
        }
    }
    Some(out)
}

/// One page's session: a temporary directory laid out as the module says.
struct Session {
    root: tempfile::TempDir,
}

impl Session {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        for dir in ["work", "repo", "home", "tmp", "bin", "out"] {
            std::fs::create_dir(root.path().join(dir)).unwrap();
        }
        copy_dir(
            &workspace_root().join("corpora/fixtures"),
            &root.path().join("repo/corpora/fixtures"),
        );
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_refscope"),
            root.path().join("bin/refscope"),
        )
        .unwrap();
        Self { root }
    }

    /// The session's directory, as the shell spells it.
    fn dir(&self) -> PathBuf {
        self.root.path().canonicalize().unwrap()
    }

    /// The paths the pages write, and where they are in the session.
    fn paths(&self) -> Vec<(&'static str, String)> {
        let dir = self.dir();
        let at = |p: &str| dir.join(p).to_str().unwrap().to_string();
        let oracle = workspace_root().join("oracle/");
        vec![
            ("/tmp", at("tmp")),
            ("corpora/", at("repo/corpora") + "/"),
            ("oracle/", oracle.to_str().unwrap().to_string()),
        ]
    }

    /// Runs `blocks` in one bash session; per block, its output (`None` when
    /// the session never reached it) and the failed commands as (line of the
    /// block's code, exit code); or the reason the session was killed.
    #[allow(clippy::type_complexity)]
    fn run(&self, blocks: &[&Block]) -> Result<Vec<(Option<String>, Vec<(usize, i32)>)>, String> {
        let dir = self.dir();
        let out = dir.join("out");
        let failed = out.join("failed");
        let mut script = String::from("set -o pipefail\n");
        let _ = writeln!(
            script,
            "trap '__status=$?; printf \"%s %s\\n\" \"$LINENO\" \"$__status\" >>\"{}\"' ERR",
            failed.display()
        );
        // The script line of each block's first line of code.
        let paths = self.paths();
        let mut starts = Vec::new();
        for (n, block) in blocks.iter().enumerate() {
            let _ = writeln!(script, "exec >\"{}/{n}\" 2>&1 </dev/null", out.display());
            starts.push(script.lines().count() + 1);
            for line in &block.code {
                script.push_str(&substitute(line, &paths));
                script.push('\n');
            }
        }
        let _ = writeln!(script, "exec >\"{}/end\" 2>&1", out.display());
        std::fs::write(dir.join("session.sh"), &script).unwrap();

        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut search = vec![dir.join("bin")];
        search.extend(std::env::split_paths(&path));
        let mut bash = Command::new("bash");
        if !crate::INSTALLED_JDK {
            // Of the machine's environment only `PATH`: no JDK, no settings.
            bash.env_clear()
                .env("HOME", dir.join("home"))
                .env("JAVA_HOME", refscope_test_support::jdk_stub_home());
        }
        bash.arg(dir.join("session.sh"))
            .current_dir(dir.join("work"))
            .env("PATH", std::env::join_paths(search).unwrap())
            .env("TMPDIR", dir.join("tmp"))
            .env("LC_ALL", "C")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "init.defaultBranch")
            .env("GIT_CONFIG_VALUE_0", "master")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for who in ["AUTHOR", "COMMITTER"] {
            bash.env(format!("GIT_{who}_NAME"), "Doc Example")
                .env(format!("GIT_{who}_EMAIL"), "doc@example.com");
        }
        std::os::unix::process::CommandExt::process_group(&mut bash, 0);
        let mut child = bash.spawn().expect("bash runs the examples");
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > TIMEOUT {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.wait();
                let running = (0..blocks.len())
                    .rev()
                    .find(|n| out.join(n.to_string()).exists());
                return Err(format!(
                    "killed after {TIMEOUT:?}, running the block at {} (a server? mark it not run)",
                    running.map_or("the start".into(), |n| blocks[n].at())
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let failures: Vec<(usize, i32)> = std::fs::read_to_string(&failed)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (line, code) = l.split_once(' ')?;
                Some((line.parse().ok()?, code.parse().ok()?))
            })
            .collect();
        let mut results = Vec::new();
        for (n, block) in blocks.iter().enumerate() {
            let output = std::fs::read(out.join(n.to_string())).ok().map(|bytes| {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                paths
                    .iter()
                    .fold(text, |text, (from, to)| text.replace(to.as_str(), from))
            });
            let (start, end) = (starts[n], starts[n] + block.code.len());
            let failed = failures
                .iter()
                .filter(|(line, _)| (start..end).contains(line))
                .map(|&(line, code)| (line - start, code))
                .collect();
            results.push((output, failed));
        }
        Ok(results)
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The blocks a page's session runs before its own.
fn setup_blocks(
    page: &'static str,
    text: &str,
    setup: Setup,
    problems: &mut Vec<String>,
) -> Vec<Block> {
    match setup {
        Setup::Fresh => Vec::new(),
        Setup::ContextExample => {
            if !text.contains("code-context.md#an-example") {
                problems.push(format!(
                    "{page} starts from the code-context example but does not link to it"
                ));
            }
            let context = std::fs::read_to_string(workspace_root().join(CONTEXT_PAGE)).unwrap();
            let heading = context
                .lines()
                .position(|l| l == CONTEXT_HEADING)
                .unwrap_or_else(|| panic!("{CONTEXT_PAGE} has no `{CONTEXT_HEADING}`"));
            let block = blocks(CONTEXT_PAGE, &context, &mut Vec::new())
                .into_iter()
                .find(|b| b.line > heading)
                .unwrap_or_else(|| {
                    panic!("{CONTEXT_PAGE} has no example under `{CONTEXT_HEADING}`")
                });
            vec![Block {
                shown: None,
                setting_up: Some(page),
                ..block
            }]
        }
        Setup::Command(command) => {
            let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            if !words(text).contains(&words(command)) {
                problems.push(format!(
                    "{page} starts after `{command}`, which it does not quote"
                ));
            }
            let start = command
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ");
            let line = text
                .lines()
                .position(|l| l.contains(&start))
                .map_or(0, |i| i + 1);
            vec![Block {
                page: page.to_string(),
                line,
                code: vec![command.to_string()],
                shown: None,
                not_run: None,
                setting_up: Some(page),
            }]
        }
    }
}

/// Checks one block's run; appends what is wrong to `problems`.
fn check(
    block: &Block,
    output: Option<String>,
    failed: &[(usize, i32)],
    problems: &mut Vec<String>,
) {
    let Some(output) = output else {
        problems.push(format!(
            "{}: the session never reached this block",
            block.at()
        ));
        return;
    };
    let mut wrong = Vec::new();
    for (k, code_line) in block.code.iter().enumerate() {
        let exit = failed
            .iter()
            .find(|(line, _)| *line == k)
            .map(|&(_, code)| code);
        match (stated_exit(code_line), exit) {
            (None, None) => {}
            (Some(stated), Some(code)) if stated == code => {}
            (stated, code) => wrong.push(format!(
                "  line {}: `{code_line}` exits {}, expected {}",
                block.line + 1 + k,
                code.unwrap_or(0),
                stated.unwrap_or(0)
            )),
        }
    }
    if !wrong.is_empty() {
        problems.push(format!(
            "{}: commands exit as they should not:\n{}\n--- the block printed:\n{output}",
            block.at(),
            wrong.join("\n")
        ));
    }
    if let Some((first, shown)) = &block.shown {
        let shown: Vec<String> = shown.iter().map(|l| normalise(l)).collect();
        let printed: Vec<String> = output.lines().map(normalise).collect();
        if let Some(diff) = diff(&shown, &printed) {
            problems.push(format!(
                "{}: the output differs from the one shown at {}:{first} (- shown, + printed, both normalised):\n{diff}",
                block.at(),
                block.page
            ));
        }
    }
}

/// What running pages found.
pub struct Outcome {
    /// One line per page: blocks run, compared, not run.
    pub summary: Vec<String>,
    /// Blocks run, not counting setups.
    pub run: usize,
    pub not_run: usize,
    /// Everything wrong, each with its page and line.
    pub problems: Vec<String>,
}

/// Runs the shell examples of `pages` (see `it/doc_examples.rs`); blocks
/// marked not run for one of the reasons `also_run` run too.
pub fn run_pages(pages: &[(&'static str, Setup)], also_run: &[&str]) -> Outcome {
    let mut outcome = Outcome {
        summary: Vec::new(),
        run: 0,
        not_run: 0,
        problems: Vec::new(),
    };
    let problems = &mut outcome.problems;
    for &(page, setup) in pages {
        let text = std::fs::read_to_string(workspace_root().join(page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        let blocks = blocks(page, &text, problems);
        if blocks.is_empty() {
            problems.push(format!("{page} has no ```sh block: drop it from the pages"));
        }
        let mut run: Vec<&Block> = Vec::new();
        let setup = setup_blocks(page, &text, setup, problems);
        run.extend(&setup);
        let mut not_run = 0;
        for block in &blocks {
            let reason = block.not_run.as_deref();
            match (reason, never_run(&block.code.join("\n"))) {
                (Some(reason), _) if also_run.contains(&reason) => run.push(block),
                (Some(_), _) => not_run += 1,
                (None, Some(word)) => problems.push(format!(
                    "{}: the block uses `{word}`, which this test does not run: mark it `<!-- example: not run (REASON) -->`",
                    block.at()
                )),
                (None, None) => run.push(block),
            }
        }
        let compared = run.iter().filter(|b| b.shown.is_some()).count();
        let own = run.len() - setup.len();
        outcome.summary.push(format!(
            "{page}: {own} blocks run ({compared} compared with their output), {not_run} marked not run"
        ));
        outcome.run += own;
        outcome.not_run += not_run;
        let session = Session::new();
        match session.run(&run) {
            Ok(results) => {
                for (block, (output, failed)) in run.iter().zip(results) {
                    check(block, output, &failed, problems);
                }
            }
            Err(killed) => problems.push(format!("{page}: {killed}")),
        }
    }
    outcome
}
