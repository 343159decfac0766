//! Resolver fixtures as data: a case is Java source with its expectations
//! in comments, and one harness checks every case.
//!
//! A case is one or more files in one string, each starting with a
//! `//- path/to/File.java` line (a single file needs no marker). Under a
//! line of code, a comment line of carets marks a reference site by column
//! and says what it resolves to:
//!
//! ```text
//! class B { void use(A a) { a.m(1); } }
//! //                          ^ call p.A#m(int)
//! ```
//!
//! The caret stands under the first character of the name the site names
//! (the method, the field, the type of a `new`, `this`/`super` of a
//! constructor call). The kind is `call`, `new`, `method_ref`, `ctor_call`
//! or `field` (the javac oracle's names), the target an element id, or
//! `unresolved`. Under a method's name, `overrides` names a method it
//! directly overrides or implements. Sites without a caret are not checked.
//!
//! The same cases are compiled by javac in the opt-in suite (`javac.rs`),
//! which checks each expectation against what javac resolves.

use std::sync::Arc;

use refscope_resolve::{SymbolTable, TrackedResolution, file_signatures, resolve_file_tracked};
use refscope_symbols::lookups::LookupLog;
use refscope_symbols::names::type_skeleton;
use refscope_symbols::{ClassPath, JdkTypes, Qualifier, TypeUniverse};
use refscope_syntax::FileFacts;

/// One case: a name to report it by, and its files.
pub struct Case {
    /// What the case is about.
    pub name: &'static str,
    /// The files, `//- path` marked.
    pub source: &'static str,
}

/// One expectation of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// The file it is in.
    pub path: String,
    /// 1-based line and UTF-16 column of the marked name.
    pub line: u32,
    pub col: u32,
    /// `call`, `new`, `method_ref`, `ctor_call`, `field` or `overrides`.
    pub kind: String,
    /// The element id expected, or `unresolved`.
    pub target: String,
}

/// The files of a case, as (path, text).
pub fn files(case: &Case) -> Vec<(String, String)> {
    let source = case.source.strip_prefix('\n').unwrap_or(case.source);
    if !source.starts_with("//- ") {
        return vec![("Main.java".to_string(), source.to_string())];
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for line in source.split_inclusive('\n') {
        match line.strip_prefix("//- ") {
            Some(path) => out.push((path.trim().to_string(), String::new())),
            None => out
                .last_mut()
                .expect("text after a marker")
                .1
                .push_str(line),
        }
    }
    out
}

/// The expectations of a case's files.
pub fn expectations(files: &[(String, String)]) -> Vec<Expectation> {
    let mut out = Vec::new();
    for (path, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        let mut code_line = None;
        for (index, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let Some(rest) = trimmed.strip_prefix("//") else {
                code_line = Some(index);
                continue;
            };
            if !rest.trim_start().starts_with('^') {
                code_line = Some(index);
                continue;
            }
            let caret = line.find('^').expect("a caret");
            let mut words = line[caret..].trim_start_matches('^').split_whitespace();
            let (Some(kind), Some(target)) = (words.next(), words.next()) else {
                panic!(
                    "{path}:{}: a caret needs a kind and a target: {line}",
                    index + 1
                );
            };
            let code =
                code_line.unwrap_or_else(|| panic!("{path}:{}: a caret under nothing", index + 1));
            out.push(Expectation {
                path: path.clone(),
                line: code as u32 + 1,
                col: lines[code][..caret].encode_utf16().count() as u32 + 1,
                kind: kind.to_string(),
                target: target.to_string(),
            });
        }
    }
    out
}

/// Resolves the files of a case as the indexer does from scratch: one
/// symbol table of every file, the stub JDK as the library.
pub fn resolve(files: &[(String, String)]) -> Vec<(FileFacts, TrackedResolution)> {
    let jdk = JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap();
    let class_path = Arc::new(ClassPath::new(&jdk, &[]).unwrap());
    let facts: Vec<FileFacts> = files
        .iter()
        .map(|(_, text)| refscope_syntax::extract(text.as_bytes()))
        .collect();
    let jdk = Arc::new(jdk);
    let mut universe = TypeUniverse::with_libraries(&jdk, []);
    let skeletons: Vec<FileFacts> = facts.iter().map(type_skeleton).collect();
    universe.add_sources(skeletons.iter());
    let mut classes = Vec::new();
    let mut table_files = Vec::new();
    for (index, ((path, _), facts)) in files.iter().zip(&facts).enumerate() {
        let qualifier = Qualifier::new(&universe, facts);
        classes.extend(file_signatures(&qualifier, facts, index as u32));
        table_files.push((path.clone(), facts.package.clone()));
    }
    let table = SymbolTable::new(classes, Some(class_path), table_files);
    let resolutions: Vec<TrackedResolution> = facts
        .iter()
        .enumerate()
        .map(|(index, facts)| {
            resolve_file_tracked(
                &table,
                &universe,
                facts,
                index as u32,
                &LookupLog::default(),
            )
        })
        .collect();
    facts.into_iter().zip(resolutions).collect()
}

/// What refscope says at an expectation's position: the targets of the
/// sites (or override links) there, as `kind target`.
fn found_at(
    files: &[(String, String)],
    resolved: &[(FileFacts, TrackedResolution)],
    expected: &Expectation,
) -> Vec<String> {
    let file = files
        .iter()
        .position(|(path, _)| *path == expected.path)
        .expect("the expectation's file");
    let (facts, tracked) = &resolved[file];
    if expected.kind == "overrides" {
        return tracked
            .resolution
            .overrides
            .iter()
            .filter(|o| {
                let element = &facts.elements[o.element as usize];
                element.name_pos.line == expected.line && element.name_pos.col == expected.col
            })
            .flat_map(|o| o.targets.iter().map(|t| format!("overrides {t}")))
            .collect();
    }
    tracked
        .resolution
        .refs
        .iter()
        .filter(|r| {
            let pos = facts.ref_sites[r.site as usize].pos;
            pos.line == expected.line && pos.col == expected.col
        })
        .map(|r| {
            let target = r.target_id().unwrap_or_else(|| "unresolved".to_string());
            format!("{} {target}", r.kind.as_str())
        })
        .collect()
}

/// Checks every case, and fails listing every expectation refscope does
/// not meet.
pub fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    let mut n_checked = 0;
    for case in cases {
        let files = files(case);
        let expectations = expectations(&files);
        assert!(
            !expectations.is_empty(),
            "case {} expects nothing",
            case.name
        );
        let resolved = resolve(&files);
        for expected in &expectations {
            n_checked += 1;
            let want = format!("{} {}", expected.kind, expected.target);
            let found = found_at(&files, &resolved, expected);
            if !found.contains(&want) {
                failures.push(format!(
                    "{} — {}:{}:{}\n    expected {want}\n    found    {found:?}",
                    case.name, expected.path, expected.line, expected.col
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n_checked} expectations not met:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
