//! `refscope task` and `refscope context`: the code-context JSON of a diff
//! over a git repository built in the test, its settings and its errors.

use std::path::Path;

use crate::common::{Run, TestRepo, run, workspace_root};
use serde_json::Value;

const KEEPER: &str = "src/main/java/com/zoo/Keeper.java";

/// The zoo fixture committed to a fresh repository, with task `zoo` in a
/// store of its own.
struct Zoo {
    repo: TestRepo,
    store: tempfile::TempDir,
}

impl Zoo {
    fn new() -> Self {
        let repo = TestRepo::new();
        let files = fixture_files("corpora/fixtures/zoo");
        commit(&repo, &files, "zoo");
        let zoo = Self {
            repo,
            store: tempfile::tempdir().unwrap(),
        };
        let repo_arg = zoo.repo.path().to_str().unwrap().to_string();
        zoo.refscope(&["task", "add", "--id", "zoo", "--repo", &repo_arg])
            .ok();
        zoo
    }

    /// `refscope ARGS --store STORE` in the repository.
    fn refscope(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--store", self.store.path().to_str().unwrap()]);
        run(self.repo.path(), &all)
    }

    /// Commits `text` at `path` and adds task `id` for the new commit.
    fn commit_with_task(&self, id: &str, path: &str, text: String) {
        commit(&self.repo, &[(path.into(), text)], id);
        let repo_arg = self.repo.path().to_str().unwrap().to_string();
        self.refscope(&["task", "add", "--id", id, "--repo", &repo_arg])
            .ok();
    }

    /// The JSON `refscope context --task zoo ARGS` prints.
    fn context(&self, args: &[&str]) -> Value {
        let mut all = vec!["context", "--task", "zoo"];
        all.extend(args);
        serde_json::from_str(&self.refscope(&all).ok()).expect("context prints JSON")
    }
}

fn fixture_files(dir: &str) -> Vec<(String, String)> {
    let root = workspace_root().join(dir);
    let mut out = Vec::new();
    collect(&root, &root, &mut out);
    out.sort();
    out
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn commit(repo: &TestRepo, files: &[(String, String)], message: &str) -> String {
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    repo.commit(&borrowed, message)
}

/// The answer with the revisions (commit ids that change with the time of
/// the commit) replaced by placeholders.
fn normalised(mut answer: Value) -> Value {
    answer["revision"] = Value::String("<revision>".into());
    if !answer["base_revision"].is_null() {
        answer["base_revision"] = Value::String("<base revision>".into());
    }
    answer
}

fn pretty(answer: &Value) -> String {
    serde_json::to_string_pretty(answer).unwrap() + "\n"
}

#[test]
fn context_of_a_method_body_range() {
    let zoo = Zoo::new();
    let answer = normalised(zoo.context(&["--file", KEEPER, "--lines", "22-25"]));
    expect_test::expect_file!["context/keeper_feed.json"].assert_eq(&pretty(&answer));
}

#[test]
fn the_readme_example_is_what_the_code_prints() {
    let (zoo, _, _) = zoo_with_a_change();
    let stdout = zoo
        .refscope(&[
            "context", "--task", "pr", "--file", KEEPER, "--lines", "22-25",
        ])
        .ok();
    let answer = normalised(serde_json::from_str(&stdout).unwrap());
    let page = std::fs::read_to_string(workspace_root().join("docs/code-context.md")).unwrap();
    let (_, after) = page
        .split_once("<!-- context-example: begin -->\n```json\n")
        .expect("docs/code-context.md has the context example");
    let (example, _) = after
        .split_once("```\n<!-- context-example: end -->")
        .unwrap();
    let example: Value =
        serde_json::from_str(example).expect("the example of docs/code-context.md is JSON");
    assert_eq!(
        normalised(example),
        answer,
        "docs/code-context.md's context example differs from what refscope prints; paste:\n{}",
        pretty(&answer)
    );
}

#[test]
fn a_run_of_field_declarations_owns_each_field() {
    let zoo = Zoo::new();
    let answer = zoo.context(&["--file", KEEPER, "--lines", "7-8", "--caller-depth", "0"]);
    let owning = &answer["element_relations"]["owning_elements"]["7_8"];
    let ids: Vec<&str> = owning
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            answer["element_info"][e["element_id"].as_str().unwrap()]["qualified_id"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, ["com.zoo.Keeper#animals", "com.zoo.Keeper#fed"]);
    let fed = &answer["element_info"]["E2"];
    assert_eq!(fed["kind"], "FIELD");
    assert_eq!(fed["field_type"], "int");
    assert_eq!(fed["modifiers"], serde_json::json!(["private"]));
    assert_eq!(fed["source"], "    private int fed;");
}

#[test]
fn every_element_id_of_the_relations_is_described() {
    let zoo = Zoo::new();
    let answer = zoo.context(&[
        "--file",
        KEEPER,
        "--lines",
        "10-16,27-37",
        "--callee-depth",
        "2",
    ]);
    let info = answer["element_info"].as_object().unwrap();
    let mut ids = Vec::new();
    collect_ids(&answer["element_relations"], &mut ids);
    for short in info
        .values()
        .filter_map(|i| i["calls"].as_array())
        .flatten()
    {
        ids.push(short.as_str().unwrap().to_string());
    }
    assert!(!ids.is_empty());
    for id in &ids {
        assert!(info.contains_key(id), "{id} is not in element_info");
    }
    let expected: Vec<String> = (1..=info.len()).map(|n| format!("E{n}")).collect();
    assert_eq!(info.keys().cloned().collect::<Vec<_>>(), expected);
    // Depth 2: what feedAll's lambda calls (feed) is described with what it
    // calls in turn.
    let feed_all = info
        .values()
        .find(|i| i["qualified_id"] == "com.zoo.Keeper#feedAll()")
        .unwrap();
    assert!(
        feed_all.get("calls").is_none(),
        "owning elements are level 0"
    );
}

fn collect_ids(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "element_id" {
                    out.push(value.as_str().unwrap().to_string());
                } else {
                    collect_ids(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        _ => {}
    }
}

#[test]
fn zh_key_style_uses_the_design_documents_names() {
    let zoo = Zoo::new();
    let answer = zoo.context(&[
        "--file",
        KEEPER,
        "--lines",
        "7-8,22-25",
        "--key-style",
        "zh",
    ]);
    let relations = &answer["元素关系"];
    let owning = &relations["所属元素"]["22_25"][0];
    let location = &owning["引用位置"][0];
    assert!(
        location["文件地址"].is_string() && location["行号"].is_u64(),
        "{location}"
    );
    let used = &relations["引用元素"]["23"][0];
    assert_eq!(used["元素名称"], "eat");
    assert_eq!(used["元素类型"], "METHOD");
    let info = &answer["元素信息"];
    let method = &info[owning["元素ID"].as_str().unwrap()];
    for key in [
        "方法所在类全路径名",
        "方法名",
        "方法返回类型",
        "方法修饰符列表",
        "注解列表",
        "方法入参列表",
        "方法异常列表",
        "方法在源码中的起始行号",
        "方法在源码中的结束行号",
        "方法中引用的全局变量列表",
        "源文件路径",
        "元素源代码",
    ] {
        assert!(
            method.get(key).is_some(),
            "method info lacks {key}: {method}"
        );
    }
    let field = &info[relations["所属元素"]["7_8"][1]["元素ID"].as_str().unwrap()];
    for key in [
        "字段所在类全路径名",
        "字段名",
        "字段类型",
        "修饰符列表",
        "字段注解列表",
        "字段在源码中的起始行号",
        "字段在源码中的结束行号",
        "字段源码所在源文件路径",
    ] {
        assert!(field.get(key).is_some(), "field info lacks {key}: {field}");
    }
    let eat = &info[used["元素ID"].as_str().unwrap()];
    assert!(
        eat["该方法是接口时其所有实现类对应的方法列表"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{eat}"
    );
}

#[test]
fn settings_come_from_defaults_then_the_config_file_then_the_call() {
    let zoo = Zoo::new();
    let source_of_feed = |answer: &Value| {
        answer["element_info"]["E1"]["source"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let default = zoo.context(&["--file", KEEPER, "--lines", "22-25"]);
    assert_eq!(source_of_feed(&default).lines().count(), 4);
    assert_eq!(default["truncated"], serde_json::json!([]));

    std::fs::write(
        zoo.store.path().join("context-settings.json"),
        r#"{"max_source_lines": 2, "key_style": "en"}"#,
    )
    .unwrap();
    let configured = zoo.context(&["--file", KEEPER, "--lines", "22-25"]);
    assert_eq!(
        source_of_feed(&configured),
        "    public void feed(Animal animal, Food food) {\n        animal.eat(food);\n// ... 2 more lines cut (max_source_lines = 2)"
    );
    assert!(
        configured["truncated"]
            .as_array()
            .unwrap()
            .iter()
            .any(
                |t| t["what"] == "source of com.zoo.Keeper#feed(com.zoo.Animal,com.zoo.Food)"
                    && t["kept"] == 2
                    && t["total"] == 4
            ),
        "{}",
        configured["truncated"]
    );
    let overridden = zoo.context(&[
        "--file",
        KEEPER,
        "--lines",
        "22-25",
        "--max-source-lines",
        "10",
    ]);
    assert_eq!(source_of_feed(&overridden), source_of_feed(&default));

    std::fs::write(
        zoo.store.path().join("context-settings.json"),
        r#"{"max_source_line": 2}"#,
    )
    .unwrap();
    let refused = zoo
        .refscope(&[
            "context", "--task", "zoo", "--file", KEEPER, "--lines", "22",
        ])
        .fails_with(1);
    assert!(
        refused.contains("context-settings.json is not valid: unknown field `max_source_line`"),
        "{refused}"
    );
}

#[test]
fn bad_input_is_refused_with_what_to_fix() {
    let zoo = Zoo::new();
    let cases: [(&[&str], i32, &str); 7] = [
        (
            &["--file", KEEPER, "--lines", "25-22"],
            1,
            "diff range 25-22 ends before it starts",
        ),
        (
            &["--file", KEEPER, "--lines", "0-3"],
            1,
            "diff_lines value 0 is not a line number",
        ),
        (
            &["--file", KEEPER, "--lines", "45-60"],
            1,
            "diff range 45-60 lies past the end of src/main/java/com/zoo/Keeper.java (50 lines at revision ",
        ),
        (
            &["--file", "src/main/java/com/zoo/Gone.java", "--lines", "1"],
            1,
            "src/main/java/com/zoo/Gone.java",
        ),
        (
            &["--file", KEEPER, "--lines", "a-b"],
            2,
            "--lines 'a-b' is not a list of ranges",
        ),
        (
            &["--file", KEEPER, "--lines", "3", "--key-style", "fr"],
            2,
            "invalid value 'fr'",
        ),
        (&["--file", KEEPER], 2, "--lines"),
    ];
    for (args, code, expected) in cases {
        let mut all = vec!["context", "--task", "zoo"];
        all.extend(args);
        let stderr = zoo.refscope(&all).fails_with(code);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let unknown = zoo
        .refscope(&[
            "context", "--task", "nope", "--file", KEEPER, "--lines", "3",
        ])
        .fails_with(1);
    assert!(
        unknown.contains("no task 'nope' in store ") && unknown.contains("known tasks: zoo"),
        "{unknown}"
    );
}

#[test]
fn a_non_java_file_has_empty_relations_and_a_note() {
    let zoo = Zoo::new();
    let answer = zoo.context(&["--file", "README.md", "--lines", "1-3"]);
    assert_eq!(
        answer["element_relations"]["owning_elements"],
        serde_json::json!({})
    );
    assert_eq!(answer["element_info"], serde_json::json!({}));
    assert_eq!(
        answer["notes"],
        serde_json::json!([
            "README.md is not a Java file: refscope indexes Java sources only, so it has no element relations"
        ])
    );
}

#[test]
fn a_huge_diff_is_capped_with_a_note() {
    let zoo = Zoo::new();
    let mut big = String::from("package com.zoo;\n\npublic class Big {\n");
    for n in 0..2600 {
        big.push_str(&format!("    int f{n};\n"));
    }
    big.push_str("}\n");
    zoo.commit_with_task("big", "src/main/java/com/zoo/Big.java", big);
    // The whole answer, or with a cursor the next page of a cut list.
    let context = |cursor: Option<&str>| -> Value {
        let mut args = vec![
            "context",
            "--task",
            "big",
            "--file",
            "src/main/java/com/zoo/Big.java",
            "--lines",
            "1-1500,1501-2604",
            "--caller-depth",
            "0",
        ];
        args.extend(
            cursor
                .map(|cursor| ["--cursor", cursor])
                .into_iter()
                .flatten(),
        );
        serde_json::from_str(&zoo.refscope(&args).ok()).unwrap()
    };
    let answer = context(None);
    let truncated = answer["truncated"].as_array().unwrap();
    let diff = truncated
        .iter()
        .find(|t| t["what"] == "diff_lines")
        .expect("a diff_lines entry");
    assert_eq!(
        (diff["kept"].as_u64(), diff["total"].as_u64()),
        (Some(2000), Some(2604))
    );
    let elements = truncated
        .iter()
        .find(|t| t["what"] == "element_info")
        .expect("an element_info entry");
    assert_eq!(elements["kept"], 150);
    assert_eq!(answer["element_info"].as_object().unwrap().len(), 150);

    // The elements past the cap come a page at a time, each once.
    let total = elements["total"].as_u64().unwrap();
    assert!(total > 300, "{elements}");
    let mut ids: Vec<String> = Vec::new();
    let mut collect = |info: &Value| {
        for element in info.as_object().unwrap().values() {
            ids.push(element["qualified_id"].as_str().unwrap().to_string());
        }
    };
    collect(&answer["element_info"]);
    let mut cursor = elements["next_cursor"].as_str().unwrap().to_string();
    let mut pages = 0;
    loop {
        let page = context(Some(&cursor));
        assert_eq!(page["continues"], "element_info");
        assert_eq!(page["total"], total);
        assert!(page["element_info"].as_object().unwrap().len() <= 150);
        collect(&page["element_info"]);
        pages += 1;
        match page["next_cursor"].as_str() {
            Some(next) => cursor = next.to_string(),
            None => break,
        }
    }
    assert_eq!(pages, (total - 150).div_ceil(150));
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(ids.len() as u64, total);
    assert_eq!(distinct.len(), ids.len());
    assert!(distinct.contains(&"com.zoo.Big#f1996".to_string()));
}

#[test]
fn cut_reference_locations_continue_with_their_cursor() {
    let zoo = Zoo::new();
    let mut calls = String::from("package com.zoo;\n\npublic class Calls {\n");
    for n in 0..45 {
        calls.push_str(&format!("    void c{n}() {{ Calls.target(); }}\n"));
    }
    calls.push_str("    static void target() {\n    }\n}\n");
    let file = "src/main/java/com/zoo/Calls.java";
    zoo.commit_with_task("calls", file, calls);
    let context = |lines: &str, extra: &[&str]| -> Run {
        let mut args = vec![
            "context", "--task", "calls", "--file", file, "--lines", lines,
        ];
        args.extend(extra);
        zoo.refscope(&args)
    };
    let json = |run: Run| -> Value { serde_json::from_str(&run.ok()).unwrap() };
    let locations = |answer: &Value| -> Vec<Value> {
        answer["element_relations"]["owning_elements"]["49_50"][0]["reference_locations"]
            .as_array()
            .unwrap()
            .clone()
    };
    let whole = locations(&json(context("49-50", &["--max-callers", "100"])));
    assert_eq!(whole.len(), 45);

    let first = json(context("49-50", &[]));
    let mut seen = locations(&first);
    assert_eq!(seen.len(), 20);
    let cut = first["truncated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["what"] == "reference_locations of com.zoo.Calls#target()")
        .expect("the cut list")
        .clone();
    assert_eq!(
        (cut["kept"].as_u64(), cut["total"].as_u64()),
        (Some(20), Some(45))
    );
    let mut cursor = cut["next_cursor"].as_str().unwrap().to_string();
    loop {
        let page = json(context("49-50", &["--cursor", &cursor]));
        assert_eq!(page["continues"], cut["what"]);
        assert_eq!(page["total"], 45);
        seen.extend(
            page["reference_locations"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        match page["next_cursor"].as_str() {
            Some(next) => cursor = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, whole, "the pages hold the list once, in order");

    // A cursor continues the call that gave it: other lines, other
    // settings or a made-up token are refused.
    let first_cursor = cut["next_cursor"].as_str().unwrap();
    for (lines, extra) in [
        ("48-50", vec!["--cursor", first_cursor]),
        ("49-50", vec!["--cursor", first_cursor, "--no-tests"]),
        ("49-50", vec!["--cursor", "q1.zz.3"]),
    ] {
        let refused = context(lines, &extra);
        assert!(
            refused.stderr().contains("cursor") && refused.code() != Some(0),
            "{lines} {extra:?}: {}",
            refused.stderr()
        );
    }
}

#[test]
fn tasks_are_added_listed_and_removed() {
    let zoo = Zoo::new();
    let repo_arg = zoo.repo.path().to_str().unwrap().to_string();
    let listed = zoo.refscope(&["task", "list"]).ok();
    assert!(listed.starts_with("zoo\t"), "{listed}");
    assert!(listed.contains("\tHEAD ("), "{listed}");
    let duplicate = zoo
        .refscope(&["task", "add", "--id", "zoo", "--repo", &repo_arg])
        .fails_with(1);
    assert!(
        duplicate.contains("task 'zoo' exists already"),
        "{duplicate}"
    );
    let missing_rev = zoo
        .refscope(&[
            "task",
            "add",
            "--id",
            "x",
            "--repo",
            &repo_arg,
            "--rev",
            "no-such-branch",
        ])
        .fails_with(1);
    assert!(
        missing_rev.contains("revision 'no-such-branch' not found"),
        "{missing_rev}"
    );
    let missing_repo = zoo
        .refscope(&["task", "add", "--id", "x", "--repo", "/no/such/repo"])
        .fails_with(1);
    assert!(
        missing_repo.contains("/no/such/repo: not a git repository or a directory"),
        "{missing_repo}"
    );
    let bad_id = zoo
        .refscope(&["task", "add", "--id", "a b", "--repo", &repo_arg])
        .fails_with(1);
    assert!(bad_id.contains("task id 'a b' is not usable"), "{bad_id}");
    zoo.refscope(&["task", "remove", "zoo"]).ok();
    assert_eq!(zoo.refscope(&["task", "list"]).ok(), "");
    let gone = zoo.refscope(&["task", "remove", "zoo"]).fails_with(1);
    assert!(gone.contains("no task 'zoo'"), "{gone}");
}

/// Task `pr` over a second commit of the zoo: `feed(Animal, Food)` counts
/// differently, and `feedAll` calls it instead of `feed(Animal)`. With the
/// base and the new commit.
fn zoo_with_a_change() -> (Zoo, String, String) {
    let zoo = Zoo::new();
    let base = zoo
        .repo
        .repo
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .id()
        .to_string();
    let keeper = std::fs::read_to_string(zoo.repo.path().join(KEEPER)).unwrap();
    let changed = keeper
        .replace("        fed++;", "        fed += 1;")
        .replace(
            "animals.forEach(a -> feed(a));",
            "animals.forEach(a -> feed(a, Food.MEAT));",
        );
    assert_ne!(changed, keeper);
    let head = commit(&zoo.repo, &[(KEEPER.into(), changed)], "feed all with meat");
    let repo_arg = zoo.repo.path().to_str().unwrap().to_string();
    zoo.refscope(&[
        "task", "add", "--id", "pr", "--repo", &repo_arg, "--rev", &head, "--base", &base,
    ])
    .ok();
    (zoo, base, head)
}

#[test]
fn with_a_base_revision_each_owning_element_says_what_changed() {
    let (zoo, base, _) = zoo_with_a_change();
    let context = |lines: &str| -> Value {
        let stdout = zoo
            .refscope(&[
                "context", "--task", "pr", "--file", KEEPER, "--lines", lines,
            ])
            .ok();
        serde_json::from_str(&stdout).unwrap()
    };
    let two_args = context("22-25");
    assert_eq!(two_args["base_revision"], base.as_str());
    let change = &two_args["element_relations"]["owning_elements"]["22_25"][0]["change"];
    assert_eq!(change["status"], "body_changed", "{change}");
    assert_eq!(change["signature_changed"], false);
    assert_eq!(
        change["callers_added"],
        serde_json::json!([{"file": KEEPER, "line": 28, "caller": "com.zoo.Keeper#feedAll()"}])
    );
    assert_eq!(change["callers_removed"], serde_json::json!([]));

    let one_arg = context("18-20");
    let change = &one_arg["element_relations"]["owning_elements"]["18_20"][0]["change"];
    assert_eq!(change["status"], "unchanged", "{change}");
    assert_eq!(
        change["callers_removed"],
        serde_json::json!([{"file": KEEPER, "line": 28, "caller": "com.zoo.Keeper#feedAll()"}])
    );
    // Without a base there is no change block.
    let plain = zoo.context(&["--file", KEEPER, "--lines", "22-25"]);
    assert_eq!(plain["base_revision"], Value::Null);
    assert!(
        plain["element_relations"]["owning_elements"]["22_25"][0]
            .get("change")
            .is_none()
    );
}

#[test]
fn include_history_says_which_commit_last_changed_each_owning_element() {
    let (zoo, base, head) = zoo_with_a_change();
    let context = |extra: &[&str]| -> Value {
        let mut args = vec![
            "context", "--task", "pr", "--file", KEEPER, "--lines", "18-25",
        ];
        args.extend(extra);
        serde_json::from_str(&zoo.refscope(&args).ok()).unwrap()
    };
    let answer = context(&["--include-history"]);
    let owning = answer["element_relations"]["owning_elements"]["18_25"]
        .as_array()
        .unwrap();
    assert_eq!(owning.len(), 2, "{owning:?}");
    // feed(Animal) is as the first commit made it; feed(Animal, Food)
    // changed in the second.
    let lasts: Vec<(&str, &str)> = owning
        .iter()
        .map(|entry| {
            let last = &entry["last_change"];
            (
                last["commit"].as_str().unwrap(),
                last["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(lasts, [(base.as_str(), "added"), (head.as_str(), "body")]);
    assert_eq!(owning[1]["last_change"]["summary"], "feed all with meat");
    assert!(
        owning[1]["last_change"]["date"]
            .as_str()
            .unwrap()
            .contains('T')
    );
    // Not asked for, not there.
    let plain = context(&[]);
    assert!(
        plain["element_relations"]["owning_elements"]["18_25"][0]
            .get("last_change")
            .is_none()
    );
}
