//! Java syntax for refscope: one file's bytes → its [`FileFacts`].
//!
//! This crate owns the tree-sitter-java extraction ([`extract`]) and the
//! vocabulary of per-file facts ([`facts`]): declarations, reference sites,
//! local variables, expression trees and the line → element table. It also
//! holds the 128-bit content digest ([`digest`]) every layer above uses to
//! tell values apart.
//!
//! It must never know of paths, revisions, other files, the store or
//! MCP: extraction is a pure function of the bytes, and it never fails
//! (syntax errors yield what tree-sitter recovered, counted).
//!
//! ```
//! let facts = refscope_syntax::extract(b"package p; class A { void m() { m(); } }");
//! assert_eq!(facts.package.as_deref(), Some("p"));
//! assert_eq!(facts.ref_sites[0].name, "m");
//! ```

mod check;
pub mod digest;
pub mod extract;
pub mod facts;
pub mod mentions;

pub use check::BadFacts;
pub use digest::Digest128;
pub use extract::{Passes, extract, extract_with, parse_only, tree_sitter_on_mimalloc};
pub use facts::FileFacts;
