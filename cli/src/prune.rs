//! `refscope prune`.

use anyhow::{Context, Result};
use chrono::{DateTime, NaiveDate};
use clap::Args;
use refscope_engine::{Keep, PruneReport, RevisionRow};

use crate::StoreArgs;
use crate::index::human_bytes;
use crate::location::open_for_reading;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("rule").required(true).args(["keep", "before"])))]
pub struct PruneArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Keep the N most recently indexed revisions, remove the others.
    #[arg(long, value_name = "N")]
    keep: Option<usize>,
    /// Remove the revisions indexed before DATE (YYYY-MM-DD, midnight UTC,
    /// or an RFC 3339 time such as 2026-11-01T12:00:00+01:00).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    before: Option<i64>,
    /// List what would be removed, remove nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

/// A date or time as Unix seconds.
fn parse_date(text: &str) -> Result<i64, String> {
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let midnight = date.and_hms_opt(0, 0, 0).expect("midnight exists");
        return Ok(midnight.and_utc().timestamp());
    }
    DateTime::parse_from_rfc3339(text)
        .map(|time| time.timestamp())
        .map_err(|_| format!("'{text}' is neither YYYY-MM-DD nor an RFC 3339 time"))
}

pub fn run(args: PruneArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    let keep = match (args.keep, args.before) {
        (Some(n), _) => Keep::Newest(n),
        (None, Some(since)) => Keep::IndexedSince(since),
        (None, None) => unreachable!("clap requires --keep or --before"),
    };
    let report = refscope_engine::prune(&opened.store, keep, args.dry_run, |pid| {
        eprintln!("refscope: waiting for process {pid}, which is writing to the store");
    })
    .context("cannot prune the store")?;
    if args.json {
        println!("{}", report_json(&report, args.dry_run));
    } else {
        print_report(&report, args.dry_run);
    }
    Ok(())
}

fn print_report(report: &PruneReport, dry_run: bool) {
    let verb = if dry_run { "would remove" } else { "removed" };
    for revision in &report.removed {
        println!("{verb} {}", describe(revision));
    }
    for (revision, task) in &report.kept_for_tasks {
        println!("kept {} (task {task} names it)", describe(revision));
    }
    let mut line = format!(
        "{} revisions {verb}, {} remain",
        report.removed.len(),
        report.remaining
    );
    if let Some(collected) = &report.collected {
        line.push_str(&format!(
            "; {} units, {} blobs and {} manifest nodes collected; store {} -> {}",
            collected.units,
            collected.blobs,
            collected.trees,
            human_bytes(report.bytes_before),
            human_bytes(report.bytes_after),
        ));
    }
    println!("{line}");
    if let Some(collected) = &report.collected {
        if let Some(why) = &collected.pack_not_freed {
            eprintln!(
                "refscope: {} of the pack no revision reads stay allocated: {why}",
                human_bytes(collected.pack_dead_bytes)
            );
        }
        if let Some(why) = &collected.database_not_compacted {
            eprintln!(
                "refscope: the database was not compacted (its free pages are reused): {why}"
            );
        }
    }
}

fn describe(revision: &RevisionRow) -> String {
    let indexed = DateTime::from_timestamp(revision.indexed_at, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_default();
    format!("{} (indexed {indexed})", revision.name)
}

fn report_json(report: &PruneReport, dry_run: bool) -> serde_json::Value {
    let names = |rows: &mut dyn Iterator<Item = &RevisionRow>| -> Vec<String> {
        rows.map(|r| r.name.clone()).collect()
    };
    let collected = report.collected.as_ref().map(|c| {
        serde_json::json!({
            "units": c.units,
            "blobs": c.blobs,
            "trees": c.trees,
            "pack_dead_bytes": c.pack_dead_bytes,
            "pack_not_freed": c.pack_not_freed,
            "database_not_compacted": c.database_not_compacted,
        })
    });
    serde_json::json!({
        "dry_run": dry_run,
        "removed": names(&mut report.removed.iter()),
        "kept_for_tasks": report
            .kept_for_tasks
            .iter()
            .map(|(r, task)| serde_json::json!({"revision": r.name, "task": task}))
            .collect::<Vec<_>>(),
        "remaining": report.remaining,
        "collected": collected,
        "store_bytes_before": report.bytes_before,
        "store_bytes_after": report.bytes_after,
    })
}
