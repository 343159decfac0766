//! `refscope task add|list|remove`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use refscope_engine::{Source, Store};
use refscope_mcp_bridge::task::{NewTask, Task, TaskStore};

use refscope_engine::Progress;

#[derive(Debug, Args)]
pub struct TaskArgs {
    #[command(subcommand)]
    command: TaskCommand,
}

#[derive(Debug, Subcommand)]
enum TaskCommand {
    /// Name a review: a repository, the revision under review and the base
    /// revision of its diff.
    #[command(
        after_help = "Examples:\n  refscope task add --id pr-42 --repo ~/src/shop --rev feature --base main\n  refscope task add --id nightly --repo /srv/unpacked-sources --store /tmp/store\n  refscope task add --id r1234 --svn https://svn.example.org/shop/trunk --rev 1234 --base 1230 --repo ~/wc/shop --store /tmp/store\n\nRevisions are resolved to commit ids now and indexed on first use. A plain\ndirectory has no history: its files are indexed now and it takes no --base.\nWith --svn, the review tools read the Subversion URL at --rev (a number or\nHEAD) with the diff from --base, and --repo is its working copy or export,\nwhose files are indexed now."
    )]
    Add(TaskAddArgs),
    /// List the tasks of a store.
    List(TaskStoreArgs),
    /// Remove a task (the indexed revisions stay in the store).
    Remove(TaskRemoveArgs),
}

#[derive(Debug, Args)]
struct TaskAddArgs {
    /// The task's id: letters, digits, '.', '_' and '-'.
    #[arg(long, value_name = "ID")]
    id: String,
    /// The repository, or a plain directory.
    #[arg(long, value_name = "PATH")]
    repo: PathBuf,
    /// The revision under review (default: HEAD).
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// The base revision of the diff under review.
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// A Subversion repository URL for the review tools (--repo is then
    /// its working copy or an export of it).
    #[arg(long, value_name = "URL")]
    svn: Option<String>,
    /// The store directory (default: the repository's).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct TaskStoreArgs {
    /// The store directory (default: the one of the repository containing
    /// the current directory).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct TaskRemoveArgs {
    /// The task's id.
    #[arg(value_name = "ID")]
    id: String,
    #[command(flatten)]
    store: TaskStoreArgs,
}

pub fn run(args: TaskArgs) -> Result<()> {
    match args.command {
        TaskCommand::Add(args) => {
            let store_dir = store_dir(args.store.as_deref(), &args.repo)?;
            let tasks = TaskStore::open(&store_dir)?;
            let new = NewTask {
                id: args.id,
                repo: args.repo,
                rev: args.rev,
                base: args.base,
                svn: args.svn,
            };
            let store = Store::open(&store_dir)?;
            let task = tasks.register(new, &store, &mut index_progress)?;
            warn_without_merge_base(&task);
            println!("{}", task_line(&task));
        }
        TaskCommand::List(args) => {
            let tasks = TaskStore::open(&store_dir(args.store.as_deref(), Path::new("."))?)?;
            for task in tasks.list()? {
                println!("{}", task_line(&task));
            }
        }
        TaskCommand::Remove(args) => {
            let tasks = TaskStore::open(&store_dir(args.store.store.as_deref(), Path::new("."))?)?;
            let task = tasks.remove(&args.id)?;
            eprintln!("refscope: removed task {}", task.id);
        }
    }
    Ok(())
}

/// Says on standard error when a task's base shares no commit with its
/// revision, so that its diff is of the base as given.
pub fn warn_without_merge_base(task: &Task) {
    if let (Some(base), false) = (&task.base_rev, task.base_is_merge_base) {
        eprintln!(
            "refscope: {base} and {} have no common ancestor, so no merge base: the diff is from {base} as given",
            task.rev.as_deref().unwrap_or("HEAD")
        );
    }
}

/// `--store`, else the default store of the repository around `repo`.
pub fn store_dir(store: Option<&Path>, repo: &Path) -> Result<PathBuf> {
    match store {
        Some(dir) => Ok(dir.to_path_buf()),
        None => Ok(Source::open(repo)?.default_store_dir()),
    }
}

fn task_line(task: &Task) -> String {
    let short = |name: &str| name.chars().take(19).collect::<String>();
    let mut line = format!(
        "{}\t{}\t{} ({})",
        task.id,
        task.repo.display(),
        task.rev.as_deref().unwrap_or("files"),
        short(&task.revision)
    );
    if let Some(svn) = &task.svn {
        line.push_str(&format!("\tsvn {} r{}", svn.url, svn.revision));
        if let Some(base) = svn.base {
            line.push_str(&format!("\tbase r{base}"));
        }
    }
    if let (Some(base), Some(resolved)) = (&task.base_rev, &task.base_revision) {
        if task.base_is_merge_base {
            line.push_str(&format!("\tbase {base} (merge base {})", short(resolved)));
        } else {
            line.push_str(&format!(
                "\tbase {base} ({}; no common ancestor, diffed as given)",
                short(resolved)
            ));
        }
    }
    line
}

/// Progress of indexing on first use, on standard error: one line per
/// phase, enough to show that a long wait is work.
pub fn index_progress(event: Progress) {
    match event {
        Progress::WaitingForLock { pid } => {
            eprintln!("refscope: the store is being written by process {pid}; waiting for it")
        }
        // A phase with no files to count (`finish`) is named alone.
        Progress::Phase { name, total: 0 } => eprintln!("refscope: indexing: {name}"),
        Progress::Phase { name, total } => eprintln!("refscope: indexing: {name} ({total} files)"),
        Progress::Advance(_) => {}
        Progress::NoJdk => {
            eprintln!("refscope: no JDK found (set JAVA_HOME); JDK type names stay unqualified")
        }
        Progress::Notice(notice) => eprintln!("refscope: {notice}"),
    }
}
