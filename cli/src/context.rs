//! `refscope context`: the code-context JSON of a diff, exactly as the
//! `code_context` MCP tool returns it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use refscope_mcp_bridge::context::settings::{ContextSettings, KeyStyle, SettingsOverrides};
use refscope_mcp_bridge::context::tool::{CodeContextInput, ContextTools};
use refscope_mcp_bridge::task::NewTask;

use crate::UsageError;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The review task (see `refscope task add`).
    #[arg(long, value_name = "ID", conflicts_with_all = ["repo", "rev", "base"], required_unless_present = "repo")]
    task: Option<String>,
    /// The repository, when no task is named.
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// The revision under review, with --repo (default: HEAD).
    #[arg(long, value_name = "REV", requires = "repo")]
    rev: Option<String>,
    /// The base revision of the diff, with --repo.
    #[arg(long, value_name = "REV", requires = "repo")]
    base: Option<String>,
    /// The file, repository-relative.
    #[arg(long, value_name = "FILE")]
    file: String,
    /// The diff's line ranges: START-END or LINE, comma-separated.
    #[arg(long, value_name = "RANGES")]
    lines: String,
    /// Field names: en, or zh (the original design document's).
    #[arg(long, value_enum, value_name = "STYLE")]
    key_style: Option<KeyStyleArg>,
    /// Levels of callers per owning element.
    #[arg(long, value_name = "N")]
    caller_depth: Option<u32>,
    /// Levels of used elements.
    #[arg(long, value_name = "N")]
    callee_depth: Option<u32>,
    /// Source lines per element before it is cut.
    #[arg(long, value_name = "N")]
    max_source_lines: Option<u32>,
    /// Reference locations per element.
    #[arg(long, value_name = "N")]
    max_callers: Option<u32>,
    /// Leave out callers in test sources.
    #[arg(long)]
    no_tests: bool,
    /// Say for each owning element which commit last changed it.
    #[arg(long)]
    include_history: bool,
    /// A JSON settings file (default: context-settings.json in the store
    /// directory, if present).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Indent the JSON for people.
    #[arg(long)]
    pretty: bool,
    /// The `next_cursor` of a list a previous answer to the same command
    /// cut (see `truncated`): print that list's next page instead.
    #[arg(long, value_name = "TOKEN")]
    cursor: Option<String>,
    /// The store directory (default: the repository's, or the one of the
    /// repository containing the current directory).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum KeyStyleArg {
    En,
    Zh,
}

pub fn run(args: ContextArgs) -> Result<()> {
    let diff_lines = parse_line_ranges(&args.lines)?;
    let repo_hint = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let store_dir = crate::task::store_dir(args.store.as_deref(), &repo_hint)?;
    let settings = ContextSettings::configured(args.config.as_deref(), &store_dir)?;
    let mut tools = ContextTools::open(&store_dir, settings)?;
    let overrides = SettingsOverrides {
        caller_depth: args.caller_depth,
        callee_depth: args.callee_depth,
        max_source_lines: args.max_source_lines,
        max_callers: args.max_callers,
        include_tests: args.no_tests.then_some(false),
        include_history: args.include_history.then_some(true),
        key_style: args.key_style.map(|style| match style {
            KeyStyleArg::En => KeyStyle::En,
            KeyStyleArg::Zh => KeyStyle::Zh,
        }),
    };
    let answer = match (&args.task, &args.repo) {
        (Some(task_id), _) => {
            let input = CodeContextInput {
                cursor: args.cursor.clone(),
                ..CodeContextInput::new(task_id, &args.file, diff_lines).with_overrides(&overrides)
            };
            tools.code_context(&input)
        }
        (None, Some(repo)) => {
            let task = NewTask {
                id: "cli".into(),
                repo: repo.clone(),
                rev: args.rev.clone(),
                base: args.base.clone(),
                svn: None,
            }
            .resolve()?;
            crate::task::warn_without_merge_base(&task);
            tools.context_for_task(
                &task,
                None,
                &args.file,
                &diff_lines,
                &overrides,
                args.cursor.as_deref(),
            )
        }
        (None, None) => return Err(UsageError("name a --task, or a --repo".into()).into()),
    }
    .map_err(|e| anyhow!(e.message))?;
    let mut out = std::io::stdout().lock();
    if args.pretty {
        serde_json::to_writer_pretty(&mut out, &answer)?;
    } else {
        serde_json::to_writer(&mut out, &answer)?;
    }
    writeln!(out)?;
    Ok(())
}

/// `10-25,40-41,50` → `[10, 25, 40, 41, 50, 50]`.
fn parse_line_ranges(text: &str) -> Result<Vec<i64>> {
    let usage = || {
        UsageError(format!(
            "--lines '{text}' is not a list of ranges; write e.g. 10-25,40-41,50"
        ))
    };
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (start, end) = part.split_once('-').unwrap_or((part, part));
        let start: i64 = start.trim().parse().map_err(|_| usage())?;
        let end: i64 = end.trim().parse().map_err(|_| usage())?;
        out.extend([start, end]);
    }
    Ok(out)
}
