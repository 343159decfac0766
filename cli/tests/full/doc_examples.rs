//! The shell examples that need javac and Python (marked `<!-- example:
//! not run (needs javac and Python: the opt-in suite runs it) -->`), run as
//! `it/doc_examples.rs` runs the others but with the installed JDK and the
//! machine's environment (`HOME`, Python): the accuracy page's comparison
//! of the `zoo` fixture with the javac oracle.

use crate::common::doc_examples::{Setup, run_pages};

#[test]
fn the_javac_examples_of_the_docs_print_what_they_show() {
    let outcome = run_pages(
        &[("docs/accuracy.md", Setup::Fresh)],
        &["needs javac and Python: the opt-in suite runs it"],
    );
    eprintln!("{}", outcome.summary.join("\n"));
    assert!(outcome.run >= 1, "no example needing javac ran");
    assert!(
        outcome.problems.is_empty(),
        "{} problems with the docs' examples:\n\n{}",
        outcome.problems.len(),
        outcome.problems.join("\n\n")
    );
}
