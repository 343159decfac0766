//! The streamable HTTP transport, guarded: what a server reachable beyond
//! its own machine needs.
//!
//! rmcp serves the MCP endpoint; in front of it, every request passes
//! [`guard`]:
//! * with a token, a request must carry `Authorization: Bearer TOKEN`
//!   (compared in constant time), or it is refused with 401. A server bound
//!   beyond loopback does not start without one ([`ServerError::NoToken`]);
//! * a request that would open a session beyond [`HttpOptions::max_sessions`]
//!   is refused with 503, one beyond [`HttpOptions::max_requests_per_session`]
//!   running in its session with 429;
//! * ending a session (`DELETE`) answers 200 with an empty body: rmcp says
//!   202, which clients that expect 200 or 204 report as a failure.
//!
//! rmcp itself checks `Host` (loopback names on a loopback server, the
//! names given with [`HttpOptions::allowed_hosts`] otherwise), checks
//! `Origin` when a request has one (loopback origins on a loopback server,
//! [`HttpOptions::allowed_origins`] otherwise; a browser page elsewhere is
//! refused, as the MCP specification asks against DNS rebinding), limits a
//! request body to [`HttpOptions::max_body_bytes`] (413 beyond), and closes
//! a session idle for [`HttpOptions::session_idle`].

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::server::{Server, ServerError};

/// The path the streamable HTTP transport serves.
pub const HTTP_PATH: &str = "/mcp";

/// The header that names a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

/// A bearer token. Its `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token `text` with surrounding white space removed (a token file
    /// usually ends with a newline); `None` if nothing is left.
    pub fn new(text: &str) -> Option<Self> {
        let text = text.trim();
        (!text.is_empty()).then(|| Self(text.to_string()))
    }

    fn matches(&self, given: &str) -> bool {
        self.0.as_bytes().ct_eq(given.as_bytes()).into()
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(..)")
    }
}

/// How the HTTP transport listens and what it lets in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// The address to listen on (port 0: any free port).
    pub addr: SocketAddr,
    /// The bearer token every request must carry; required beyond
    /// loopback.
    pub token: Option<Token>,
    /// `Host` names (or `name:port`) accepted beyond loopback; empty: any
    /// (the token guards the server). On loopback only loopback names are.
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`scheme://host[:port]`, `:*` for any port) whose
    /// pages may call the server; requests without `Origin` (clients that
    /// are not browsers) always may. On loopback, loopback origins are
    /// added.
    pub allowed_origins: Vec<String>,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// Sessions open at once.
    pub max_sessions: usize,
    /// Requests running at once in one session (an open event stream
    /// counts as one while it lasts).
    pub max_requests_per_session: usize,
    /// A session without requests for this long is closed.
    pub session_idle: Duration,
}

impl HttpOptions {
    /// Listening on `addr`, with the default limits and no token.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: 4 << 20,
            max_sessions: 64,
            max_requests_per_session: 8,
            session_idle: Duration::from_secs(300),
        }
    }
}

/// Serves streamable HTTP as `options` say (endpoint [`HTTP_PATH`]) until
/// `shutdown` is cancelled; `on_bound` hears the bound address.
pub async fn serve_http(
    server: Server,
    options: HttpOptions,
    shutdown: CancellationToken,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<(), ServerError> {
    let addr = options.addr;
    let loopback = addr.ip().is_loopback();
    if !loopback && options.token.is_none() {
        return Err(ServerError::NoToken { addr });
    }
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(options.max_body_bytes);
    let mut origins = options.allowed_origins.clone();
    if loopback {
        origins.extend(
            ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"].map(String::from),
        );
    } else if options.allowed_hosts.is_empty() {
        // Host validation guards a loopback server against DNS rebinding;
        // one bound to a public address is reached under names we cannot
        // know here, and the token guards it.
        config = config.disable_allowed_hosts();
    } else {
        config = config.with_allowed_hosts(options.allowed_hosts.clone());
    }
    config = if origins.is_empty() {
        config.enforce_origin_validation()
    } else {
        config.with_allowed_origins(origins)
    };
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    let guard_state = Guard {
        token: options.token.clone().map(Arc::new),
        sessions,
        max_sessions: options.max_sessions,
        max_requests_per_session: options.max_requests_per_session,
        running: Arc::default(),
    };
    let router = axum::Router::new()
        .nest_service(HTTP_PATH, service)
        .layer(axum::middleware::from_fn_with_state(guard_state, guard));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServerError::Bind { addr, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ServerError::Bind { addr, source })?;
    on_bound(bound);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await
        .map_err(|e| ServerError::Transport {
            message: e.to_string(),
        })
}

/// What [`guard`] checks requests against.
#[derive(Clone)]
struct Guard {
    token: Option<Arc<Token>>,
    sessions: Arc<LocalSessionManager>,
    max_sessions: usize,
    max_requests_per_session: usize,
    /// Each session's running requests, as permits taken.
    running: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

impl Guard {
    /// A permit for one more request in session `id`, if it has one left.
    fn enter(&self, id: &str) -> Option<OwnedSemaphorePermit> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(self.max_requests_per_session)))
            .clone()
            .try_acquire_owned()
            .ok()
    }

    /// Forgets the permits of sessions that are no longer open.
    async fn forget_closed(&self) {
        let open = self.sessions.sessions.read().await;
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|id, _| open.contains_key(id.as_str()));
    }
}

fn refusal(status: StatusCode, message: &str) -> Response {
    (status, format!("{message}\n")).into_response()
}

/// Lets a request through to the MCP endpoint, or refuses it (see the
/// module's documentation).
async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Some(token) = &guard.token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if !given.is_some_and(|given| token.matches(given.trim())) {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                "this server needs 'Authorization: Bearer TOKEN' with the token it was started with",
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let permit = match &session {
        Some(id) => match guard.enter(id) {
            Some(permit) => Some(permit),
            None => {
                return refusal(
                    StatusCode::TOO_MANY_REQUESTS,
                    &format!(
                        "this session has {} requests running already; wait for one to end",
                        guard.max_requests_per_session
                    ),
                );
            }
        },
        None if request.method() == Method::POST => {
            if guard.sessions.sessions.read().await.len() >= guard.max_sessions {
                guard.forget_closed().await;
                return refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!(
                        "{} sessions are open, as many as this server keeps; end one (DELETE) \
                         or wait until an idle one is closed",
                        guard.max_sessions
                    ),
                );
            }
            None
        }
        None => None,
    };
    let ends_session = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if ends_session {
        drop(permit);
        guard.forget_closed().await;
        if response.status() == StatusCode::ACCEPTED {
            let (mut parts, _) = response.into_parts();
            parts.status = StatusCode::OK;
            parts.headers.remove(header::CONTENT_LENGTH);
            return Response::from_parts(parts, Body::empty());
        }
        return response;
    }
    match permit {
        // The request runs until its body (an event stream, say) ends.
        Some(permit) => response.map(|body| {
            Body::new(Holding {
                body,
                _permit: permit,
            })
        }),
        None => response,
    }
}

/// A response body that holds a session's permit until it ends.
struct Holding {
    body: Body,
    _permit: OwnedSemaphorePermit,
}

impl HttpBody for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
