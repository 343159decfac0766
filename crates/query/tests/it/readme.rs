//! Every `refscope query` example of the query language's page,
//! `docs/query-language.md`, runs here against the `shop` fixture, and its
//! output must be the one the page shows.
//! `UPDATE_EXPECT=1 cargo test -p refscope-query --test it readme` rewrites
//! the page's outputs from what the queries answer now.

use crate::common::{answer, shop_source, shop_store, workspace};

/// The page that holds the examples, relative to the workspace.
const DOC: &str = "docs/query-language.md";

/// One example: the query line's index in the page's lines, the query,
/// whether it asks for JSON, and the lines of the output block after it.
struct Example {
    query: String,
    json: bool,
    output_start: usize,
    output_end: usize,
}

fn examples(lines: &[&str]) -> Vec<Example> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < lines.len() {
        let is_example = lines[i] == "```sh"
            && lines[i + 1].starts_with("refscope query ")
            && lines[i + 2] == "```";
        if !is_example {
            i += 1;
            continue;
        }
        let command = lines[i + 1];
        let json = command.contains("--format json");
        let query = command
            .split_once('\'')
            .and_then(|(_, rest)| rest.rsplit_once('\''))
            .map(|(query, _)| query.to_string())
            .unwrap_or_else(|| panic!("{DOC} line {}: no quoted query in {command}", i + 2));
        // The output block follows after one blank line.
        let open = i + 4;
        assert!(
            lines.get(i + 3) == Some(&"") && lines.get(open).is_some_and(|l| l.starts_with("```")),
            "{DOC} line {}: the example {query} needs an output block after it",
            i + 2
        );
        let close = (open + 1..lines.len())
            .find(|&j| lines[j] == "```")
            .expect("an output block ends");
        out.push(Example {
            query,
            json,
            output_start: open + 1,
            output_end: close,
        });
        i = close + 1;
    }
    out
}

#[test]
fn every_readme_query_example_answers_as_shown() {
    let path = workspace().join(DOC);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let examples = examples(&lines);
    assert!(
        examples.len() >= 10,
        "{DOC} should hold the query examples ({} found)",
        examples.len()
    );
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut rewritten: Vec<String> = Vec::new();
    let mut copied_up_to = 0;
    let mut failures = Vec::new();
    for example in &examples {
        let actual = answer(shop_store(), &shop_source(), &example.query, example.json);
        let shown = lines[example.output_start..example.output_end].join("\n") + "\n";
        if actual != shown {
            failures.push(format!(
                "query: {}\n--- {DOC} shows:\n{shown}--- it answers:\n{actual}",
                example.query
            ));
        }
        rewritten.extend(
            lines[copied_up_to..example.output_start]
                .iter()
                .map(|l| l.to_string()),
        );
        rewritten.extend(actual.lines().map(str::to_string));
        copied_up_to = example.output_end;
    }
    rewritten.extend(lines[copied_up_to..].iter().map(|l| l.to_string()));
    if update && !failures.is_empty() {
        std::fs::write(&path, rewritten.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "{} examples of {DOC} answer differently (UPDATE_EXPECT=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
