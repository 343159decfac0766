//! The class-file reader on any bytes. Replayed on stable by
//! `crates/symbols/tests/stub_jdk.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = refscope_symbols::classfile::parse_class(data);
});
