//! `refscope index`.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use refscope_engine::{IndexConfig, IndexSummary, Indexer, Progress, Source, SourceLimits, Store};

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// A git repository (HEAD by default) or a plain directory (its files
    /// on disk).
    #[arg(default_value = ".", value_name = "PATH")]
    path: PathBuf,
    /// A revision to index (any git revision expression), or a range
    /// `A..B`: every commit of B's first-parent history after A, oldest
    /// first (`A..` ends at HEAD); may be repeated.
    #[arg(long = "rev", value_name = "REV|A..B")]
    revs: Vec<String>,
    /// Every commit of this branch's first-parent history that is not
    /// indexed yet, back to its first commit, oldest first (`--rev A..NAME`
    /// bounds it); may be repeated.
    #[arg(long = "branch", value_name = "NAME")]
    branches: Vec<String>,
    /// The store directory (default: .git/refscope in the repository).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Index the files on disk under PATH as a plain directory, even when
    /// PATH lies inside a git repository.
    #[arg(long)]
    files: bool,
    /// Print how long each phase took, on standard error.
    #[arg(long)]
    timings: bool,
    /// Jar files whose classes calls may resolve to: `:`-separated paths,
    /// `DIR/*` for every jar in DIR; may be repeated.
    #[arg(long, value_name = "JARS")]
    classpath: Vec<String>,
    /// Do not add the jars of the dependencies the build files declare
    /// (pom.xml, build.gradle; see `refscope deps`).
    #[arg(long)]
    no_auto_classpath: bool,
    #[command(flatten)]
    repos: crate::deps::RepoArgs,
    #[command(flatten)]
    paths: crate::paths::PathArgs,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = SourceLimits::default().max_file_bytes)]
    max_file_size: u64,
    /// Print each revision's summary as one JSON object per line (with the
    /// revision it was layered over and the files it resolved).
    #[arg(long)]
    json: bool,
    /// Read the syntax alone: no members that frameworks generate
    /// (Lombok's). A store keeps the setting of its first index.
    #[arg(long)]
    no_frameworks: bool,
    /// Index every file of each revision, not a layer over an indexed
    /// one (for comparisons; the store is the same either way).
    #[arg(long, hide = true)]
    from_scratch: bool,
    /// Index every file of each revision without recording what a later
    /// revision would be layered on (for the benchmark of what that
    /// costs; no revision is ever layered over one indexed so).
    #[arg(long, hide = true)]
    without_incremental_data: bool,
    /// Parse no commit's files ahead while earlier commits are indexed
    /// (for the benchmark of what parsing ahead saves).
    #[arg(long, hide = true)]
    no_parse_ahead: bool,
}

pub fn run(args: IndexArgs) -> Result<()> {
    let source = if args.files {
        Source::open_directory(&args.path)?
    } else {
        Source::open(&args.path)?
    };
    let store_dir = args
        .store
        .clone()
        .unwrap_or_else(|| source.default_store_dir());
    let store = Store::open_waiting(&store_dir, |pid| {
        eprintln!(
            "refscope: store {} is being written by process {pid}; waiting for it",
            store_dir.display()
        )
    })?;
    let limits = SourceLimits {
        max_file_bytes: args.max_file_size,
        paths: args.paths.filter(source.root())?,
    };
    if args.files && !(args.revs.is_empty() && args.branches.is_empty()) {
        return Err(crate::UsageError(
            "--files indexes the files on disk; it takes no --rev or --branch".into(),
        )
        .into());
    }
    let revs = revisions_to_index(&source, &store, &args.revs, &args.branches)?;
    if revs.is_empty() {
        let note = "nothing to index: every commit asked for is indexed already";
        if args.json {
            eprintln!("refscope: {note}");
        } else {
            println!("{note}");
        }
        return Ok(());
    }
    let classpath = crate::deps::class_path(
        &args.classpath,
        &args.path,
        &args.repos,
        args.no_auto_classpath,
        &crate::deps::Paths::new(&args.path, source.root(), &limits.paths),
    )?;
    let show_progress = std::io::stderr().is_terminal();
    let config = IndexConfig {
        jobs: args.jobs,
        classpath,
        limits: limits.clone(),
        from_scratch: args.from_scratch,
        without_incremental_data: args.without_incremental_data,
        no_frameworks: args.no_frameworks,
        ..IndexConfig::default()
    };
    let mut indexer = Indexer::new(&store, config);
    if !args.no_parse_ahead && revs.len() > 1 {
        // By commit id, as the indexer names them; a revision that does
        // not resolve fails below, in its turn.
        let commits: Option<Vec<String>> = revs
            .iter()
            .map(|rev| rev.as_deref().and_then(|rev| source.commit_id(rev).ok()))
            .collect();
        if let Some(commits) = commits {
            indexer.parse_ahead(&source, &commits);
        }
    }
    let n_revs = revs.len();
    for (position, rev) in revs.iter().enumerate() {
        let scan_started = (args.timings, std::time::Instant::now(), cpu_seconds());
        let revision = source.resolve_revision(rev.as_deref(), &limits)?;
        if let (true, started, Some(before)) = scan_started
            && let Some(now) = cpu_seconds()
        {
            let wall = started.elapsed().as_secs_f64();
            eprintln!(
                "refscope: phase scan: {wall:.3} s, {:.3} CPU-s ({:.2} cores busy)",
                now - before,
                (now - before) / wall.max(1e-9)
            );
        }
        let bar = ProgressBar::with_draw_target(
            None,
            if show_progress {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:40}] {pos}/{len} files {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        let mut phase_started: Option<(&'static str, std::time::Instant, Option<f64>)> = None;
        let timings = args.timings;
        let mut report_phase = move |next: Option<&'static str>| {
            if let Some((name, started, cpu_at_start)) = phase_started.take()
                && timings
            {
                let wall = started.elapsed().as_secs_f64();
                match cpu_at_start.zip(cpu_seconds()) {
                    Some((before, now)) => eprintln!(
                        "refscope: phase {name}: {wall:.3} s, {:.3} CPU-s ({:.2} cores busy)",
                        now - before,
                        (now - before) / wall.max(1e-9)
                    ),
                    None => eprintln!("refscope: phase {name}: {wall:.3} s"),
                }
            }
            phase_started = next.map(|n| (n, std::time::Instant::now(), cpu_seconds()));
        };
        // What comes before the first phase: the changes to index, and
        // the libraries on a first revision.
        report_phase(Some("plan"));
        let summary = indexer.index(&source, &revision, &mut |event| match event {
            Progress::WaitingForLock { pid } => {
                eprintln!(
                    "refscope: store {} is being written by process {pid}; waiting for it",
                    store_dir.display()
                );
            }
            Progress::Phase { name, total } => {
                report_phase(Some(name));
                bar.set_prefix(name);
                bar.set_length(total);
                bar.set_position(0);
            }
            Progress::Advance(n) => bar.inc(n),
            Progress::NoJdk => {
                eprintln!("refscope: no JDK found (set JAVA_HOME); JDK type names stay unqualified")
            }
            Progress::Notice(notice) => eprintln!("refscope: {notice}"),
        })?;
        bar.finish_and_clear();
        report_phase(None);
        if args.json {
            println!("{}", summary_json(&summary));
            continue;
        }
        if n_revs > 1 {
            print!("[{}/{n_revs}] ", position + 1);
        }
        println!("{}", summary_line(&summary));
    }
    indexer.finish_for_exit();
    Ok(())
}

/// The revisions `--rev` and `--branch` ask for, in order, each once
/// (`None`: HEAD, or the files of a plain directory). Ranges and branches
/// expand to commit ids, oldest first; a branch skips the commits indexed
/// already (all the others of its first-parent history are indexed, back
/// to its first commit: bound it with `--rev A..NAME` instead).
fn revisions_to_index(
    source: &Source,
    store: &Store,
    revs: &[String],
    branches: &[String],
) -> Result<Vec<Option<String>>> {
    if revs.is_empty() && branches.is_empty() {
        return Ok(vec![None]);
    }
    let mut out: Vec<Option<String>> = Vec::new();
    for rev in revs {
        match rev.split_once("..") {
            Some((from, to)) => {
                if from.is_empty() || to.starts_with('.') {
                    return Err(crate::UsageError(format!(
                        "--rev {rev}: a range is A..B (or A.. for A..HEAD), with A a revision"
                    ))
                    .into());
                }
                let to = if to.is_empty() { "HEAD" } else { to };
                out.extend(source.first_parent_range(from, to)?.into_iter().map(Some));
            }
            None => out.push(Some(rev.clone())),
        }
    }
    for branch in branches {
        let commits = source
            .first_parent_history(branch, |_| false)
            .map_err(|e| anyhow::anyhow!("--branch {branch}: {e}"))?;
        for commit in commits {
            if store.revision(&commit)?.is_none() {
                out.push(Some(commit));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|rev| seen.insert(rev.clone()));
    Ok(out)
}

fn summary_line(s: &IndexSummary) -> String {
    let short: String = s.revision.chars().take(19).collect();
    if s.already_indexed {
        return format!(
            "{short}: already indexed ({} files, {} elements, {} reference sites); store {}",
            s.n_files,
            s.n_elements,
            s.n_ref_sites,
            human_bytes(s.store_bytes)
        );
    }
    let mut line = format!(
        "{short}: {} files ({} parsed, {} resolved), {} elements, {} reference sites, {} skipped, {:.2} s, store {}",
        s.n_files,
        s.n_parsed,
        s.n_resolved,
        s.n_elements,
        s.n_ref_sites,
        s.n_skipped,
        s.seconds,
        human_bytes(s.store_bytes)
    );
    if s.n_syntax_errors > 0 {
        line.push_str(&format!(", {} syntax errors", s.n_syntax_errors));
    }
    if s.n_invalid_utf8_files > 0 {
        line.push_str(&format!(", {} files not UTF-8", s.n_invalid_utf8_files));
    }
    line
}

fn summary_json(s: &IndexSummary) -> serde_json::Value {
    serde_json::json!({
        "revision": s.revision,
        "already_indexed": s.already_indexed,
        "parent": s.parent,
        "files": s.n_files,
        "parsed": s.n_parsed,
        "parsed_ahead": s.n_parsed_ahead,
        "resolved": s.n_resolved,
        "dirty": s.dirty,
        "elements": s.n_elements,
        "reference_sites": s.n_ref_sites,
        "skipped": s.n_skipped,
        "syntax_errors": s.n_syntax_errors,
        "invalid_utf8_files": s.n_invalid_utf8_files,
        "seconds": s.seconds,
        "store_bytes": s.store_bytes,
    })
}

pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The CPU time this process has used so far (user and system, all
/// threads), where the platform tells.
fn cpu_seconds() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes one `rusage` through the pointer, which
        // points at one, and reads nothing of ours.
        let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if status != 0 {
            return None;
        }
        // SAFETY: a zero status means the kernel filled it in.
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
