//! Answers follow the client's edits: unsaved text of open documents
//! (incremental and full changes), saves, files changed on disk, closed
//! documents.

use serde_json::json;

use crate::common::{Session, find};

const KEEPER: &str = "src/main/java/com/zoo/Keeper.java";
const ANIMAL: &str = "src/main/java/com/zoo/Animal.java";

/// The references of `Animal#eat`, one `path:range` a line.
fn eat_references(session: &mut Session) -> String {
    let mut params = session.at(ANIMAL, "eat", 0, 0);
    params["context"] = json!({ "includeDeclaration": false });
    let answer = session.ok("textDocument/references", params);
    session.locations(&answer)
}

fn open(session: &Session, rel: &str) -> String {
    let text = std::fs::read_to_string(session.tree.path().join(rel)).unwrap();
    session.notify(
        "textDocument/didOpen",
        json!({ "textDocument": {
            "uri": session.uri(rel), "languageId": "java", "version": 1, "text": text,
        }}),
    );
    text
}

#[test]
fn an_unsaved_method_body_edit_is_answered_at_once() {
    let mut session = Session::new("zoo");
    session.initialize();
    assert_eq!(
        eat_references(&mut session),
        "src/main/java/com/zoo/Keeper.java:23:16-19\n"
    );
    let text = open(&session, KEEPER);
    // A second call in feed's body, typed as an incremental change.
    let (line, _) = find(&text, "        fed++;", 0);
    session.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": session.uri(KEEPER), "version": 2 },
            "contentChanges": [{
                "range": { "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } },
                "text": "        animal.eat(Food.PLANT);\n",
            }],
        }),
    );
    assert_eq!(
        eat_references(&mut session),
        "src/main/java/com/zoo/Keeper.java:23:16-19\nsrc/main/java/com/zoo/Keeper.java:24:16-19\n",
        "the unsaved edit is answered"
    );
    // Definition at the new site, and what follows it shifted a line.
    let params = json!({
        "textDocument": { "uri": session.uri(KEEPER) },
        "position": { "line": line, "character": 17 },
    });
    let definition = session.ok("textDocument/definition", params);
    assert_eq!(
        session.locations(&definition),
        "src/main/java/com/zoo/Animal.java:11:10-13\n"
    );
    let mut params = session.at(KEEPER, "fed;", 0, 0);
    params["context"] = json!({ "includeDeclaration": false });
    let fed = session.ok("textDocument/references", params);
    assert_eq!(
        session.locations(&fed),
        "src/main/java/com/zoo/Keeper.java:25:9-12\nsrc/main/java/com/zoo/Keeper.java:41:16-19\n"
    );
    // Closing without saving: the disk's content again.
    session.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": session.uri(KEEPER) } }),
    );
    assert_eq!(
        eat_references(&mut session),
        "src/main/java/com/zoo/Keeper.java:23:16-19\n"
    );
}

#[test]
fn the_last_of_a_burst_of_full_text_changes_is_answered() {
    let mut session = Session::new("zoo");
    session.initialize();
    let text = open(&session, KEEPER);
    for version in 2..12 {
        let calls = "        animal.eat(food);\n".repeat(version - 1);
        let edited = text.replace("        fed++;", &format!("{calls}        fed++;"));
        session.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": session.uri(KEEPER), "version": version },
                "contentChanges": [{ "text": edited }],
            }),
        );
    }
    let references = eat_references(&mut session);
    assert_eq!(references.lines().count(), 11, "{references}");
}

#[test]
fn saved_and_watched_files_are_indexed_again() {
    let mut session = Session::new("zoo");
    session.initialize();
    let root = session.tree.path().to_path_buf();
    // A new file on disk, reported as a watched-file change.
    let bird = "src/main/java/com/zoo/Bird.java";
    std::fs::write(
        root.join(bird),
        "package com.zoo;\n\npublic class Bird implements Animal {\n    public String name() { return \"tweety\"; }\n    public String sound() { return \"tweet\"; }\n    public void eat(Food food) {}\n}\n",
    )
    .unwrap();
    session.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": session.uri(bird), "type": 1 }] }),
    );
    let params = session.at(ANIMAL, "eat", 0, 0);
    let implementations = session.ok("textDocument/implementation", params);
    assert!(
        session
            .locations(&implementations)
            .contains("Bird.java:6:17-20"),
        "{implementations}"
    );
    // An edit saved to disk and reported by didSave.
    let keeper = std::fs::read_to_string(root.join(KEEPER)).unwrap();
    std::fs::write(
        root.join(KEEPER),
        keeper.replace(
            "        fed++;",
            "        animal.eat(food);\n        fed++;",
        ),
    )
    .unwrap();
    session.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": session.uri(KEEPER) } }),
    );
    assert_eq!(eat_references(&mut session).lines().count(), 2);
    // A deleted file.
    std::fs::remove_file(root.join(bird)).unwrap();
    session.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": session.uri(bird), "type": 3 }] }),
    );
    let params = session.at(ANIMAL, "eat", 0, 0);
    let implementations = session.ok("textDocument/implementation", params);
    assert!(
        !session.locations(&implementations).contains("Bird"),
        "{implementations}"
    );
    // The client did not say it shows progress: none was sent.
    assert_eq!(
        session
            .notifications
            .iter()
            .filter(|n| n.method == "$/progress")
            .count(),
        0
    );
}
