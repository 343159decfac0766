//! A repository holding two flavors of one library side by side (guava's
//! `android/` and main trees, say): the same class names in two source
//! roots. Each flavor's references must resolve into its own flavor, even
//! where a file is byte-for-byte the same in both.

use crate::common::run;

fn refs_by_file(jsonl: &str) -> Vec<(String, u64, String, String)> {
    let mut out: Vec<(String, u64, String, String)> = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["t"] == "ref" && v["kind"] == "call")
        .map(|v| {
            (
                v["file"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
                format!(
                    "{}#{}{}",
                    v["owner"].as_str().unwrap(),
                    v["name"].as_str().unwrap(),
                    v["params"]
                ),
                v["decl_file"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn each_flavor_resolves_into_itself() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    // The flavors differ in one signature...
    write(
        "android/src/p/Lists.java",
        "package p;\npublic class Lists {\n    public static void add(long x) {}\n}\n",
    );
    write(
        "main/src/p/Lists.java",
        "package p;\npublic class Lists {\n    public static void add(int x) {}\n}\n",
    );
    // ...and share a caller, identical in both.
    let user = "package p;\nclass User {\n    void run() {\n        Lists.add(1);\n    }\n}\n";
    write("android/src/p/User.java", user);
    write("main/src/p/User.java", user);

    let store = dir.path().join("store");
    let store = store.to_str().unwrap();
    let root = dir.path().to_str().unwrap();
    run(dir.path(), &["index", "--files", root, "--store", store]).ok();
    let out = run(
        dir.path(),
        &["export", "--refs", "--store", store, "--repo", root],
    )
    .ok();
    assert_eq!(
        refs_by_file(&out),
        vec![
            (
                "android/src/p/User.java".to_string(),
                4,
                "p.Lists#add[\"long\"]".to_string(),
                "android/src/p/Lists.java".to_string()
            ),
            (
                "main/src/p/User.java".to_string(),
                4,
                "p.Lists#add[\"int\"]".to_string(),
                "main/src/p/Lists.java".to_string()
            ),
        ]
    );
}
