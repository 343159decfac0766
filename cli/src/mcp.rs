//! `refscope mcp`: the MCP server over stdio or streamable HTTP.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, ValueEnum};
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::query_tool::QueryTools;
use refscope_mcp_bridge::server::{Server, Transport, serve};
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
        (Some(addr), _) => Transport::Http(addr),
        (None, TransportArg::Http) => Transport::Http(SocketAddr::new(args.host, args.port)),
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
