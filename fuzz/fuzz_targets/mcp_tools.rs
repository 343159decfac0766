//! An MCP tool call (name, JSON arguments) on a server with every tool set: the harness is `refscope_fuzzing::mcp_tools`,
//! which `crates/fuzzing/tests/corpora.rs` replays the corpus through on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| refscope_fuzzing::mcp_tools(data));
