//! `query_eval`: any text as a query over the fixture's store, evaluated
//! and rendered as `refscope query` renders it (text and JSON).

use refscope_engine::{Snapshot, Source, Store};
use refscope_query::lang::{Answer, AnswerJson, Evaluator, answer_text, run};

use crate::fixture;

thread_local! {
    static EVALUATOR: Evaluator<'static> = {
        let shop = fixture::shop();
        let store: &'static Store =
            Box::leak(Box::new(Store::open_existing(&shop.store_dir).expect("the fixture's store")));
        let source: &'static Source = Box::leak(Box::new(
            Source::open_directory(&shop.source_dir).expect("the fixture's files"),
        ));
        let row = Snapshot::pick_revision(store, Some(source), None).expect("the indexed snapshot");
        let snapshot = Snapshot::new(store, row).expect("the snapshot opens");
        Evaluator::new(store, Some(source), snapshot)
    };
}

/// Parses and evaluates `data` as a query when it is UTF-8.
pub fn query_eval(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(answer) = evaluate(text) {
        let _ = serde_json::to_string(&AnswerJson::new(text, &answer));
    }
}

/// The answer to `text`, rendered once as text, if it is a query that
/// answers.
fn evaluate(text: &str) -> Option<Answer> {
    EVALUATOR.with(|evaluator| {
        let answer = run(evaluator, text).ok()?;
        let _ = answer_text(&answer);
        Some(answer)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_query_answers_on_the_fixture() {
        let answer = super::evaluate("com.acme.shop.Priced | subtypes").expect("the query answers");
        let text = refscope_query::lang::answer_text(&answer);
        assert!(text.contains("com.acme.shop"), "{text}");
    }
}
