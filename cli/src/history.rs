//! `refscope history`: the commits that changed an element.

use anyhow::{Result, anyhow};
use clap::Args;
use refscope_query::lang::{
    CommitJson, ElementHistory, ElementHistoryJson, history_binding, history_text,
};

use crate::graph::{GraphOptions, open_element, say_page};

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// An element id (parameter types may be left out when one overload
    /// has the name), or FILE:LINE for the element declared on that line.
    #[arg(value_name = "ELEMENT|FILE:LINE")]
    element: String,
    /// The revision to start from, whether to print JSON, and which page
    /// of the commits (newest first) to show.
    #[command(flatten)]
    options: GraphOptions,
}

pub fn run(args: HistoryArgs) -> Result<()> {
    let options = &args.options;
    let (opened, spec) = open_element(&args.element, &options.store)?;
    let snapshot = opened.snapshot(options.rev.as_deref())?;
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
    let mut entries =
        source.element_history(&opened.store, revision, &view.path, view.record.idx, None)?;
    let bound = history_binding(opened.store.dir(), revision, &found.id);
    let page = options.page_bound(bound, &mut entries)?;
    if options.json {
        let answer = ElementHistoryJson {
            element: found.id.clone(),
            revision: revision.clone(),
            path: view.path.clone(),
            start_line: view.record.start_line,
            end_line: view.record.end_line,
            commits: entries.iter().map(CommitJson::of).collect(),
            total: page.as_ref().map(|page| page.total),
            next_cursor: page.as_ref().map(|page| page.next_cursor.clone()),
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
    let total = page.as_ref().map_or(entries.len(), |page| page.total);
    eprintln!(
        "refscope: {total} commit{} changed {}",
        if total == 1 { "" } else { "s" },
        found.id
    );
    say_page(page.as_ref(), entries.len());
    Ok(())
}
