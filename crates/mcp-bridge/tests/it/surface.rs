//! The tool surface is a contract with agents and their prompts.
//!
//! `surface/tools.json` is the golden snapshot of every tool's name and
//! input schema as the server lists them (re-bless with `UPDATE_EXPECT=1`
//! after a deliberate change). `surface/frozen.json` is the surface as
//! released; it is edited by hand, only to add to it. The current surface
//! must keep every frozen tool, every frozen argument with its type and
//! allowed values, and may not require an argument the frozen one did not.

use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::query_tool::QueryTools;
use refscope_mcp_bridge::server::Server;
use refscope_tool::ToolSet;
use serde_json::{Value, json};

fn current_surface() -> Value {
    let store = tempfile::tempdir().unwrap();
    let context = ContextTools::open(store.path(), ContextSettings::default()).unwrap();
    // The review tools list the same surface whatever their task; these are
    // bound to the review fixture's repository.
    let repo = refscope_test_support::review::ReviewRepo::build();
    let agent_dir = tempfile::tempdir().unwrap();
    let target = ReviewTarget {
        repository: Repository::Git(repo.path_buf()),
        revision: repo.revision.clone(),
        base_revision: Some(repo.base.clone()),
    };
    let review = ReviewTools::open(&target, agent_dir.path()).unwrap();
    let query = QueryTools::open(store.path()).unwrap();
    let sets: Vec<Box<dyn ToolSet>> = vec![Box::new(context), Box::new(query), Box::new(review)];
    let server = Server::new(sets).unwrap();
    let mut tools: Vec<Value> = server
        .tool_definitions()
        .into_iter()
        .map(|t| json!({"name": t.name, "input_schema": t.input_schema}))
        .collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Value::Array(tools)
}

#[test]
fn golden_snapshot_of_the_tool_surface() {
    let text = serde_json::to_string_pretty(&current_surface()).unwrap() + "\n";
    expect_test::expect_file!["surface/tools.json"].assert_eq(&text);
}

#[test]
fn the_surface_only_extends_the_frozen_one() {
    let frozen: Value =
        serde_json::from_str(include_str!("surface/frozen.json")).expect("frozen.json is JSON");
    let problems = compatibility_problems(&frozen, &current_surface());
    assert!(
        problems.is_empty(),
        "the tool surface breaks the frozen contract:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_compatibility_check_catches_each_kind_of_break() {
    let frozen = json!([{"name": "t", "input_schema": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"enum": ["x", "y"]}},
        "required": ["a"]}}]);
    let broken = json!([
        {"name": "t", "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "c": {"enum": ["x"]}, "d": {"type": "string"}},
            "required": ["a", "d"]}},
    ]);
    let problems = compatibility_problems(&frozen, &broken);
    assert_eq!(
        problems,
        [
            "t.a: type changed from \"string\" to \"integer\"",
            "t.b: argument removed",
            "t.c: allowed value \"y\" removed",
            "t.d: newly required",
        ]
    );
    let renamed = json!([{"name": "t2", "input_schema": frozen[0]["input_schema"].clone()}]);
    assert_eq!(
        compatibility_problems(&frozen, &renamed),
        ["t: tool removed"]
    );
    let extended = json!([
        {"name": "t", "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"enum": ["x", "y", "z"]}, "e": {"type": "boolean"}},
            "required": ["a"]}},
        {"name": "u", "input_schema": {"type": "object"}},
    ]);
    assert!(compatibility_problems(&frozen, &extended).is_empty());
}

/// What in `current` breaks a client written against `frozen`.
fn compatibility_problems(frozen: &Value, current: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let tools = |surface: &Value| -> Vec<(String, Value)> {
        surface
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                (
                    t["name"].as_str().unwrap_or("").to_string(),
                    t["input_schema"].clone(),
                )
            })
            .collect()
    };
    let current_tools = tools(current);
    for (name, old) in tools(frozen) {
        let Some((_, new)) = current_tools.iter().find(|(n, _)| *n == name) else {
            problems.push(format!("{name}: tool removed"));
            continue;
        };
        let empty = serde_json::Map::new();
        let old_props = old["properties"].as_object().unwrap_or(&empty);
        let new_props = new["properties"].as_object().unwrap_or(&empty);
        for (field, old_field) in old_props {
            let Some(new_field) = new_props.get(field) else {
                problems.push(format!("{name}.{field}: argument removed"));
                continue;
            };
            if old_field.get("type") != new_field.get("type") {
                problems.push(format!(
                    "{name}.{field}: type changed from {} to {}",
                    old_field.get("type").unwrap_or(&Value::Null),
                    new_field.get("type").unwrap_or(&Value::Null)
                ));
            }
            for value in allowed_values(old_field) {
                if !allowed_values(new_field).contains(&value) {
                    problems.push(format!("{name}.{field}: allowed value {value} removed"));
                }
            }
        }
        let required = |schema: &Value| -> Vec<String> {
            schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        let old_required = required(&old);
        for field in required(new) {
            if !old_required.contains(&field) {
                problems.push(format!("{name}.{field}: newly required"));
            }
        }
    }
    problems.sort();
    problems
}

/// The values an argument allows when it is an enumeration (directly, or
/// through `anyOf`/`oneOf` alternatives and `$ref`-free `const`s).
fn allowed_values(schema: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = schema["enum"].as_array().cloned().unwrap_or_default();
    if let Some(value) = schema.get("const") {
        out.push(value.clone());
    }
    for key in ["anyOf", "oneOf"] {
        for alternative in schema[key].as_array().into_iter().flatten() {
            out.extend(allowed_values(alternative));
        }
    }
    out
}
