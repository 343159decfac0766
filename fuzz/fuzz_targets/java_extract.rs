//! Extraction on any bytes as a Java file, which must keep the facts'
//! invariants (`FileFacts::check`). Replayed on stable by
//! `crates/syntax/src/extract/tests.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The facts read back from a store are checked against these
    // invariants: extraction must keep them for any input.
    let facts = refscope_syntax::extract(data);
    assert_eq!(facts.check(), Ok(()), "extraction broke the facts' invariants");
});
