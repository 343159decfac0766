//! `refscope lsp`: the language server over stdio.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, anyhow};
use clap::Args;
use refscope_engine::{IndexConfig, SourceLimits};
use refscope_lsp::{Ending, ServerConfig, serve_stdio};

#[derive(Debug, Args)]
pub struct LspArgs {
    /// The work tree served when the client names none in `initialize`
    /// (no rootUri or workspace folder); default: the current directory.
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// The store directory (default: .git/refscope in the repository,
    /// .refscope in a plain directory, as for `watch`).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Worker threads for indexing (default: one per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Jar files whose classes calls may resolve to, as for `index`.
    #[arg(long, value_name = "JARS")]
    classpath: Vec<String>,
    /// Do not add the jars the build files of the default work tree
    /// declare, as for `index`.
    #[arg(long)]
    no_auto_classpath: bool,
    #[command(flatten)]
    repos: crate::deps::RepoArgs,
    /// How long edits and file changes are gathered before the work tree
    /// is indexed again in the background (a request has the changes
    /// before it indexed at once).
    #[arg(long, value_name = "MS", default_value_t = refscope_lsp_default_debounce_ms())]
    debounce_ms: u64,
    #[command(flatten)]
    paths: crate::paths::PathArgs,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = SourceLimits::default().max_file_bytes)]
    max_file_size: u64,
}

fn refscope_lsp_default_debounce_ms() -> u64 {
    ServerConfig::new(PathBuf::new()).debounce.as_millis() as u64
}

pub fn run(args: LspArgs) -> Result<()> {
    // Standard output carries the protocol: logs go to standard error.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let default_root = match args.repo {
        Some(repo) => repo,
        None => std::env::current_dir()?,
    };
    let paths = args.paths.filter(&default_root)?;
    let classpath = crate::deps::class_path(
        &args.classpath,
        &default_root,
        &args.repos,
        args.no_auto_classpath,
        &crate::deps::Paths::new(&default_root, &default_root, &paths),
    )?;
    let mut config = ServerConfig::new(default_root);
    config.store = args.store;
    config.debounce = Duration::from_millis(args.debounce_ms);
    config.limits = SourceLimits {
        max_file_bytes: args.max_file_size,
        paths,
    };
    config.index = IndexConfig {
        jobs: args.jobs,
        classpath,
        limits: config.limits.clone(),
        ..IndexConfig::default()
    };
    match serve_stdio(config)? {
        Ending::Exited {
            after_shutdown: true,
        }
        | Ending::Disconnected => Ok(()),
        // The protocol's exit code 1: `exit` without `shutdown`.
        Ending::Exited {
            after_shutdown: false,
        } => Err(anyhow!("the client sent exit without shutdown")),
    }
}
