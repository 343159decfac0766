//! Extraction on any bytes as a Java file. Replayed on stable by
//! `crates/syntax/tests/fuzz_corpus.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = refscope_syntax::extract(data);
});
