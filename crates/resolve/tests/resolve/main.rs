//! Resolution checked on fixtures written as data: Java source with the
//! expected target of each marked site in a comment under it (see
//! `fixture.rs`), one module of cases per language concern. The stub JDK
//! stands in for the JDK; the opt-in suite holds every case to javac
//! (`tests/javac.rs`).

mod calls;
mod fields;
mod fixture;
mod generics;
mod lambdas;
mod library;
mod overloads;
mod types;

#[test]
fn calls() {
    fixture::check(calls::CASES);
}

#[test]
fn overloads() {
    fixture::check(overloads::CASES);
}

#[test]
fn generics() {
    fixture::check(generics::CASES);
}

#[test]
fn lambdas_and_method_references() {
    fixture::check(lambdas::CASES);
}

#[test]
fn fields() {
    fixture::check(fields::CASES);
}

#[test]
fn types() {
    fixture::check(types::CASES);
}

#[test]
fn library_members() {
    fixture::check(library::CASES);
}

/// The harness itself: files split at their markers, carets read as the
/// columns of the line above them, a wrong expectation reported.
#[test]
fn the_harness_reads_cases_and_fails_on_a_wrong_expectation() {
    let case = fixture::Case {
        name: "harness",
        source: "\n//- p/A.java\npackage p;\nclass A { void m() { m(); } }\n//                   ^ call p.A#m()\n//- p/B.java\npackage p;\nclass B {}\n",
    };
    let files = fixture::files(&case);
    assert_eq!(files.len(), 2);
    assert_eq!(
        files[1],
        (
            "p/B.java".to_string(),
            "package p;\nclass B {}\n".to_string()
        )
    );
    let expectations = fixture::expectations(&files);
    assert_eq!(expectations.len(), 1);
    assert_eq!((expectations[0].line, expectations[0].col), (2, 22));
    fixture::check(&[case]);
    let wrong = fixture::Case {
        name: "wrong",
        source: "package p;\nclass A { void m() { m(); } }\n//                   ^ call p.A#other()\n",
    };
    let failed = std::panic::catch_unwind(|| fixture::check(&[wrong]));
    assert!(failed.is_err(), "a wrong expectation must fail the check");
}
