//! `refscope stats`: where a store's bytes are, every byte accounted for.

use crate::common::{TestRepo, run};

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A class of many methods whose next version differs little: stored as a
/// delta over the one before.
fn big(version: u32) -> String {
    let methods: String = (0..300)
        .map(|k| format!("    int m{k}(int n) {{\n        return n * {k} + {version};\n    }}\n"))
        .collect();
    format!("package p;\nclass Big {{\n{methods}}}\n")
}

#[test]
fn stats_account_for_the_store_by_file_table_and_record() {
    let repo = TestRepo::new();
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().to_str().unwrap();
    let first = repo.commit(
        &[
            ("src/p/Big.java", &big(1)),
            (
                "src/p/User.java",
                "package p;\nclass User {\n    int use(Big b) { return b.m1(2); }\n}\n",
            ),
            ("src/p/Other.java", "package p;\nclass Other {}\n"),
        ],
        "three classes",
    );
    let second = repo.commit(&[("src/p/Big.java", &big(2))], "Big again");
    run(repo.path(), &["index", "--rev", &first, "--store", store]).ok();
    run(repo.path(), &["index", "--rev", &second, "--store", store]).ok();

    let stats = json(&run(repo.path(), &["stats", "--json", "--store", store]).ok());
    // Files: the pack and the database as long as the file system says
    // (the write-ahead log and its index go when the reader closes), all
    // of them summing to the total.
    let files = stats["files"].as_array().unwrap();
    for name in ["facts.pack", "refscope.sqlite"] {
        let file = files
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {stats}"));
        let len = std::fs::metadata(store_dir.path().join(name))
            .unwrap()
            .len();
        assert_eq!(file["bytes"], len, "{name}");
    }
    let total: u64 = files.iter().map(|f| f["bytes"].as_u64().unwrap()).sum();
    assert_eq!(stats["bytes"], total);

    // The database: its tables and indexes, each storing no more than its
    // pages hold.
    let objects = stats["database"]["objects"].as_array().unwrap();
    let object = |name: &str| {
        objects
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {stats}"))
    };
    for (name, kind, table) in [
        ("units", "table", "units"),
        ("elements", "table", "elements"),
        ("elements_by_id", "index", "elements"),
    ] {
        let o = object(name);
        assert_eq!(o["kind"], kind, "{o}");
        assert_eq!(o["table"], table, "{o}");
        assert!(o["bytes"].as_u64().unwrap() > 0, "{o}");
        assert!(o["payload"].as_u64() <= o["bytes"].as_u64(), "{o}");
    }
    let page_size = stats["database"]["page_size"].as_u64().unwrap();
    assert!(page_size.is_power_of_two(), "{stats}");

    // The pack: three records of the first commit, Big's second version a
    // delta over its first; the first revision's full layers, and a delta
    // of the dependency index (an edit in bodies declares nothing: the
    // second revision shares the first's symbol table); every byte in one
    // part or another.
    let pack = &stats["pack"];
    assert_eq!(pack["records"]["count"], 3, "{pack}");
    assert_eq!(pack["deltas"]["count"], 1, "{pack}");
    assert_eq!(pack["symbol_layers"]["count"], 1, "{pack}");
    assert_eq!(pack["lookup_layers"]["count"], 2, "{pack}");
    let bytes = |part: &str| pack[part]["bytes"].as_u64().unwrap();
    assert!(bytes("deltas") * 2 < bytes("records"), "{pack}");
    assert!(
        pack["records"]["declarations_bytes"].as_u64().unwrap() < bytes("records"),
        "{pack}"
    );
    assert_eq!(
        bytes("records")
            + bytes("deltas")
            + bytes("symbol_layers")
            + bytes("lookup_layers")
            + pack["other_bytes"].as_u64().unwrap(),
        pack["bytes"].as_u64().unwrap(),
        "{pack}"
    );
    let pack_file = files.iter().find(|f| f["name"] == "facts.pack").unwrap();
    assert!(
        pack["bytes"].as_u64() <= pack_file["bytes"].as_u64(),
        "{stats}"
    );

    // The same, for people.
    let text = run(repo.path(), &["stats", "--store", store]).ok();
    for line in [
        "facts.pack",
        "units",
        "facts records",
        "delta records",
        "dependency layers",
    ] {
        assert!(text.contains(line), "no {line} in:\n{text}");
    }
}

#[test]
fn stats_of_a_directory_that_holds_no_store_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &[
            "stats",
            "--store",
            dir.path().join("none").to_str().unwrap(),
        ],
    );
    assert_ne!(out.code(), Some(0));
    let stderr = out.stderr();
    assert!(stderr.contains("holds no indexed revision"), "{stderr}");
}
