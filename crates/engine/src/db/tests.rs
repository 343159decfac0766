//! What the database re-runs after an edit, counted with salsa's
//! `WillExecute` events, and whether what it answers is what resolving
//! from scratch answers. Fixtures are several files in one string, each
//! starting with a `//- path` line; snapshots are re-blessed with
//! `UPDATE_EXPECT=1 cargo test`.

use std::sync::{Arc, Mutex};

use expect_test::{Expect, expect};
use salsa::plumbing::AsId;
use salsa::{Database as _, EventKind};

use super::queries::ClassName;
use super::{Engine, FileContent, Libraries};
use refscope_resolve::{self as resolve, SymbolTable, TrackedResolution};
use refscope_symbols::classfile::ClassPath;
use refscope_symbols::jdk::JdkTypes;
use refscope_symbols::names::{Qualifier, TypeUniverse, type_skeleton};

/// The files of a fixture, as (path, text).
fn fixture(text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("//- ") {
            files.push((path.trim().to_string(), String::new()));
        } else if let Some((_, body)) = files.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    files
}

/// An engine over `files` that logs which query ran for which key.
struct Logged {
    engine: Engine,
    executed: Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>>,
    class_names: Vec<String>,
}

impl Logged {
    fn new(files: &[(String, String)], libraries: Libraries) -> Self {
        let executed: Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>> = Arc::default();
        let log = executed.clone();
        let mut engine = Engine::with_event_callback(
            move |event| {
                if let EventKind::WillExecute { database_key } = event.kind {
                    log.lock().unwrap().push(database_key);
                }
            },
            libraries,
        );
        engine.set_files(
            files
                .iter()
                .map(|(path, text)| (path.as_str(), FileContent::bytes(text.as_bytes()))),
        );
        Self {
            engine,
            executed,
            class_names: Vec::new(),
        }
    }

    /// Every file's resolution, by path.
    fn resolve(&mut self) -> Vec<(String, Arc<TrackedResolution>)> {
        let files = self.engine.files();
        let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
        let resolved = self.engine.resolve_all(&pool, &files);
        files
            .iter()
            .zip(resolved)
            .map(|(&file, r)| (self.engine.path(file).to_string(), r.expect("facts")))
            .collect()
    }

    fn edit(&mut self, path: &str, from: &str, to: &str) {
        let file = self.engine.file(path).expect("a file of the fixture");
        let FileContent::Bytes { bytes, .. } = super::SourceFile::content(file, self.engine.db())
        else {
            panic!("fixtures are bytes")
        };
        let text = std::str::from_utf8(bytes).unwrap();
        assert!(text.contains(from), "{path} has no {from:?}");
        let edited = text.replacen(from, to, 1);
        let files: Vec<(String, String)> = self
            .engine
            .files()
            .iter()
            .map(|&f| {
                let p = self.engine.path(f).to_string();
                let FileContent::Bytes { bytes, .. } = f.content(self.engine.db()) else {
                    unreachable!()
                };
                let text = if p == path {
                    edited.clone()
                } else {
                    String::from_utf8(bytes.to_vec()).unwrap()
                };
                (p, text)
            })
            .collect();
        self.engine.set_files(
            files
                .iter()
                .map(|(path, text)| (path.as_str(), FileContent::bytes(text.as_bytes()))),
        );
    }

    /// The queries run since the last call, one line each, sorted:
    /// `resolve(p/B.java)`, `class_copies(p.A)`, `universe`.
    fn take_executed(&self) -> String {
        let db = self.engine.db();
        let executed = std::mem::take(&mut *self.executed.lock().unwrap());
        let files = self.engine.files();
        let mut lines: Vec<String> = executed
            .iter()
            .map(|key| {
                let name = db.ingredient_debug_name(key.ingredient_index());
                let id = key.key_index();
                if let Some(&file) = files.iter().find(|f| f.as_id() == id) {
                    return format!("{name}({})", self.engine.path(file));
                }
                if let Some(class) = self
                    .class_names
                    .iter()
                    .find(|n| ClassName::new(db, n.as_str()).as_id() == id)
                {
                    return format!("{name}({class})");
                }
                name.to_string()
            })
            .collect();
        lines.sort();
        lines.join("\n") + "\n"
    }
}

/// Resolves every file of `files` the way the indexer does without the
/// database: one symbol table of the whole revision.
fn from_scratch(files: &[(String, String)], libraries: &Libraries) -> Vec<TrackedResolution> {
    let mut files: Vec<&(String, String)> = files.iter().collect();
    files.sort();
    let facts: Vec<_> = files
        .iter()
        .map(|(_, text)| refscope_syntax::extract(text.as_bytes()))
        .collect();
    let mut names = libraries.jdk.binary_names.clone();
    names.extend(libraries.class_path.class_names().map(str::to_string));
    let mut universe = TypeUniverse::with_jdk(&names);
    let skeletons: Vec<_> = facts.iter().map(type_skeleton).collect();
    universe.add_sources(skeletons.iter());
    universe.load_jdk_supertypes(&libraries.jdk);
    let mut classes = Vec::new();
    let mut table_files = Vec::new();
    for (index, ((path, _), facts)) in files.iter().zip(&facts).enumerate() {
        let qualifier = Qualifier::new(&universe, facts);
        classes.extend(resolve::file_signatures(&qualifier, facts, index as u32));
        table_files.push((path.clone(), facts.package.clone()));
    }
    let table = SymbolTable::new(classes, Some(libraries.class_path.clone()), table_files);
    facts
        .iter()
        .enumerate()
        .map(|(index, facts)| resolve::resolve_file_tracked(&table, &universe, facts, index as u32))
        .collect()
}

/// Asserts that the database's resolutions of `logged` are what resolving
/// its files from scratch gives, as stored: records, references (declared
/// lines of other files aside, which the store keeps as signature
/// ordinals), names looked up and their digest.
fn assert_same_as_from_scratch(logged: &mut Logged, libraries: &Libraries) {
    let files: Vec<(String, String)> = logged
        .engine
        .files()
        .iter()
        .map(|&f| {
            let FileContent::Bytes { bytes, .. } = f.content(logged.engine.db()) else {
                unreachable!()
            };
            (
                logged.engine.path(f).to_string(),
                String::from_utf8(bytes.to_vec()).unwrap(),
            )
        })
        .collect();
    let expected = from_scratch(&files, libraries);
    let actual = logged.resolve();
    assert_eq!(actual.len(), expected.len());
    for ((path, actual), expected) in actual.iter().zip(&expected) {
        assert_eq!(actual.records, expected.records, "records of {path}");
        assert_eq!(
            actual.resolution.to_stored(),
            expected.resolution.to_stored(),
            "resolution of {path}"
        );
        assert_eq!(actual.deps, expected.deps, "names looked up by {path}");
        assert_eq!(actual.deps_digest, expected.deps_digest, "digest of {path}");
    }
}

const SHOP: &str = r#"
//- p/A.java
package p;
public class A {
    public int size() { return 1; }
    public int twice() { return size() * 2; }
}
//- p/B.java
package p;
public class B {
    int run(A a) {
        return a.size();
    }
    int other() { return 0; }
}
//- p/C.java
package p;
public class C {
    int run() { return new B().run(null); }
}
//- q/D.java
package q;
public class D {
    int run() { return hashCode(); }
}
"#;

fn check_edit(path: &str, from: &str, to: &str, expect: Expect) {
    let files = fixture(SHOP);
    let mut logged = Logged::new(&files, Libraries::none());
    logged.class_names = ["p.A", "p.B", "p.C", "q.D", "A", "B", "java.lang.Object"]
        .map(String::from)
        .to_vec();
    logged.resolve();
    logged.take_executed();
    logged.edit(path, from, to);
    logged.resolve();
    expect.assert_eq(&logged.take_executed());
    assert_same_as_from_scratch(&mut logged, &Libraries::none());
}

#[test]
fn body_edit_reresolves_only_the_edited_file() {
    // A new line in a body moves every declaration below it: the file's
    // facts and classes change, what other files see of it does not.
    check_edit(
        "p/B.java",
        "        return a.size();",
        "\n        return a.size() + 1;",
        expect![[r#"
            facts(p/B.java)
            file_classes(p/B.java)
            resolve(p/B.java)
            signature(p/B.java)
            skeleton(p/B.java)
        "#]],
    );
}

#[test]
fn signature_edit_reresolves_the_files_that_looked_up_the_class() {
    // `size` of `A` becomes `long`: A and B looked `p.A` up, C and D did
    // not (C calls B's `run`, whose signature names A, but it never
    // looks A up).
    let files = fixture(SHOP);
    let mut logged = Logged::new(&files, Libraries::none());
    let looked_up_a: Vec<String> = logged
        .resolve()
        .into_iter()
        .filter(|(_, r)| r.deps.iter().any(|d| &**d == "p.A"))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(looked_up_a, ["p/A.java", "p/B.java"]);
    check_edit(
        "p/A.java",
        "public int size()",
        "public long size()",
        expect![[r#"
            class_copies(p.A)
            declarers
            facts(p/A.java)
            file_classes(p/A.java)
            resolve(p/A.java)
            resolve(p/B.java)
            signature(p/A.java)
            skeleton(p/A.java)
        "#]],
    );
}

#[test]
fn added_file_resolves_as_from_scratch() {
    // A new file changes the universe of type names and the file list.
    let files = fixture(SHOP);
    let mut logged = Logged::new(&files, Libraries::none());
    logged.resolve();
    let mut grown = files.clone();
    grown.push(("q/E.java".into(), "package q;\nclass E {}\n".into()));
    logged.engine.set_files(
        grown
            .iter()
            .map(|(p, t)| (p.as_str(), FileContent::bytes(t.as_bytes()))),
    );
    assert_same_as_from_scratch(&mut logged, &Libraries::none());
}

#[test]
fn database_resolves_the_fixtures_as_from_scratch() {
    let jdk = JdkTypes::read(refscope_test_support::jdk_stub_home()).expect("the stub JDK reads");
    let libraries = || {
        let class_path = ClassPath::new(&jdk, &[]).expect("the JDK's class path opens");
        Libraries {
            jdk: jdk.clone(),
            class_path: Arc::new(class_path),
            digest: [0; 16],
        }
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpora/fixtures");
    let mut n_fixtures = 0;
    for fixture in std::fs::read_dir(&root).unwrap() {
        let dir = fixture.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        let mut pending = vec![dir.clone()];
        while let Some(next) = pending.pop() {
            for entry in std::fs::read_dir(&next).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "java") {
                    let relative = path.strip_prefix(&dir).unwrap().to_string_lossy().into();
                    files.push((relative, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        let mut logged = Logged::new(&files, libraries());
        assert_same_as_from_scratch(&mut logged, &libraries());
        n_fixtures += 1;
    }
    assert!(n_fixtures >= 3, "fixtures under {}", root.display());
}

#[test]
fn chunked_resolution_evicts_values_but_keeps_dependencies() {
    // Resolved two files at a time, keeping one resolution at each
    // eviction: A's value (first chunk) is gone, so asking for it runs its
    // resolution again, and nothing else. Then B's body is edited: asking for B alone
    // re-runs B's queries only, and every file still resolves as from
    // scratch.
    let files = fixture(SHOP);
    let mut logged = Logged::new(&files, Libraries::none());
    super::resolution::set_resolve_capacity(&mut logged.engine.db, 1);
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    let all = logged.engine.files();
    let mut n_resolved = 0;
    logged
        .engine
        .resolve_in_chunks(
            &pool,
            &all,
            2,
            super::Memoize::Yes,
            |at, _| at,
            |first, resolved| {
                assert_eq!(first, n_resolved);
                // `finish` saw each file's position in `all`.
                let positions: Vec<usize> =
                    resolved.into_iter().map(|r| r.expect("resolves")).collect();
                assert_eq!(
                    positions,
                    (first..first + positions.len()).collect::<Vec<_>>()
                );
                n_resolved += positions.len();
                Ok::<(), ()>(())
            },
        )
        .unwrap();
    assert_eq!(n_resolved, all.len());
    logged.take_executed();
    let a = logged.engine.file("p/A.java").unwrap();
    logged.engine.resolve_all(&pool, &[a]);
    expect![[r#"
        resolve(p/A.java)
    "#]]
    .assert_eq(&logged.take_executed());
    logged.edit("p/B.java", "return a.size();", "\n        return a.size();");
    let b = logged.engine.file("p/B.java").unwrap();
    logged.engine.resolve_all(&pool, &[b]);
    expect![[r#"
        facts(p/B.java)
        file_classes(p/B.java)
        resolve(p/B.java)
        signature(p/B.java)
        skeleton(p/B.java)
    "#]]
    .assert_eq(&logged.take_executed());
    assert_same_as_from_scratch(&mut logged, &Libraries::none());
}

/// The database on its own: files set as bytes, resolved in parallel.
#[test]
fn an_engine_resolves_the_files_it_is_given() {
    let mut engine = Engine::new(Libraries::none());
    engine.set_files([(
        "p/A.java",
        FileContent::bytes(b"package p; class A { void m() { m(); } }"),
    )]);
    let files = engine.files();
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    let resolved = engine.resolve_all(&pool, &files);
    let refs = &resolved[0].as_ref().unwrap().resolution.refs;
    assert_eq!(refs.len(), 1);
    assert_eq!(refs[0].target_id().as_deref(), Some("p.A#m()"));
}
