//! Query latency inside one process: the store opened once, then queries
//! answered warm (`warm/...`), and the whole of one answer with the store
//! opened each time (`open-and-answer/...`), which is what a cold process
//! adds to its start-up. `benches/query-latency` measures the cold process
//! itself (start to answer, p50/p90).
//!
//! Inputs: `REFSCOPE_BENCH_STORE` (a store directory) with
//! `REFSCOPE_BENCH_REPO` (its repository or directory) and
//! `REFSCOPE_BENCH_QUERIES` (queries separated by `;;`); without them the
//! `shop` fixture is indexed into a temporary store and queried.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use refscope_engine::{IndexConfig, Indexer, Snapshot, Source, SourceLimits, Store};
use refscope_query::lang::{Evaluator, parse, run};

/// The JDK store's queries: callers of the element owning a line, and
/// callees two steps deep.
const JDK_QUERIES: &str =
    "java.base/java/util/HashMap.java:623 | callers;;java.util.HashMap#putVal | callees depth 2";

const SHOP_QUERIES: &str = "src/main/java/com/acme/shop/Money.java:52 | callers;;com.acme.shop.Order#total | callees depth 2";

struct Target {
    store: PathBuf,
    repo: PathBuf,
    queries: Vec<String>,
    _temp: Option<tempfile::TempDir>,
}

fn target() -> Target {
    if let Some(store) = std::env::var_os("REFSCOPE_BENCH_STORE") {
        let repo = std::env::var_os("REFSCOPE_BENCH_REPO")
            .expect("REFSCOPE_BENCH_REPO must name the store's repository or directory");
        let queries = std::env::var("REFSCOPE_BENCH_QUERIES").unwrap_or(JDK_QUERIES.into());
        return Target {
            store: store.into(),
            repo: repo.into(),
            queries: queries.split(";;").map(str::to_string).collect(),
            _temp: None,
        };
    }
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/fixtures/shop");
    let temp = tempfile::tempdir().unwrap();
    let source = Source::open_directory(&shop).unwrap();
    let store = Store::open(temp.path()).unwrap();
    let revision = source
        .resolve_revision(None, &SourceLimits::default())
        .unwrap();
    Indexer::new(&store, IndexConfig::default())
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    Target {
        store: temp.path().to_path_buf(),
        repo: shop,
        queries: SHOP_QUERIES.split(";;").map(str::to_string).collect(),
        _temp: Some(temp),
    }
}

/// Opens the store and source as `refscope query` does for a directory.
fn open(target: &Target) -> (Store, Source) {
    let store = Store::open_existing(&target.store).unwrap();
    let source = Source::open_directory(&target.repo)
        .or_else(|_| Source::open(&target.repo))
        .unwrap();
    (store, source)
}

fn query_latency(c: &mut Criterion) {
    let target = target();
    let (store, source) = open(&target);
    let snapshot = Snapshot::new(
        &store,
        Snapshot::pick_revision(&store, Some(&source), None).unwrap(),
    )
    .unwrap();
    let evaluator = Evaluator::new(&store, Some(&source), snapshot);
    let mut group = c.benchmark_group("query");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for query in &target.queries {
        // Fail loudly on a query the store cannot answer.
        let answer = run(&evaluator, query).unwrap_or_else(|e| panic!("{}", e.render(query)));
        eprintln!("{query}: {} elements", answer.rows.len());
        group.bench_function(format!("warm/{query}"), |b| {
            b.iter(|| black_box(run(&evaluator, black_box(query)).unwrap()))
        });
        group.bench_function(format!("open-and-answer/{query}"), |b| {
            b.iter(|| {
                let (store, source) = open(&target);
                let snapshot = Snapshot::new(
                    &store,
                    Snapshot::pick_revision(&store, Some(&source), None).unwrap(),
                )
                .unwrap();
                let evaluator = Evaluator::new(&store, Some(&source), snapshot);
                black_box(
                    evaluator
                        .evaluate(&parse(query).unwrap())
                        .unwrap()
                        .rows
                        .len(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, query_latency);
criterion_main!(benches);
