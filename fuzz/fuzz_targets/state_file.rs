//! Any bytes as the review state file: the harness is `refscope_fuzzing::state_file`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::state_file(data));
