//! The element-level difference between two indexed revisions, over a real
//! git repository built in the test.

use std::path::Path;

use refscope_engine::{ChangeKind, DiffConfig};
use refscope_engine::{Snapshot, Source, Store};

fn commit(repo: &git2::Repository, files: &[(&str, &str)], removed: &[&str]) -> String {
    crate::common::commit(repo, files, removed, "change")
}

fn index(dir: &Path, store: &Store, rev: &str) {
    crate::common::index(dir, store, Some(rev));
}

const SHOP_V1: &str = "package com.acme;

import java.util.List;

public class Shop {
    private final List<String> items = new java.util.ArrayList<>();
    private int count = 1;

    public void order(String item, int qty) {
        items.add(item);
    }

    public int size() {
        return items.size();
    }

    void reindent() {
        count++;
    }

    void retyped(int a) {
    }

    void gone() {
    }
}
";

/// Moves `order` down (lines inserted above it), changes the body of
/// `size`, re-indents `reindent`, changes the parameter type of `retyped`
/// (so its id changes: one removed, one added), changes `count`'s
/// initializer, removes `gone` and adds `fresh`.
const SHOP_V2: &str = "package com.acme;

import java.util.List;

public class Shop {
    private final List<String> items = new java.util.ArrayList<>();
    private int count = 2;

    // A comment pushing everything down.

    public int size() {
        return items.size() + 0;
    }

    public void order(String item, int qty) {
        items.add(item);
    }

    void reindent() {
            count++;
    }

    void retyped(long a) {
    }

    public void fresh() {
    }
}
";

const CART_V1: &str = "package com.acme;

public class Cart {
    protected void add(String item) {
    }
}
";

/// `add` becomes public: a signature change with the same body.
const CART_V2: &str = "package com.acme;

public class Cart {
    public void add(String item) {
    }
}
";

const UNTOUCHED: &str = "package com.acme;

class Untouched {
    void stays() {
    }
}
";

#[test]
fn changes_between_two_commits_by_element() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let first = commit(
        &repo,
        &[
            ("src/com/acme/Shop.java", SHOP_V1),
            ("src/com/acme/Cart.java", CART_V1),
            ("src/com/acme/Untouched.java", UNTOUCHED),
            ("src/com/acme/Old.java", "package com.acme;\nclass Old {}\n"),
        ],
        &[],
    );
    let second = commit(
        &repo,
        &[
            ("src/com/acme/Shop.java", SHOP_V2),
            ("src/com/acme/Cart.java", CART_V2),
        ],
        &["src/com/acme/Old.java"],
    );
    let store = Store::open(&dir.path().join(".git/refscope")).unwrap();
    index(dir.path(), &store, &first);
    index(dir.path(), &store, &second);
    let source = Source::open(dir.path()).unwrap();
    let reader = source.reader_spec().open().unwrap();
    let base = Snapshot::new(&store, store.revision(&first).unwrap().unwrap()).unwrap();
    let head = Snapshot::new(&store, store.revision(&second).unwrap().unwrap()).unwrap();

    let diff = head
        .changes_since(
            &base,
            &DiffConfig {
                blobs: Some(&reader),
            },
        )
        .unwrap();
    assert!(diff.exact_bodies);
    let listed: Vec<String> = diff
        .changes
        .iter()
        .map(|c| format!("{} {} body={}", c.kind.as_str(), c.id, c.body_changed))
        .collect();
    // `Shop` itself changed: the comment is its own text, outside every
    // member. `order` moved down and `reindent` was re-indented: neither
    // is listed, nor is anything of `Untouched`.
    expect_test::expect![[r#"
        [
            "signature_changed com.acme.Cart#add(java.lang.String) body=false",
            "removed com.acme.Old body=false",
            "body_changed com.acme.Shop body=true",
            "body_changed com.acme.Shop#count body=true",
            "added com.acme.Shop#fresh() body=false",
            "removed com.acme.Shop#gone() body=false",
            "removed com.acme.Shop#retyped(int) body=false",
            "added com.acme.Shop#retyped(long) body=false",
            "body_changed com.acme.Shop#size() body=true",
        ]
    "#]]
    .assert_debug_eq(&listed);

    // The views carry both declarations: `size` moved up and changed.
    let size = diff
        .changes
        .iter()
        .find(|c| c.id == "com.acme.Shop#size()")
        .unwrap();
    assert_eq!(size.base.as_ref().unwrap().record.name_line, 13);
    assert_eq!(size.head.as_ref().unwrap().record.name_line, 11);

    // Per element: the moved method is unchanged, the others as above.
    let config = DiffConfig {
        blobs: Some(&reader),
    };
    let order = "com.acme.Shop#order(java.lang.String,int)";
    assert_eq!(head.change_of(&base, order, &config).unwrap(), None);
    assert_eq!(
        head.change_of(&base, "com.acme.Shop#reindent()", &config)
            .unwrap(),
        None
    );
    let kind_of = |id: &str| head.change_of(&base, id, &config).unwrap().map(|c| c.kind);
    assert_eq!(
        kind_of("com.acme.Shop#size()"),
        Some(ChangeKind::BodyChanged)
    );
    assert_eq!(kind_of("com.acme.Shop#fresh()"), Some(ChangeKind::Added));
    assert_eq!(kind_of("com.acme.Old"), Some(ChangeKind::Removed));
    assert_eq!(
        kind_of("com.acme.Cart#add(java.lang.String)"),
        Some(ChangeKind::SignatureChanged)
    );
    assert_eq!(kind_of("com.acme.Untouched#stays()"), None);
    assert_eq!(kind_of("com.acme.Nowhere"), None);

    // The other way round, added and removed swap.
    let back = base
        .changes_since(
            &head,
            &DiffConfig {
                blobs: Some(&reader),
            },
        )
        .unwrap();
    let kinds: Vec<(ChangeKind, &str)> = back
        .changes
        .iter()
        .filter(|c| c.id.contains("retyped") || c.id.contains("fresh"))
        .map(|c| (c.kind, c.id.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::Removed, "com.acme.Shop#fresh()"),
            (ChangeKind::Added, "com.acme.Shop#retyped(int)"),
            (ChangeKind::Removed, "com.acme.Shop#retyped(long)"),
        ]
    );
}

#[test]
fn without_the_text_bodies_compare_by_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let first = commit(&repo, &[("src/com/acme/Shop.java", SHOP_V1)], &[]);
    let second = commit(&repo, &[("src/com/acme/Shop.java", SHOP_V2)], &[]);
    let store = Store::open(&dir.path().join(".git/refscope")).unwrap();
    index(dir.path(), &store, &first);
    index(dir.path(), &store, &second);
    let base = Snapshot::new(&store, store.revision(&first).unwrap().unwrap()).unwrap();
    let head = Snapshot::new(&store, store.revision(&second).unwrap().unwrap()).unwrap();
    let diff = head.changes_since(&base, &DiffConfig::default()).unwrap();
    assert!(!diff.exact_bodies);
    let listed: Vec<String> = diff
        .changes
        .iter()
        .map(|c| format!("{} {}", c.kind.as_str(), c.id))
        .collect();
    // `count = 1` → `count = 2` keeps length, sites and locals: the
    // fingerprint cannot see it (FIXME: a per-element digest stored at
    // indexing time would). Re-indenting `reindent` changes its length.
    expect_test::expect![[r#"
        [
            "body_changed com.acme.Shop",
            "added com.acme.Shop#fresh()",
            "removed com.acme.Shop#gone()",
            "body_changed com.acme.Shop#reindent()",
            "removed com.acme.Shop#retyped(int)",
            "added com.acme.Shop#retyped(long)",
            "body_changed com.acme.Shop#size()",
        ]
    "#]]
    .assert_debug_eq(&listed);
}
