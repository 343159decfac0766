//! The agent-stream reader of `aicr replay` on any bytes. Replayed on
//! stable by `crates/aicr/src/replay.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = refscope_aicr::replay::scan_stream(data);
});
