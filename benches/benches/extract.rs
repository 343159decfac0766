//! Raw tree-sitter parsing (`parse_only`) against full fact extraction
//! (`extract`) on the same inputs, with throughput in bytes.
//!
//! Inputs:
//! - the Java files under `corpora/fixtures` (searched recursively); when
//!   there are none, a generated ~500-line Java class stands in;
//! - if `REFSCOPE_BENCH_CORPUS` names a directory, up to 200 of its Java
//!   files, spread evenly over its sorted file list.
//!
//! Groups:
//! - `fixture-file`: each fixture on its own (at most six, spread over the
//!   range of sizes), so per-file costs can be compared;
//! - `fixtures-all`: one iteration handles every fixture (when there are
//!   several);
//! - `corpus`: one iteration handles every selected corpus file.
//!
//! Sampling is kept short (10 samples, 0.5 s warm-up, 2 s measurement per
//! benchmark) so the default run takes well under a minute.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main,
};
use refscope_benches::{DEFAULT_MAX_FILE_BYTES, generated_java_class, java_files};
use refscope_syntax::{extract, parse_only};

/// At most this many fixtures get a benchmark of their own.
const MAX_SINGLE_FILES: usize = 6;
/// At most this many files are taken from `REFSCOPE_BENCH_CORPUS`.
const MAX_CORPUS_FILES: usize = 200;

struct Input {
    name: String,
    bytes: Vec<u8>,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/fixtures")
}

fn load(root: &Path, paths: &[PathBuf]) -> Vec<Input> {
    paths
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            let name = path
                .strip_prefix(root)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned();
            Some(Input { name, bytes })
        })
        .collect()
}

/// `n` items spread evenly over `items` (all of them if there are fewer).
fn spread<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|i| items[i * items.len() / n].clone()).collect()
}

fn fixture_inputs() -> Vec<Input> {
    let dir = fixtures_dir();
    let inputs = load(&dir, &java_files(&dir, DEFAULT_MAX_FILE_BYTES));
    if inputs.is_empty() {
        eprintln!(
            "extract bench: no Java files under {}; using a generated 500-line class",
            dir.display()
        );
        return vec![Input {
            name: "generated-500-lines.java".into(),
            bytes: generated_java_class(1, 500).into_bytes(),
        }];
    }
    inputs
}

fn corpus_inputs() -> Option<(PathBuf, Vec<Input>)> {
    let dir = PathBuf::from(std::env::var_os("REFSCOPE_BENCH_CORPUS")?);
    if !dir.is_dir() {
        eprintln!(
            "extract bench: REFSCOPE_BENCH_CORPUS={} is not a directory; ignored",
            dir.display()
        );
        return None;
    }
    let paths = spread(&java_files(&dir, DEFAULT_MAX_FILE_BYTES), MAX_CORPUS_FILES);
    let inputs = load(&dir, &paths);
    if inputs.is_empty() {
        eprintln!(
            "extract bench: no Java files under {}; corpus skipped",
            dir.display()
        );
        return None;
    }
    Some((dir, inputs))
}

fn total_bytes(inputs: &[Input]) -> u64 {
    inputs.iter().map(|i| i.bytes.len() as u64).sum()
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

/// `parse_only` and `extract` over all of `inputs` per iteration.
fn bench_batch(c: &mut Criterion, group_name: &str, label: &str, inputs: &[Input]) {
    let mut group = c.benchmark_group(group_name);
    configure(&mut group);
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(total_bytes(inputs)));
    group.bench_with_input(
        BenchmarkId::new("parse_only", label),
        inputs,
        |b, inputs| {
            b.iter(|| {
                for input in inputs {
                    black_box(parse_only(black_box(&input.bytes)));
                }
            })
        },
    );
    group.bench_with_input(BenchmarkId::new("extract", label), inputs, |b, inputs| {
        b.iter(|| {
            for input in inputs {
                black_box(extract(black_box(&input.bytes)));
            }
        })
    });
    group.finish();
}

fn bench_extract(c: &mut Criterion) {
    let mut fixtures = fixture_inputs();
    fixtures.sort_by_key(|i| i.bytes.len());

    // Each file on its own: both functions on the same file, side by side.
    let mut group = c.benchmark_group("fixture-file");
    configure(&mut group);
    let singles: Vec<usize> = spread(&(0..fixtures.len()).collect::<Vec<_>>(), MAX_SINGLE_FILES);
    for &i in &singles {
        let input = &fixtures[i];
        group.throughput(Throughput::Bytes(input.bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("parse_only", &input.name),
            &input.bytes,
            |b, bytes| b.iter(|| parse_only(black_box(bytes))),
        );
        group.bench_with_input(
            BenchmarkId::new("extract", &input.name),
            &input.bytes,
            |b, bytes| b.iter(|| extract(black_box(bytes))),
        );
    }
    group.finish();

    if fixtures.len() > 1 {
        let label = format!("{}-files", fixtures.len());
        bench_batch(c, "fixtures-all", &label, &fixtures);
    }

    if let Some((dir, corpus)) = corpus_inputs() {
        eprintln!(
            "extract bench: {} files ({} bytes) from {}",
            corpus.len(),
            total_bytes(&corpus),
            dir.display()
        );
        let label = format!("{}-files", corpus.len());
        bench_batch(c, "corpus", &label, &corpus);
    }
}

criterion_group!(benches, bench_extract);
criterion_main!(benches);
