//! `refscope at` and `refscope export`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use refscope_query::export::{ExportConfig, export};
use refscope_query::render::{ElementJson, elements_text};
use serde::Serialize;

use crate::location::{open_for_reading, parse_file_lines};
use crate::{StoreArgs, UsageError};

#[derive(Debug, Args)]
pub struct AtArgs {
    /// FILE:LINE or FILE:START-END; FILE is repository-relative or a path
    /// on disk inside the repository.
    #[arg(value_name = "FILE:LINE[-END]")]
    location: String,
    /// The revision to read (default: the newest indexed one of the current
    /// branch).
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print each element's source text.
    #[arg(long)]
    source: bool,
    #[command(flatten)]
    store: StoreArgs,
}

#[derive(Debug, Serialize)]
struct AtAnswer<'a> {
    revision: &'a str,
    file: &'a str,
    start_line: u32,
    end_line: u32,
    elements: Vec<AtElement>,
}

#[derive(Debug, Serialize)]
struct AtElement {
    #[serde(flatten)]
    element: ElementJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

pub fn run_at(args: AtArgs) -> Result<()> {
    let target = parse_file_lines(&args.location)?;
    let opened = open_for_reading(&args.store, Some(Path::new(&target.file)))?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let path = opened.relative_path(&target.file);
    let views = snapshot.elements_at(&path, target.start, target.end)?;
    let mut sources: Vec<Option<String>> = vec![None; views.len()];
    if args.source && !views.is_empty() {
        let source = opened
            .source
            .as_ref()
            .context("--source needs the repository: pass --repo")?;
        let file = snapshot.file(&path)?;
        let bytes = source
            .reader_spec()
            .open()?
            .read_blob(&path, &file.blob_id)?;
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        for (slot, view) in sources.iter_mut().zip(&views) {
            let from = view.record.start_line.saturating_sub(1) as usize;
            let to = (view.record.end_line as usize).min(lines.len());
            *slot = Some(lines[from.min(to)..to].join("\n"));
        }
    }
    let mut elements: Vec<ElementJson> = views.iter().map(ElementJson::from_view).collect();
    for (element, view) in elements.iter_mut().zip(&views) {
        element.notes = snapshot.notes_of(view)?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let answer = AtAnswer {
            revision: &snapshot.revision().name,
            file: &path,
            start_line: target.start,
            end_line: target.end,
            elements: elements
                .into_iter()
                .zip(sources)
                .map(|(element, source)| AtElement { element, source })
                .collect(),
        };
        serde_json::to_writer_pretty(&mut out, &answer)?;
        writeln!(out)?;
    } else if elements.is_empty() {
        writeln!(
            out,
            "{path}:{}-{}: no element (outside every type)",
            target.start, target.end
        )?;
    } else {
        if args.source {
            for (element, source) in elements.iter().zip(&sources) {
                write!(out, "{}", elements_text(std::slice::from_ref(element)))?;
                if let Some(source) = source {
                    writeln!(out, "{source}\n")?;
                }
            }
        } else {
            write!(out, "{}", elements_text(&elements))?;
        }
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Export declaration records.
    #[arg(long)]
    decls: bool,
    /// Export reference records (the oracle's `ref` records, with a
    /// `confidence` field: exact, ambiguous, external or unresolved).
    #[arg(long)]
    refs: bool,
    /// The revision to read (default: the newest indexed one of the current
    /// branch).
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Only files under this repository-relative directory, with paths
    /// relative to it (like the oracle's --base).
    #[arg(long, value_name = "DIR")]
    under: Option<String>,
    /// Write a SCIP index of the revision (binary, for Sourcegraph and
    /// other SCIP readers) to the --out file instead of JSON Lines.
    #[arg(long, conflicts_with_all = ["decls", "refs", "under"], requires = "out")]
    scip: bool,
    /// With --scip: the jars given to `index --classpath`, so that
    /// references into them carry their Maven coordinates.
    #[arg(long, value_name = "JARS", requires = "scip")]
    classpath: Vec<String>,
    /// With --scip: do not add the jars the build files declare, as for
    /// `index`.
    #[arg(long, requires = "scip")]
    no_auto_classpath: bool,
    #[command(flatten)]
    repos: crate::deps::RepoArgs,
    #[command(flatten)]
    store: StoreArgs,
}

pub fn run_export(args: ExportArgs) -> Result<()> {
    if args.scip
        && let Some(out) = &args.out
    {
        let libraries = crate::scip_export::LibraryArgs {
            classpath: &args.classpath,
            repos: &args.repos,
            auto: !args.no_auto_classpath,
        };
        return crate::scip_export::run(&args.store, args.rev.as_deref(), out, &libraries);
    }
    if !args.decls && !args.refs {
        return Err(UsageError(
            "say what to export: --decls, --refs or both, or --scip --out FILE".into(),
        )
        .into());
    }
    let opened = open_for_reading(&args.store, None)?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let config = ExportConfig {
        decls: args.decls,
        refs: args.refs,
        under: args.under.clone(),
    };
    let summary = match &args.out {
        Some(path) => {
            // Write beside the target and rename, so a failed export never
            // leaves half a file under the name asked for.
            let partial = path.with_extension("partial");
            let file = std::fs::File::create(&partial)
                .with_context(|| format!("cannot create {}", partial.display()))?;
            let mut writer = std::io::BufWriter::new(file);
            let summary = export(&snapshot, &config, &mut writer)?;
            writer.flush()?;
            std::fs::rename(&partial, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            summary
        }
        None => {
            let stdout = std::io::stdout();
            let mut writer = std::io::BufWriter::new(stdout.lock());
            let summary = export(&snapshot, &config, &mut writer)?;
            writer.flush()?;
            summary
        }
    };
    eprintln!(
        "refscope: exported {} declarations and {} references of {} files",
        summary.n_decls, summary.n_refs, summary.n_files
    );
    Ok(())
}
