//! From a request to its response: the parameters decoded, the answer
//! worked out over one revision, failures turned into error responses.
//! A panic while answering is caught and answered as an internal error:
//! one bad request never takes the server down.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use lsp_server::{ErrorCode, Request, RequestId, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::answers::{hierarchy, hover, navigate, symbols};
use crate::locate::Context;

/// The requests answered from the index: they wait for the changes
/// before them to be indexed.
pub const ANSWERED_FROM_INDEX: &[&str] = &[
    "textDocument/definition",
    "textDocument/references",
    "textDocument/implementation",
    "textDocument/prepareCallHierarchy",
    "callHierarchy/incomingCalls",
    "callHierarchy/outgoingCalls",
    "textDocument/documentSymbol",
    "workspace/symbol",
    "textDocument/hover",
];

/// Requests whose answers are kept for the revision: large (the callers
/// of a popular method are thousands of items) and asked again as they
/// are (a call hierarchy expanded, collapsed and expanded again).
const KEPT: &[&str] = &[
    "textDocument/references",
    "callHierarchy/incomingCalls",
    "callHierarchy/outgoingCalls",
];

/// At most this many answers are kept.
const MAX_KEPT: usize = 8;

/// Answers of the revision read now (their JSON text), by method and
/// parameters; the server starts a new one with each revision.
#[derive(Debug, Default)]
pub struct Memo {
    answers: HashMap<String, Arc<str>>,
}

/// What a request gets.
pub enum Answered {
    /// Its result, as JSON text: encoded once, straight from the answer's
    /// types (a `serde_json::Value` of thousands of items costs more to
    /// build than the answer itself).
    Result {
        /// The request's id.
        id: RequestId,
        /// The result.
        json: Arc<str>,
    },
    /// An error response.
    Error(Response),
}

/// Why a request got no answer.
enum Failure {
    /// Its parameters do not fit the method.
    InvalidParams(String),
    /// The index could not be read.
    Engine(refscope_engine::Error),
}

/// The answer to `request`, one of [`ANSWERED_FROM_INDEX`], read through
/// `context` (or kept in `memo` from the same question before).
pub fn answer(
    context: &Context<'_>,
    request: Request,
    max_workspace_symbols: usize,
    memo: &mut Memo,
) -> Answered {
    let Request { id, method, params } = request;
    let key = KEPT
        .contains(&method.as_str())
        .then(|| format!("{method}\n{params}"));
    if let Some(kept) = key.as_ref().and_then(|key| memo.answers.get(key)) {
        return Answered::Result {
            id,
            json: kept.clone(),
        };
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        answer_method(context, &method, params, max_workspace_symbols)
    }));
    match outcome {
        Ok(Ok(json)) => {
            let json: Arc<str> = json.into();
            if let Some(key) = key {
                if memo.answers.len() >= MAX_KEPT {
                    memo.answers.clear();
                }
                memo.answers.insert(key, json.clone());
            }
            Answered::Result { id, json }
        }
        Ok(Err(Failure::InvalidParams(why))) => Answered::Error(Response::new_err(
            id,
            ErrorCode::InvalidParams as i32,
            format!("invalid parameters for {method}: {why}"),
        )),
        Ok(Err(Failure::Engine(error))) => {
            tracing::warn!("{method} failed: {error}");
            Answered::Error(Response::new_err(
                id,
                ErrorCode::RequestFailed as i32,
                error.to_string(),
            ))
        }
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            tracing::error!("{method} panicked: {why}");
            Answered::Error(Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("refscope failed to answer {method}: {why}"),
            ))
        }
    }
}

/// An empty answer of the right shape for a method, when there is no
/// revision to read yet (the first index failed).
pub fn empty_answer(request: Request) -> Response {
    let empty = match request.method.as_str() {
        "textDocument/references" | "workspace/symbol" => Value::Array(Vec::new()),
        _ => Value::Null,
    };
    Response::new_ok(request.id, empty)
}

fn answer_method(
    context: &Context<'_>,
    method: &str,
    params: Value,
    max_workspace_symbols: usize,
) -> Result<String, Failure> {
    match method {
        "textDocument/definition" => call(params, |p| navigate::definition(context, p)),
        "textDocument/references" => call(params, |p| navigate::references(context, p)),
        "textDocument/implementation" => call(params, |p| navigate::implementation(context, p)),
        "textDocument/prepareCallHierarchy" => call(params, |p| hierarchy::prepare(context, p)),
        "callHierarchy/incomingCalls" => call(params, |p| hierarchy::incoming(context, p)),
        "callHierarchy/outgoingCalls" => call(params, |p| hierarchy::outgoing(context, p)),
        "textDocument/documentSymbol" => call(params, |p| symbols::document_symbols(context, p)),
        "workspace/symbol" => call(params, |p| {
            symbols::workspace_symbols(context, p, max_workspace_symbols)
        }),
        "textDocument/hover" => call(params, |p| hover::hover(context, p)),
        _ => unreachable!("{method} is not answered from the index"),
    }
}

/// Decodes the parameters, answers, encodes the answer as JSON text.
fn call<P: DeserializeOwned, R: Serialize>(
    params: Value,
    answer: impl FnOnce(P) -> Result<R, refscope_engine::Error>,
) -> Result<String, Failure> {
    let params: P =
        serde_json::from_value(params).map_err(|e| Failure::InvalidParams(e.to_string()))?;
    let result = answer(params).map_err(Failure::Engine)?;
    Ok(serde_json::to_string(&result).expect("answers are serializable"))
}
