//! Running the server: over stdio, or over streamable HTTP
//! ([`crate::http`]), on a tokio runtime of its own.

use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use crate::http::{HTTP_PATH, HttpOptions, serve_http};
use crate::server::{Server, ServerError};

/// How the server talks to its client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// JSON-RPC lines on standard input and output; logs go to standard
    /// error.
    Stdio,
    /// Streamable HTTP, endpoint [`HTTP_PATH`], listening and guarded as
    /// the options say.
    Http(HttpOptions),
}

/// Serves until the client goes away (stdio) or Ctrl-C (HTTP). Builds its
/// own tokio runtime; call it from a plain thread.
pub fn serve(server: Server, transport: Transport) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServerError::Transport {
            message: format!("cannot start the async runtime: {e}"),
        })?;
    runtime.block_on(async move {
        match transport {
            Transport::Stdio => serve_stdio(server).await,
            Transport::Http(options) => {
                let shutdown = CancellationToken::new();
                let on_signal = shutdown.clone();
                tokio::spawn(async move {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        tracing::info!("Ctrl-C: stopping");
                    }
                    on_signal.cancel();
                });
                serve_http(server, options, shutdown, |bound| {
                    tracing::info!("serving MCP on http://{bound}{HTTP_PATH}");
                })
                .await
            }
        }
    })
}

/// Serves over standard input and output until the client closes them.
pub async fn serve_stdio(server: Server) -> Result<(), ServerError> {
    let transport_error = |e: &dyn std::fmt::Display| ServerError::Transport {
        message: e.to_string(),
    };
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| transport_error(&e))?;
    running.waiting().await.map_err(|e| transport_error(&e))?;
    Ok(())
}
