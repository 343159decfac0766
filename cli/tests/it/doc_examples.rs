//! Every shell example of the README and of the `docs/` pages runs here, as
//! a reader would run it, and must print what the page shows.
//!
//! **Blocks.** A ```` ```sh ```` block followed (only blank lines between)
//! by an untagged ```` ``` ```` block is a command and its output: the
//! block's standard output and standard error, together and in order, must
//! be the output shown. A ```` ```sh ```` block with no output block right
//! after it must just succeed. In both, every command must succeed, except a
//! line ending in a comment `# exit N`, which must exit with `N`.
//!
//! **Sessions.** Each page runs as one bash session (state such as `cd` and
//! variables carries from block to block) in a fresh temporary directory.
//! `refscope` on `PATH` is the binary under test; `HOME` is a temporary
//! directory, the git identity and `init.defaultBranch=master` come from
//! the environment, and `JAVA_HOME` is the stub JDK: the session needs
//! nothing beyond Rust and git. Pages that go on from another page's state
//! name it ([`Setup`]), and the session runs that first.
//!
//! **Substitutions** in the commands: `cargo run --release -q -p
//! refscope-cli --` is `refscope`; paths under `/tmp` are under a temporary
//! directory; paths from the workspace root (`corpora/fixtures/zoo`) lead,
//! from any directory, to a copy of `corpora/fixtures`, so that nothing
//! writes into the workspace. The output maps the paths back.
//!
//! **Blocks not run.** A block that builds or tests the project itself
//! (`cargo`), or needs what the default suite does not have (javac, Python,
//! `apt`, the network) or runs until stopped (a server, `watch`), carries
//! `<!-- example: not run (REASON) -->` on the line before it. Such a block
//! without the marker fails the test rather than being skipped, and so does
//! a marker before anything but a ```` ```sh ```` block. The opt-in suite
//! (`full/doc_examples.rs`) runs the blocks whose reason is `needs javac and
//! Python: the opt-in suite runs it`, the same way, with the installed JDK.
//!
//! **Comparison**, after normalising both sides: runs of 7 or more hex
//! digits (commit ids, snapshot hashes) become `<hex>`, elapsed times
//! (`0.18 s`, `61 ms`) `<time>`, sizes (`509.1 KiB`) `<size>`, and the run
//! of spaces after such a token one space, so that columns aligned after a
//! commit id may differ; trailing spaces, which a page cannot keep, are
//! dropped. A line `...` of the shown output stands for any number of lines
//! (an abridged answer). Otherwise the lines must be equal. A difference is
//! reported with the page, the line of the block and of its output, and a
//! diff of the two; a session still running after two minutes is killed
//! and reported with the block it was in. With `--nocapture` the test
//! prints how many blocks of each page ran and how many are marked.
//!
//! The examples of `docs/query-language.md` are also checked, with update
//! support, by `crates/query/tests/it/readme.rs`, and the code-context JSON
//! of `docs/code-context.md` by `context.rs`.

use std::time::Instant;

use crate::common::doc_examples::{Setup, diff, normalise, run_pages};

/// The pages whose examples run, each with the state it starts from.
const PAGES: &[(&str, Setup)] = &[
    ("README.md", Setup::Fresh),
    ("docs/indexing.md", Setup::ContextExample),
    ("docs/element-ids.md", Setup::Command(ZOO_STORE)),
    ("docs/references.md", Setup::Fresh),
    ("docs/query-language.md", Setup::Fresh),
    ("docs/history.md", Setup::ContextExample),
    ("docs/code-context.md", Setup::Fresh),
    ("docs/mcp-http.md", Setup::Fresh),
    ("docs/lsp.md", Setup::Fresh),
    ("docs/review-tools.md", Setup::ContextExample),
    ("docs/accuracy.md", Setup::Fresh),
    ("docs/interchange.md", Setup::Fresh),
    ("docs/testing.md", Setup::Fresh),
    ("docs/frameworks.md", Setup::Fresh),
];

/// The store `docs/element-ids.md` reads, made as its text says.
const ZOO_STORE: &str = "refscope index --files corpora/fixtures/zoo --store /tmp/zoo-store";

#[test]
fn every_shell_example_of_the_docs_prints_what_it_shows() {
    let started = Instant::now();
    let outcome = run_pages(PAGES, &[]);
    eprintln!(
        "{}\n{} blocks run, {} not run, in {:.1} s",
        outcome.summary.join("\n"),
        outcome.run,
        outcome.not_run,
        started.elapsed().as_secs_f64()
    );
    assert!(
        outcome.run >= 30,
        "only {} shell examples ran: does the parser still find the blocks?",
        outcome.run
    );
    assert!(
        outcome.problems.is_empty(),
        "{} problems with the docs' examples:\n\n{}",
        outcome.problems.len(),
        outcome.problems.join("\n\n")
    );
}

#[test]
fn normalising_keeps_columns_but_not_ids_times_or_sizes() {
    assert_eq!(
        normalise("5a2079dcf8e9c4fc1e5: 8 files, 0.18 s, store 509.1 KiB, 61 ms"),
        "<hex>: 8 files, <time>, store <size>, <time>"
    );
    assert_eq!(
        normalise("dd208baacd         commit  8 files"),
        "<hex> commit  8 files"
    );
    assert_eq!(
        normalise("feedAll 1234 s3 deadbee"),
        "feedAll 1234 s3 <hex>"
    );
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(diff(&lines("a\n...\nd"), &lines("a\nb\nc\nd")), None);
    assert_eq!(diff(&lines("a\n...\n"), &lines("a")), None);
    assert_eq!(
        diff(&lines("a\nb\n...\nd"), &lines("a\nc\nx\nd")).as_deref(),
        Some("  a\n- b\n  ...\n  d\n")
    );
}
