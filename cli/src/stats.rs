//! `refscope stats`: where a store's bytes are.

use anyhow::Result;
use clap::Args;
use refscope_engine::StoreStats;

use crate::StoreArgs;
use crate::index::human_bytes;
use crate::location::open_for_reading;

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArgs,
}

pub fn run(args: StatsArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    let stats = opened.store.stats()?;
    if args.json {
        println!("{}", serde_json::to_string(&to_json(&stats))?);
    } else {
        print!("{}", to_text(opened.store.dir(), &stats));
    }
    Ok(())
}

fn to_json(stats: &StoreStats) -> serde_json::Value {
    let pack = &stats.pack;
    serde_json::json!({
        "bytes": stats.files.iter().map(|f| f.bytes).sum::<u64>(),
        "allocated": stats.files.iter().map(|f| f.allocated).sum::<u64>(),
        "files": stats.files.iter().map(|f| serde_json::json!({
            "name": f.name,
            "bytes": f.bytes,
            "allocated": f.allocated,
        })).collect::<Vec<_>>(),
        "database": {
            "page_size": stats.page_size,
            "free_bytes": stats.free_bytes,
            "objects": stats.objects.iter().map(|o| serde_json::json!({
                "name": o.name,
                "kind": o.kind,
                "table": o.table,
                "bytes": o.bytes,
                "payload": o.payload,
            })).collect::<Vec<_>>(),
        },
        "pack": {
            "bytes": pack.bytes,
            "records": {"count": pack.records, "bytes": pack.record_bytes,
                        "declarations_bytes": pack.declarations_bytes},
            "deltas": {"count": pack.deltas, "bytes": pack.delta_bytes},
            "symbol_layers": {"count": pack.symbol_layers, "bytes": pack.symbol_layer_bytes},
            "lookup_layers": {"count": pack.lookup_layers, "bytes": pack.lookup_layer_bytes},
            "other_bytes": pack.other_bytes,
        },
    })
}

fn to_text(dir: &std::path::Path, stats: &StoreStats) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let total: u64 = stats.files.iter().map(|f| f.bytes).sum();
    let allocated: u64 = stats.files.iter().map(|f| f.allocated).sum();
    let _ = writeln!(
        out,
        "{}: {} ({} on disk)",
        dir.display(),
        human_bytes(total),
        human_bytes(allocated)
    );
    let _ = writeln!(out, "\nfiles");
    for f in &stats.files {
        let _ = writeln!(
            out,
            "  {:<28} {:>11}  {:>11} on disk",
            f.name,
            human_bytes(f.bytes),
            human_bytes(f.allocated)
        );
    }
    let _ = writeln!(
        out,
        "\ndatabase (pages of {}; {} free)",
        human_bytes(stats.page_size),
        human_bytes(stats.free_bytes)
    );
    for o in &stats.objects {
        let what = match o.kind.as_str() {
            "index" => format!("index of {}", o.table),
            kind => kind.to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<28} {:>11}  {:>11} stored  {what}",
            o.name,
            human_bytes(o.bytes),
            human_bytes(o.payload)
        );
    }
    let pack = &stats.pack;
    let _ = writeln!(out, "\npack ({})", human_bytes(pack.bytes));
    let mut row = |what: &str, count: Option<u64>, bytes: u64, note: String| {
        let count = count.map_or(String::new(), |n| n.to_string());
        let _ = writeln!(
            out,
            "  {what:<20} {count:>8} {:>11}{note}",
            human_bytes(bytes)
        );
    };
    row(
        "facts records",
        Some(pack.records),
        pack.record_bytes,
        format!(
            "  (declarations parts {})",
            human_bytes(pack.declarations_bytes)
        ),
    );
    row(
        "delta records",
        Some(pack.deltas),
        pack.delta_bytes,
        String::new(),
    );
    row(
        "symbol-table layers",
        Some(pack.symbol_layers),
        pack.symbol_layer_bytes,
        String::new(),
    );
    row(
        "dependency layers",
        Some(pack.lookup_layers),
        pack.lookup_layer_bytes,
        String::new(),
    );
    row(
        "unreferenced",
        None,
        pack.other_bytes,
        "  (merged layers, removed records, padding)".to_string(),
    );
    out
}
