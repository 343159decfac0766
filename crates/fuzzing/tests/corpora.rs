//! Every input of each target's corpus, replayed on stable: what once
//! made a target find something new, or crash, runs in every `cargo test`.

#[test]
fn every_corpus_replays_without_a_panic() {
    for (target, harness) in refscope_fuzzing::TARGETS {
        for (name, input) in refscope_test_support::paths::fuzz_corpus(target) {
            let outcome = std::panic::catch_unwind(|| harness(&input));
            assert!(outcome.is_ok(), "fuzz/corpus/{target}/{name} panics");
        }
    }
}
