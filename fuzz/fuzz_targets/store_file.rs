//! A store whose database or pack was changed on disk, read every way: the harness is `refscope_fuzzing::store_file`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::store_file(data));
