//! The query language end to end: parsing, evaluation over indexed
//! fixtures, and the examples of `docs/query-language.md` as the code answers them.

mod common;
mod eval;
mod parse;
mod readme;
