//! The workspace's layering, checked: the crate graph goes one way along
//! the layers it is meant to have, no module of a crate depends (through
//! `use` and `crate::`/`super::` paths) on a module that depends back on
//! it, no source file outgrows one idea, and every crate that needs no
//! `unsafe` forbids it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use refscope_test_support::paths::workspace_root;

/// The workspace crates each crate may depend on (normal and build
/// dependencies). Dev-dependencies may add `refscope-test-support`.
const LAYERS: &[(&str, &[&str])] = &[
    ("refscope-syntax", &[]),
    ("refscope-symbols", &["refscope-syntax"]),
    ("refscope-resolve", &["refscope-syntax", "refscope-symbols"]),
    (
        "refscope-store",
        &["refscope-syntax", "refscope-symbols", "refscope-resolve"],
    ),
    (
        "refscope-engine",
        &[
            "refscope-syntax",
            "refscope-symbols",
            "refscope-resolve",
            "refscope-store",
        ],
    ),
    ("refscope-query", &["refscope-engine"]),
    ("refscope-tool", &[]),
    // A project's dependency jars, from its build files: nothing of ours.
    ("refscope-deps", &[]),
    ("refscope-aicr", &["refscope-tool"]),
    (
        "refscope-mcp-bridge",
        &[
            "refscope-engine",
            "refscope-query",
            "refscope-tool",
            "refscope-aicr",
        ],
    ),
    // The language server: JSON-RPC and the LSP over the engine's façade.
    ("refscope-lsp", &["refscope-engine"]),
    // SCIP indexes of a revision: the SCIP model and its protobuf runtime
    // over the engine's façade.
    ("refscope-scip-export", &["refscope-engine"]),
    ("refscope-test-support", &[]),
    // The fuzz targets' harnesses: above everything they feed inputs to.
    (
        "refscope-fuzzing",
        &[
            "refscope-syntax",
            "refscope-symbols",
            "refscope-resolve",
            "refscope-engine",
            "refscope-query",
            "refscope-tool",
            "refscope-aicr",
            "refscope-mcp-bridge",
            "refscope-test-support",
        ],
    ),
    (
        "refscope-cli",
        &[
            "refscope-engine",
            "refscope-query",
            "refscope-tool",
            "refscope-deps",
            "refscope-aicr",
            "refscope-mcp-bridge",
            "refscope-lsp",
            "refscope-scip-export",
        ],
    ),
    (
        "refscope-benches",
        &[
            "refscope-syntax",
            "refscope-engine",
            "refscope-query",
            "refscope-tool",
            "refscope-mcp-bridge",
        ],
    ),
];

/// Source files longer than this hold more than one idea.
const MAX_FILE_LINES: usize = 800;

/// A workspace package as `Cargo.toml` describes it.
struct Package {
    name: String,
    dir: PathBuf,
    /// Workspace packages it depends on, with whether only for tests.
    deps: Vec<(String, bool)>,
}

fn packages() -> Vec<Package> {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members: Vec<String> = manifest
        .split("members = [")
        .nth(1)
        .expect("the workspace lists its members")
        .split(']')
        .next()
        .unwrap()
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect();
    members
        .iter()
        .map(|member| {
            let dir = root.join(member);
            let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|l| l.strip_suffix('"'))
                .expect("a package name")
                .to_string();
            let mut deps = Vec::new();
            let mut section = String::new();
            for line in text.lines() {
                let line = line.trim();
                if line.starts_with('[') {
                    section = line.to_string();
                    continue;
                }
                let Some(dep) = line.split(['.', ' ', '=']).next() else {
                    continue;
                };
                if dep.starts_with("refscope-") && section.ends_with("dependencies]") {
                    deps.push((dep.to_string(), section == "[dev-dependencies]"));
                }
            }
            Package { name, dir, deps }
        })
        .collect()
}

#[test]
fn crates_depend_only_on_the_layers_below_them() {
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let packages = packages();
    let mut wrong = Vec::new();
    for package in &packages {
        let Some(layer) = allowed.get(package.name.as_str()) else {
            wrong.push(format!("{} is not in the table of layers", package.name));
            continue;
        };
        for (dep, dev_only) in &package.deps {
            let fits = layer.contains(&dep.as_str())
                || (*dev_only && dep == "refscope-test-support")
                || (*dev_only
                    && allowed.get(dep.as_str()).is_some_and(|below| {
                        // A test may use any crate that does not depend on its own.
                        !reaches(&allowed, below, &package.name)
                    }));
            if !fits {
                wrong.push(format!("{} depends on {dep}", package.name));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies against the layers:\n{}",
        wrong.join("\n")
    );
    // The table itself goes one way.
    for (name, below) in LAYERS {
        assert!(
            !reaches(&allowed, below, name),
            "{name} reaches itself through the table of layers"
        );
    }
}

/// Whether `target` is among `from` or what they may depend on.
fn reaches(allowed: &BTreeMap<&str, &[&str]>, from: &[&str], target: &str) -> bool {
    let mut stack: Vec<&str> = from.to_vec();
    let mut seen = BTreeSet::new();
    while let Some(name) = stack.pop() {
        if name == target {
            return true;
        }
        if seen.insert(name) {
            stack.extend(allowed.get(name).copied().unwrap_or(&[]));
        }
    }
    false
}

/// Every `.rs` file of a package's `src/`.
fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a source file (`["db", "queries"]` for
/// `src/db/queries.rs` and for `src/db/queries/mod.rs`); the crate root is
/// empty. Binaries under `src/bin/` are crates of their own.
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !matches!(stem, "lib" | "main" | "mod") {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// The text of a file without comments, string contents and test modules
/// (`#[cfg(test)] mod ... { ... }`, `#[cfg(all(test, ...))]` too), which
/// are not part of the layering.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            i += text[i..].find("*/").map_or(bytes.len() - i, |e| e + 2);
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if text[i..].starts_with("r#\"") {
            i += text[i + 3..].find("\"#").map_or(bytes.len() - i, |e| e + 5);
            out.push_str("\"\"");
        } else if text[i..].starts_with("#[cfg(test)]") || text[i..].starts_with("#[cfg(all(test,")
        {
            // Skip the attribute and the item after it (to its block's end,
            // or its semicolon).
            i += text[i..].find(']').map_or(bytes.len() - i, |end| end + 1);
            let mut depth = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The paths a module's code names with `use` (not `pub use`, a re-export)
/// or inline from `crate::`, `super::` or `self::`, absolute within the
/// crate.
fn paths_used(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let absolute = |path: &str| -> Option<Vec<String>> {
        let mut parts: Vec<&str> = path.split("::").map(str::trim).collect();
        // A path that does not start with `crate`, `self` or `super` is
        // relative to the module (a child module) or names another crate,
        // which no module prefix matches.
        let mut base: Vec<String> = match parts.first()? {
            &"crate" => Vec::new(),
            _ => module.to_vec(),
        };
        while parts.first() == Some(&"super") {
            parts.remove(0);
            base.pop()?;
        }
        if matches!(parts.first(), Some(&"crate") | Some(&"self")) {
            parts.remove(0);
        }
        base.extend(
            parts
                .iter()
                .filter(|p| !p.is_empty())
                .map(|p| p.to_string()),
        );
        Some(base)
    };
    // The words of the code outside `use` statements: a name a module
    // re-exports is a dependency too when its code uses it.
    let words: BTreeSet<&str> = code
        .split_inclusive(';')
        .filter(|statement| !is_use_statement(statement))
        .flat_map(|statement| statement.split(|c: char| !c.is_alphanumeric() && c != '_'))
        .collect();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement.rsplit_once("use ") else {
            continue;
        };
        let (head, tree) = rest;
        if head.trim_end().ends_with("pub") || head.trim_end().ends_with(')') {
            // `pub use` and `pub(crate) use`: re-exports, and names in scope.
            for leaf in expand_use_tree(tree) {
                let name = leaf.rsplit("::").next().unwrap_or(&leaf);
                if words.contains(name)
                    && let Some(path) = absolute(&leaf)
                {
                    out.push(path);
                }
            }
            continue;
        }
        if !(head.trim().is_empty()
            || head.ends_with('\n')
            || head.ends_with(' ')
            || head.ends_with('}'))
        {
            continue;
        }
        for leaf in expand_use_tree(tree) {
            if let Some(path) = absolute(&leaf) {
                out.push(path);
            }
        }
    }
    let code: String = code
        .split_inclusive(';')
        .filter(|statement| !is_use_statement(statement))
        .collect();
    for prefix in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            if let Some(path) = absolute(path.trim_end_matches(':')) {
                out.push(path);
            }
        }
    }
    out
}

/// Whether a statement (the text after the previous `;`) is a `use`
/// declaration, public or not.
fn is_use_statement(statement: &str) -> bool {
    let statement = statement.trim_start();
    let statement = statement
        .strip_prefix("pub(crate) ")
        .or_else(|| statement.strip_prefix("pub(super) "))
        .or_else(|| statement.strip_prefix("pub "))
        .unwrap_or(statement);
    statement.starts_with("use ")
}

/// The leaves of a `use` tree: `a::{b, c::{d, e}}` → `a::b`, `a::c::d`,
/// `a::c::e`; `self` in braces names the prefix.
fn expand_use_tree(tree: &str) -> Vec<String> {
    // One space between words, none around punctuation, so `a as b`
    // keeps its spaces and `c :: { d }` loses them.
    let mut compact = String::new();
    for word in tree.split_whitespace() {
        let joins = compact.ends_with([':', '{', ',']) || word.starts_with([':', '{', '}', ',']);
        if !compact.is_empty() && !joins {
            compact.push(' ');
        }
        compact.push_str(word);
    }
    fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
        match tree.find('{') {
            None => {
                let leaf = tree.split(" as ").next().unwrap_or(tree).trim();
                let full = match leaf {
                    "self" => prefix.trim_end_matches("::").to_string(),
                    _ => format!("{prefix}{leaf}"),
                };
                out.push(full);
            }
            Some(open) => {
                let head = &tree[..open];
                let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            if !inner[start..i].trim().is_empty() {
                                expand(&format!("{prefix}{head}"), inner[start..i].trim(), out);
                            }
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                if !inner[start..].trim().is_empty() {
                    expand(&format!("{prefix}{head}"), inner[start..].trim(), out);
                }
            }
        }
    }
    let mut out = Vec::new();
    expand("", &compact, &mut out);
    out
}

/// Names a module re-exports (`pub use a::b::Name;`), with the path each
/// stands for.
fn reexports(module: &[String], code: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for statement in code.split(';') {
        let Some((head, tree)) = statement.rsplit_once("use ") else {
            continue;
        };
        if !(head.trim_end().ends_with("pub") || head.trim_end().ends_with(')')) {
            continue;
        }
        for leaf in expand_use_tree(tree) {
            let mut parts: Vec<String> = leaf.split("::").map(str::to_string).collect();
            let name = parts.last().cloned().unwrap_or_default();
            let mut base = module.to_vec();
            match parts.first().map(String::as_str) {
                Some("crate") => {
                    base.clear();
                    parts.remove(0);
                }
                Some("self") => {
                    parts.remove(0);
                }
                Some("super") => {
                    while parts.first().map(String::as_str) == Some("super") {
                        parts.remove(0);
                        base.pop();
                    }
                }
                _ => {}
            }
            base.extend(parts);
            out.insert(name, base);
        }
    }
    out
}

#[test]
fn no_module_depends_on_a_module_that_depends_back_on_it() {
    let mut cycles = Vec::new();
    for package in packages() {
        let src = package.dir.join("src");
        let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
        for file in source_files(&src) {
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            if let Some(module) = module_of(&src, &file) {
                modules.insert(module, code_of(&std::fs::read_to_string(&file).unwrap()));
            }
        }
        let reexported: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = modules
            .iter()
            .map(|(m, code)| (m.clone(), reexports(m, code)))
            .collect();
        // The module a path leads to: its longest prefix that is a module,
        // following re-exports to where the item is defined.
        let target = |path: &[String]| -> Option<Vec<String>> {
            let mut path = path.to_vec();
            for _ in 0..8 {
                let n = (0..=path.len())
                    .rev()
                    .find(|&n| modules.contains_key(&path[..n]))?;
                let module = path[..n].to_vec();
                let Some(name) = path.get(n) else {
                    return Some(module);
                };
                match reexported.get(&module).and_then(|r| r.get(name)) {
                    Some(original) if original != &path[..=n] => {
                        let mut next = original.clone();
                        next.extend_from_slice(&path[n + 1..]);
                        path = next;
                    }
                    _ => return Some(module),
                }
            }
            None
        };
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (module, code) in &modules {
            for path in paths_used(module, code) {
                if let Some(to) = target(&path)
                    && &to != module
                {
                    edges.entry(module.clone()).or_default().insert(to);
                }
            }
        }
        for cycle in find_cycles(&edges) {
            let names: Vec<String> = cycle
                .iter()
                .map(|m| format!("{}::{}", package.name, m.join("::")))
                .collect();
            cycles.push(names.join(" -> "));
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

/// The strongly connected components of more than one module, each as
/// its modules sorted, then one cycle through its first module (Tarjan's
/// algorithm for the components, a breadth-first search for the cycle).
fn find_cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Tarjan<'e> {
        edges: &'e BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'e Vec<String>, usize>,
        low: BTreeMap<&'e Vec<String>, usize>,
        stack: Vec<&'e Vec<String>>,
        on_stack: BTreeSet<&'e Vec<String>>,
        components: Vec<Vec<Vec<String>>>,
    }
    impl<'e> Tarjan<'e> {
        fn visit(&mut self, v: &'e Vec<String>) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[w].min(self.low[v]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.index[w].min(self.low[v]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().expect("v is on the stack");
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.components.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    let mut cycles = Vec::new();
    for component in tarjan.components {
        let start = &component[0];
        let inside: BTreeSet<&Vec<String>> = component.iter().collect();
        let mut parent: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut last = None;
        'search: while let Some(at) = queue.pop_front() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    last = Some(at);
                    break 'search;
                }
                if inside.contains(next) && !parent.contains_key(next) {
                    parent.insert(next.clone(), at.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        let mut cycle = vec![start.clone()];
        let mut at = last.expect("a component of several modules has a cycle");
        let mut back = Vec::new();
        while &at != start {
            back.push(at.clone());
            at = parent[&at].clone();
        }
        back.reverse();
        cycle.extend(back);
        cycle.push(start.clone());
        cycles.push(cycle);
    }
    cycles
}

#[test]
fn no_source_file_outgrows_one_idea() {
    let root = workspace_root();
    let mut long = Vec::new();
    for package in packages() {
        for file in source_files(&package.dir) {
            if file.components().any(|c| c.as_os_str() == "target") {
                continue;
            }
            let n_lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if n_lines > MAX_FILE_LINES {
                long.push(format!(
                    "{}: {n_lines} lines",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn crates_without_unsafe_code_forbid_it() {
    let mut missing = Vec::new();
    for package in packages() {
        let src = package.dir.join("src");
        let uses_unsafe = source_files(&src).iter().any(|file| {
            code_of(&std::fs::read_to_string(file).unwrap())
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|word| word == "unsafe")
        });
        if uses_unsafe {
            continue;
        }
        let roots = ["lib.rs", "main.rs"].map(|r| src.join(r));
        for root in roots.iter().filter(|r| r.is_file()) {
            let text = std::fs::read_to_string(root).unwrap();
            if !text.contains("#![forbid(unsafe_code)]") {
                missing.push(format!("{} ({})", package.name, root.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "crates with no unsafe code that do not forbid it:\n{}",
        missing.join("\n")
    );
}

/// The checker itself, on a made-up crate: a cycle through `use` and one
/// through an inline path are both found, re-exports are followed, and
/// test modules do not count.
#[test]
fn the_module_checker_sees_cycles_through_uses_and_paths() {
    let m = |s: &str| -> Vec<String> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split("::").map(str::to_string).collect()
        }
    };
    let code = code_of(
        "use crate::b::{B, c::{self, C as Cee}, class};\n// use crate::x::Y;\nfn f() { super::d::g(); \"crate::e::h\"; }\n#[cfg(test)]\nmod tests { use crate::z::Z; }\n",
    );
    let used = paths_used(&m("a::inner"), &code);
    assert_eq!(
        used,
        vec![
            m("b::B"),
            m("b::c"),
            m("b::c::C"),
            m("b::class"),
            m("a::d::g")
        ],
        "{code}"
    );
    let exports = reexports(
        &m(""),
        &code_of("pub use open::Store;\npub(crate) use crate::x::{Y, z::Z};\n"),
    );
    assert_eq!(exports.get("Store"), Some(&m("open::Store")));
    assert_eq!(exports.get("Z"), Some(&m("x::z::Z")));
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("c")]));
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    edges.insert(m("d"), BTreeSet::from([m("a")]));
    let cycles = find_cycles(&edges);
    assert_eq!(cycles, vec![vec![m("a"), m("b"), m("c"), m("a")]]);
}
