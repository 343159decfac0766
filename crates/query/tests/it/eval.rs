//! Evaluation over real stores: the `shop` fixture as a directory, and a
//! git repository built here for revisions (`at`, `changed`) and cycles.

use std::path::Path;

use expect_test::{Expect, expect};
use refscope_engine::{IndexConfig, Indexer, JdkTypes, Snapshot, Source, SourceLimits, Store};
use refscope_query::lang::{Evaluator, run};

use crate::common::{answer_with, shop};

fn check(query: &str, expect: Expect) {
    expect.assert_eq(&shop(query));
}

#[test]
fn selectors_over_the_shop_fixture() {
    check(
        "com.acme.shop.Money#times",
        expect![[r#"
            src/main/java/com/acme/shop/Money.java:59  method  com.acme.shop.Money#times(int)
        "#]],
    );
    check(
        "com.acme.shop.*#cents",
        expect![[r#"
            src/main/java/com/acme/shop/Currency.java:23  method            com.acme.shop.Currency#cents()
            src/main/java/com/acme/shop/Money.java:14     record_component  com.acme.shop.Money#cents
            src/main/java/com/acme/shop/Priced.java:26    method            com.acme.shop.Priced#cents()
            src/main/java/com/acme/shop/Priced.java:36    method            com.acme.shop.Priced$1#cents()
            src/main/java/com/acme/shop/Priced.java:65    method            com.acme.shop.Priced$Fixed#cents()
        "#]],
    );
    check(
        "src/main/java/com/acme/shop/Order.java:31",
        expect![[r#"
            src/main/java/com/acme/shop/Order.java:31  field  com.acme.shop.Order#codes
            src/main/java/com/acme/shop/Order.java:31  field  com.acme.shop.Order#count
        "#]],
    );
    check(
        r#"constructors under "*/util/*""#,
        expect![[r#"
            src/main/java/com/acme/shop/util/Pair.java:15  constructor  com.acme.shop.util.Pair#<init>(java.lang.Object,java.lang.Object)
        "#]],
    );
    check(
        "file Pair.java | count",
        expect![[r#"
        9
    "#]],
    );
    check(
        "methods \"zz*\" | count",
        expect![[r#"
        0
    "#]],
    );
}

#[test]
fn relations_over_the_shop_fixture() {
    check(
        "com.acme.shop.Priced#cents | impls depth 1 | owner",
        expect![[r#"
            src/main/java/com/acme/shop/Currency.java:7  enum             com.acme.shop.Currency
            src/main/java/com/acme/shop/Priced.java:34   anonymous_class  com.acme.shop.Priced$1
            src/main/java/com/acme/shop/Priced.java:60   class            com.acme.shop.Priced$Fixed
        "#]],
    );
    check(
        "com.acme.shop.Priced$Fixed#cents | overrides",
        expect![[r#"
            src/main/java/com/acme/shop/Priced.java:26  method  com.acme.shop.Priced#cents()
        "#]],
    );
    check(
        "com.acme.shop.Priced | subtypes depth 1 | where kind = type | count",
        expect![[r#"
            4
        "#]],
    );
    check("com.acme.shop.Money#plus | callers | callers", expect![""]);
    check(
        "com.acme.shop.Order#lines | refs | where name = total",
        expect![[r#"
            src/main/java/com/acme/shop/Order.java:117  method  com.acme.shop.Order#total()  field exact src/main/java/com/acme/shop/Order.java:118:16
        "#]],
    );
}

#[test]
fn filters_sets_and_limits() {
    check(
        "(com.acme.shop.Money | members) except (com.acme.shop.Money | members | where kind != field)",
        expect![[r#"
            src/main/java/com/acme/shop/Money.java:21  field  com.acme.shop.Money#DEFAULT_CURRENCY
            src/main/java/com/acme/shop/Money.java:23  field  com.acme.shop.Money#created
        "#]],
    );
    check(
        "com.acme.shop.Money union com.acme.shop.Priced union com.acme.shop.Money | count",
        expect![[r#"
            2
        "#]],
    );
    check(
        "com.acme.shop.Order#total | callees | where confidence = external and name ~ \"s*\"",
        expect![[r#"
            -  method  java.util.Collection#stream()      call external src/main/java/com/acme/shop/Order.java:118:22
            -  method  java.util.stream.LongStream#sum()  call external src/main/java/com/acme/shop/Order.java:120:18
        "#]],
    );
    check(
        "types in com.acme.shop | where annotation = FunctionalInterface or modifier = sealed",
        expect![[r#"
            src/main/java/com/acme/shop/Shape.java:9  interface  com.acme.shop.Shape
        "#]],
    );
    check(
        "fields in com.acme.shop | where type = java.lang.String | limit 2",
        expect![[r#"
            src/main/java/com/acme/shop/Lager.java:16  field  com.acme.shop.Lager#label
            src/main/java/com/acme/shop/Lager.java:17  field  com.acme.shop.Lager#tag
        "#]],
    );
}

#[test]
fn evaluation_errors_point_at_the_part_and_suggest() {
    check(
        "src/main/java/com/acme/shop/Ordr.java:3 | callers",
        expect![[r#"
            refscope: query: column 1: src/main/java/com/acme/shop/Ordr.java is not a file of revision worktree:f167d1b5d3e9a4f178fbf626c1c89fd65908d939; give a repository-relative path of an indexed .java file; did you mean 'src/main/java/com/acme/shop/Order.java'?
              src/main/java/com/acme/shop/Ordr.java:3 | callers
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        "#]],
    );
    check(
        "Order.java:3",
        expect![[r#"
            refscope: query: column 1: Order.java is not a file of revision worktree:f167d1b5d3e9a4f178fbf626c1c89fd65908d939; give a repository-relative path of an indexed .java file; did you mean 'src/main/java/com/acme/shop/Order.java'?
              Order.java:3
              ^^^^^^^^^^^^
        "#]],
    );
    check(
        "com.acme.shop.Mony | members",
        expect![[r#"
            refscope: query: column 1: no element com.acme.shop.Mony in revision worktree:f167d1b5d3e9a4f178fbf626c1c89fd65908d939; check the id: `refscope at FILE:LINE --json` prints the ids of a line; did you mean 'com.acme.shop.Money'?
              com.acme.shop.Mony | members
              ^^^^^^^^^^^^^^^^^^
        "#]],
    );
    check(
        "mehtods",
        expect![[r#"
            refscope: query: column 1: no element mehtods in revision worktree:f167d1b5d3e9a4f178fbf626c1c89fd65908d939; check the id: `refscope at FILE:LINE --json` prints the ids of a line; did you mean 'methods'?
              mehtods
              ^^^^^^^
        "#]],
    );
    check(
        "at v9 com.acme.shop.Money",
        expect![[r#"
            refscope: query: column 4: revision v9 is not indexed in store $STORE; run `refscope index --rev v9` first
              at v9 com.acme.shop.Money
                 ^^
        "#]],
    );
}

/// Writes `files` into the work tree of `repo`, commits, and tags the
/// commit.
fn commit(repo: &git2::Repository, files: &[(&str, &str)], tag: &str) {
    let root = repo.workdir().unwrap().to_path_buf();
    let mut index = repo.index().unwrap();
    for (path, text) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let signature = git2::Signature::now("Test", "test@example.com").unwrap();
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    let id = repo
        .commit(
            Some("HEAD"),
            &signature,
            &signature,
            tag,
            &tree,
            &parent_refs,
        )
        .unwrap();
    repo.tag_lightweight(tag, &repo.find_object(id, None).unwrap(), false)
        .unwrap();
}

const SHOP_V1: &str = "package com.acme;

public class Shop {
    int size() {
        return 1;
    }

    void ping() {
        pong();
    }

    void pong() {
        ping();
    }

    void gone() {
        size();
    }

    void stays() {
        size();
    }
}
";

const SHOP_V2: &str = "package com.acme;

public class Shop {
    // Pushes everything down: moved methods are not changed ones.

    int size() {
        return 2;
    }

    void ping() {
        pong();
    }

    void pong() {
        ping();
    }

    public void stays() {
        size();
    }

    void fresh() {
        stays();
    }
}
";

#[test]
fn revisions_changes_and_cycles_in_a_git_repository() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let source = Source::open(dir.path()).unwrap();
    let store = Store::open(&dir.path().join(".git/refscope")).unwrap();
    for (text, tag) in [(SHOP_V1, "v1"), (SHOP_V2, "v2")] {
        commit(&repo, &[("src/com/acme/Shop.java", text)], tag);
        let revision = source
            .resolve_revision(Some(tag), &SourceLimits::default())
            .unwrap();
        Indexer::new(
            &store,
            IndexConfig {
                jdk: Some(JdkTypes::read(refscope_test_support::jdk_stub_home()).unwrap()),
                ..IndexConfig::default()
            },
        )
        .index(&source, &revision, &mut |_| {})
        .unwrap();
    }
    let snapshot = Snapshot::new(
        &store,
        Snapshot::pick_revision(&store, Some(&source), None).unwrap(),
    )
    .unwrap();
    let evaluator = Evaluator::new(&store, Some(&source), snapshot);
    // Temporary paths and commit ids change from run to run.
    let head_commit = evaluator.snapshot().revision().name.clone();
    let repo_path = dir.path().display().to_string();
    let check = |query: &str, expect: Expect| {
        let answer = answer_with(&evaluator, query, false)
            .replace(&head_commit, "$V2")
            .replace(&repo_path, "$REPO");
        expect.assert_eq(&answer)
    };

    check(
        "changed v1..v2",
        expect![[r#"
            src/com/acme/Shop.java:3   class   com.acme.Shop          body_changed
            src/com/acme/Shop.java:22  method  com.acme.Shop#fresh()  added
            src/com/acme/Shop.java:16  method  com.acme.Shop#gone()   removed
            src/com/acme/Shop.java:6   method  com.acme.Shop#size()   body_changed
            src/com/acme/Shop.java:18  method  com.acme.Shop#stays()  signature_changed
        "#]],
    );
    check(
        "changed v1.. | where change = body_changed or change = signature_changed",
        expect![[r#"
            src/com/acme/Shop.java:3   class   com.acme.Shop          body_changed
            src/com/acme/Shop.java:6   method  com.acme.Shop#size()   body_changed
            src/com/acme/Shop.java:18  method  com.acme.Shop#stays()  signature_changed
        "#]],
    );
    // Callers that went away between v1 and v2.
    check(
        "(at v1 com.acme.Shop#size | callers) except (com.acme.Shop#size | callers)",
        expect![[r#"
            src/com/acme/Shop.java:16  method  com.acme.Shop#gone()  call exact src/com/acme/Shop.java:17:9
        "#]],
    );
    check(
        "com.acme.Shop#gone",
        expect![[r#"
            refscope: query: column 1: no element com.acme.Shop#gone in revision $V2; check the id: `refscope at FILE:LINE --json` prints the ids of a line; did you mean 'com.acme.Shop#pong()'?
              com.acme.Shop#gone
              ^^^^^^^^^^^^^^^^^^
        "#]],
    );
    check(
        "at v1 com.acme.Shop#gone",
        expect![[r#"
            src/com/acme/Shop.java:16  method  com.acme.Shop#gone()
        "#]],
    );
    // ping and pong call each other: the walk ends, each once.
    check(
        "com.acme.Shop#ping | callers depth 50",
        expect![[r#"
            src/com/acme/Shop.java:14  method  com.acme.Shop#pong()  call exact src/com/acme/Shop.java:15:9
            src/com/acme/Shop.java:10  method  com.acme.Shop#ping()  call exact src/com/acme/Shop.java:11:9  depth 2
        "#]],
    );
    check(
        "com.acme.Shop#fresh | callees depth 3",
        expect![[r#"
            src/com/acme/Shop.java:18  method  com.acme.Shop#stays()  call exact src/com/acme/Shop.java:23:9
            src/com/acme/Shop.java:6   method  com.acme.Shop#size()   call exact src/com/acme/Shop.java:19:9  depth 2
        "#]],
    );
    check(
        "changed v2..nope",
        expect![[r#"
            refscope: query: column 13: revision 'nope' not found in $REPO/: check the name with `git rev-parse nope`
              changed v2..nope
                          ^^^^
        "#]],
    );
    // One evaluator answers many queries (the batch mode's loop).
    let answers: Vec<usize> = ["com.acme.Shop | members", "com.acme.Shop | members | count"]
        .iter()
        .map(|q| run(&evaluator, q).unwrap().rows.len())
        .collect();
    assert_eq!(answers, [5, 5]);
}
