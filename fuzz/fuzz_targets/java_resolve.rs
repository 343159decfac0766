//! Up to four Java files, extracted and resolved against the stub JDK: the harness is `refscope_fuzzing::java_resolve`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::java_resolve(data));
