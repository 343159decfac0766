//! The streamable HTTP transport on a real socket, spoken to in plain
//! HTTP/1.1: the token, origins, body size, session limits and the end of
//! a session.

use std::net::SocketAddr;
use std::time::Duration;

use refscope_mcp_bridge::http::{HttpOptions, Token, serve_http};
use refscope_mcp_bridge::server::{Server, ServerError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"http-test","version":"1"}}}"#;

/// A server on a free loopback port, stopped when dropped.
struct Running {
    addr: SocketAddr,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn start(configure: impl FnOnce(&mut HttpOptions)) -> Running {
    let mut options = HttpOptions::new("127.0.0.1:0".parse().unwrap());
    configure(&mut options);
    let stop = CancellationToken::new();
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel();
    let server = Server::new([]).unwrap();
    let shutdown = stop.clone();
    tokio::spawn(async move {
        serve_http(server, options, shutdown, |addr| {
            bound_tx.send(addr).unwrap();
        })
        .await
        .unwrap();
    });
    Running {
        addr: bound_rx.await.unwrap(),
        stop,
    }
}

/// An answer's status, headers (names in lower case) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request on a connection of its own. With `whole`, reads the
/// answer to its end; otherwise only its head (an event stream goes on).
async fn send(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
    whole: bool,
) -> (Answer, TcpStream) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    request += "Accept: application/json, text/event-stream\r\n";
    if !body.is_empty() {
        request += &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += "\r\n";
    request += body;
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("an answer within 10 s")
            .unwrap();
        assert!(n > 0, "the connection closed before the answer's head");
        received.extend_from_slice(&buffer[..n]);
    };
    if whole {
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut received))
            .await
            .expect("the whole answer within 10 s")
            .unwrap();
    }
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body = String::from_utf8_lossy(&received[head_end + 4..]).into_owned();
    (
        Answer {
            status,
            headers,
            body,
        },
        stream,
    )
}

async fn request(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    send(addr, method, headers, body, true).await.0
}

/// Opens a session; its id.
async fn initialize(addr: SocketAddr, headers: &[(&str, &str)]) -> String {
    let answer = request(addr, "POST", headers, INITIALIZE).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_string()
}

#[tokio::test]
async fn a_server_beyond_loopback_does_not_start_without_a_token() {
    let options = HttpOptions::new("0.0.0.0:0".parse().unwrap());
    let result = serve_http(
        Server::new([]).unwrap(),
        options,
        CancellationToken::new(),
        |_| panic!("it must not listen"),
    )
    .await;
    let error = result.unwrap_err();
    assert!(matches!(error, ServerError::NoToken { .. }));
    assert!(error.to_string().contains("--token-file"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_needs_the_token() {
    let server = start(|o| o.token = Token::new("s3cret-token\n")).await;
    for auth in [None, Some("Bearer wrong-token"), Some("Basic s3cret-token")] {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        let answer = request(server.addr, "POST", &headers, INITIALIZE).await;
        assert_eq!(answer.status, 401, "{auth:?}: {answer:?}");
        assert_eq!(answer.header("www-authenticate"), Some("Bearer"));
    }
    let auth = [("Authorization", "Bearer s3cret-token")];
    let session = initialize(server.addr, &auth).await;
    // Within a session too.
    let answer = request(server.addr, "DELETE", &[("Mcp-Session-Id", &session)], "").await;
    assert_eq!(answer.status, 401);
    let answer = request(
        server.addr,
        "DELETE",
        &[auth[0], ("Mcp-Session-Id", &session)],
        "",
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_pages_of_other_origins_are_refused() {
    let server = start(|o| o.allowed_origins = vec!["https://review.example.com".into()]).await;
    for origin in [
        "http://evil.example",
        "https://review.example.com.evil.example",
        "null",
    ] {
        let answer = request(server.addr, "POST", &[("Origin", origin)], INITIALIZE).await;
        assert_eq!(answer.status, 403, "{origin}: {answer:?}");
    }
    for origin in ["https://review.example.com", "http://localhost:5173"] {
        initialize(server.addr, &[("Origin", origin)]).await;
    }
    // A client that is not a browser sends no origin.
    initialize(server.addr, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_is_refused() {
    let server = start(|o| o.max_body_bytes = 1024).await;
    let padded = INITIALIZE.replace("http-test", &"x".repeat(2000));
    let answer = request(server.addr, "POST", &[], &padded).await;
    assert_eq!(answer.status, 413, "{answer:?}");
    initialize(server.addr, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_limited_and_end_with_200() {
    let server = start(|o| o.max_sessions = 2).await;
    let first = initialize(server.addr, &[]).await;
    initialize(server.addr, &[]).await;
    let answer = request(server.addr, "POST", &[], INITIALIZE).await;
    assert_eq!(answer.status, 503, "{answer:?}");
    assert!(
        answer.body.contains("2 sessions are open"),
        "{}",
        answer.body
    );

    let answer = request(server.addr, "DELETE", &[("Mcp-Session-Id", &first)], "").await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.body.is_empty());
    initialize(server.addr, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_running_in_one_session_are_limited() {
    let server = start(|o| o.max_requests_per_session = 1).await;
    let session = initialize(server.addr, &[]).await;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let answer = request(
        server.addr,
        "POST",
        &[("Mcp-Session-Id", &session)],
        initialized,
    )
    .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    // The session's event stream stays open, and counts while it does.
    let (stream, connection) = send(
        server.addr,
        "GET",
        &[("Mcp-Session-Id", &session)],
        "",
        false,
    )
    .await;
    assert_eq!(stream.status, 200, "{stream:?}");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let answer = request(server.addr, "POST", &[("Mcp-Session-Id", &session)], list).await;
    assert_eq!(answer.status, 429, "{answer:?}");
    // Once it ends, the session may run a request again.
    drop(connection);
    let mut answer = None;
    for _ in 0..50 {
        let a = request(server.addr, "POST", &[("Mcp-Session-Id", &session)], list).await;
        if a.status != 429 {
            answer = Some(a);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let answer = answer.expect("the stream's end frees its place");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.body.contains("\"tools\""), "{}", answer.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_closed() {
    let server = start(|o| o.session_idle = Duration::from_millis(300)).await;
    let session = initialize(server.addr, &[]).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let answer = request(server.addr, "POST", &[("Mcp-Session-Id", &session)], list).await;
    assert_eq!(answer.status, 404, "{answer:?}");
}
