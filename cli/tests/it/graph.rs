//! `refscope callers`, `callees`, `impls` and `refs` on the `zoo` fixture
//! (`corpora/fixtures/zoo`): an interface, an abstract class between it and
//! two animals, an anonymous implementation, overloads, a lambda, a method
//! reference, a static import, a field read and written, an inner class
//! implementing `Runnable`.
//!
//! Hits are compared in a short form, `File.java:LINE:COL kind
//! enclosing [via M]`, with the package (`com.zoo.`) and the source folder
//! left out. Every expected site was checked against what javac resolves
//! (`oracle/javac-oracle`); `references_match_javac` re-checks
//! all of them.

use std::path::PathBuf;

use crate::common::{Run, run, workspace_root};
use serde_json::Value;

/// The fixture project, indexed into a fresh store.
struct Zoo {
    project: PathBuf,
    store: tempfile::TempDir,
}

impl Zoo {
    fn indexed() -> Self {
        let project = workspace_root().join("corpora/fixtures/zoo");
        let store = tempfile::tempdir().unwrap();
        run(
            &std::env::temp_dir(),
            &[
                "index",
                "--files",
                project.to_str().unwrap(),
                "--store",
                store.path().to_str().unwrap(),
            ],
        )
        .ok();
        Self { project, store }
    }

    /// Runs `refscope ARGS --store S --repo P` in the project.
    fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "--store",
            self.store.path().to_str().unwrap(),
            "--repo",
            self.project.to_str().unwrap(),
        ]);
        run(&self.project, &all)
    }

    /// Runs a graph command with `--json` and returns the parsed answer.
    fn json(&self, args: &[&str]) -> Value {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let out = self.run(&all).ok();
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }

    /// The hits of a graph command, short: `File.java:LINE:COL kind
    /// enclosing [via M]`.
    fn callers(&self, args: &[&str]) -> Vec<String> {
        hits(&self.json(args))
            .iter()
            .map(|h| {
                let via = match h["via"].as_str() {
                    Some(via) => format!(" via {}", short(via)),
                    None => String::new(),
                };
                format!(
                    "{} {} {}{via}",
                    location(h),
                    h["kind"].as_str().unwrap(),
                    short(h["enclosing"].as_str().unwrap())
                )
            })
            .collect()
    }

    /// Callees or references, short: `File.java:LINE:COL kind confidence
    /// target`.
    fn targets(&self, args: &[&str]) -> Vec<String> {
        hits(&self.json(args))
            .iter()
            .map(|h| {
                format!(
                    "{} {} {} {}",
                    location(h),
                    h["kind"].as_str().unwrap(),
                    h["confidence"].as_str().unwrap(),
                    short(h["target"].as_str().unwrap_or("?"))
                )
            })
            .collect()
    }

    /// Implementations, short: `id depth overrides File.java:LINE`.
    fn impls(&self, args: &[&str]) -> Vec<String> {
        self.json(args)["implementations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                format!(
                    "{} {} {} {}:{}",
                    short(i["id"].as_str().unwrap()),
                    i["depth"],
                    short(i["overrides"].as_str().unwrap()),
                    short(i["file"].as_str().unwrap()),
                    i["line"]
                )
            })
            .collect()
    }
}

fn hits(answer: &Value) -> &Vec<Value> {
    answer["hits"].as_array().unwrap()
}

fn short(text: &str) -> String {
    text.replace("src/main/java/com/zoo/", "")
        .replace("com.zoo.", "")
}

fn location(hit: &Value) -> String {
    format!(
        "{}:{}:{}",
        short(hit["file"].as_str().unwrap()),
        hit["line"],
        hit["col"]
    )
}

#[test]
fn callers_include_calls_through_overridden_methods() {
    let zoo = Zoo::indexed();
    // Direct: a super call and an inherited call; polymorphic: the call
    // through the interface.
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Mammal#eat"]),
        [
            "Cat.java:20:19 call Cat#eat(Food)",
            "Dog.java:21:9 call Dog#fetch()",
            "Keeper.java:23:16 call Keeper#feed(Animal,Food) via Animal#eat(Food)",
        ]
    );
    // Cat#eat overrides Mammal#eat, which implements Animal#eat. Neither
    // `super.eat(food)` (never dispatches down) nor Dog's own `eat(...)`
    // (a Dog is no Cat) can reach it.
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Cat#eat(com.zoo.Food)"]),
        ["Keeper.java:23:16 call Keeper#feed(Animal,Food) via Animal#eat(Food)"]
    );
    // Mammal does not declare sound(): every call of Animal#sound() may
    // reach Dog's, the one on `this` in the interface's default method too.
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Dog#sound()"]),
        [
            "Animal.java:14:36 call Animal#describe() via Animal#sound()",
            "Keeper.java:34:26 call Keeper#noise() via Animal#sound()",
            "Zoo.java:32:35 call Zoo#main(java.lang.String[]) via Animal#sound()",
        ]
    );
    assert!(
        zoo.callers(&["callers", "com.zoo.Dog#sound()", "--direct"])
            .is_empty()
    );
    // A library method overridden: calls of Runnable#run() anywhere.
    let answer = zoo.json(&["callers", "com.zoo.Keeper.Shift#run"]);
    assert_eq!(answer["element"]["id"], "com.zoo.Keeper$Shift#run()");
    assert_eq!(answer["element"]["kind"], "method");
    assert_eq!(answer["element"]["line"], 46);
    let hit = &hits(&answer)[0];
    assert_eq!(hits(&answer).len(), 1);
    assert_eq!(location(hit), "Zoo.java:30:15");
    assert_eq!(hit["target"], "java.lang.Runnable#run()");
    assert_eq!(hit["via"], "java.lang.Runnable#run()");
    assert_eq!(hit["confidence"], "external");
    assert_eq!(hit["decl_file"], Value::Null);
    // The interface method itself: direct callers only.
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Animal#eat"]),
        ["Keeper.java:23:16 call Keeper#feed(Animal,Food)"]
    );
}

#[test]
fn callers_in_lambdas_method_references_constructors_and_static_imports() {
    let zoo = Zoo::indexed();
    let answer = zoo.json(&["callers", "com.zoo.Keeper#feed(Animal)"]);
    let hit = &hits(&answer)[0];
    assert_eq!(hits(&answer).len(), 1);
    assert_eq!(location(hit), "Keeper.java:28:30");
    assert_eq!(hit["enclosing"], "com.zoo.Keeper#feedAll()$lambda1");
    assert_eq!(hit["enclosing_named"], "com.zoo.Keeper#feedAll()");
    assert_eq!(hit["target"], "com.zoo.Keeper#feed(com.zoo.Animal)");
    assert_eq!(hit["decl_file"], "src/main/java/com/zoo/Keeper.java");
    assert_eq!(hit["decl_line"], 18);

    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Keeper#admit"]),
        [
            "Keeper.java:15:28 method_ref Keeper#admitAll(java.util.List)",
            "Zoo.java:11:16 call Zoo#main(java.lang.String[])",
            "Zoo.java:12:16 call Zoo#main(java.lang.String[])",
            "Zoo.java:13:16 call Zoo#main(java.lang.String[])",
        ]
    );
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Sounds#loud(java.lang.String)"]),
        ["Dog.java:12:16 call Dog#sound()"]
    );
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Sounds#loud(String, int)"]),
        ["Sounds.java:12:16 call Sounds#loud(java.lang.String)"]
    );
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Mammal#<init>"]),
        [
            "Cat.java:9:9 ctor_call Cat#<init>(java.lang.String)",
            "Dog.java:7:9 ctor_call Dog#<init>(java.lang.String)",
        ]
    );
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Cat#<init>(String)"]),
        ["Cat.java:5:9 ctor_call Cat#<init>()"]
    );
    assert_eq!(
        zoo.callers(&["callers", "com.zoo.Dog#<init>"]),
        [
            "Zoo.java:11:26 new Zoo#main(java.lang.String[])",
            "Zoo.java:31:29 new Zoo#main(java.lang.String[])",
        ]
    );
    // A default constructor is known from the calls to it.
    let answer = zoo.json(&["callers", "com.zoo.Keeper#<init>"]);
    assert_eq!(answer["element"]["id"], "com.zoo.Keeper#<init>()");
    assert_eq!(answer["element"]["kind"], Value::Null);
    assert_eq!(hits(&answer).len(), 1);
    // FILE:LINE: the element declared on the line, else the one around it
    // (line 28 holds only a lambda: its method stands for it).
    assert_eq!(
        zoo.callers(&["callers", "src/main/java/com/zoo/Keeper.java:28"]),
        ["Keeper.java:47:13 call Keeper$Shift#run()"]
    );
    // A field's callers are its references; the anonymous class's method is
    // named by a line inside it.
    assert_eq!(
        zoo.callers(&["callers", "src/main/java/com/zoo/Zoo.java:26"]),
        ["Keeper.java:23:16 call Keeper#feed(Animal,Food) via Animal#eat(Food)"]
    );
}

#[test]
fn callees_of_elements_and_lines() {
    let zoo = Zoo::indexed();
    // The lambda's call counts for the method around it.
    assert_eq!(
        zoo.targets(&["callees", "com.zoo.Keeper#feedAll()"]),
        [
            "Keeper.java:28:9 field exact Keeper#animals",
            "Keeper.java:28:17 call external java.lang.Iterable#forEach(java.util.function.Consumer)",
            "Keeper.java:28:30 call exact Keeper#feed(Animal)",
        ]
    );
    // The anonymous class's members count for the method creating it.
    assert_eq!(
        zoo.targets(&["callees", "com.zoo.Zoo#main"]),
        [
            "Zoo.java:10:29 new exact Keeper#<init>()",
            "Zoo.java:11:16 call exact Keeper#admit(Animal)",
            "Zoo.java:11:26 new exact Dog#<init>(java.lang.String)",
            "Zoo.java:12:16 call exact Keeper#admit(Animal)",
            "Zoo.java:12:26 new exact Cat#<init>()",
            "Zoo.java:13:16 call exact Keeper#admit(Animal)",
            "Zoo.java:13:26 new exact Animal#<init>()",
            "Zoo.java:21:31 field exact Sounds#SILENCE",
            "Zoo.java:26:17 field exact Zoo#visitors",
            "Zoo.java:29:37 new exact Keeper$Shift#<init>()",
            "Zoo.java:30:15 call external java.lang.Runnable#run()",
            "Zoo.java:31:29 new exact Dog#<init>(java.lang.String)",
            "Zoo.java:32:16 field external java.lang.System#out",
            "Zoo.java:32:20 call external java.io.PrintStream#println(java.lang.String)",
            "Zoo.java:32:35 call exact Animal#sound()",
            "Zoo.java:32:52 call exact Mammal#legs()",
            "Zoo.java:33:9 field exact Zoo#visitors",
            "Zoo.java:34:16 field external java.lang.System#out",
            "Zoo.java:34:20 call external java.io.PrintStream#println(java.lang.String)",
            "Zoo.java:34:35 call exact Keeper#noise()",
        ]
    );
    // A type: everything inside it.
    assert_eq!(
        zoo.targets(&["callees", "com.zoo.Food"]),
        [
            "Food.java:11:14 field exact Food#kcal",
            "Food.java:15:16 field exact Food#kcal",
            "Food.java:19:24 field exact Food#SEEDS",
        ]
    );
    // Lines: two methods' worth.
    let answer = zoo.json(&["callees", "src/main/java/com/zoo/Keeper.java:22-29"]);
    assert_eq!(answer["element"], Value::Null);
    assert_eq!(answer["range"]["file"], "src/main/java/com/zoo/Keeper.java");
    assert_eq!(answer["range"]["start_line"], 22);
    assert_eq!(answer["range"]["end_line"], 29);
    assert_eq!(
        zoo.targets(&["callees", "src/main/java/com/zoo/Keeper.java:22-29"]),
        [
            "Keeper.java:23:16 call exact Animal#eat(Food)",
            "Keeper.java:24:9 field exact Keeper#fed",
            "Keeper.java:28:9 field exact Keeper#animals",
            "Keeper.java:28:17 call external java.lang.Iterable#forEach(java.util.function.Consumer)",
            "Keeper.java:28:30 call exact Keeper#feed(Animal)",
        ]
    );
    let hit = &hits(&answer)[0];
    assert_eq!(hit["decl_file"], "src/main/java/com/zoo/Animal.java");
    assert_eq!(hit["decl_line"], 11);
}

#[test]
fn implementations_are_transitive() {
    let zoo = Zoo::indexed();
    let animals = [
        "Cat 2 Mammal Cat.java:3",
        "Dog 2 Mammal Dog.java:5",
        "Mammal 1 Animal Mammal.java:6",
        "Zoo$1 1 Animal Zoo.java:13",
    ];
    assert_eq!(zoo.impls(&["impls", "com.zoo.Animal"]), animals);
    assert_eq!(
        zoo.impls(&["impls", "src/main/java/com/zoo/Animal.java:6"]),
        animals
    );
    assert_eq!(
        zoo.impls(&["impls", "com.zoo.Animal#eat"]),
        [
            "Cat#eat(Food) 2 Mammal#eat(Food) Cat.java:18",
            "Mammal#eat(Food) 1 Animal#eat(Food) Mammal.java:20",
            "Zoo$1#eat(Food) 1 Animal#eat(Food) Zoo.java:25",
        ]
    );
    // Mammal does not declare sound(): the animals implement it directly.
    assert_eq!(
        zoo.impls(&["impls", "com.zoo.Animal#sound"]),
        [
            "Cat#sound() 1 Animal#sound() Cat.java:13",
            "Dog#sound() 1 Animal#sound() Dog.java:11",
            "Zoo$1#sound() 1 Animal#sound() Zoo.java:20",
        ]
    );
    assert_eq!(
        zoo.impls(&["impls", "com.zoo.Mammal#legs()"]),
        [
            "Cat#legs() 1 Mammal#legs() Cat.java:25",
            "Dog#legs() 1 Mammal#legs() Dog.java:16",
        ]
    );
    assert_eq!(
        zoo.impls(&["impls", "java.lang.Runnable"]),
        ["Keeper$Shift 1 java.lang.Runnable Keeper.java:44"]
    );
    assert!(zoo.impls(&["impls", "com.zoo.Cat"]).is_empty());
    let answer = zoo.json(&["impls", "com.zoo.Mammal"]);
    assert_eq!(answer["element"]["kind"], "class");
    assert_eq!(answer["implementations"][0]["kind"], "class");
    assert_eq!(answer["implementations"][0]["col"], 14);
}

#[test]
fn references_of_fields_and_types() {
    let zoo = Zoo::indexed();
    let meals = [
        "Dog.java:22:9 field exact Mammal#meals",
        "Mammal.java:21:9 field exact Mammal#meals",
        "Mammal.java:21:17 field exact Mammal#meals",
        "Mammal.java:25:16 field exact Mammal#meals",
    ];
    assert_eq!(zoo.targets(&["refs", "com.zoo.Mammal#meals"]), meals);
    assert_eq!(
        zoo.targets(&["refs", "src/main/java/com/zoo/Mammal.java:7"]),
        meals
    );
    // Written in an anonymous class and in main.
    let answer = zoo.json(&["refs", "com.zoo.Zoo#visitors"]);
    let enclosing: Vec<&str> = hits(&answer)
        .iter()
        .map(|h| h["enclosing"].as_str().unwrap())
        .collect();
    assert_eq!(
        enclosing,
        [
            "com.zoo.Zoo$1#eat(com.zoo.Food)",
            "com.zoo.Zoo#main(java.lang.String[])"
        ]
    );
    // The exact id wins over a method of the same name: the field.
    assert_eq!(
        zoo.targets(&["refs", "com.zoo.Keeper#fed"]),
        [
            "Keeper.java:24:9 field exact Keeper#fed",
            "Keeper.java:40:16 field exact Keeper#fed",
        ]
    );
    // A type: every use of its members and constructors.
    assert_eq!(
        zoo.targets(&["refs", "com.zoo.Animal"]),
        [
            "Animal.java:14:16 call exact Animal#name()",
            "Animal.java:14:36 call exact Animal#sound()",
            "Keeper.java:23:16 call exact Animal#eat(Food)",
            "Keeper.java:34:26 call exact Animal#sound()",
            "Zoo.java:13:26 new exact Animal#<init>()",
            "Zoo.java:32:35 call exact Animal#sound()",
        ]
    );
    assert_eq!(
        zoo.targets(&["refs", "com.zoo.Food"]),
        [
            "Cat.java:19:19 call exact Food#isPlant()",
            "Dog.java:21:18 field exact Food#MEAT",
            "Food.java:11:14 field exact Food#kcal",
            "Food.java:15:16 field exact Food#kcal",
            "Food.java:19:24 field exact Food#SEEDS",
            "Keeper.java:19:27 field exact Food#MEAT",
            "Mammal.java:21:30 call exact Food#kcal()",
        ]
    );
    // A nested type is not its outer type's.
    assert_eq!(
        zoo.targets(&["refs", "com.zoo.Keeper"]),
        [
            "Keeper.java:11:9 field exact Keeper#animals",
            "Keeper.java:15:28 method_ref exact Keeper#admit(Animal)",
            "Keeper.java:19:9 call exact Keeper#feed(Animal,Food)",
            "Keeper.java:24:9 field exact Keeper#fed",
            "Keeper.java:28:9 field exact Keeper#animals",
            "Keeper.java:28:30 call exact Keeper#feed(Animal)",
            "Keeper.java:33:25 field exact Keeper#animals",
            "Keeper.java:40:16 field exact Keeper#fed",
            "Keeper.java:47:13 call exact Keeper#feedAll()",
            "Zoo.java:10:29 new exact Keeper#<init>()",
            "Zoo.java:11:16 call exact Keeper#admit(Animal)",
            "Zoo.java:12:16 call exact Keeper#admit(Animal)",
            "Zoo.java:13:16 call exact Keeper#admit(Animal)",
            "Zoo.java:34:35 call exact Keeper#noise()",
        ]
    );
}

#[test]
fn text_output_is_aligned_with_a_summary_on_stderr() {
    let zoo = Zoo::indexed();
    let run = zoo.run(&["callers", "com.zoo.Mammal#eat"]);
    assert_eq!(
        run.ok(),
        "\
src/main/java/com/zoo/Cat.java:20:19     call  exact  com.zoo.Cat#eat(com.zoo.Food)
src/main/java/com/zoo/Dog.java:21:9      call  exact  com.zoo.Dog#fetch()
src/main/java/com/zoo/Keeper.java:23:16  call  exact  com.zoo.Keeper#feed(com.zoo.Animal,com.zoo.Food)  via com.zoo.Animal#eat(com.zoo.Food)
"
    );
    assert_eq!(
        run.stderr(),
        "refscope: 3 callers (1 polymorphic) of com.zoo.Mammal#eat(com.zoo.Food)\n"
    );

    let run = zoo.run(&["callees", "src/main/java/com/zoo/Sounds.java:20"]);
    assert_eq!(
        run.ok(),
        "\
src/main/java/com/zoo/Sounds.java:20:22  call   external  java.lang.String#isEmpty()
src/main/java/com/zoo/Sounds.java:20:34  field  exact     com.zoo.Sounds#SILENCE                          src/main/java/com/zoo/Sounds.java:6
src/main/java/com/zoo/Sounds.java:20:50  call   external  java.lang.String#toLowerCase(java.util.Locale)
src/main/java/com/zoo/Sounds.java:20:69  field  external  java.util.Locale#ROOT
"
    );
    assert_eq!(
        run.stderr(),
        "refscope: 4 callees on src/main/java/com/zoo/Sounds.java:20\n"
    );

    let run = zoo.run(&["impls", "com.zoo.Mammal#eat"]);
    assert_eq!(
        run.ok(),
        "com.zoo.Cat#eat(com.zoo.Food)  method  src/main/java/com/zoo/Cat.java:18:17\n"
    );
    assert_eq!(
        run.stderr(),
        "refscope: 1 implementation of com.zoo.Mammal#eat(com.zoo.Food)\n"
    );

    let run = zoo.run(&["refs", "com.zoo.Zoo#tickets"]);
    assert_eq!(run.ok(), "");
    assert_eq!(
        run.stderr(),
        "refscope: 0 references to com.zoo.Zoo#tickets\n"
    );
}

#[test]
fn bad_elements_are_refused_with_the_ids_to_use() {
    let zoo = Zoo::indexed();
    // Well-formed but not in the index: exit 1, like `at` with a file the
    // revision does not have.
    let err = zoo.run(&["callers", "com.zoo.Keeper#feed"]).fails_with(1);
    assert!(
        err.contains("com.zoo.Keeper#feed names 2 elements")
            && err.contains("com.zoo.Keeper#feed(com.zoo.Animal), com.zoo.Keeper#feed(com.zoo.Animal,com.zoo.Food)")
            && err.contains("give the parameter types"),
        "{err}"
    );
    let err = zoo.run(&["refs", "com.zoo.Kepper#feed"]).fails_with(1);
    assert!(
        err.starts_with("refscope: no element com.zoo.Kepper#feed in revision worktree:")
            && err.contains("ids with the same name: com.zoo.Keeper#feed(com.zoo.Animal), com.zoo.Keeper#feed(com.zoo.Animal,com.zoo.Food)"),
        "{err}"
    );
    // An inherited member: the declarations it inherits come first.
    let err = zoo.run(&["callers", "com.zoo.Dog#eat"]).fails_with(1);
    assert!(
        err.contains("ids with the same name: com.zoo.Mammal#eat(com.zoo.Food), com.zoo.Animal#eat(com.zoo.Food), "),
        "{err}"
    );
    let err = zoo.run(&["impls", "com.zoo.Giraffe"]).fails_with(1);
    assert!(
        err.contains("no element com.zoo.Giraffe in revision")
            && err.contains("`refscope at FILE:LINE --json` prints the ids of a line"),
        "{err}"
    );
    let err = zoo
        .run(&["refs", "src/main/java/com/zoo/Zoo.java:4"])
        .fails_with(1);
    assert!(
        err.contains("src/main/java/com/zoo/Zoo.java:4 names 2 elements")
            && err.contains("com.zoo.Zoo#visitors, com.zoo.Zoo#tickets"),
        "{err}"
    );
    let err = zoo
        .run(&["refs", "src/main/java/com/zoo/Zoo.java:1"])
        .fails_with(1);
    assert!(err.contains("no element is declared on"), "{err}");
    let err = zoo.run(&["callers", "com.zoo.Dog"]).fails_with(1);
    assert!(err.contains("com.zoo.Dog is a type"), "{err}");
    let err = zoo.run(&["impls", "com.zoo.Mammal#meals"]).fails_with(1);
    assert!(err.contains("com.zoo.Mammal#meals is a field"), "{err}");
    let err = zoo
        .run(&["callees", "java.lang.Runnable#run"])
        .fails_with(1);
    assert!(err.contains("is not declared in the sources"), "{err}");
    let err = zoo
        .run(&["callers", "com.zoo.Dog#sound", "--rev", "0123abcd"])
        .fails_with(1);
    assert!(
        err.contains("revision 0123abcd is not indexed")
            && err.contains("refscope index --rev 0123abcd"),
        "{err}"
    );
    // A malformed command line: exit 2.
    let err = zoo
        .run(&["callers", "src/main/java/com/zoo/Zoo.java:x"])
        .fails_with(2);
    assert!(err.contains("is not FILE:LINE"), "{err}");
    let err = zoo
        .run(&["refs", "src/main/java/com/zoo/Zoo.java:3-5"])
        .fails_with(2);
    assert!(err.contains("is a range"), "{err}");
}

#[test]
fn each_revision_sees_only_its_own_files() {
    let repo = crate::common::TestRepo::new();
    let tool = "package p;\n\npublic class Tool {\n    public static void use() {\n    }\n}\n";
    let a = "package p;\n\nclass A {\n    void a() {\n        Tool.use();\n    }\n}\n";
    let b = "package p;\n\nclass B {\n    void b() {\n        Tool.use();\n    }\n}\n";
    let first = repo.commit(&[("p/Tool.java", tool), ("p/A.java", a)], "one");
    let second = repo.commit(&[("p/B.java", b)], "two");
    let cwd = repo.path();
    run(cwd, &["index", "--rev", &first, "--rev", &second]).ok();
    let callers = |rev: &str| -> Vec<String> {
        let out = run(cwd, &["callers", "p.Tool#use", "--json", "--rev", rev]).ok();
        let answer: Value = serde_json::from_str(&out).unwrap();
        hits(&answer)
            .iter()
            .map(|h| format!("{} {}", location(h), h["enclosing"].as_str().unwrap()))
            .collect()
    };
    // The index is shared by both revisions; each answers from its files.
    assert_eq!(callers(&first), ["p/A.java:5:14 p.A#a()"]);
    assert_eq!(
        callers(&second),
        ["p/A.java:5:14 p.A#a()", "p/B.java:5:14 p.B#b()"]
    );
    assert_eq!(callers("HEAD"), callers(&second));
    // B does not exist in the first revision.
    let err = run(cwd, &["refs", "p.B#b", "--rev", &first]).fails_with(1);
    assert!(err.contains("no element p.B#b in revision"), "{err}");
    // A commit that was never indexed.
    let third = repo.commit(&[("p/C.java", "package p;\n\nclass C {\n}\n")], "three");
    let err = run(cwd, &["callers", "p.Tool#use", "--rev", &third]).fails_with(1);
    assert!(
        err.contains(&format!("revision {third} is not indexed")),
        "{err}"
    );
    // Without --rev: the newest indexed commit of HEAD's history.
    let out = run(cwd, &["callers", "p.Tool#use"]).ok();
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn help_has_examples() {
    let cwd = std::env::temp_dir();
    for command in ["callers", "callees", "impls", "refs"] {
        let text = run(&cwd, &[command, "--help"]).ok();
        assert!(
            text.contains("Examples:") && text.contains("--json") && text.contains("--rev"),
            "{command}: {text}"
        );
    }
}

/// `--limit` pages the sites and implementations a graph command answers,
/// `--cursor` continues them, and a cursor of another question is refused.
#[test]
fn graph_answers_come_a_page_at_a_time() {
    let zoo = Zoo::indexed();
    let questions: [(&[&str], &str); 3] = [
        (&["callers", "com.zoo.Mammal#eat"], "hits"),
        (&["refs", "com.zoo.Keeper"], "hits"),
        (&["impls", "com.zoo.Animal"], "implementations"),
    ];
    for (question, list) in questions {
        let whole = zoo.json(question);
        let all = whole[list].as_array().unwrap().clone();
        assert!(all.len() >= 2, "{question:?}: {all:?}");
        assert!(whole.get("total").is_none());
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut args: Vec<&str> = question.to_vec();
            args.extend(["--limit", "1"]);
            if let Some(cursor) = &cursor {
                args.extend(["--cursor", cursor.as_str()]);
            }
            let page = zoo.json(&args);
            assert_eq!(page["total"], all.len(), "{question:?}");
            seen.extend(page[list].as_array().unwrap().iter().cloned());
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        assert_eq!(
            seen, all,
            "{question:?}: the pages hold the answer once, in order"
        );
    }
    let first = zoo.json(&["callers", "com.zoo.Mammal#eat", "--limit", "1"]);
    let cursor = first["next_cursor"].as_str().unwrap();
    let refused = zoo
        .run(&[
            "callers",
            "com.zoo.Cat#eat(com.zoo.Food)",
            "--cursor",
            cursor,
        ])
        .fails_with(1);
    assert!(
        refused.contains("another query, revision or store"),
        "{refused}"
    );
}
