//! The refscope query language: a small, composable language over the
//! engine's read API. Text → tokens ([`lexer`]) → syntax tree ([`ast`],
//! [`parser`]) → rows of elements ([`eval`]) → text or JSON ([`output`]).
//! The grammar and examples are in `docs/query-language.md`.
//!
//! ```no_run
//! use refscope_engine::{Snapshot, Store};
//! use refscope_query::lang::{Evaluator, answer_text, parse};
//!
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let snapshot = Snapshot::new(&store, Snapshot::pick_revision(&store, None, None)?)?;
//! let evaluator = Evaluator::new(&store, None, snapshot);
//! let query = parse("com.acme.Shop#order | callers depth 2 | where kind = method")?;
//! print!("{}", answer_text(&evaluator.evaluate(&query)?));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod ast;
pub mod error;
pub mod eval;
pub mod lexer;
pub mod output;
pub mod page;
pub mod parser;

pub use error::{ErrorStage, QueryError};
pub use eval::{Answer, ElementHistory, Evaluator, Row};
pub use output::{
    AnswerJson, CommitJson, ElementHistoryJson, ErrorJson, HistoryJson, answer_text, history_text,
};
pub use page::{
    Page, PageRequest, binding, binding_of, cursor, history_binding, offset_of, page, page_of,
};
pub use parser::parse;

/// Parses and evaluates one query.
pub fn run(evaluator: &Evaluator, text: &str) -> Result<Answer, QueryError> {
    evaluator.evaluate(&parse(text)?)
}

/// Parses and evaluates one query, answering the page `request` asks for
/// with its cursors bound to `binding` (see [`page::evaluate_page`]).
pub fn run_page(
    evaluator: &Evaluator,
    text: &str,
    request: &PageRequest,
    binding: u64,
) -> Result<(Answer, Option<Page>), QueryError> {
    page::evaluate_page(evaluator, &parse(text)?, request, binding)
}
