//! The query language's parser on any text: an answer or an error, never
//! a panic. Replayed on stable by `crates/query/tests/it/parse.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = refscope_query::lang::parser::parse(text);
    }
});
