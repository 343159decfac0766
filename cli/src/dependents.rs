//! `refscope dependents`.

use anyhow::Result;
use clap::Args;

use crate::StoreArgs;
use crate::location::open_for_reading;

#[derive(Debug, Args)]
pub struct DependentsArgs {
    /// A class key (`com.acme.Shop`, `java.util.List`, a nested class as
    /// `com.acme.Shop.Cart`), or any package-qualified name a file may have
    /// looked up without finding it (`com.acme.List`).
    name: String,
    /// The revision (default: HEAD, else the newest indexed).
    #[arg(long)]
    rev: Option<String>,
    /// Print a JSON array of paths.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArgs,
}

pub fn run(args: DependentsArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let paths = snapshot.dependents(&args.name)?;
    if args.json {
        println!("{}", serde_json::to_string(&paths)?);
    } else {
        for path in paths {
            println!("{path}");
        }
    }
    Ok(())
}
