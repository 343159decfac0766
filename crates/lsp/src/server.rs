//! The server's life: `initialize`, the message loop, `shutdown` and
//! `exit`.
//!
//! One thread reads messages in order; the index is written on another
//! ([`Workspace`]). Changes (open documents' text, saved and watched
//! files) are gathered and handed to the indexer after a quiet period
//! ([`ServerConfig::debounce`]); a request that reads the index waits,
//! queued with everything after it, until the changes before it are
//! indexed, so an answer always reflects the edits the client sent before
//! asking. Requests are answered one at a time on this thread.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, at, never, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as _,
};
use lsp_types::{
    InitializeResult, MessageType, NumberOrString, Registration, RegistrationParams, ServerInfo,
    WorkDoneProgressCreateParams,
};
use refscope_engine::{IndexSummary, RevisionCache, Snapshot, Store};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::config::ServerConfig;
use crate::dispatch::{ANSWERED_FROM_INDEX, Answered, Memo, answer, empty_answer};
use crate::documents::Documents;
use crate::error::Error;
use crate::initialize::{
    ClientSupport, Initialize, capabilities, open_root, root_of, wait_for_initialize,
};
use crate::locate::{Context, FilesByPath};
use crate::progress::log_message;
use crate::transport::RAW_MESSAGE;
use crate::workspace::{Indexed, Outcome, Update, Workspace, WorkspaceConfig};

/// Changes keep gathering for at most this long while they keep coming.
const MAX_GATHERING: Duration = Duration::from_secs(1);

/// How the server's session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The client sent `exit`: after `shutdown` (a clean end, exit code 0)
    /// or without it (exit code 1, as the protocol says).
    Exited {
        /// Whether `shutdown` came first.
        after_shutdown: bool,
    },
    /// The client closed the connection without `exit`.
    Disconnected,
}

/// Serves the protocol on standard input and output until `exit` or the
/// end of the input.
pub fn serve_stdio(config: ServerConfig) -> Result<Ending, Error> {
    let (connection, io_threads) = crate::transport::stdio();
    let ending = serve_on(connection, config, Encoding::Text);
    io_threads.join()?;
    ending
}

/// Serves the protocol over a byte stream (a reader and a writer framed
/// as [`crate::transport`] says) until `exit` or the end of the input.
pub fn serve_over<R, W>(reader: R, writer: W, config: ServerConfig) -> Result<Ending, Error>
where
    R: std::io::BufRead + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (connection, io_threads) = crate::transport::over(reader, writer);
    let ending = serve_on(connection, config, Encoding::Text);
    io_threads.join()?;
    ending
}

/// Serves the protocol on `connection` (any carrier of messages, such as
/// `Connection::memory()`) until `exit` or until the client closes it.
pub fn serve(connection: Connection, config: ServerConfig) -> Result<Ending, Error> {
    serve_on(connection, config, Encoding::Values)
}

/// How results reach the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// As JSON values in responses, for any connection.
    Values,
    /// As JSON text the transport writes as it is
    /// ([`crate::transport::RAW_MESSAGE`]).
    Text,
}

fn serve_on(
    connection: Connection,
    config: ServerConfig,
    encoding: Encoding,
) -> Result<Ending, Error> {
    let Connection { sender, receiver } = connection;
    let (id, params) = match wait_for_initialize(&sender, &receiver) {
        Initialize::Asked { id, params } => (id, params),
        Initialize::Exited => {
            return Ok(Ending::Exited {
                after_shutdown: false,
            });
        }
        Initialize::Disconnected => return Ok(Ending::Disconnected),
    };
    let root = root_of(&params).unwrap_or_else(|| config.default_root.clone());
    let (root, store_dir) = match open_root(&root, &config) {
        Ok(opened) => opened,
        Err(error) => {
            let response =
                Response::new_err(id, ErrorCode::RequestFailed as i32, error.to_string());
            let _ = sender.send(response.into());
            return Err(error);
        }
    };
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "refscope".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let _ = sender.send(Response::new_ok(id, result).into());
    tracing::info!("serving {} (store {})", root.display(), store_dir.display());
    let workspace = Workspace::start(
        WorkspaceConfig {
            root: root.clone(),
            store_dir: store_dir.clone(),
            index: config.index.clone(),
            limits: config.limits.clone(),
        },
        sender.clone(),
    );
    let client = ClientSupport::of(&params);
    let mut server = Server {
        sender,
        documents: Documents::new(root),
        workspace,
        store_dir,
        reader: None,
        pending: Pending::default(),
        indexing: false,
        indexed_once: false,
        workspace_alive: true,
        generation: 0,
        queue: VecDeque::new(),
        shut_down: false,
        ending: None,
        client,
        next_request: 0,
        config,
        encoding,
    };
    Ok(server.run(receiver))
}

/// The index as the server reads it: the store and the newest revision's
/// cache.
struct Reader {
    store: Store,
    cache: Arc<RevisionCache>,
    /// The revision's files by path, listed when first needed.
    files: FilesByPath,
    /// Answers kept for the revision.
    memo: Memo,
}

/// Changes not handed to the indexer yet.
#[derive(Debug, Default)]
struct Pending {
    /// The newest content of each changed document (`None`: closed).
    overlays: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// Paths changed on disk.
    paths: Vec<PathBuf>,
    /// When the first of them came.
    since: Option<Instant>,
    /// When they are due, unless a request needs them sooner.
    due: Option<Instant>,
    /// A request waits for them: hand them over at once.
    wanted: bool,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.overlays.is_empty() && self.paths.is_empty()
    }

    /// Notes a change now: the update is due after the quiet period, and
    /// at most [`MAX_GATHERING`] after the first change.
    fn touched(&mut self, debounce: Duration) {
        let now = Instant::now();
        let since = *self.since.get_or_insert(now);
        self.due = Some((now + debounce).min(since + MAX_GATHERING));
    }
}

struct Server {
    sender: Sender<Message>,
    config: ServerConfig,
    documents: Documents,
    workspace: Workspace,
    store_dir: PathBuf,
    reader: Option<Reader>,
    pending: Pending,
    /// An update is being indexed.
    indexing: bool,
    /// The first update is done (indexed or failed).
    indexed_once: bool,
    /// The indexing thread runs.
    workspace_alive: bool,
    generation: u64,
    /// Messages waiting, in order, behind a request that waits for the
    /// index.
    queue: VecDeque<Message>,
    shut_down: bool,
    ending: Option<Ending>,
    client: ClientSupport,
    next_request: i32,
    encoding: Encoding,
}

impl Server {
    fn run(&mut self, receiver: Receiver<Message>) -> Ending {
        self.start_first_update();
        let mut indexed = Some(self.workspace.indexed.clone());
        let mut receiver = Some(receiver);
        loop {
            let due = match self.pending.due {
                Some(due) if !self.indexing => at(due),
                _ => never(),
            };
            let incoming = receiver.clone().unwrap_or_else(never);
            let updates = indexed.clone().unwrap_or_else(never);
            select! {
                recv(incoming) -> message => match message {
                    Ok(message) => self.on_message(message),
                    // The client went away: answer what it asked before.
                    Err(_) => receiver = None,
                },
                recv(updates) -> done => match done {
                    Ok(done) => self.on_indexed(done),
                    // The indexing thread is gone: answers come from the
                    // last index, without waiting.
                    Err(_) => {
                        indexed = None;
                        self.workspace_gone();
                    }
                },
                recv(due) -> _ => {},
            }
            self.pump();
            self.send_update_if_due();
            if let Some(ending) = self.ending.take() {
                return ending;
            }
            if receiver.is_none() && self.queue.is_empty() {
                return Ending::Disconnected;
            }
        }
    }

    /// Whether a request that reads the index must wait.
    fn waiting(&self) -> bool {
        !self.indexed_once || self.indexing || !self.pending.is_empty()
    }

    fn on_message(&mut self, message: Message) {
        match message {
            Message::Notification(notification) if notification.method == "$/cancelRequest" => {
                self.cancel(notification);
            }
            message if !self.queue.is_empty() => self.queue.push_back(message),
            Message::Request(request) if self.must_wait(&request) => {
                self.queue.push_back(Message::Request(request));
            }
            Message::Request(request) => self.on_request(request),
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(_) => {}
        }
    }

    fn must_wait(&self, request: &Request) -> bool {
        !self.shut_down && ANSWERED_FROM_INDEX.contains(&request.method.as_str()) && self.waiting()
    }

    /// Handles queued messages in order until one must wait.
    fn pump(&mut self) {
        while self.ending.is_none() {
            let waits = match self.queue.front() {
                None => break,
                Some(Message::Request(request)) => self.must_wait(request),
                Some(_) => false,
            };
            if waits {
                self.pending.wanted = true;
                break;
            }
            match self.queue.pop_front() {
                Some(Message::Request(request)) => self.on_request(request),
                Some(Message::Notification(notification)) => self.on_notification(notification),
                _ => {}
            }
        }
    }

    fn cancel(&mut self, notification: Notification) {
        let Some(id) = notification.params.get("id").cloned() else {
            return;
        };
        let Ok(id) = serde_json::from_value::<RequestId>(id) else {
            return;
        };
        let queued = self
            .queue
            .iter()
            .position(|m| matches!(m, Message::Request(r) if r.id == id));
        if let Some(at) = queued {
            self.queue.remove(at);
            self.respond(Response::new_err(
                id,
                ErrorCode::RequestCanceled as i32,
                "cancelled".into(),
            ));
        }
    }

    fn on_request(&mut self, request: Request) {
        if self.shut_down {
            let response = Response::new_err(
                request.id,
                ErrorCode::InvalidRequest as i32,
                format!("{} after shutdown", request.method),
            );
            return self.respond(response);
        }
        let method = request.method.as_str();
        if ANSWERED_FROM_INDEX.contains(&method) {
            let answered = match &mut self.reader {
                Some(reader) => match Snapshot::with_cache(&reader.store, reader.cache.clone()) {
                    Ok(snapshot) => {
                        let context = Context {
                            store: &reader.store,
                            snapshot: &snapshot,
                            documents: &self.documents,
                            files: &reader.files,
                        };
                        let limit = self.config.max_workspace_symbols;
                        answer(&context, request, limit, &mut reader.memo)
                    }
                    Err(error) => Answered::Error(Response::new_err(
                        request.id,
                        ErrorCode::RequestFailed as i32,
                        error.to_string(),
                    )),
                },
                None => Answered::Error(empty_answer(request)),
            };
            return match answered {
                Answered::Result { id, json } => self.respond_with_json(id, &json),
                Answered::Error(response) => self.respond(response),
            };
        }
        let response = match method {
            "shutdown" => {
                self.shut_down = true;
                Response::new_ok(request.id, Value::Null)
            }
            "initialize" => Response::new_err(
                request.id,
                ErrorCode::InvalidRequest as i32,
                "initialize was sent already".into(),
            ),
            _ => Response::new_err(
                request.id,
                ErrorCode::MethodNotFound as i32,
                format!("refscope does not answer {method}"),
            ),
        };
        self.respond(response);
    }

    fn on_notification(&mut self, notification: Notification) {
        let method = notification.method.clone();
        match method.as_str() {
            "exit" => {
                self.ending = Some(Ending::Exited {
                    after_shutdown: self.shut_down,
                });
            }
            "initialized" => self.watch_files(),
            DidOpenTextDocument::METHOD => {
                if let Some(params) =
                    self.params::<lsp_types::DidOpenTextDocumentParams>(notification)
                    && let Some(rel) = self.documents.relative(&params.text_document.uri)
                {
                    let text = params.text_document.text;
                    self.overlay(&rel, Some(text.clone().into_bytes()));
                    self.documents.open(rel, params.text_document.version, text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Some(params) =
                    self.params::<lsp_types::DidChangeTextDocumentParams>(notification)
                    && let Some(rel) = self.documents.relative(&params.text_document.uri)
                    && self.documents.change(
                        &rel,
                        params.text_document.version,
                        params.content_changes,
                    )
                {
                    let text = self
                        .documents
                        .get(&rel)
                        .map(|d| d.text.clone().into_bytes());
                    self.overlay(&rel, text);
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Some(params) =
                    self.params::<lsp_types::DidSaveTextDocumentParams>(notification)
                    && let Some(rel) = self.documents.relative(&params.text_document.uri)
                {
                    self.pending.paths.push(self.documents.absolute(&rel));
                    self.pending.touched(self.config.debounce);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Some(params) =
                    self.params::<lsp_types::DidCloseTextDocumentParams>(notification)
                    && let Some(rel) = self.documents.relative(&params.text_document.uri)
                    && self.documents.close(&rel)
                {
                    self.overlay(&rel, None);
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Some(params) =
                    self.params::<lsp_types::DidChangeWatchedFilesParams>(notification)
                {
                    for change in params.changes {
                        if let Some(rel) = self.documents.relative(&change.uri) {
                            self.pending.paths.push(self.documents.absolute(&rel));
                            self.pending.touched(self.config.debounce);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A notification's parameters; malformed ones are logged and
    /// dropped (a notification has no response to carry an error).
    fn params<P: DeserializeOwned>(&self, notification: Notification) -> Option<P> {
        match serde_json::from_value(notification.params) {
            Ok(params) => Some(params),
            Err(e) => {
                log_message(
                    &self.sender,
                    MessageType::WARNING,
                    format!("refscope: ignored {}: {e}", notification.method),
                );
                None
            }
        }
    }

    /// Notes that the document at `rel` now has `content` (`None`: the
    /// disk's).
    fn overlay(&mut self, rel: &str, content: Option<Vec<u8>>) {
        self.pending
            .overlays
            .insert(self.documents.absolute(rel), content);
        self.pending.touched(self.config.debounce);
    }

    /// Asks the client to watch the work tree's Java files for the
    /// server, when it can.
    fn watch_files(&mut self) {
        if !self.client.watches_files {
            return;
        }
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "refscope-java-files".into(),
                method: DidChangeWatchedFiles::METHOD.into(),
                register_options: Some(json!({ "watchers": [{ "globPattern": "**/*.java" }] })),
            }],
        };
        self.request("client/registerCapability", params);
    }

    fn start_first_update(&mut self) {
        let progress = self.client.progress.then(|| {
            let token = NumberOrString::String("refscope-index".into());
            self.request(
                "window/workDoneProgress/create",
                WorkDoneProgressCreateParams {
                    token: token.clone(),
                },
            );
            token
        });
        self.generation += 1;
        self.indexing = true;
        self.workspace.send(Update {
            generation: self.generation,
            progress,
            log_summary: true,
            ..Update::default()
        });
    }

    /// Hands the pending changes to the indexer when they are due or
    /// wanted, and it is idle.
    fn send_update_if_due(&mut self) {
        if !self.workspace_alive {
            self.pending = Pending::default();
            return;
        }
        if self.indexing || self.pending.is_empty() {
            return;
        }
        let due = self.pending.due.is_some_and(|due| due <= Instant::now());
        if !(due || self.pending.wanted) {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.generation += 1;
        self.indexing = true;
        self.workspace.send(Update {
            generation: self.generation,
            overlays: pending.overlays.into_iter().collect(),
            paths: pending.paths,
            progress: None,
            log_summary: false,
        });
    }

    /// The indexing thread ended (it never does unless something is very
    /// wrong): nothing is pending any more, and nothing waits.
    fn workspace_gone(&mut self) {
        self.indexing = false;
        self.indexed_once = true;
        self.pending = Pending::default();
        self.workspace_alive = false;
        log_message(
            &self.sender,
            MessageType::ERROR,
            "refscope: indexing stopped; answers come from the last index".into(),
        );
    }

    fn on_indexed(&mut self, done: Indexed) {
        self.indexing = false;
        self.indexed_once = true;
        tracing::debug!("update {} done", done.generation);
        match done.outcome {
            Outcome::Indexed(summary) => {
                let started = Instant::now();
                let read = self.read_revision(&summary);
                tracing::info!(
                    "indexed {} ({} parsed, {} resolved, {:.0} ms; read from {:.0} ms later)",
                    summary.revision,
                    summary.n_parsed,
                    summary.n_resolved,
                    summary.seconds * 1000.0,
                    started.elapsed().as_secs_f64() * 1000.0
                );
                if let Err(error) = read {
                    log_message(
                        &self.sender,
                        MessageType::ERROR,
                        format!("refscope: cannot read the new index: {error}"),
                    );
                }
            }
            Outcome::Unchanged => {}
            Outcome::Failed(why) => log_message(
                &self.sender,
                MessageType::ERROR,
                format!("refscope: indexing failed, answers come from the last index: {why}"),
            ),
        }
    }

    /// Reads the revision `summary` indexed from now on. A revision
    /// layered over the one read so far starts with what was decoded of
    /// the files it did not write.
    fn read_revision(&mut self, summary: &IndexSummary) -> Result<(), Error> {
        let name = summary.revision.as_str();
        if self.reader.is_none() {
            let store = Store::open_existing(&self.store_dir)?;
            let Some(row) = store.revision(name)? else {
                return Ok(());
            };
            let cache = Arc::new(RevisionCache::new(row));
            let files = FilesByPath::default();
            self.reader = Some(Reader {
                store,
                cache,
                files,
                memo: Memo::default(),
            });
            return Ok(());
        }
        let reader = self.reader.as_mut().expect("opened above");
        let previous = &reader.cache;
        if previous.revision().name == name {
            return Ok(());
        }
        let Some(row) = reader.store.revision(name)? else {
            return Ok(());
        };
        reader.cache = match (&summary.parent, &summary.dirty) {
            (Some(parent), Some(written)) if previous.revision().name == *parent => {
                Snapshot::following(&reader.store, row, previous, written)?
                    .cache()
                    .clone()
            }
            _ => Arc::new(RevisionCache::new(row)),
        };
        reader.files = FilesByPath::default();
        reader.memo = Memo::default();
        Ok(())
    }

    fn respond(&self, response: Response) {
        let _ = self.sender.send(response.into());
    }

    /// Responds to `id` with a result given as JSON text.
    fn respond_with_json(&self, id: RequestId, json: &str) {
        let message: Message = match self.encoding {
            Encoding::Text => {
                let id = serde_json::to_string(&id).expect("ids are serializable");
                let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{json}}}"#);
                Notification::new(RAW_MESSAGE.into(), Value::String(text)).into()
            }
            Encoding::Values => {
                let value: Value = serde_json::from_str(json).expect("answers are JSON");
                Response::new_ok(id, value).into()
            }
        };
        let _ = self.sender.send(message);
    }

    /// Sends a request to the client; its response is not waited for.
    fn request(&mut self, method: &str, params: impl serde::Serialize) {
        self.next_request += 1;
        let id = RequestId::from(format!("refscope-{}", self.next_request));
        let _ = self
            .sender
            .send(Request::new(id, method.into(), params).into());
    }
}
