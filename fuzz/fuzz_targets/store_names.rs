//! The store's front-coded name lists on any bytes. Replayed on stable by
//! `crates/store/src/names.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = refscope_store::decode_names(data);
});
