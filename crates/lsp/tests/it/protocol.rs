//! The protocol's edges: requests before `initialize`, unknown methods,
//! bad parameters and positions, URIs outside the work tree, malformed
//! JSON-RPC, progress, `shutdown` and `exit`.

use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};

use lsp_server::{Notification, Request, RequestId};
use refscope_lsp::{Ending, ServerConfig};
use serde_json::{Value, json};

use crate::common::Session;

const KEEPER: &str = "src/main/java/com/zoo/Keeper.java";

#[test]
fn requests_before_initialize_are_refused_and_exit_ends() {
    let mut session = Session::new("zoo");
    let params = session.at(KEEPER, "feed", 0, 0);
    assert_eq!(
        session.error_code("textDocument/definition", params),
        -32002
    );
    assert_eq!(session.error_code("shutdown", json!(null)), -32002);
    session.notify("exit", json!(null));
    assert_eq!(
        session.ending(),
        Ending::Exited {
            after_shutdown: false
        }
    );
}

#[test]
fn unknown_methods_and_bad_parameters_are_protocol_errors() {
    let mut session = Session::new("zoo");
    session.initialize();
    assert_eq!(session.error_code("textDocument/rename", json!({})), -32601);
    assert_eq!(session.error_code("$/unknown", json!({})), -32601);
    assert_eq!(
        session.error_code("textDocument/definition", json!({ "textDocument": 3 })),
        -32602
    );
    assert_eq!(
        session.error_code("textDocument/hover", json!("text")),
        -32602
    );
    assert_eq!(
        session.error_code("initialize", json!({ "capabilities": {} })),
        -32600
    );
    // Unknown and malformed notifications are dropped; the server goes on.
    session.notify("workspace/unknown", json!({}));
    session.notify("textDocument/didOpen", json!({ "textDocument": "nope" }));
    session.notify("textDocument/didChange", json!({ "textDocument": { "uri": session.uri(KEEPER), "version": 9 }, "contentChanges": [] }));
    let params = session.at(KEEPER, "eat(food)", 0, 0);
    let answer = session.ok("textDocument/definition", params);
    assert_eq!(
        session.locations(&answer),
        "src/main/java/com/zoo/Animal.java:11:10-13\n"
    );
}

#[test]
fn positions_and_uris_that_name_nothing_answer_empty() {
    let mut session = Session::new("zoo");
    session.initialize();
    let uri = session.uri(KEEPER);
    let at = |uri: &str, line: u32, character: u32| {
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character },
                "context": { "includeDeclaration": true } })
    };
    let outside = "file:///nowhere/src/A.java".to_string();
    let missing = session.uri("src/main/java/com/zoo/Missing.java");
    let cases = [
        at(&uri, 10_000, 0),
        at(&uri, 22, 10_000),
        at(&uri, 1, 0),
        at(&outside, 0, 0),
        at("https://example.com/A.java", 0, 0),
        at(&missing, 0, 0),
    ];
    for params in cases {
        for method in [
            "textDocument/definition",
            "textDocument/hover",
            "textDocument/prepareCallHierarchy",
        ] {
            assert_eq!(
                session.ok(method, params.clone()),
                Value::Null,
                "{method} {params}"
            );
        }
        assert_eq!(
            session.ok("textDocument/references", params.clone()),
            json!([]),
            "{params}"
        );
    }
    let outside_symbols = session.ok(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": outside } }),
    );
    assert_eq!(outside_symbols, Value::Null);
    let item = json!({ "name": "x", "kind": 6, "uri": outside,
        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } },
        "selectionRange": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } } });
    assert_eq!(
        session.ok("callHierarchy/incomingCalls", json!({ "item": item })),
        Value::Null
    );
    let unknown = json!({ "name": "x", "kind": 6, "uri": uri, "data": { "id": "com.zoo.Nothing#here()" },
        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } },
        "selectionRange": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } } });
    assert_eq!(
        session.ok(
            "callHierarchy/incomingCalls",
            json!({ "item": unknown.clone() })
        ),
        json!([])
    );
    assert_eq!(
        session.ok("callHierarchy/outgoingCalls", json!({ "item": unknown })),
        Value::Null
    );
}

#[test]
fn shutdown_then_exit_ends_cleanly_and_refuses_requests_between() {
    let mut session = Session::new("zoo");
    session.initialize();
    assert_eq!(session.ok("shutdown", json!(null)), Value::Null);
    let params = session.at(KEEPER, "feed", 0, 0);
    assert_eq!(
        session.error_code("textDocument/definition", params),
        -32600
    );
    session.notify("exit", json!(null));
    assert_eq!(
        session.ending(),
        Ending::Exited {
            after_shutdown: true
        }
    );
}

#[test]
fn a_queued_request_can_be_cancelled() {
    let mut session = Session::new("zoo");
    session.initialize();
    // Sent together, before the first index is done: the request waits,
    // and the cancellation reaches it while it waits.
    let id = RequestId::from(1000);
    let params = session.at(KEEPER, "feed", 0, 0);
    session.send(Request::new(id.clone(), "textDocument/hover".into(), params).into());
    session.send(Notification::new("$/cancelRequest".into(), json!({ "id": 1000 })).into());
    let response = session.response_to(&id);
    // Either cancelled while it waited, or answered before the cancel.
    if let Err(error) = response.response_result {
        assert_eq!(error.code, -32800);
    }
}

#[test]
fn progress_is_reported_to_a_client_that_shows_it() {
    let mut session = Session::new("zoo");
    session.initialize_with(json!({ "window": { "workDoneProgress": true },
        "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } }));
    let params = session.at(KEEPER, "feed", 0, 0);
    session.ok("textDocument/hover", params);
    let methods: Vec<&str> = session
        .server_requests
        .iter()
        .map(|r| r.method.as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "window/workDoneProgress/create",
            "client/registerCapability"
        ]
    );
    let kinds: Vec<&str> = session
        .notifications
        .iter()
        .filter(|n| n.method == "$/progress")
        .map(|n| n.params["value"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"));
    assert_eq!(kinds.last(), Some(&"end"));
    assert!(
        session
            .notifications
            .iter()
            .any(|n| n.method == "window/logMessage"
                && n.params["message"]
                    .as_str()
                    .unwrap()
                    .contains("indexed worktree:")),
        "{:?}",
        session.notifications
    );
}

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The messages in a byte stream.
fn frames(bytes: &[u8]) -> Vec<Value> {
    let mut reader = BufReader::new(bytes);
    let mut out = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap() == 0 {
            return out;
        }
        let length: usize = header
            .trim()
            .strip_prefix("Content-Length: ")
            .unwrap()
            .parse()
            .unwrap();
        reader.read_line(&mut header).unwrap();
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        out.push(serde_json::from_slice(&body).unwrap());
    }
}

#[test]
fn malformed_json_rpc_over_the_stream_is_answered_and_the_session_goes_on() {
    let session = Session::new("zoo");
    let root = format!("file://{}", session.root().display());
    let store = tempfile::tempdir().unwrap();
    let definition = session.at(KEEPER, "eat(food)", 0, 0);
    let input = [
        frame("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "),
        frame(&json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
            "params": {"rootUri": root, "capabilities": {}}}).to_string()),
        frame(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}).to_string()),
        frame("[{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"shutdown\"}]"),
        frame(&json!({"jsonrpc": "2.0", "id": 4, "method": "textDocument/definition", "params": definition}).to_string()),
        frame(&json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}).to_string()),
        frame(&json!({"jsonrpc": "2.0", "method": "exit"}).to_string()),
    ]
    .concat();
    let output = Shared::default();
    let mut config = ServerConfig::new(session.root());
    config.store = Some(store.path().to_path_buf());
    config.index.jdk =
        Some(refscope_engine::JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap());
    // As `refscope lsp` serves stdio: results are written as JSON text.
    let input = BufReader::new(std::io::Cursor::new(input.into_bytes()));
    let ending = refscope_lsp::serve_over(input, output.clone(), config).unwrap();
    assert_eq!(
        ending,
        Ending::Exited {
            after_shutdown: true
        }
    );
    let messages = frames(&output.0.lock().unwrap());
    // The transport answers malformed messages itself, so their errors
    // may come before or after the server's responses.
    let mut responses: Vec<String> = messages
        .iter()
        .filter(|m| m.get("method").is_none())
        .map(|m| match m.get("error") {
            Some(error) => format!("{} error {}", m["id"], error["code"]),
            // The range by its numbers: key order depends on serde_json's
            // features in the build.
            None if m["id"] == 4 => {
                let range = &m["result"]["range"];
                format!(
                    "4 {}:{}-{}:{}",
                    range["start"]["line"],
                    range["start"]["character"],
                    range["end"]["line"],
                    range["end"]["character"]
                )
            }
            None => format!("{} ok", m["id"]),
        })
        .collect();
    responses.sort();
    assert_eq!(
        responses,
        [
            "2 ok",
            "4 10:9-10:12",
            "5 ok",
            "null error -32600",
            "null error -32700",
        ]
    );
}
