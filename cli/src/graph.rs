//! `refscope callers`, `callees`, `impls` and `refs`: the reference graph
//! of an indexed revision.

use std::io::Write;
use std::path::Path;

use anyhow::{Result, anyhow};
use clap::Args;
use refscope_engine::Snapshot;
use refscope_engine::{CallersConfig, FoundElement};
use refscope_query::graph::{
    HitJson, HitsAnswer, ImplementationJson, ImplementationsAnswer, RangeJson, SubjectJson,
    callees_text, callers_text, implementations_text, references_text,
};
use refscope_query::lang::{Page, PageRequest, binding, page_of};
use serde::Serialize;

use crate::location::{FileLines, Opened, open_for_reading, parse_file_lines};
use crate::{StoreArgs, UsageError};

/// Options shared by the graph commands.
#[derive(Debug, Args)]
pub struct GraphOptions {
    /// The revision to read (default: the newest indexed one of the current
    /// branch).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// At most this many results; the answer says how many there are in
    /// all and gives a cursor for the next page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,
    /// Continue an answer where the page with this cursor ended.
    #[arg(long, value_name = "TOKEN")]
    pub cursor: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

impl GraphOptions {
    /// Cuts `items`, the whole answer to `question` (the command and what
    /// it asks about), to the page asked for; how many there are in all and
    /// the next cursor, when a page was asked for.
    fn page<T>(
        &self,
        opened: &Opened,
        snapshot: &Snapshot,
        question: &str,
        items: &mut Vec<T>,
    ) -> Result<Option<Page>> {
        let bound = binding(opened.store.dir(), &snapshot.revision().name, question);
        self.page_bound(bound, items)
    }

    /// [`Self::page`] with cursors bound to `bound`.
    pub fn page_bound<T>(&self, bound: u64, items: &mut Vec<T>) -> Result<Option<Page>> {
        let request = PageRequest {
            limit: self.limit.map(|n| n as usize),
            cursor: self.cursor.clone(),
        };
        page_of(items, &request, bound).map_err(|e| anyhow!("{}", e.message))
    }
}

/// Says on standard error which part of the answer a page holds.
pub fn say_page(page: Option<&Page>, shown: usize) {
    if let Some(Page {
        total,
        next_cursor: Some(cursor),
    }) = page
    {
        eprintln!("refscope: {shown} of {total} shown; the next page: --cursor {cursor}");
    }
}

#[derive(Debug, Args)]
pub struct CallersArgs {
    /// A method, constructor or field: its id (parameter types may be left
    /// out when one overload has the name; `Outer.Inner` is read as
    /// `Outer$Inner`), or FILE:LINE for the element declared on that line.
    #[arg(value_name = "ELEMENT|FILE:LINE")]
    element: String,
    /// Only calls that target the element itself, not the methods it
    /// overrides.
    #[arg(long)]
    direct: bool,
    #[command(flatten)]
    options: GraphOptions,
}

#[derive(Debug, Args)]
pub struct CalleesArgs {
    /// An element id (everything referenced inside it, lambdas and
    /// anonymous classes included) or FILE:LINE[-END] (everything
    /// referenced on those lines).
    #[arg(value_name = "ELEMENT|FILE:LINE[-END]")]
    target: String,
    #[command(flatten)]
    options: GraphOptions,
}

#[derive(Debug, Args)]
pub struct ElementArgs {
    /// An element id (parameter types may be left out when one overload
    /// has the name; `Outer.Inner` is read as `Outer$Inner`), or FILE:LINE
    /// for the element declared on that line.
    #[arg(value_name = "ELEMENT|FILE:LINE")]
    element: String,
    #[command(flatten)]
    options: GraphOptions,
}

/// How the command line names an element.
pub enum ElementSpec {
    Id(String),
    Line(FileLines),
}

impl ElementSpec {
    /// Element ids never hold a `:`, so one means `FILE:LINE[-END]`.
    fn parse(text: &str) -> Result<Self> {
        if text.trim().is_empty() {
            return Err(UsageError("name an element: an id or FILE:LINE".into()).into());
        }
        if text.contains(':') {
            Ok(Self::Line(parse_file_lines(text)?))
        } else {
            Ok(Self::Id(text.to_string()))
        }
    }

    fn file_hint(&self) -> Option<&Path> {
        match self {
            Self::Id(_) => None,
            Self::Line(lines) => Some(Path::new(&lines.file)),
        }
    }

    pub fn find(&self, opened: &Opened, snapshot: &Snapshot) -> Result<FoundElement> {
        match self {
            Self::Id(id) => Ok(snapshot.find_element(id)?),
            Self::Line(lines) => {
                if lines.start != lines.end {
                    return Err(UsageError(format!(
                        "{}:{}-{} is a range; name the element by one line, FILE:LINE",
                        lines.file, lines.start, lines.end
                    ))
                    .into());
                }
                let path = opened.relative_path(&lines.file);
                Ok(snapshot.element_declared_on_line(&path, lines.start)?)
            }
        }
    }
}

/// The store, the snapshot and the element a command works on.
pub fn open_element(spec_text: &str, store: &StoreArgs) -> Result<(Opened, ElementSpec)> {
    let spec = ElementSpec::parse(spec_text)?;
    let opened = open_for_reading(store, spec.file_hint())?;
    Ok((opened, spec))
}

pub fn run_callers(args: CallersArgs) -> Result<()> {
    let (opened, spec) = open_element(&args.element, &args.options.store)?;
    let snapshot = opened.snapshot(args.options.rev.as_deref())?;
    let found = spec.find(&opened, &snapshot)?;
    if !found.id.contains('#') {
        return Err(anyhow!(
            "{} is a type; callers takes a method, constructor or field (`refscope refs {}` lists the uses of its members, `refscope impls {}` its subtypes)",
            found.id,
            found.id,
            found.id
        ));
    }
    let config = CallersConfig {
        polymorphic: !args.direct,
    };
    let mut hits: Vec<HitJson> = snapshot
        .callers(&found.id, &config)?
        .iter()
        .map(HitJson::from_hit)
        .collect();
    let n = hits.len();
    let n_polymorphic = hits.iter().filter(|h| h.via.is_some()).count();
    let question = format!("callers {} {}", found.id, args.direct);
    let page = args
        .options
        .page(&opened, &snapshot, &question, &mut hits)?;
    let shown = hits.len();
    print_hits(
        &snapshot,
        Some(&found),
        None,
        hits,
        page.as_ref(),
        &args.options,
        callers_text,
    )?;
    say_page(page.as_ref(), shown);
    eprintln!(
        "refscope: {} ({n_polymorphic} polymorphic) of {}",
        count_of(n, "caller", "callers"),
        found.id
    );
    Ok(())
}

pub fn run_callees(args: CalleesArgs) -> Result<()> {
    let (opened, spec) = open_element(&args.target, &args.options.store)?;
    let snapshot = opened.snapshot(args.options.rev.as_deref())?;
    let (found, range, hits, about) = match &spec {
        ElementSpec::Line(lines) => {
            let path = opened.relative_path(&lines.file);
            let hits = snapshot.callees_on_lines(&path, lines.start, lines.end)?;
            let about = if lines.start == lines.end {
                format!("on {path}:{}", lines.start)
            } else {
                format!("on {path}:{}-{}", lines.start, lines.end)
            };
            let range = RangeJson {
                file: path,
                start_line: lines.start,
                end_line: lines.end,
            };
            (None, Some(range), hits, about)
        }
        ElementSpec::Id(_) => {
            let found = spec.find(&opened, &snapshot)?;
            let Some(view) = &found.declared else {
                return Err(anyhow!(
                    "{} is not declared in the sources of revision {}; callees reads the body of a declaration",
                    found.id,
                    snapshot.revision().name
                ));
            };
            let hits = snapshot.callees(view)?;
            let about = format!("of {}", found.id);
            (Some(found), None, hits, about)
        }
    };
    let mut hits: Vec<HitJson> = hits.iter().map(HitJson::from_hit).collect();
    let n = hits.len();
    let question = format!("callees {}", args.target);
    let page = args
        .options
        .page(&opened, &snapshot, &question, &mut hits)?;
    let shown = hits.len();
    print_hits(
        &snapshot,
        found.as_ref(),
        range,
        hits,
        page.as_ref(),
        &args.options,
        callees_text,
    )?;
    say_page(page.as_ref(), shown);
    eprintln!("refscope: {} {about}", count_of(n, "callee", "callees"));
    Ok(())
}

pub fn run_refs(args: ElementArgs) -> Result<()> {
    let (opened, spec) = open_element(&args.element, &args.options.store)?;
    let snapshot = opened.snapshot(args.options.rev.as_deref())?;
    let found = spec.find(&opened, &snapshot)?;
    let mut hits: Vec<HitJson> = snapshot
        .references(&found.id)?
        .iter()
        .map(HitJson::from_hit)
        .collect();
    let n = hits.len();
    let question = format!("refs {}", found.id);
    let page = args
        .options
        .page(&opened, &snapshot, &question, &mut hits)?;
    let shown = hits.len();
    print_hits(
        &snapshot,
        Some(&found),
        None,
        hits,
        page.as_ref(),
        &args.options,
        references_text,
    )?;
    say_page(page.as_ref(), shown);
    eprintln!(
        "refscope: {} to {}",
        count_of(n, "reference", "references"),
        found.id
    );
    Ok(())
}

pub fn run_impls(args: ElementArgs) -> Result<()> {
    let (opened, spec) = open_element(&args.element, &args.options.store)?;
    let snapshot = opened.snapshot(args.options.rev.as_deref())?;
    let found = spec.find(&opened, &snapshot)?;
    if let Some(view) = &found.declared
        && !view.record.kind.is_type()
        && !view.record.kind.is_executable()
    {
        return Err(anyhow!(
            "{} is a {}; impls takes a method or a type",
            found.id,
            view.record.kind.as_str().replace('_', " ")
        ));
    }
    let mut items: Vec<ImplementationJson> = snapshot
        .implementations(&found.id)?
        .iter()
        .map(ImplementationJson::from_implementation)
        .collect();
    let n = items.len();
    let question = format!("impls {}", found.id);
    let page = args
        .options
        .page(&opened, &snapshot, &question, &mut items)?;
    let shown = items.len();
    let mut out = std::io::stdout().lock();
    if args.options.json {
        let answer = ImplementationsAnswer {
            revision: snapshot.revision().name.clone(),
            element: SubjectJson::from_found(&found),
            implementations: items,
            total: page.as_ref().map(|page| page.total),
            next_cursor: page.as_ref().map(|page| page.next_cursor.clone()),
        };
        write_json(&mut out, &answer)?;
    } else {
        write!(out, "{}", implementations_text(&items))?;
    }
    say_page(page.as_ref(), shown);
    eprintln!(
        "refscope: {} of {}",
        count_of(n, "implementation", "implementations"),
        found.id
    );
    Ok(())
}

fn print_hits(
    snapshot: &Snapshot,
    found: Option<&FoundElement>,
    range: Option<RangeJson>,
    hits: Vec<HitJson>,
    page: Option<&Page>,
    options: &GraphOptions,
    text: fn(&[HitJson]) -> String,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if options.json {
        let answer = HitsAnswer {
            revision: snapshot.revision().name.clone(),
            element: found.map(SubjectJson::from_found),
            range,
            hits,
            total: page.map(|page| page.total),
            next_cursor: page.map(|page| page.next_cursor.clone()),
        };
        write_json(&mut out, &answer)?;
    } else {
        write!(out, "{}", text(&hits))?;
    }
    Ok(())
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

fn count_of(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
