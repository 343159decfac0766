//! Extraction: tree-sitter-java → [`FileFacts`].
//!
//! Extraction is a pure function of a file's bytes. It never fails: a file
//! with syntax errors yields whatever tree-sitter recovered plus the number
//! of error nodes, and bytes that are not UTF-8 are decoded lossily and
//! counted. It knows nothing of paths, revisions, the store or other files.
//!
//! The named nodes of the tree are walked once, without recursion (so
//! deeply nested expressions cannot overflow the stack; see [`children`]
//! for how each node's children are fetched), keeping a stack of enclosing
//! elements and a stack of local-variable scopes.

use walker::{NODE_MAPS, Walker};

mod children;
mod declarations;
mod expressions;
mod kinds;
mod lines;
mod lombok;
mod roles;
mod scopes;
mod sites;
mod syntax;
mod walker;

use std::cell::RefCell;

use tree_sitter::Parser;

use crate::facts::FileFacts;
use kinds::grammar;
use syntax::SourceText;

/// Extracts the facts of one Java file.
///
/// ```
/// let facts = refscope_syntax::extract(b"package p; class A { void m() {} }");
/// assert_eq!(facts.package.as_deref(), Some("p"));
/// assert_eq!(facts.elements[1].name, "m");
/// ```
pub fn extract(bytes: &[u8]) -> FileFacts {
    extract_with(bytes, Passes::ALL)
}

/// The passes extraction runs beyond the syntax: what frameworks add to a
/// file. Every pass is a function of the file's bytes, but facts made with
/// other passes differ, so a store keeps the facts of one setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passes {
    /// Lombok's generated members (`extract/lombok`).
    pub lombok: bool,
}

impl Passes {
    /// Every pass: what [`extract`] runs.
    pub const ALL: Self = Self { lombok: true };
    /// The syntax alone.
    pub const NONE: Self = Self { lombok: false };
}

/// Extracts the facts of one Java file with the given passes.
pub fn extract_with(bytes: &[u8], passes: Passes) -> FileFacts {
    // Valid UTF-8 is the rule: check it in one pass, and count invalid
    // bytes only when there are some.
    let (mut text, n_invalid_utf8_bytes) = match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), 0),
        Err(_) => (
            String::from_utf8_lossy(bytes),
            bytes.utf8_chunks().map(|c| c.invalid().len()).sum(),
        ),
    };
    if text.contains('\0') {
        // tree-sitter's lexer reads NUL as the end of input, while javac
        // accepts it (in literals, say). A space has the same length, so
        // offsets, lines and columns stay those of the original bytes.
        text = std::borrow::Cow::Owned(text.replace('\0', " "));
    }
    let tree = PARSER.with(|parser| parser.borrow_mut().parse(text.as_bytes(), None));
    let source = SourceText::new(&text);
    let maps = NODE_MAPS.with(|maps| std::mem::take(&mut *maps.borrow_mut()));
    let mut walker = Walker::new(grammar(), &source, maps);
    if let Some(tree) = &tree {
        walker.count_errors = tree.root_node().has_error();
        walker.walk(tree.root_node());
    }
    let Walker {
        mut facts,
        mut maps,
        lombok_marks,
        ..
    } = walker;
    maps.clear();
    NODE_MAPS.with(|kept| *kept.borrow_mut() = maps);
    facts.n_lines = source.n_lines();
    facts.diagnostics.n_invalid_utf8_bytes = n_invalid_utf8_bytes as u32;
    if tree.is_none() {
        facts.diagnostics.n_syntax_errors += 1;
    }
    if passes.lombok {
        lombok::expand(&mut facts, &lombok_marks, &source);
    }
    lines::build_line_table(&mut facts);
    debug_assert_eq!(
        facts.check(),
        Ok(()),
        "extraction keeps the facts' invariants"
    );
    facts
}

/// Sends tree-sitter's allocations to mimalloc instead of the C library's
/// `malloc`. Every subtree of a parse is a small allocation of its own,
/// made and freed on the parsing threads: with mimalloc, `raw-parse` of the
/// JDK took 5.35 s instead of 5.75 s (three alternating runs; user time
/// 9.9 s instead of 10.8 s). `refscope` does this first thing in `main`,
/// and `raw-parse --mimalloc` does too.
///
/// # Safety
///
/// Call it before any tree-sitter object exists (a parser, a tree, a
/// query), in a process with no other thread using tree-sitter: a block
/// allocated by one allocator must not be freed by the other.
pub unsafe fn tree_sitter_on_mimalloc() {
    // SAFETY: the caller guarantees no tree-sitter block exists yet. The
    // four functions have the C signatures tree-sitter expects
    // (`mi_realloc(NULL, n)` allocates, like `realloc`) and are
    // thread-safe.
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(libmimalloc_sys::mi_calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
}

/// Parses a file and returns only its tree, for benchmarks that need raw
/// tree-sitter parsing as a baseline.
pub fn parse_only(bytes: &[u8]) -> Option<tree_sitter::Tree> {
    PARSER.with(|parser| parser.borrow_mut().parse(bytes, None))
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut parser = Parser::new();
        parser
            .set_language(&grammar().language)
            .expect("tree-sitter-java is compatible with the linked tree-sitter");
        parser
    });
}

#[cfg(test)]
mod tests;
