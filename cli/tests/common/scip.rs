//! Checks of `refscope export --scip` shared by the suites: an index read
//! back with the official SCIP bindings, every symbol in it parsed with
//! their symbol parser, and every reference of `export --refs` looked up in
//! it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use refscope_scip_export::decode_index;
use refscope_scip_export::scip::symbol::{format_symbol, parse_symbol};
use refscope_scip_export::scip::types::symbol_information::Kind;
use refscope_scip_export::scip::types::{Index, SymbolRole};
use serde_json::Value;

use super::run;

/// A revision exported both ways.
pub struct ScipExport {
    /// `export --scip`, decoded.
    pub index: Index,
    /// `export --decls --refs`, one JSON record per line.
    pub records: Vec<Value>,
}

/// Exports the revision of `store` read with `--repo repo` as JSON Lines
/// and as SCIP (with `scip_args` too), in `work`.
pub fn export_both(work: &Path, store: &str, repo: &str, scip_args: &[&str]) -> ScipExport {
    let jsonl = run(
        work,
        &[
            "export", "--decls", "--refs", "--store", store, "--repo", repo,
        ],
    )
    .ok();
    let out = work.join("index.scip");
    let mut args = vec![
        "export",
        "--scip",
        "--out",
        out.to_str().unwrap(),
        "--store",
        store,
        "--repo",
        repo,
    ];
    args.extend_from_slice(scip_args);
    let exported = run(work, &args);
    exported.ok();
    assert!(
        exported.stderr().contains(" documents, "),
        "{}",
        exported.stderr()
    );
    let mut partial = out.as_os_str().to_os_string();
    partial.push(".partial");
    assert!(
        !Path::new(&partial).exists(),
        "the partial file is renamed into place"
    );
    ScipExport {
        index: decode_index(&std::fs::read(&out).unwrap()).unwrap(),
        records: jsonl
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    }
}

/// Every symbol the index names, anywhere.
pub fn every_symbol(index: &Index) -> Vec<&str> {
    let mut out = Vec::new();
    for document in &index.documents {
        out.extend(document.occurrences.iter().map(|o| o.symbol.as_str()));
        for info in &document.symbols {
            out.push(info.symbol.as_str());
            out.extend(info.relationships.iter().map(|r| r.symbol.as_str()));
            if !info.enclosing_symbol.is_empty() {
                out.push(info.enclosing_symbol.as_str());
            }
        }
    }
    for info in &index.external_symbols {
        out.push(info.symbol.as_str());
        out.extend(info.relationships.iter().map(|r| r.symbol.as_str()));
    }
    out
}

/// Asserts that every symbol of the index parses with the SCIP crate's
/// parser, and that the grammar's own spelling of what was parsed is the
/// symbol: nothing in it was read other than it was meant. Returns how
/// many symbols there are.
pub fn check_symbols_parse(name: &str, index: &Index) -> usize {
    let symbols = every_symbol(index);
    for symbol in &symbols {
        let parsed = parse_symbol(symbol)
            .unwrap_or_else(|e| panic!("{name}: {symbol:?} does not parse: {e:?}"));
        assert_eq!(&format_symbol(parsed), symbol, "{name}");
    }
    symbols.len()
}

pub fn is_definition(roles: i32) -> bool {
    roles & SymbolRole::Definition as i32 != 0
}

/// The SCIP kinds a declaration kind of `export --decls` may have.
fn kinds_of(decl_kind: &str) -> &'static [Kind] {
    match decl_kind {
        "class" | "record" => &[Kind::Class],
        "interface" | "annotation" => &[Kind::Interface],
        "enum" => &[Kind::Enum],
        "method" => &[Kind::Method, Kind::StaticMethod, Kind::AbstractMethod],
        "constructor" => &[Kind::Constructor],
        "field" => &[Kind::Field, Kind::StaticField],
        "enum_constant" => &[Kind::EnumMember],
        other => panic!("unknown declaration kind {other}"),
    }
}

/// The element id an export record names: a declaration's or a
/// reference's target.
fn element_id(record: &Value) -> String {
    let owner = record["owner"].as_str().unwrap_or("");
    let name = record["name"].as_str().unwrap();
    match record["kind"].as_str().unwrap() {
        "class" | "record" | "interface" | "annotation" | "enum" => {
            record["binary_name"].as_str().unwrap().to_string()
        }
        "field" | "enum_constant" => format!("{owner}#{name}"),
        _ => {
            let params: Vec<&str> = record["params"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            format!("{owner}#{name}({})", params.join(","))
        }
    }
}

/// Where an occurrence starts: document, line and column.
type Spot = (usize, i32, i32);

/// What [`check_references`] checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReferenceCounts {
    /// Exact references, each an occurrence of its target's symbol.
    pub exact: usize,
    /// Of those, references to members the compiler declares.
    pub implicit: usize,
    /// External references, each an occurrence of an external symbol.
    pub external: usize,
    /// Ambiguous and unresolved references, none in the index.
    pub left_out: usize,
}

/// Checks every reference of `export --refs` against the index: an exact
/// one is a reference occurrence at its position whose symbol is the one
/// defined at the declaration it targets (for a member the compiler
/// declares, a symbol defined on the line the reference names); an
/// external one is an occurrence of an external symbol (the JDK's package
/// for `java.` classes); the others are not there. Every symbol an
/// occurrence names is defined in a document or external.
pub fn check_references(name: &str, export: &ScipExport) -> ReferenceCounts {
    let ScipExport { index, records } = export;
    let documents: HashMap<&str, usize> = index
        .documents
        .iter()
        .enumerate()
        .map(|(i, d)| (d.relative_path.as_str(), i))
        .collect();
    // (document, line, column) → (symbol, roles) of the occurrences there.
    let mut at: HashMap<Spot, Vec<(&str, i32)>> = HashMap::new();
    // symbol → (document, line) of its definitions.
    let mut definitions: HashMap<&str, Vec<(usize, i32)>> = HashMap::new();
    let mut kinds: HashMap<(usize, &str), Kind> = HashMap::new();
    for (d, document) in index.documents.iter().enumerate() {
        for o in &document.occurrences {
            at.entry((d, o.range[0], o.range[1]))
                .or_default()
                .push((o.symbol.as_str(), o.symbol_roles));
            if is_definition(o.symbol_roles) {
                definitions
                    .entry(o.symbol.as_str())
                    .or_default()
                    .push((d, o.range[0]));
            }
        }
        for info in &document.symbols {
            kinds.insert((d, info.symbol.as_str()), info.kind.enum_value().unwrap());
        }
    }
    let externals: HashSet<&str> = index
        .external_symbols
        .iter()
        .map(|s| s.symbol.as_str())
        .collect();
    let position = |record: &Value, line: &str, col: &str| {
        let file = record["file"].as_str().unwrap();
        (
            *documents
                .get(file)
                .unwrap_or_else(|| panic!("{name}: no document {file}")),
            record[line].as_u64().unwrap() as i32 - 1,
            record[col].as_u64().unwrap() as i32 - 1,
        )
    };

    // The symbol of each declaration: its definition at its name, of the
    // kind it has.
    let mut declared: HashMap<String, &str> = HashMap::new();
    for decl in records.iter().filter(|r| r["t"] == "decl") {
        let (d, line, col) = position(decl, "name_line", "name_col");
        let allowed = kinds_of(decl["kind"].as_str().unwrap());
        let symbols: Vec<&str> = at
            .get(&(d, line, col))
            .into_iter()
            .flatten()
            .filter(|(symbol, roles)| {
                is_definition(*roles)
                    && kinds
                        .get(&(d, *symbol))
                        .is_some_and(|kind| allowed.contains(kind))
            })
            .map(|(symbol, _)| *symbol)
            .collect();
        let [symbol] = symbols.as_slice() else {
            panic!("{name}: not one definition for {decl}: {symbols:?}");
        };
        declared.entry(element_id(decl)).or_insert(symbol);
    }

    let mut counts = ReferenceCounts::default();
    let mut problems = Vec::new();
    for reference in records.iter().filter(|r| r["t"] == "ref") {
        let (d, line, col) = position(reference, "line", "col");
        let here: Vec<&str> = at
            .get(&(d, line, col))
            .into_iter()
            .flatten()
            .filter(|(_, roles)| !is_definition(*roles))
            .map(|(symbol, _)| *symbol)
            .collect();
        match reference["confidence"].as_str().unwrap() {
            "exact" => {
                counts.exact += 1;
                let expected = match declared.get(&element_id(reference)) {
                    Some(symbol) => Some(*symbol),
                    None => {
                        // A member the compiler declares: defined on the
                        // line the reference says it is declared on.
                        counts.implicit += 1;
                        assert_eq!(reference["implicit"], true, "{name}: {reference}");
                        let decl_doc = documents[reference["decl_file"].as_str().unwrap()];
                        let decl_line = reference["decl_line"].as_u64().unwrap() as i32 - 1;
                        here.iter().copied().find(|symbol| {
                            definitions
                                .get(symbol)
                                .is_some_and(|defs| defs.contains(&(decl_doc, decl_line)))
                        })
                    }
                };
                if !expected.is_some_and(|symbol| here.contains(&symbol)) {
                    problems.push(format!(
                        "exact {reference}: expected {expected:?}, found {here:?}"
                    ));
                }
            }
            "external" => {
                counts.external += 1;
                let owner = reference["owner"].as_str().unwrap();
                let external = here.iter().find(|symbol| externals.contains(*symbol));
                match external {
                    Some(symbol)
                        if !owner.starts_with("java.")
                            || symbol.starts_with("semanticdb maven jdk ") => {}
                    _ => problems.push(format!("external {reference}: found {here:?}")),
                }
            }
            _ => {
                counts.left_out += 1;
                if !here.is_empty() {
                    problems.push(format!("{reference}: left out, yet found {here:?}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{name}: {} references are not in the index as they should be:\n{}",
        problems.len(),
        problems.join("\n")
    );
    for document in &index.documents {
        for o in &document.occurrences {
            assert!(
                definitions.contains_key(o.symbol.as_str())
                    || externals.contains(o.symbol.as_str()),
                "{name}: {} in {} is neither defined nor external",
                o.symbol,
                document.relative_path
            );
        }
    }
    eprintln!(
        "{name}: {} exact references ({} to members the compiler declares), {} external, {} left out: all as they should be",
        counts.exact, counts.implicit, counts.external, counts.left_out
    );
    counts
}
