//! `refscope`: index Java at git revisions and ask what is where.
//!
//! The binary is thin: it parses arguments, opens the source and the store,
//! calls the engine and the query crate, and prints.

mod aicr;
mod alloc;
mod at;
mod context;
mod dependents;
mod deps;
mod graph;
mod history;
mod index;
mod location;
mod lsp;
mod mcp;
mod paths;
mod prune;
mod query;
mod revisions;
mod scip_export;
mod stats;
mod task;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Indexing allocates many small strings and vectors from several threads;
/// mimalloc serves that pattern markedly faster than the system allocator.
#[global_allocator]
static ALLOCATOR: alloc::MiMalloc = alloc::MiMalloc;

/// mimalloc asks the kernel for transparent huge pages, and then returns
/// memory to it in 64 KiB pieces: each 2 MiB page is zeroed whole when
/// first touched, and again after a split. On a full JDK index that was
/// 6 % of all CPU samples, in the kernel's page clearing. Without huge
/// pages system time fell from 2.8-3.3 s to 1.6-1.8 s in six alternating
/// runs, with user time unchanged within the noise and peak RSS 25 MiB
/// lower. (Setting `MIMALLOC_ALLOW_THP=0` does the same, but mimalloc reads
/// its options before `main`.)
fn refuse_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no
    // memory of ours; it only sets a flag on this process (and its
    // children). Failure (an old kernel) leaves things as they were.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// mimalloc's `destroy_on_exit` option, by its number in `mi_option_t`
/// (22 in mimalloc 2 and 3; libmimalloc-sys does not name it).
const MI_OPTION_DESTROY_ON_EXIT: libmimalloc_sys::mi_option_t = 22;

/// At exit mimalloc collects every heap and hands freed memory back to the
/// kernel piece by piece: after a JDK index, 40 ms and 123 `madvise`
/// calls for memory the exit releases whole anyway. `destroy_on_exit`
/// above 1 makes its exit hook return at once.
fn skip_allocator_cleanup_at_exit() {
    // SAFETY: setting an option takes plain integers; this one is read
    // only by the exit hook.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_DESTROY_ON_EXIT, 2) };
}

/// refscope — an incremental reference index for Java.
#[derive(Debug, Parser)]
#[command(
    name = "refscope",
    version,
    about = "Index Java sources at git revisions and answer what is where",
    after_help = "Examples:\n  refscope index                      index HEAD of the repository here\n  refscope at src/main/java/A.java:42  the element that owns line 42\n  refscope callers 'com.acme.A#run()'  who calls it, directly or through overrides\n  refscope export --decls --out d.jsonl\n\nA store lives in the repository's .git/refscope by default (.refscope in a\nplain directory); --store DIR puts it elsewhere."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index a revision (HEAD by default) or a plain directory.
    #[command(
        after_help = "Examples:\n  refscope index\n  refscope index ~/src/shop --rev v1.2 --rev main\n  refscope index /tmp/unpacked-sources --store /tmp/store --jobs 2"
    )]
    Index(index::IndexArgs),
    /// Keep the index of the files on disk current as they change.
    #[command(
        after_help = "Examples:\n  refscope watch\n  refscope watch ~/src/shop --quiet-ms 50\n\nEach update indexes the files on disk as one work-tree revision, replacing\nthe previous one; read it with --rev worktree (refscope at F:L --rev worktree)."
    )]
    Watch(watch::WatchArgs),
    /// Show the element(s) owning a line or a range of lines.
    #[command(
        after_help = "Examples:\n  refscope at src/main/java/com/acme/Shop.java:42\n  refscope at src/main/java/com/acme/Shop.java:40-55 --json\n  refscope at Shop.java:42 --rev HEAD~3 --source"
    )]
    At(at::AtArgs),
    /// Export declarations and references in the javac oracle's JSON Lines
    /// format, or the revision as a SCIP index.
    #[command(
        after_help = "Examples:\n  refscope export --decls --out decls.jsonl\n  refscope export --decls --under guava/src --rev v31.1 > decls.jsonl\n  refscope export --scip --out index.scip\n  refscope export --scip --rev v1.2 --classpath 'lib/*' --out index.scip"
    )]
    Export(at::ExportArgs),
    /// List the sites that call or reference a method, constructor or field
    /// (polymorphic callers too: calls to the methods it overrides).
    #[command(
        after_help = "Examples:\n  refscope callers 'com.acme.Shop#order(java.lang.String,int)'\n  refscope callers com.acme.Shop#order --direct --json\n  refscope callers src/main/java/com/acme/Shop.java:42 --rev HEAD~3\n\nParameter types may be left out when one overload has the name, or written\nby simple name (com.acme.Shop#order(String,int)); FILE:LINE names the\nelement declared on that line."
    )]
    Callers(graph::CallersArgs),
    /// List what an element, or a range of lines, calls and references.
    #[command(
        after_help = "Examples:\n  refscope callees 'com.acme.Shop#order(java.lang.String,int)'\n  refscope callees com.acme.Shop          everything referenced in the class\n  refscope callees src/main/java/com/acme/Shop.java:40-55 --json"
    )]
    Callees(graph::CalleesArgs),
    /// List the methods overriding a method, or the subtypes of a type,
    /// transitively.
    #[command(
        after_help = "Examples:\n  refscope impls com.acme.Priced\n  refscope impls 'com.acme.Priced#cents()' --json\n  refscope impls com.acme.Shop.Cart        a nested type, by its canonical name"
    )]
    Impls(graph::ElementArgs),
    /// List the sites referencing an element: a field's reads and writes, a
    /// method's calls, every use of a type's members and constructors.
    #[command(
        after_help = "Examples:\n  refscope refs com.acme.Shop#items\n  refscope refs com.acme.Shop --json\n  refscope refs src/main/java/com/acme/Shop.java:12"
    )]
    Refs(graph::ElementArgs),
    /// List the commits that changed an element's declaration, newest
    /// first, back to the one that added it.
    #[command(
        after_help = "Examples:\n  refscope history 'com.acme.Shop#order(java.lang.String,int)'\n  refscope history src/main/java/com/acme/Shop.java:42 --limit 5 --json\n  refscope history com.acme.Shop#order --rev v1.2\n\nThe commits are those in which a line of the declaration changed (as `git log\n-L START,END:FILE` finds them), following the element across a changed\nsignature, a rename or a move; indexed revisions give their facts from the\nstore, older ones are read from git."
    )]
    History(history::HistoryArgs),
    /// Ask anything the index knows in the refscope query language.
    #[command(
        after_help = "Examples:\n  refscope query 'com.acme.Shop#order | callers depth 2 | where kind = method'\n  refscope query --format json 'src/main/java/com/acme/Shop.java:42 | callees'\n  refscope query 'changed v1.0..HEAD | where change = body_changed'\n  printf '%s\\n' 'com.acme.Shop | members' 'methods \"get*\" | count' | refscope query -\n\nThe language (selectors, relations, where, set operations, at, changed) is\ndescribed in docs/query-language.md."
    )]
    Query(query::QueryArgs),
    /// List the indexed revisions of a store.
    #[command(
        after_help = "Examples:\n  refscope revisions\n  refscope revisions --store /tmp/store"
    )]
    Revisions(revisions::RevisionsArgs),
    /// List the files whose resolution looked a name up, found or not: the
    /// files a new, removed or changed declaration of it resolves again.
    #[command(
        after_help = "Examples:\n  refscope dependents com.acme.Stock\n  refscope dependents com.acme.List --rev HEAD~1 --json\n\nA file that uses List through `import java.util.*` from package com.acme\nlooked up com.acme.List first: a class of that name added there shadows\njava.util.List for it."
    )]
    Dependents(dependents::DependentsArgs),
    /// Show where a store's bytes are: its files, the database's tables and
    /// indexes, and the pack's records and layers.
    #[command(
        after_help = "Examples:\n  refscope stats\n  refscope stats --store /tmp/store --json"
    )]
    Stats(stats::StatsArgs),
    /// List the dependency jars a project's build files declare (pom.xml,
    /// build.gradle, version catalogs), as found on this machine.
    #[command(
        after_help = "Examples:\n  refscope deps\n  refscope deps ~/src/shop --json\n  refscope deps --maven-repo /srv/m2 --maven-repo /usr/share/java\n\nNothing is downloaded and no build runs. A version that is not present is\nreplaced by a version alias (Debian's `debian`) or the nearest version\npresent; `index` and `watch` put the jars found on the class path unless\n--no-auto-classpath."
    )]
    Deps(deps::DepsArgs),
    /// Remove old revisions from a store, and everything only they used.
    #[command(
        after_help = "Examples:\n  refscope prune --keep 20\n  refscope prune --before 2026-11-01 --dry-run\n  refscope prune --keep 1 --store /tmp/store --json\n\nEvery remaining revision answers as before. Revisions a review task names\nare kept."
    )]
    Prune(prune::PruneArgs),
    /// Manage review tasks: a repository, a revision under review, a base.
    Task(task::TaskArgs),
    /// Print the code-context JSON of a diff (what the MCP tool returns).
    #[command(
        after_help = "Examples:\n  refscope context --task pr-42 --file src/main/java/com/acme/Shop.java --lines 10-25,40-41\n  refscope context --repo . --rev HEAD --base HEAD~1 --file src/A.java --lines 7 --key-style zh --pretty"
    )]
    Context(context::ContextArgs),
    /// Serve the MCP tools over stdio (default) or streamable HTTP.
    #[command(
        after_help = "Examples:\n  refscope mcp --task pr-42 --agent-dir /tmp/agent\n  refscope mcp --transport http --port 3000\n  refscope mcp --http 127.0.0.1:0 --tools context\n\nLogs go to standard error; HTTP serves http://HOST:PORT/mcp until Ctrl-C."
    )]
    Mcp(mcp::McpArgs),
    /// Serve the index of the work tree to editors and agents as a
    /// Language Server over stdio.
    #[command(
        after_help = "Examples:\n  refscope lsp\n  refscope lsp --repo ~/src/shop --store /tmp/shop-store\n\nAn editor starts it and speaks the Language Server Protocol on standard input\nand output; logs go to standard error. It indexes the files on disk as\n`refscope watch` does (read it with --rev worktree), with open documents'\nunsaved text in place of the files. See docs/lsp.md."
    )]
    Lsp(lsp::LspArgs),
    /// The review state of the aicr.* tools: clean, replay, normalize-prose.
    #[command(
        after_help = "Examples:\n  refscope aicr clean --agent-dir /tmp/review-42\n  refscope aicr replay --stream events.jsonl --agent-dir /tmp/review-42 --rev feature --base main\n  echo LGTM | refscope aicr normalize-prose --agent-dir /tmp/review-42"
    )]
    Aicr(aicr::AicrArgs),
}

/// Options shared by every command that reads a store.
#[derive(Debug, Args, Clone)]
struct StoreArgs {
    /// The repository or directory (default: the one containing the current
    /// directory).
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// The store directory (default: .git/refscope in the repository).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
}

fn main() -> ExitCode {
    refuse_transparent_huge_pages();
    skip_allocator_cleanup_at_exit();
    // SAFETY: no tree-sitter object exists yet, and no other thread.
    unsafe { refscope_engine::tree_sitter_on_mimalloc() };
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Index(args) => index::run(args),
        Command::At(args) => at::run_at(args),
        Command::Export(args) => at::run_export(args),
        Command::Callers(args) => graph::run_callers(args),
        Command::Callees(args) => graph::run_callees(args),
        Command::Impls(args) => graph::run_impls(args),
        Command::Refs(args) => graph::run_refs(args),
        Command::History(args) => history::run(args),
        Command::Query(args) => query::run_query(args),
        Command::Revisions(args) => revisions::run(args),
        Command::Prune(args) => prune::run(args),
        Command::Dependents(args) => dependents::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Deps(args) => deps::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Task(args) => task::run(args),
        Command::Context(args) => context::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Aicr(args) => aicr::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("refscope: {}", message_of(&error));
            if error.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// `error` and its causes, each cause once: an error that already says
/// its cause (`PATH: No space left on device`) is not followed by it
/// again.
fn message_of(error: &anyhow::Error) -> String {
    let mut message = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !message.contains(&cause) {
            message.push_str(": ");
            message.push_str(&cause);
        }
    }
    message
}

/// An error in how the command was called (exit code 2).
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

#[cfg(test)]
mod tests {
    /// [`super::MI_OPTION_DESTROY_ON_EXIT`] is the option's number in
    /// mimalloc 2 and 3, whose headers were read; another major version
    /// must be read again.
    #[test]
    fn mimalloc_numbers_its_options_as_expected() {
        // SAFETY: a plain query.
        let version = unsafe { libmimalloc_sys::mi_version() };
        assert!(
            (2..=3).contains(&(version / 10_000)),
            "mimalloc {version}: check MI_OPTION_DESTROY_ON_EXIT against its mimalloc.h"
        );
    }
}
