//! The query language parsed and evaluated on a small store: the harness is `refscope_fuzzing::query_eval`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::query_eval(data));
