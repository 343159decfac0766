//! The start of a session: waiting for `initialize`, the work tree and
//! store it names, what the client can do and what the server
//! advertises.

use std::path::{Path, PathBuf};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, RequestId, Response};
use lsp_types::{
    CallHierarchyServerCapability, HoverProviderCapability, ImplementationProviderCapability,
    OneOf, PositionEncodingKind, SaveOptions, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use refscope_engine::Source;
use serde_json::Value;

use crate::config::ServerConfig;
use crate::documents::path_of_uri;
use crate::error::Error;

/// What the client can do that the server uses.
#[derive(Debug, Default)]
pub struct ClientSupport {
    /// It shows work-done progress the server starts.
    pub progress: bool,
    /// It watches files for the server once asked to.
    pub watches_files: bool,
}

impl ClientSupport {
    /// What `initialize`'s parameters say.
    pub fn of(params: &Value) -> Self {
        let flag = |pointer: &str| params.pointer(pointer).and_then(Value::as_bool) == Some(true);
        Self {
            progress: flag("/capabilities/window/workDoneProgress"),
            watches_files: flag(
                "/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration",
            ),
        }
    }
}

/// What the server advertises.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        // refscope's columns are UTF-16 code units, the protocol's
        // default and the one encoding every client supports.
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        implementation_provider: Some(ImplementationProviderCapability::Simple(true)),
        call_hierarchy_provider: Some(CallHierarchyServerCapability::Simple(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

/// How waiting for `initialize` ended.
pub enum Initialize {
    /// `initialize` came, with its id and parameters.
    Asked {
        /// The request's id.
        id: RequestId,
        /// Its parameters.
        params: Value,
    },
    /// The client sent `exit` first.
    Exited,
    /// The client closed the connection first.
    Disconnected,
}

/// Answers everything but `initialize` with `ServerNotInitialized` (and
/// drops notifications) until `initialize` comes.
pub fn wait_for_initialize(sender: &Sender<Message>, receiver: &Receiver<Message>) -> Initialize {
    loop {
        let Ok(message) = receiver.recv() else {
            return Initialize::Disconnected;
        };
        match message {
            Message::Request(request) if request.method == "initialize" => {
                return Initialize::Asked {
                    id: request.id,
                    params: request.params,
                };
            }
            Message::Request(request) => {
                let response = Response::new_err(
                    request.id,
                    ErrorCode::ServerNotInitialized as i32,
                    format!("{} before initialize", request.method),
                );
                let _ = sender.send(response.into());
            }
            Message::Notification(notification) if notification.method == "exit" => {
                return Initialize::Exited;
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
}

/// The work tree `initialize` names: its first workspace folder, else its
/// `rootUri`, else its `rootPath`.
pub fn root_of(params: &Value) -> Option<PathBuf> {
    let uri_path = |value: &Value| {
        let uri: Uri = serde_json::from_value(value.clone()).ok()?;
        path_of_uri(&uri)
    };
    params
        .pointer("/workspaceFolders/0/uri")
        .and_then(uri_path)
        .or_else(|| params.get("rootUri").and_then(uri_path))
        .or_else(|| {
            params
                .get("rootPath")
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
}

/// The work tree to serve (the repository's work tree when `root` is in
/// one, as for `refscope watch`; canonical) and its store.
pub fn open_root(root: &Path, config: &ServerConfig) -> Result<(PathBuf, PathBuf), Error> {
    let failed = |reason: String| Error::Root {
        path: root.to_path_buf(),
        reason,
    };
    let source = Source::open(root).map_err(|e| failed(e.to_string()))?;
    let store_dir = config
        .store
        .clone()
        .unwrap_or_else(|| source.default_store_dir());
    let root = std::fs::canonicalize(source.root()).map_err(|e| failed(e.to_string()))?;
    Ok((root, store_dir))
}
