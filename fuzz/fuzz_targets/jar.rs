//! Any bytes as a jar on the class path, every class in it parsed: the harness is `refscope_fuzzing::jar`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::jar(data));
