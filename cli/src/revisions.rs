//! `refscope revisions`.

use anyhow::Result;
use clap::Args;

use crate::StoreArgs;
use crate::location::open_for_reading;

#[derive(Debug, Args)]
pub struct RevisionsArgs {
    #[command(flatten)]
    store: StoreArgs,
}

pub fn run(args: RevisionsArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    for row in opened.store.revisions()? {
        // A commit's branch, or the directory a work tree's files came from.
        let label = match row.kind.as_str() {
            "worktree" => row.root.as_deref(),
            _ => row.branch.as_deref(),
        }
        .unwrap_or("");
        let line = format!(
            "{:<48} {:<8} {:>7} files {:>9} elements  {label}",
            row.name, row.kind, row.n_files, row.n_elements,
        );
        println!("{}", line.trim_end());
    }
    Ok(())
}
