//! `raw-parse PATH --jobs N`: the baseline for `refscope index`.
//!
//! Finds the `*.java` files under PATH (same walk and size limit as the
//! indexer), reads them all, then parses every one with the engine's
//! tree-sitter parser setup (`refscope_syntax::parse_only`) on a
//! rayon pool of N threads. Each tree is dropped right after parsing.
//! tree-sitter allocates through the C library's `malloc`, as shipped;
//! with `--mimalloc` through mimalloc, as in `refscope`.
//!
//! Output, one line on stdout:
//!
//! ```text
//! files=… bytes=… seconds=… walk_read_seconds=… parse_seconds=… files_with_errors=…
//! ```
//!
//! `seconds` is the whole job, walk + read + parse, because `refscope
//! index` also walks, reads (and hashes) the files; the two parts are
//! given separately as well.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use rayon::prelude::*;
use refscope_benches::{DEFAULT_MAX_FILE_BYTES, java_files};
use refscope_syntax::parse_only;

/// Raw tree-sitter parsing of the Java files under a directory: the
/// baseline `refscope index` is compared against.
#[derive(Debug, Parser)]
#[command(name = "raw-parse", version)]
struct Args {
    /// A directory to search for `*.java` files.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// Worker threads (0: one per core, as `refscope index`).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Let tree-sitter allocate through mimalloc, as `refscope` does
    /// (default: the C library's `malloc`, tree-sitter as shipped).
    #[arg(long)]
    mimalloc: bool,
    /// Skip files larger than this many bytes (the indexer's default).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_BYTES)]
    max_file_size: u64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.mimalloc {
        // SAFETY: no tree-sitter object exists yet, and no other thread.
        unsafe { refscope_engine::tree_sitter_on_mimalloc() };
    }
    if !args.path.is_dir() {
        bail!("{} is not a directory", args.path.display());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .thread_name(|i| format!("raw-parse-{i}"))
        .build()
        .context("cannot start the thread pool")?;

    let start = Instant::now();
    let paths = java_files(&args.path, args.max_file_size);
    let contents: Vec<Vec<u8>> = pool.install(|| {
        paths
            .par_iter()
            .map(|path| {
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
            })
            .collect::<Result<_>>()
    })?;
    let read_done = Instant::now();

    let files_with_errors: usize = pool.install(|| {
        contents
            .par_iter()
            .map(|bytes| match parse_only(bytes) {
                Some(tree) => usize::from(tree.root_node().has_error()),
                None => 1,
            })
            .sum()
    });
    let end = Instant::now();

    let bytes: usize = contents.iter().map(Vec::len).sum();
    println!(
        "files={} bytes={} seconds={:.3} walk_read_seconds={:.3} parse_seconds={:.3} files_with_errors={}",
        contents.len(),
        bytes,
        (end - start).as_secs_f64(),
        (read_done - start).as_secs_f64(),
        (end - read_done).as_secs_f64(),
        files_with_errors,
    );
    Ok(())
}
