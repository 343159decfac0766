//! A client session with the server: the fixture copied to a temporary
//! work tree (a plain directory, or a git repository), the server on a
//! thread of its own over an in-memory connection, and requests answered
//! as text that reads like `refscope`'s own output (`path:line:col`,
//! 1-based, UTF-16 columns).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use refscope_engine::{IndexConfig, JdkTypes};
use refscope_lsp::{Ending, Error, ServerConfig, serve};
use refscope_test_support::TestRepo;
use refscope_test_support::paths::fixture_dir;
use serde_json::{Value, json};

/// How long a test waits for one message before failing.
const PATIENCE: Duration = Duration::from_secs(60);

/// The stub JDK's type names, read once.
fn jdk() -> JdkTypes {
    static JDK: OnceLock<JdkTypes> = OnceLock::new();
    JDK.get_or_init(|| JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap())
        .clone()
}

/// Where the fixture was put.
pub enum Tree {
    Directory(tempfile::TempDir),
    Git(TestRepo),
}

impl Tree {
    pub fn path(&self) -> &Path {
        match self {
            Self::Directory(dir) => dir.path(),
            Self::Git(repo) => repo.path(),
        }
    }
}

/// The fixture's Java files: (relative path, text).
pub fn fixture_files(name: &str) -> Vec<(String, String)> {
    let root = fixture_dir(name);
    let mut out = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A session with the server.
pub struct Session {
    pub tree: Tree,
    _store: tempfile::TempDir,
    client: Connection,
    server: Option<JoinHandle<Result<Ending, Error>>>,
    next_id: i32,
    /// Notifications the server sent, in order.
    pub notifications: Vec<Notification>,
    /// Requests the server sent the client.
    pub server_requests: Vec<Request>,
}

impl Session {
    /// The server over a plain-directory copy of fixture `name`, not
    /// initialized yet.
    pub fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in fixture_files(name) {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self::over(Tree::Directory(dir), true)
    }

    /// The server over fixture `name` committed to a git repository.
    pub fn new_git(name: &str) -> Self {
        let repo = TestRepo::new();
        let files = fixture_files(name);
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        repo.commit(&borrowed, name);
        Self::over(Tree::Git(repo), false)
    }

    /// The server over `tree`, with the store in a directory of its own
    /// or (`own_store` false) where `refscope watch` keeps it.
    fn over(tree: Tree, own_store: bool) -> Self {
        let store = tempfile::tempdir().unwrap();
        let mut config = ServerConfig::new(tree.path().to_path_buf());
        if own_store {
            config.store = Some(store.path().to_path_buf());
        }
        config.index = IndexConfig {
            jobs: 2,
            jdk: Some(jdk()),
            ..IndexConfig::default()
        };
        config.debounce = Duration::from_millis(20);
        let (server_side, client) = Connection::memory();
        let server = std::thread::spawn(move || serve(server_side, config));
        Self {
            tree,
            _store: store,
            client,
            server: Some(server),
            next_id: 0,
            notifications: Vec::new(),
            server_requests: Vec::new(),
        }
    }

    /// The work tree's root as the server sees it.
    pub fn root(&self) -> PathBuf {
        self.tree.path().canonicalize().unwrap()
    }

    /// The URI of a file of the work tree.
    pub fn uri(&self, rel: &str) -> String {
        format!("file://{}/{rel}", self.root().display())
    }

    /// `initialize` with the work tree as `rootUri` and `capabilities`,
    /// then `initialized`; the result.
    pub fn initialize_with(&mut self, capabilities: Value) -> Value {
        let root = format!("file://{}", self.root().display());
        let result = self.ok(
            "initialize",
            json!({ "processId": null, "rootUri": root, "capabilities": capabilities }),
        );
        self.notify("initialized", json!({}));
        result
    }

    /// [`Self::initialize_with`] no capabilities.
    pub fn initialize(&mut self) -> Value {
        self.initialize_with(json!({}))
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.client
            .sender
            .send(Notification::new(method.into(), params).into())
            .unwrap();
    }

    /// Sends a request and waits for its response, keeping what else the
    /// server sends meanwhile.
    pub fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.client
            .sender
            .send(Request::new(id.clone(), method.into(), params).into())
            .unwrap();
        self.response_to(&id)
    }

    /// Waits for the response to `id`.
    pub fn response_to(&mut self, id: &RequestId) -> Response {
        loop {
            match self.client.receiver.recv_timeout(PATIENCE) {
                Ok(Message::Response(response)) if response.id == *id => return response,
                Ok(Message::Response(response)) => {
                    panic!("a response to another request: {response:?}")
                }
                Ok(Message::Notification(notification)) => self.notifications.push(notification),
                Ok(Message::Request(request)) => self.server_requests.push(request),
                Err(e) => panic!("no response to {id:?}: {e}"),
            }
        }
    }

    /// A request's result, which must not be an error.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.response_result {
            Ok(result) => result,
            Err(error) => panic!("{method} failed: {error:?}"),
        }
    }

    /// A request's error code.
    pub fn error_code(&mut self, method: &str, params: Value) -> i32 {
        let response = self.request(method, params);
        match response.response_result {
            Err(error) => error.code,
            Ok(result) => panic!("{method} should fail, answered {result}"),
        }
    }

    /// Sends raw message to the server.
    pub fn send(&self, message: Message) {
        self.client.sender.send(message).unwrap();
    }

    /// Waits for the server to end (after `exit`).
    pub fn ending(&mut self) -> Ending {
        self.server.take().unwrap().join().unwrap().unwrap()
    }

    /// The text document and position of the `nth` (0-based) occurrence
    /// of `needle` in file `rel`, `offset` UTF-16 units into it.
    pub fn at(&self, rel: &str, needle: &str, nth: usize, offset: u32) -> Value {
        let text = std::fs::read_to_string(self.tree.path().join(rel)).unwrap();
        let (line, character) = find(&text, needle, nth);
        json!({
            "textDocument": { "uri": self.uri(rel) },
            "position": { "line": line, "character": character + offset },
        })
    }

    /// A location as `path:line:col-endcol` (1-based; the end exclusive),
    /// the path relative to the work tree.
    pub fn location(&self, location: &Value) -> String {
        let uri = location["uri"].as_str().unwrap();
        let path = uri.strip_prefix(&self.uri("")).unwrap_or(uri);
        format!("{path}:{}", range(&location["range"]))
    }

    /// Locations, one a line.
    pub fn locations(&self, locations: &Value) -> String {
        let list = match locations {
            Value::Null => return "null\n".into(),
            Value::Array(list) => list.clone(),
            single => vec![single.clone()],
        };
        list.iter()
            .map(|l| format!("{}\n", self.location(l)))
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // After a failure the server is left to the end of the process.
        if let Some(server) = self.server.take()
            && !std::thread::panicking()
        {
            let exit = Notification::new("exit".into(), json!(null));
            let _ = self.client.sender.send(exit.into());
            let _ = server.join();
        }
    }
}

/// `line:col-endcol` of a range (1-based, end exclusive; `line:col-line:col`
/// across lines).
pub fn range(range: &Value) -> String {
    let n = |v: &Value| v.as_u64().unwrap() + 1;
    let (start, end) = (&range["start"], &range["end"]);
    if start["line"] == end["line"] {
        format!(
            "{}:{}-{}",
            n(&start["line"]),
            n(&start["character"]),
            n(&end["character"])
        )
    } else {
        format!(
            "{}:{}-{}:{}",
            n(&start["line"]),
            n(&start["character"]),
            n(&end["line"]),
            n(&end["character"])
        )
    }
}

/// 0-based line and UTF-16 column of the `nth` occurrence of `needle`.
pub fn find(text: &str, needle: &str, nth: usize) -> (u32, u32) {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no occurrence {nth} of {needle:?}"))
        .0;
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].encode_utf16().count() as u32;
    (line, column)
}
