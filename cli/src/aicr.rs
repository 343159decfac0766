//! `refscope aicr`: the review state outside the server — remove a stale
//! state, replay an agent's event stream, map prose to a skip reason.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use refscope_aicr::prose::{ProseOutcome, apply_prose};
use refscope_aicr::replay::{replay_calls, scan_stream};
use refscope_aicr::state::{remove_state, state_path};
use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
use refscope_mcp_bridge::task::{Task, TaskStore};

/// `refscope aicr ...`.
#[derive(Debug, Args)]
pub struct AicrArgs {
    #[command(subcommand)]
    command: AicrCommand,
}

#[derive(Debug, Subcommand)]
enum AicrCommand {
    /// Remove the review state (.aicr-output-state.json) of an agent
    /// directory before a run.
    #[command(after_help = "Examples:\n  refscope aicr clean --agent-dir /tmp/review-42")]
    Clean(AgentDirArgs),
    /// Execute the aicr.* tool calls of an agent's JSON-lines event stream
    /// and write the state, when the agent ran without the server.
    #[command(
        after_help = "Examples:\n  refscope aicr replay --stream events.jsonl --agent-dir /tmp/review-42 --task pr-42\n  refscope aicr replay --stream events.jsonl --agent-dir /tmp/review-42 --repo ~/src/shop --rev feature --base main\n\nRuns only when the agent directory has no state file: a state means the\ncalls reached the server. Reads tool_call/tool_use/function_call/mcp_tool_call\nevents anywhere in each line (plain events, Claude Code and Gemini CLI\nstream-json, Codex exec --json); see docs/review-tools.md."
    )]
    Replay(ReplayArgs),
    /// Map prose that means "no actionable problems" or "no reviewable code"
    /// to the skip reason lgtm or no_reviewable_code in the state.
    #[command(
        name = "normalize-prose",
        after_help = "Examples:\n  echo 'LGTM' | refscope aicr normalize-prose --agent-dir /tmp/review-42\n  refscope aicr normalize-prose --file answer.md --agent-dir /tmp/review-42\n\nPrints the skip reason in the state. A state with problems or a skip reason\nis left as it is (exit 0); prose that does not clearly say either, or that\nhedges (\"LGTM, but ...\"), writes nothing and exits 1."
    )]
    NormalizeProse(NormalizeProseArgs),
}

#[derive(Debug, Args)]
struct AgentDirArgs {
    /// The agent directory holding .aicr-output-state.json.
    #[arg(long, value_name = "DIR", default_value = ".")]
    agent_dir: PathBuf,
}

#[derive(Debug, Args)]
struct ReplayArgs {
    /// The agent's JSON-lines event stream.
    #[arg(long, value_name = "FILE")]
    stream: PathBuf,
    #[command(flatten)]
    agent: AgentDirArgs,
    #[command(flatten)]
    target: TargetArgs,
}

/// The review the replayed calls belong to: a task, or a repository and
/// revisions.
#[derive(Debug, Args)]
struct TargetArgs {
    /// The review task (its repository, revision and base revision).
    #[arg(long, value_name = "ID", conflicts_with_all = ["rev", "repo", "base"])]
    task: Option<String>,
    /// The store directory holding the task (default: the one of the
    /// repository containing the current directory).
    #[arg(long, value_name = "DIR", requires = "task")]
    store: Option<PathBuf>,
    /// The revision under review.
    #[arg(long, value_name = "REV", required_unless_present = "task")]
    rev: Option<String>,
    /// The repository under review (default: the current directory).
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// The base revision of the diff under review.
    #[arg(long, value_name = "REV")]
    base: Option<String>,
}

#[derive(Debug, Args)]
struct NormalizeProseArgs {
    #[command(flatten)]
    agent: AgentDirArgs,
    /// Read the prose from this file instead of standard input.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Runs `refscope aicr ...`.
pub fn run(args: AicrArgs) -> Result<()> {
    match args.command {
        AicrCommand::Clean(args) => clean(&args.agent_dir),
        AicrCommand::Replay(args) => replay(args),
        AicrCommand::NormalizeProse(args) => normalize_prose(args),
    }
}

fn clean(agent_dir: &Path) -> Result<()> {
    if remove_state(agent_dir)? {
        eprintln!("refscope: removed {}", state_path(agent_dir).display());
    } else {
        eprintln!("refscope: no state in {}", agent_dir.display());
    }
    Ok(())
}

fn replay(args: ReplayArgs) -> Result<()> {
    let agent_dir = &args.agent.agent_dir;
    let state_file = state_path(agent_dir);
    if state_file.exists() {
        eprintln!(
            "refscope: {} exists, so the agent's calls reached the server; nothing replayed (remove it with `refscope aicr clean` to replay anyway)",
            state_file.display()
        );
        return Ok(());
    }
    let stream = std::fs::File::open(&args.stream)
        .with_context(|| format!("cannot open the stream {}", args.stream.display()))?;
    let scan = scan_stream(BufReader::new(stream))
        .with_context(|| format!("cannot read the stream {}", args.stream.display()))?;
    let mut skipped = format!(
        "{} other tool calls ignored, {} lines not JSON",
        scan.other_tool_calls, scan.unparsable_lines
    );
    if scan.unknown_records > 0 {
        skipped += &format!(", {} records of unknown kinds", scan.unknown_records);
    }
    if scan.calls.is_empty() {
        eprintln!(
            "refscope: no aicr tool calls in {} ({skipped}); no state written",
            args.stream.display()
        );
        return Ok(());
    }
    let mut tools = match (&args.target.task, args.target.rev) {
        (Some(id), _) => {
            let store_dir = crate::task::store_dir(args.target.store.as_deref(), Path::new("."))?;
            review_tools_of_task(&TaskStore::open(&store_dir)?.get(id)?, agent_dir)?
        }
        (None, revision) => {
            let target = ReviewTarget {
                repository: Repository::Git(args.target.repo.unwrap_or_else(|| PathBuf::from("."))),
                revision: revision.expect("clap requires --task or --rev"),
                base_revision: args.target.base,
            };
            ReviewTools::open(&target, agent_dir)?
        }
    };
    let report = replay_calls(&mut tools, &scan.calls);
    for failure in &report.failures {
        eprintln!(
            "refscope: {}:{}: refused: {}",
            args.stream.display(),
            failure.line,
            failure.message
        );
    }
    println!(
        "replayed {} aicr calls: {} recorded, {} refused ({skipped}); state in {}",
        scan.calls.len(),
        report.recorded,
        report.failures.len(),
        state_file.display()
    );
    Ok(())
}

/// The review tools of a stored task, writing into `agent_dir`: its
/// revisions as resolved when the task was added, so the review stays on
/// the commits the task names even if a branch moves.
pub fn review_tools_of_task(task: &Task, agent_dir: &Path) -> Result<ReviewTools> {
    if task.rev.is_none() {
        bail!(
            "task '{}' reviews the files of a plain directory, but the aicr.* review tools need a git or Subversion repository; add a task with --rev (and --svn URL for Subversion)",
            task.id
        );
    }
    let target = match &task.svn {
        Some(svn) => ReviewTarget {
            repository: Repository::Svn(svn.url.clone()),
            revision: svn.revision.to_string(),
            base_revision: svn.base.map(|base| base.to_string()),
        },
        None => ReviewTarget {
            repository: Repository::Git(task.repo.clone()),
            revision: task.revision.clone(),
            base_revision: task.base_revision.clone(),
        },
    };
    ReviewTools::open(&target, agent_dir)
        .with_context(|| format!("cannot start the review tools of task '{}'", task.id))
}

fn normalize_prose(args: NormalizeProseArgs) -> Result<()> {
    let prose = match &args.file {
        Some(file) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the prose in {}", file.display()))?,
        None => {
            let mut prose = String::new();
            std::io::stdin()
                .read_to_string(&mut prose)
                .context("cannot read the prose from standard input")?;
            prose
        }
    };
    let agent_dir = &args.agent.agent_dir;
    match apply_prose(agent_dir, &prose)? {
        ProseOutcome::Written(verdict) => println!("{}", verdict.skip_reason()),
        ProseOutcome::AlreadySkipped(reason) => {
            eprintln!(
                "refscope: the state in {} already has skipReason {reason}; left unchanged",
                agent_dir.display()
            );
            println!("{reason}");
        }
        ProseOutcome::HasProblems(count) => eprintln!(
            "refscope: the state in {} has {count} problem(s); left unchanged",
            agent_dir.display()
        ),
        ProseOutcome::NotRecognized => bail!(
            "the prose does not clearly say there are no actionable problems or no reviewable code; nothing written (report through the aicr.* tools instead)"
        ),
    }
    Ok(())
}
