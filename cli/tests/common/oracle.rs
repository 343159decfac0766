//! The javac oracle's records and its scoring rules (the "Scoring" section of
//! `oracle/README.md`), reimplemented so that corpus tests can hold
//! floors without shelling out to python. The rules follow `score` exactly,
//! so the figures a test prints are the ones `score --json` prints:
//!
//! * references match when kind, file, line, name, owner and params are equal,
//!   as multisets;
//! * truth counts only records that are not `"resolved": false`, and so does
//!   the candidate (for the truth that means `resolved: true`, which the
//!   oracle always writes);
//! * an unmatched candidate at a spot (file, line, name) where the truth has
//!   an unresolved reference is ignored, not wrong;
//! * the in-source scope keeps only records with a non-null `decl_file`, on
//!   each side separately.
//!
//! ```ignore
//! let truth = parse_refs(&std::fs::read_to_string("truth.jsonl")?);
//! let ours = parse_refs(&exported);
//! let score = score_refs(&truth, &ours, &RefScoreConfig::default());
//! eprintln!("P {:?} R {:?}", score.precision(), score.recall());
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;

/// Every reference kind the oracle writes, in `score`'s order.
pub const REF_KINDS: [&str; 5] = ["call", "new", "field", "method_ref", "ctor_call"];

/// A `ref` record, reduced to the fields scoring reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefRecord {
    pub key: RefKey,
    /// The file declaring the target when it is in the sources, else `None`.
    pub decl_file: Option<String>,
    /// `false` only for a record that says `"resolved": false`; a record
    /// without the field counts as resolved, as in `score`.
    pub resolved: bool,
}

/// What an exact match compares.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefKey {
    pub kind: String,
    pub file: String,
    pub line: u64,
    pub name: String,
    pub owner: Option<String>,
    /// `null` and `[]` are the same empty list, as in `score`.
    pub params: Vec<String>,
}

/// Which references take part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefScope {
    /// Only references whose `decl_file` is non-null (targets in the sources).
    InSource,
    /// Every reference.
    All,
}

/// How to score references; the default is `score`'s default.
#[derive(Debug, Clone)]
pub struct RefScoreConfig {
    pub kinds: Vec<String>,
    pub scope: RefScope,
    /// Ignore unmatched candidates where javac itself could not resolve
    /// (`score` without `--no-ignore-unresolved`).
    pub ignore_unresolved: bool,
    /// How many missed and wrong references to keep as examples.
    pub n_examples: usize,
}

/// Counts of one reference comparison, as `score` reports its exact level.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefScore {
    pub n_truth: usize,
    pub n_candidate: usize,
    pub n_matched: usize,
    pub n_ignored: usize,
    /// Truth references without a candidate, sorted, at most `n_examples`.
    pub missed: Vec<RefKey>,
    /// Candidate references that match nothing and are not ignored, sorted,
    /// at most `n_examples`.
    pub wrong: Vec<RefKey>,
}

/// What declaration records are matched by: file, kind, owner, name, params.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeclKey {
    pub file: String,
    pub kind: String,
    pub owner: Option<String>,
    pub name: String,
    pub params: Vec<String>,
}

/// The start, end and name lines of a declaration.
pub type DeclLines = (u64, u64, u64);

/// Counts of one declaration comparison.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeclScore {
    pub n_truth: usize,
    pub n_matched: usize,
    /// Matched declarations whose start, end and name lines are all equal to
    /// one of the truth's for the same key.
    pub n_lines_exact: usize,
    /// Truth declarations without a candidate, sorted, at most `n_examples`.
    pub missed: Vec<DeclKey>,
}

impl Default for RefScoreConfig {
    fn default() -> Self {
        Self {
            kinds: REF_KINDS.iter().map(|k| k.to_string()).collect(),
            scope: RefScope::All,
            ignore_unresolved: true,
            n_examples: 10,
        }
    }
}

impl RefScore {
    /// matched / (candidate − ignored); `None` when nothing was counted.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.n_matched, self.n_candidate - self.n_ignored)
    }

    /// matched / truth; `None` for an empty truth.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.n_matched, self.n_truth)
    }
}

impl DeclScore {
    pub fn recall(&self) -> f64 {
        ratio(self.n_matched, self.n_truth).unwrap_or(0.0)
    }

    /// The share of matched declarations with all three lines right.
    pub fn lines_exact(&self) -> f64 {
        ratio(self.n_lines_exact, self.n_matched).unwrap_or(0.0)
    }
}

impl fmt::Display for RefKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}:{} {} {}({})",
            self.kind,
            self.file,
            self.line,
            self.name,
            self.owner.as_deref().unwrap_or("null"),
            self.params.join(",")
        )
    }
}

impl fmt::Display for DeclKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}({})",
            self.kind,
            self.file,
            self.owner.as_deref().unwrap_or("null"),
            self.name,
            self.params.join(",")
        )
    }
}

/// The `ref` records of a JSON Lines text; other records are skipped.
/// Panics on a line that is not JSON or a ref without kind, file, line or
/// name, naming the line.
pub fn parse_refs(jsonl: &str) -> Vec<RefRecord> {
    let mut refs = Vec::new();
    for (n, value) in records_of_type(jsonl, "ref") {
        let field = |name: &str| {
            value[name]
                .as_str()
                .unwrap_or_else(|| panic!("line {n}: ref without string {name:?}: {value}"))
                .to_string()
        };
        let key = RefKey {
            kind: field("kind"),
            file: field("file"),
            line: value["line"]
                .as_u64()
                .unwrap_or_else(|| panic!("line {n}: ref without numeric line: {value}")),
            name: field("name"),
            owner: value["owner"].as_str().map(str::to_string),
            params: params_of(&value),
        };
        refs.push(RefRecord {
            key,
            decl_file: value["decl_file"].as_str().map(str::to_string),
            resolved: value["resolved"] != serde_json::Value::Bool(false),
        });
    }
    refs
}

/// The `decl` records of a JSON Lines text, grouped by key; other records
/// are skipped.
pub fn parse_decls(jsonl: &str) -> HashMap<DeclKey, Vec<DeclLines>> {
    let mut decls: HashMap<DeclKey, Vec<DeclLines>> = HashMap::new();
    for (n, value) in records_of_type(jsonl, "decl") {
        let text = |name: &str| {
            value[name]
                .as_str()
                .unwrap_or_else(|| panic!("line {n}: decl without string {name:?}: {value}"))
                .to_string()
        };
        let number = |name: &str| {
            value[name]
                .as_u64()
                .unwrap_or_else(|| panic!("line {n}: decl without numeric {name:?}: {value}"))
        };
        let key = DeclKey {
            file: text("file"),
            kind: text("kind"),
            owner: value["owner"].as_str().map(str::to_string),
            name: text("name"),
            params: params_of(&value),
        };
        let lines = (
            number("start_line"),
            number("end_line"),
            number("name_line"),
        );
        decls.entry(key).or_default().push(lines);
    }
    decls
}

/// Scores candidate references against the truth with `score`'s rules.
pub fn score_refs(
    truth: &[RefRecord],
    candidate: &[RefRecord],
    config: &RefScoreConfig,
) -> RefScore {
    // Spots come from every unresolved truth record, whatever the kinds and
    // scope asked for, as in `score`.
    let unresolved_spots: HashSet<(&str, u64, &str)> = truth
        .iter()
        .filter(|r| !r.resolved)
        .map(|r| (r.key.file.as_str(), r.key.line, r.key.name.as_str()))
        .collect();
    let truth_counts = counted_keys(truth, config);
    let candidate_counts = counted_keys(candidate, config);

    let mut score = RefScore {
        n_truth: truth_counts.values().sum(),
        n_candidate: candidate_counts.values().sum(),
        ..RefScore::default()
    };
    let mut wrong: Vec<(&RefKey, usize)> = Vec::new();
    for (key, &n_candidate) in &candidate_counts {
        let n_truth = truth_counts.get(key).copied().unwrap_or(0);
        score.n_matched += n_candidate.min(n_truth);
        let n_unmatched = n_candidate.saturating_sub(n_truth);
        if n_unmatched == 0 {
            continue;
        }
        let spot = (key.file.as_str(), key.line, key.name.as_str());
        if config.ignore_unresolved && unresolved_spots.contains(&spot) {
            score.n_ignored += n_unmatched;
        } else {
            wrong.push((key, n_unmatched));
        }
    }
    let mut missed: Vec<(&RefKey, usize)> = truth_counts
        .iter()
        .filter_map(|(key, &n_truth)| {
            let n_candidate = candidate_counts.get(key).copied().unwrap_or(0);
            (n_truth > n_candidate).then(|| (*key, n_truth - n_candidate))
        })
        .collect();
    score.missed = first_examples(&mut missed, config.n_examples);
    score.wrong = first_examples(&mut wrong, config.n_examples);
    score
}

/// Matches candidate declarations with the truth's by key, as multisets.
pub fn score_decls(
    truth: &HashMap<DeclKey, Vec<DeclLines>>,
    candidate: &HashMap<DeclKey, Vec<DeclLines>>,
    n_examples: usize,
) -> DeclScore {
    let mut score = DeclScore {
        n_truth: truth.values().map(Vec::len).sum(),
        ..DeclScore::default()
    };
    let mut missed = Vec::new();
    for (key, expected) in truth {
        let got = candidate.get(key).map(Vec::as_slice).unwrap_or(&[]);
        let n = expected.len().min(got.len());
        score.n_matched += n;
        score.n_lines_exact += expected.iter().filter(|l| got.contains(l)).count().min(n);
        if n < expected.len() {
            missed.push(key.clone());
        }
    }
    missed.sort();
    missed.truncate(n_examples);
    score.missed = missed;
    score
}

/// The keys of the records that take part, with their multiplicities.
fn counted_keys<'r>(
    records: &'r [RefRecord],
    config: &RefScoreConfig,
) -> HashMap<&'r RefKey, usize> {
    let mut counts: HashMap<&RefKey, usize> = HashMap::new();
    for record in records.iter().filter(|r| counted(r, config)) {
        *counts.entry(&record.key).or_default() += 1;
    }
    counts
}

fn counted(record: &RefRecord, config: &RefScoreConfig) -> bool {
    record.resolved
        && config.kinds.contains(&record.key.kind)
        && (config.scope == RefScope::All || record.decl_file.is_some())
}

fn first_examples(keys: &mut [(&RefKey, usize)], n_examples: usize) -> Vec<RefKey> {
    keys.sort();
    keys.iter()
        .flat_map(|(key, n)| std::iter::repeat_n(*key, *n))
        .take(n_examples)
        .cloned()
        .collect()
}

/// Records with `"t": t`, with their 1-based line numbers.
fn records_of_type<'a>(
    jsonl: &'a str,
    t: &'a str,
) -> impl Iterator<Item = (usize, serde_json::Value)> + 'a {
    jsonl
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("line {}: bad JSON: {e}", i + 1));
            (i + 1, value)
        })
        .filter(move |(_, value)| value["t"] == t)
}

fn params_of(value: &serde_json::Value) -> Vec<String> {
    value["params"]
        .as_array()
        .map(|params| {
            params
                .iter()
                .map(|p| p.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn ratio(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator != 0).then(|| numerator as f64 / denominator as f64)
}
