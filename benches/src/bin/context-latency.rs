//! `code_context` latency, warm in the server, on a real store.
//!
//! ```sh
//! cp -r ~/.cache/refscope/jdk17-store /tmp/jdk17-store-copy   # tasks are written into the store
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
//! answer's size in bytes (compact JSON, as the tool returns it). Warm
//! calls repeat one question, whose callers the server has memoized (an
//! indexed revision never changes); `--fresh N` also times N questions
//! about other files of the directory, each asked once.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use refscope_engine::Store;
use refscope_mcp_bridge::context::settings::ContextSettings;
use refscope_mcp_bridge::context::tool::ContextTools;
use refscope_mcp_bridge::server::Server;
use refscope_mcp_bridge::task::{NewTask, TaskStore};
use refscope_tool::ToolSet;
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
    /// Also ask, in the warm server, about this many other files of the
    /// same directory (a 5-line range in the middle of each), each once:
    /// what a question costs that no call asked before.
    #[arg(long, default_value_t = 20)]
    fresh: usize,
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
            svn: None,
        };
        tasks.register(new, &store, &mut |_| {})?;
    }
    let context = ContextTools::open(&args.store, ContextSettings::default())?;
    let server = Server::new([Box::new(context) as Box<dyn ToolSet>])?;
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

    let fresh = fresh_calls(&server, &args)?;

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
    if !fresh.is_empty() {
        report(
            "warm server, a file no call asked about before, Server::call",
            fresh,
        );
    }
    Ok(())
}

/// One `code_context` call per other `.java` file of the diff's directory
/// (sorted by name, up to `--fresh`), each on lines in the middle of the
/// file: nothing of those answers is cached yet.
fn fresh_calls(server: &Server, args: &Args) -> Result<Vec<Duration>> {
    let dir = std::path::Path::new(&args.file)
        .parent()
        .context("--file has no directory")?;
    let mut names: Vec<String> = std::fs::read_dir(args.repo.join(dir))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".java"))
        .collect();
    names.sort();
    let mut times = Vec::new();
    for name in names {
        if times.len() == args.fresh {
            break;
        }
        let path = dir.join(&name);
        if path == std::path::Path::new(&args.file) {
            continue;
        }
        let text = std::fs::read_to_string(args.repo.join(&path))?;
        let middle = (text.lines().count() / 2).max(1) as i64;
        let Value::Object(arguments) = json!({
            "task_id": "bench",
            "file_path": path.to_string_lossy(),
            "diff_lines": [middle, middle + 4],
        }) else {
            unreachable!()
        };
        let started = Instant::now();
        let answer = server
            .call("code_context", &arguments)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message))?;
        times.push(started.elapsed());
        std::hint::black_box(answer);
    }
    Ok(times)
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
