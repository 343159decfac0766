//! `code_context` latency, warm in the server, on a real store.
//!
//! ```sh
//! cp -r /work/cache/jdk17-store /tmp/jdk17-store-copy   # tasks are written into the store
//! cargo run --release -p refscope-benches --bin context-latency -- \
//!     --repo ~/.cache/refscope/corpora/jdk17 --store /tmp/jdk17-store-copy --runs 200
//! ```
//!
//! Adds (or reuses) task `bench` for the directory, then calls
//! `code_context` for one file and a 3-range diff: once cold (the task is
//! opened), then `--runs` times warm, two ways — straight into the server's
//! dispatch (`Server::call`: name mapping, the tool set's lock, the
//! answer) and as an MCP round trip from an rmcp client over an in-process
//! duplex pipe (JSON-RPC both ways). Prints p50, p90 and max of each and the
//! answer's size in bytes (compact JSON, as the tool returns it).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use refscope_engine::Store;
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::server::Server;
use refscope_mcp_bridge::task::{NewTask, TaskStore};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

#[derive(Debug, Parser)]
struct Args {
    /// The repository or directory the store indexes.
    #[arg(long)]
    repo: PathBuf,
    /// A store of it that may be written (a copy: the task is added to it).
    #[arg(long)]
    store: PathBuf,
    /// The file of the diff.
    #[arg(long, default_value = "java.base/java/util/ArrayList.java")]
    file: String,
    /// The diff's ranges: a field, and lines inside two methods.
    #[arg(long, default_value = "145-145,466-468,504-510")]
    lines: String,
    /// Warm calls measured per way.
    #[arg(long, default_value_t = 200)]
    runs: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut diff_lines = Vec::new();
    for range in args.lines.split(',') {
        let (a, b) = range
            .split_once('-')
            .context("--lines takes START-END,...")?;
        diff_lines.extend([a.parse::<i64>()?, b.parse::<i64>()?]);
    }
    let tasks = TaskStore::open(&args.store)?;
    if tasks.find("bench")?.is_none() {
        let store = Store::open(&args.store)?;
        let new = NewTask {
            id: "bench".into(),
            repo: args.repo.clone(),
            rev: None,
            base: None,
        };
        tasks.register(new, &store, &mut |_| {})?;
    }
    let context = ContextTools::open(&args.store, ContextSettings::default())?;
    let server = Server::new(Some(Box::new(context)), None)?;
    let Value::Object(arguments) = json!({
        "task_id": "bench",
        "file_path": args.file,
        "diff_lines": diff_lines,
    }) else {
        unreachable!()
    };

    let started = Instant::now();
    let answer = server
        .call("code_context", &arguments)
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let cold = started.elapsed();
    let bytes = answer.to_string().len();
    let owning = answer["element_relations"]["owning_elements"]
        .as_object()
        .map_or(0, Map::len);
    let n_elements = answer["element_info"].as_object().map_or(0, Map::len);

    let mut direct = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let started = Instant::now();
        let answer = server
            .call("code_context", &arguments)
            .map_err(|e| anyhow::anyhow!(e.message))?;
        direct.push(started.elapsed());
        std::hint::black_box(answer);
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let round_trip = runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let serving = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = serving.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_side).await?;
        let mut times = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            let request =
                CallToolRequestParams::new("code_context").with_arguments(arguments.clone());
            let started = Instant::now();
            let result = client.call_tool(request).await?;
            times.push(started.elapsed());
            anyhow::ensure!(
                result.is_error != Some(true),
                "code_context failed: {result:?}"
            );
        }
        Ok::<_, anyhow::Error>(times)
    })?;

    println!(
        "code_context {} lines {} ({} ranges with owners, {} elements): answer {} bytes",
        args.file, args.lines, owning, n_elements, bytes
    );
    println!("first call (opens the task): {:.1} ms", ms(cold));
    report("warm, Server::call", direct);
    report("warm, MCP round trip (rmcp client, duplex)", round_trip);
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what}: runs {} p50 {:.2} ms p90 {:.2} ms max {:.2} ms",
        times.len(),
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(1.0))
    );
}
