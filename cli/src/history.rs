//! `refscope history`: the commits that changed an element.

use anyhow::{Result, anyhow};
use clap::Args;
use refscope_query::lang::{CommitJson, ElementHistory, history_text};
use serde::Serialize;

use crate::StoreArgs;
use crate::graph::open_element;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// An element id (parameter types may be left out when one overload
    /// has the name), or FILE:LINE for the element declared on that line.
    #[arg(value_name = "ELEMENT|FILE:LINE")]
    element: String,
    /// At most this many commits, newest first.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// The revision to start from (default: the newest indexed one of the
    /// current branch).
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArgs,
}

/// The JSON answer.
#[derive(Serialize)]
struct HistoryAnswer<'a> {
    element: &'a str,
    revision: &'a str,
    path: &'a str,
    /// The declaration's lines at the revision.
    start_line: u32,
    end_line: u32,
    commits: Vec<CommitJson>,
}

pub fn run(args: HistoryArgs) -> Result<()> {
    let (opened, spec) = open_element(&args.element, &args.store)?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let found = spec.find(&opened, &snapshot)?;
    let Some(view) = &found.declared else {
        return Err(anyhow!(
            "{} is not declared in the sources of revision {}; history follows a declaration",
            found.id,
            snapshot.revision().name
        ));
    };
    let revision = &snapshot.revision().name;
    let Some(source) = &opened.source else {
        return Err(anyhow!(
            "history reads the commits from git: run it inside the repository or pass --repo"
        ));
    };
    if revision.starts_with("worktree:") {
        return Err(anyhow!(
            "revision {revision} is a directory's files, which have no history; name a commit with --rev"
        ));
    }
    let entries = source.element_history(
        &opened.store,
        revision,
        &view.path,
        view.record.idx,
        args.limit,
    )?;
    if args.json {
        let answer = HistoryAnswer {
            element: &found.id,
            revision,
            path: &view.path,
            start_line: view.record.start_line,
            end_line: view.record.end_line,
            commits: entries.iter().map(CommitJson::of).collect(),
        };
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        let history = ElementHistory {
            id: found.id.clone(),
            path: view.path.clone(),
            commits: entries.clone(),
        };
        print!("{}", history_text(&history));
    }
    eprintln!(
        "refscope: {} commit{} changed {}",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        found.id
    );
    Ok(())
}
