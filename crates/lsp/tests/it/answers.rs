//! Every request the server answers, on the zoo fixture.

use expect_test::expect;
use serde_json::{Value, json};

use crate::common::{Session, range};

const KEEPER: &str = "src/main/java/com/zoo/Keeper.java";
const ZOO: &str = "src/main/java/com/zoo/Zoo.java";
const MAMMAL: &str = "src/main/java/com/zoo/Mammal.java";

fn started() -> Session {
    let mut session = Session::new("zoo");
    session.initialize();
    session
}

#[test]
fn initialize_advertises_what_the_server_answers() {
    let mut session = Session::new("zoo");
    let result =
        session.initialize_with(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    let capabilities = &result["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    assert_eq!(capabilities["textDocumentSync"]["change"], 2, "incremental");
    assert_eq!(capabilities["textDocumentSync"]["openClose"], true);
    for provider in [
        "definitionProvider",
        "referencesProvider",
        "implementationProvider",
        "callHierarchyProvider",
        "documentSymbolProvider",
        "workspaceSymbolProvider",
        "hoverProvider",
    ] {
        assert_eq!(capabilities[provider], true, "{provider}");
    }
    assert_eq!(result["serverInfo"]["name"], "refscope");
}

#[test]
fn definition_goes_from_a_use_to_the_declarations_name() {
    let mut session = started();
    let mut definition = |rel: &str, needle: &str, nth: usize| {
        let params = session.at(rel, needle, nth, 1);
        let answer = session.ok("textDocument/definition", params);
        session.locations(&answer)
    };
    // A call, an overloaded call, a field, a constructor, a static field
    // of another class, a method reference, a type by simple name, a
    // declaration itself, and a library method (the stub JDK has no
    // sources: no answer).
    let answers = [
        definition(KEEPER, "eat(food)", 0),
        definition(KEEPER, "feed(animal, Food.MEAT)", 0),
        definition(KEEPER, "fed++", 0),
        definition(ZOO, "Dog(\"rex\")", 0),
        definition(KEEPER, "MEAT", 0),
        definition(KEEPER, "admit);", 0),
        definition(KEEPER, "Animal animal, Food", 0),
        definition(KEEPER, "feedAll() {", 0),
        definition(KEEPER, "add(animal)", 0),
    ]
    .concat();
    expect![[r#"
        src/main/java/com/zoo/Animal.java:11:10-13
        src/main/java/com/zoo/Keeper.java:22:17-21
        src/main/java/com/zoo/Keeper.java:8:17-20
        src/main/java/com/zoo/Dog.java:6:12-15
        src/main/java/com/zoo/Food.java:4:5-9
        src/main/java/com/zoo/Keeper.java:10:17-22
        src/main/java/com/zoo/Animal.java:6:18-24
        src/main/java/com/zoo/Keeper.java:27:17-24
        null
    "#]]
    .assert_eq(&answers);
}

#[test]
fn references_list_the_sites_with_the_declaration_when_asked() {
    let mut session = started();
    let mut references = |needle: &str, include: bool| {
        let mut params = session.at(KEEPER, needle, 0, 0);
        params["context"] = json!({ "includeDeclaration": include });
        let answer = session.ok("textDocument/references", params);
        session.locations(&answer)
    };
    let fed = references("fed;", false);
    let fed_with_declaration = references("fed;", true);
    let feed = references("feed(Animal animal, Food food)", true);
    expect![[r#"
        src/main/java/com/zoo/Keeper.java:24:9-12
        src/main/java/com/zoo/Keeper.java:40:16-19
    "#]]
    .assert_eq(&fed);
    expect![[r#"
        src/main/java/com/zoo/Keeper.java:8:17-20
        src/main/java/com/zoo/Keeper.java:24:9-12
        src/main/java/com/zoo/Keeper.java:40:16-19
    "#]]
    .assert_eq(&fed_with_declaration);
    expect![[r#"
        src/main/java/com/zoo/Keeper.java:22:17-21
        src/main/java/com/zoo/Keeper.java:19:9-13
    "#]]
    .assert_eq(&feed);
}

#[test]
fn implementation_lists_overrides_and_subtypes() {
    let mut session = started();
    let params = session.at("src/main/java/com/zoo/Animal.java", "eat", 0, 0);
    let overrides = session.ok("textDocument/implementation", params);
    let params = session.at("src/main/java/com/zoo/Animal.java", "Animal", 0, 0);
    let subtypes = session.ok("textDocument/implementation", params);
    expect![[r#"
        src/main/java/com/zoo/Cat.java:18:17-20
        src/main/java/com/zoo/Mammal.java:20:17-20
        src/main/java/com/zoo/Zoo.java:25:25-28
    "#]]
    .assert_eq(&session.locations(&overrides));
    expect![[r#"
        src/main/java/com/zoo/Cat.java:3:14-17
        src/main/java/com/zoo/Dog.java:5:14-17
        src/main/java/com/zoo/Mammal.java:6:23-29
        src/main/java/com/zoo/Zoo.java:13:26-27
    "#]]
    .assert_eq(&session.locations(&subtypes));
}

/// A call hierarchy item as `name (kind) path:range selection`.
fn item(session: &Session, item: &Value) -> String {
    format!(
        "{} ({}) {} name {}",
        item["name"].as_str().unwrap(),
        item["kind"],
        session.location(&json!({ "uri": item["uri"], "range": item["range"] })),
        range(&item["selectionRange"])
    )
}

/// A call hierarchy answer's calls, a line each: the item at `end`
/// (`from` for incoming calls, `to` for outgoing) and where it calls.
fn calls(session: &Session, answer: &Value, end: &str) -> String {
    let mut out = String::new();
    for call in answer.as_array().unwrap() {
        let ranges: Vec<String> = call["fromRanges"]
            .as_array()
            .unwrap()
            .iter()
            .map(range)
            .collect();
        out.push_str(&format!(
            "  {} from {}\n",
            item(session, &call[end]),
            ranges.join(", ")
        ));
    }
    out
}

#[test]
fn the_call_hierarchy_follows_callers_and_callees() {
    let mut session = started();
    let params = session.at(MAMMAL, "eat(Food food)", 0, 0);
    let items = session.ok("textDocument/prepareCallHierarchy", params);
    let mammal_eat = items[0].clone();
    let incoming = session.ok("callHierarchy/incomingCalls", json!({ "item": mammal_eat }));
    let mut out = format!("{}\nincoming:\n", item(&session, &mammal_eat));
    out.push_str(&calls(&session, &incoming, "from"));
    let params = session.at(KEEPER, "feed(Animal animal, Food food)", 0, 0);
    let items = session.ok("textDocument/prepareCallHierarchy", params);
    let outgoing = session.ok("callHierarchy/outgoingCalls", json!({ "item": items[0] }));
    out.push_str(&format!("{}\noutgoing:\n", item(&session, &items[0])));
    out.push_str(&calls(&session, &outgoing, "to"));
    expect![[r#"
        eat(Food) (6) src/main/java/com/zoo/Mammal.java:19:1-23:1 name 20:17-20
        incoming:
          eat(Food) (6) src/main/java/com/zoo/Cat.java:17:1-23:1 name 18:17-20 from 20:19-22
          fetch() (6) src/main/java/com/zoo/Dog.java:20:1-24:1 name 20:17-22 from 21:9-12
          feed(Animal, Food) (6) src/main/java/com/zoo/Keeper.java:22:1-26:1 name 22:17-21 from 23:16-19
        feed(Animal, Food) (6) src/main/java/com/zoo/Keeper.java:22:1-26:1 name 22:17-21
        outgoing:
          eat(Food) (6) src/main/java/com/zoo/Animal.java:11:1-12:1 name 11:10-13 from 23:16-19
    "#]]
    .assert_eq(&out);
    // A type or a position on no element prepares nothing.
    let params = session.at(KEEPER, "Keeper", 0, 0);
    assert_eq!(
        session.ok("textDocument/prepareCallHierarchy", params),
        Value::Null
    );
}

#[test]
fn document_symbols_nest_as_the_source_does() {
    let mut session = started();
    let uri = session.uri(KEEPER);
    let symbols = session.ok(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let mut out = String::new();
    let mut stack: Vec<(&Value, usize)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|s| (s, 0))
        .collect();
    while let Some((symbol, depth)) = stack.pop() {
        out.push_str(&format!(
            "{}{} ({}) {} name {}{}\n",
            "  ".repeat(depth),
            symbol["name"].as_str().unwrap(),
            symbol["kind"],
            range(&symbol["range"]),
            range(&symbol["selectionRange"]),
            symbol["detail"]
                .as_str()
                .map(|d| format!(" : {d}"))
                .unwrap_or_default()
        ));
        if let Some(children) = symbol["children"].as_array() {
            stack.extend(children.iter().rev().map(|c| (c, depth + 1)));
        }
    }
    expect![[r#"
        Keeper (5) 6:1-50:2 name 6:14-20
          animals (8) 7:5-60 name 7:32-39 : List<Animal>
          fed (8) 8:5-21 name 8:17-20 : int
          admit(Animal) (6) 10:5-12:6 name 10:17-22 : void
          admitAll(List<Animal>) (6) 14:5-16:6 name 14:17-25 : void
          feed(Animal) (6) 18:5-20:6 name 18:17-21 : void
          feed(Animal, Food) (6) 22:5-25:6 name 22:17-21 : void
          feedAll() (6) 27:5-29:6 name 27:17-24 : void
          noise() (6) 31:5-37:6 name 31:19-24 : String
          fed() (6) 39:5-41:6 name 39:16-19 : int
          Shift (5) 44:5-49:6 name 44:18-23
            run() (6) 45:9-48:10 name 46:21-24 : void
    "#]]
    .assert_eq(&out);
}

#[test]
fn workspace_symbols_are_found_by_name_best_first_and_bounded() {
    let mut session = started();
    let found = session.ok("workspace/symbol", json!({ "query": "feed" }));
    let names: Vec<String> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} in {}",
                s["name"].as_str().unwrap(),
                s["containerName"].as_str().unwrap_or("-")
            )
        })
        .collect();
    expect![[r#"
        feed(Animal) in com.zoo.Keeper
        feed(Animal, Food) in com.zoo.Keeper
        feedAll() in com.zoo.Keeper"#]]
    .assert_eq(&names.join("\n"));
    let by_id = session.ok("workspace/symbol", json!({ "query": "com.zoo.Animal#" }));
    assert_eq!(by_id.as_array().unwrap().len(), 4, "{by_id}");
    let types = session.ok("workspace/symbol", json!({ "query": "" }));
    assert!(
        types
            .as_array()
            .unwrap()
            .iter()
            .all(|s| [5, 11, 10, 23].contains(&s["kind"].as_i64().unwrap())),
        "{types}"
    );
}

#[test]
fn hover_shows_the_signature_and_the_doc_comment() {
    let mut session = started();
    let params = session.at(KEEPER, "Shift implements", 0, 0);
    let shift = session.ok("textDocument/hover", params);
    expect![[r#"
        ```java
        public class Shift implements Runnable
        ```

        `com.zoo.Keeper$Shift` in `src/main/java/com/zoo/Keeper.java`

        ---

        A keeper's shift: feeds every animal."#]]
    .assert_eq(shift["contents"]["value"].as_str().unwrap());
    let params = session.at(KEEPER, "feed(a)", 0, 0);
    let feed = session.ok("textDocument/hover", params);
    expect![[r#"
        ```java
        public void feed(Animal animal)
        ```

        `com.zoo.Keeper#feed(com.zoo.Animal)` in `src/main/java/com/zoo/Keeper.java`"#]]
    .assert_eq(feed["contents"]["value"].as_str().unwrap());
    let params = session.at(KEEPER, "add(animal)", 0, 0);
    let library = session.ok("textDocument/hover", params);
    expect![[r#"
        `java.util.List#add(java.lang.Object)`

        (a library element; its sources are not indexed)"#]]
    .assert_eq(library["contents"]["value"].as_str().unwrap());
}

#[test]
fn a_git_work_tree_is_served_with_its_store_in_git() {
    let mut session = Session::new_git("zoo");
    // No --store: the repository's own, as for `refscope watch`.
    session.initialize();
    let params = session.at(KEEPER, "eat(food)", 0, 0);
    let answer = session.ok("textDocument/definition", params);
    assert_eq!(
        session.locations(&answer),
        "src/main/java/com/zoo/Animal.java:11:10-13\n"
    );
}
