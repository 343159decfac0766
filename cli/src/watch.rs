//! `refscope watch`.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use refscope_engine::{DEFAULT_QUIET_MS, WatchConfig, WatchEvent, watch};
use refscope_engine::{IndexConfig, Progress, Source, SourceLimits, Store};

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The work tree of a git repository, or a plain directory.
    #[arg(default_value = ".", value_name = "PATH")]
    path: PathBuf,
    /// The store directory (default: .git/refscope in the repository).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Jar files whose classes calls may resolve to, as for `index`.
    #[arg(long, value_name = "JARS")]
    classpath: Vec<String>,
    /// Do not add the jars of the dependencies the build files declare, as
    /// for `index`.
    #[arg(long)]
    no_auto_classpath: bool,
    #[command(flatten)]
    repos: crate::deps::RepoArgs,
    /// How long the files must be left alone before an update starts (an
    /// update also waits while a Java file written to is still open or git
    /// holds its index lock).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_QUIET_MS)]
    quiet_ms: u64,
    #[command(flatten)]
    paths: crate::paths::PathArgs,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = SourceLimits::default().max_file_bytes)]
    max_file_size: u64,
}

pub fn run(args: WatchArgs) -> Result<()> {
    let source = Source::open(&args.path)?;
    let store_dir = args
        .store
        .clone()
        .unwrap_or_else(|| source.default_store_dir());
    let store = Store::open(&store_dir)?;
    let limits = SourceLimits {
        max_file_bytes: args.max_file_size,
        paths: args.paths.filter(source.root())?,
    };
    let config = WatchConfig {
        quiet_period: Duration::from_millis(args.quiet_ms),
        limits: limits.clone(),
        index: IndexConfig {
            jobs: args.jobs,
            classpath: crate::deps::class_path(
                &args.classpath,
                &args.path,
                &args.repos,
                args.no_auto_classpath,
                &crate::deps::Paths::new(&args.path, source.root(), &limits.paths),
            )?,
            ..IndexConfig::default()
        },
    };
    eprintln!(
        "refscope: watching {} (store {}); read it with --rev worktree; Ctrl-C stops",
        source.root().display(),
        store_dir.display()
    );
    let mut on_event = |event: WatchEvent| {
        match event {
            WatchEvent::Updated {
                summary,
                n_changed,
                elapsed,
            } => {
                let short: String = summary.revision.chars().take(19).collect();
                println!(
                    "{short}: {n_changed} files changed, {} parsed, {} resolved, {} files, {:.0} ms",
                    summary.n_parsed,
                    summary.n_resolved,
                    summary.n_files,
                    elapsed.as_secs_f64() * 1000.0
                );
            }
            WatchEvent::Failed(error) => {
                eprintln!("refscope: update failed, the previous state stays: {error}");
            }
            WatchEvent::Progress(Progress::NoJdk) => {
                eprintln!("refscope: no JDK found (set JAVA_HOME); JDK type names stay unqualified")
            }
            WatchEvent::Progress(Progress::Notice(notice)) => eprintln!("refscope: {notice}"),
            WatchEvent::Progress(_) => {}
        }
        ControlFlow::Continue(())
    };
    watch(source.root(), &store, config, &mut on_event)?;
    Ok(())
}
