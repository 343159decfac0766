//! `refscope query`: one query from the command line, or one per line of
//! standard input against one store open.

use std::io::{BufRead, Write};

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use refscope_query::lang::{
    AnswerJson, ErrorJson, ErrorStage, Evaluator, QueryError, answer_text, run,
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

pub fn run_query(args: QueryArgs) -> Result<()> {
    let opened = open_for_reading(&args.store, None)?;
    let snapshot = opened.snapshot(args.rev.as_deref())?;
    let evaluator = Evaluator::new(&opened.store, opened.source.as_ref(), snapshot);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.query != "-" {
        return match run(&evaluator, &args.query) {
            Ok(answer) => {
                match args.format {
                    Format::Text => write!(out, "{}", answer_text(&answer))?,
                    Format::Json => {
                        serde_json::to_writer_pretty(
                            &mut out,
                            &AnswerJson::new(&args.query, &answer),
                        )?;
                        writeln!(out)?;
                    }
                }
                out.flush()?;
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
        let result = run(&evaluator, query);
        match (args.format, &result) {
            (Format::Json, Ok(answer)) => {
                serde_json::to_writer(&mut out, &AnswerJson::new(query, answer))?;
                writeln!(out)?;
            }
            (Format::Json, Err(error)) => {
                serde_json::to_writer(&mut out, &ErrorJson::new(query, error))?;
                writeln!(out)?;
            }
            (Format::Text, Ok(answer)) => {
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

/// A query error as the process error: a usage error (exit 2) when the
/// text is not a query, a failure (exit 1) when the index cannot answer.
fn query_failure(query: &str, error: &QueryError) -> anyhow::Error {
    let rendered = error.render(query);
    match error.stage {
        ErrorStage::Syntax => UsageError(format!("query: {rendered}")).into(),
        ErrorStage::Evaluation => anyhow!("query: {rendered}"),
    }
}
