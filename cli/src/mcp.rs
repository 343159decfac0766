//! `refscope mcp`: the MCP server over stdio or streamable HTTP.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::http::{HttpOptions, Token};
use refscope_mcp_bridge::query_tool::QueryTools;
use refscope_mcp_bridge::serve::{Transport, serve};
use refscope_mcp_bridge::server::{Server, ServerError};
use refscope_mcp_bridge::task::TaskStore;
use refscope_tool::ToolSet;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// How clients connect: JSON-RPC on standard input and output, or
    /// streamable HTTP at http://HOST:PORT/mcp.
    #[arg(long, value_enum, default_value_t = TransportArg::Stdio)]
    transport: TransportArg,
    /// The address HTTP listens on (loopback by default).
    #[arg(long, default_value = "127.0.0.1", value_name = "HOST")]
    host: IpAddr,
    /// The port HTTP listens on (0: any free port, logged at start).
    #[arg(long, default_value_t = 3000, value_name = "PORT")]
    port: u16,
    /// Shorthand for --transport http --host H --port P.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["transport", "host", "port"])]
    http: Option<SocketAddr>,
    /// A file holding the bearer token every HTTP request must carry
    /// (`Authorization: Bearer TOKEN`); REFSCOPE_MCP_TOKEN gives it too.
    /// Required to listen beyond loopback.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// A browser origin allowed to call the HTTP server, such as
    /// https://review.example.com (repeatable; loopback origins are allowed
    /// on a loopback server). Requests without an Origin header are not
    /// browsers' and pass.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// A Host name (or name:port) the HTTP server answers to beyond
    /// loopback (repeatable; by default any, the token guarding it).
    #[arg(long = "allow-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
    /// HTTP sessions open at once; a client opening one more is refused.
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_sessions: usize,
    /// Seconds after which an HTTP session without requests is closed.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    session_idle: u64,
    /// The tool sets to offer, comma-separated: context (`code_context`),
    /// query (`code_query`), review (`aicr.*`, needs --task).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [ToolSetArg::Context, ToolSetArg::Query, ToolSetArg::Review], value_name = "SETS")]
    tools: Vec<ToolSetArg>,
    /// The review task the review tools work on (its repository, revision
    /// and base revision); needed for the review tool set.
    #[arg(long, value_name = "ID")]
    task: Option<String>,
    /// Where the review tools write .aicr-output-state.json.
    #[arg(long, value_name = "DIR", default_value = ".")]
    agent_dir: PathBuf,
    /// A JSON file of context settings (default: context-settings.json in
    /// the store directory, if present).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The store directory holding the tasks and the index (default: the
    /// one of the repository containing the current directory).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TransportArg {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ToolSetArg {
    Context,
    Query,
    Review,
}

pub fn run(args: McpArgs) -> Result<()> {
    // Standard output carries the protocol in stdio mode: logs go to
    // standard error, always.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let transport = match (args.http, args.transport) {
        (Some(addr), _) => Transport::Http(http_options(&args, addr)?),
        (None, TransportArg::Http) => {
            Transport::Http(http_options(&args, SocketAddr::new(args.host, args.port))?)
        }
        (None, TransportArg::Stdio) => Transport::Stdio,
    };
    let store_dir = crate::task::store_dir(args.store.as_deref(), Path::new("."))?;
    let settings = ContextSettings::configured(args.config.as_deref(), &store_dir)?;
    let tasks = TaskStore::open(&store_dir)?;
    // An unknown task is an error now, not at the first call.
    let task = args.task.as_deref().map(|id| tasks.get(id)).transpose()?;
    let mut sets: Vec<Box<dyn ToolSet>> = Vec::new();
    if args.tools.contains(&ToolSetArg::Context) {
        sets.push(Box::new(ContextTools::open(&store_dir, settings)?));
    }
    if args.tools.contains(&ToolSetArg::Query) {
        sets.push(Box::new(QueryTools::open(&store_dir)?));
    }
    // The review tool set (`aicr.*`) is bound to one task: without --task
    // the server offers the other sets only.
    match &task {
        Some(task) if args.tools.contains(&ToolSetArg::Review) => sets.push(Box::new(
            crate::aicr::review_tools_of_task(task, &args.agent_dir)?,
        )),
        None if args.tools.contains(&ToolSetArg::Review) => {
            tracing::warn!("the review tools (aicr.*) need --task ID; not offered");
        }
        _ => {}
    }
    let server = Server::new(sets)?;
    tracing::info!(
        tools = ?server.tool_definitions().iter().map(|t| t.name).collect::<Vec<_>>(),
        "refscope MCP server starting"
    );
    serve(server, transport)?;
    Ok(())
}

/// How the HTTP transport listens on `addr`, from the arguments and
/// REFSCOPE_MCP_TOKEN.
fn http_options(args: &McpArgs, addr: SocketAddr) -> Result<HttpOptions> {
    let token = match &args.token_file {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the token file {}", file.display()))?;
            Some(
                Token::new(&text)
                    .with_context(|| format!("the token file {} holds no token", file.display()))?,
            )
        }
        None => match std::env::var("REFSCOPE_MCP_TOKEN") {
            Ok(text) => Some(Token::new(&text).context("REFSCOPE_MCP_TOKEN is empty")?),
            Err(_) => None,
        },
    };
    if token.is_none() && !addr.ip().is_loopback() {
        // Said before anything is opened; the server checks it again.
        return Err(ServerError::NoToken { addr }.into());
    }
    let mut options = HttpOptions::new(addr);
    options.token = token;
    options.allowed_origins = args.allowed_origins.clone();
    options.allowed_hosts = args.allowed_hosts.clone();
    options.max_sessions = args.max_sessions.max(1);
    options.session_idle = Duration::from_secs(args.session_idle.max(1));
    Ok(options)
}
