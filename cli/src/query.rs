//! `refscope query`: one query from the command line, or one per line of
//! standard input against one store open.

use std::io::{BufRead, Write};

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use std::time::Duration;

use refscope_query::lang::{
    Answer, AnswerJson, ErrorJson, ErrorStage, Evaluator, Page, PageRequest, QueryError,
    answer_text, binding, run_page,
};

use crate::location::open_for_reading;
use crate::{StoreArgs, UsageError};

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The query (the language is in docs/query-language.md), or `-` to read one
    /// query per line from standard input.
    #[arg(value_name = "QUERY")]
    query: String,
    /// The revision to read (default: the newest indexed one of the current
    /// branch).
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// At most this many elements; the answer says how many there are in
    /// all and gives a cursor for the next page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    limit: Option<u32>,
    /// Continue an answer where the page with this cursor ended.
    #[arg(long, value_name = "TOKEN")]
    cursor: Option<String>,
    /// How long a query may walk relations before it answers with what it
    /// found, marked partial.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_BUDGET_MS)]
    budget_ms: u64,
    #[command(flatten)]
    store: StoreArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Aligned columns, `file:line` first.
    Text,
    /// One JSON document per answer.
    Json,
}

/// How long a query may walk relations, by default.
const DEFAULT_BUDGET_MS: u64 = 2000;

pub fn run_query(args: QueryArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let revision = snapshot.revision().name.clone();
    let evaluator = Evaluator::new(&opened.store, opened.source.as_ref(), snapshot)
        .with_budget(Duration::from_millis(args.budget_ms));
    let request = PageRequest {
        limit: args.limit.map(|n| n as usize),
        cursor: args.cursor.clone(),
    };
    // One query, paged as asked.
    let answer_of = |query: &str| -> Result<(Answer, Option<Page>), QueryError> {
        let bound = binding(opened.store.dir(), &revision, query);
        run_page(&evaluator, query, &request, bound)
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.query != "-" {
        return match answer_of(&args.query) {
            Ok((answer, page)) => {
                match args.format {
                    Format::Text => write!(out, "{}", answer_text(&answer))?,
                    Format::Json => {
                        serde_json::to_writer_pretty(
                            &mut out,
                            &AnswerJson::paged(&args.query, &answer, page.as_ref()),
                        )?;
                        writeln!(out)?;
                    }
                }
                out.flush()?;
                say_what_is_left(&answer, page.as_ref(), args.budget_ms);
                Ok(())
            }
            Err(error) => Err(query_failure(&args.query, &error)),
        };
    }
    // Batch: one answer per query, in order; a failing query answers with
    // its error and the others still run.
    let mut n_failed = 0usize;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let query = line.trim();
        if query.is_empty() {
            continue;
        }
        let result = answer_of(query);
        match (args.format, &result) {
            (Format::Json, Ok((answer, page))) => {
                serde_json::to_writer(&mut out, &AnswerJson::paged(query, answer, page.as_ref()))?;
                writeln!(out)?;
            }
            (Format::Json, Err(error)) => {
                serde_json::to_writer(&mut out, &ErrorJson::new(query, error))?;
                writeln!(out)?;
            }
            (Format::Text, Ok((answer, _))) => {
                write!(out, "{}", answer_text(answer))?;
                writeln!(out)?;
            }
            (Format::Text, Err(error)) => {
                writeln!(out, "error: {}", error.render(query))?;
                writeln!(out)?;
            }
        }
        n_failed += usize::from(result.is_err());
        // Answers go out as they are ready, so a script can talk to us
        // one query at a time.
        out.flush()?;
    }
    if n_failed > 0 {
        return Err(anyhow!(
            "{n_failed} of the queries failed; their errors are in the output"
        ));
    }
    Ok(())
}

/// Says on standard error what an answer left out: the rest of its rows
/// (with the cursor of the next page), or what the budget cut.
fn say_what_is_left(answer: &Answer, page: Option<&Page>, budget_ms: u64) {
    if let Some(Page {
        total,
        next_cursor: Some(cursor),
    }) = page
    {
        eprintln!(
            "refscope: {} of {total} elements shown; the next page: --cursor {cursor}",
            answer.rows.len()
        );
    }
    if answer.partial {
        eprintln!(
            "refscope: the query ran out of its {budget_ms} ms budget and holds what it found by then; raise it with --budget-ms"
        );
    }
}

/// A query error as the process error: a usage error (exit 2) when the
/// text is not a query, a failure (exit 1) when the index cannot answer.
fn query_failure(query: &str, error: &QueryError) -> anyhow::Error {
    let rendered = error.render(query);
    match error.stage {
        ErrorStage::Syntax => UsageError(format!("query: {rendered}")).into(),
        ErrorStage::Evaluation => anyhow!("query: {rendered}"),
    }
}
