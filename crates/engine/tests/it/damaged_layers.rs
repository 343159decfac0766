//! A parent revision whose dependency index cannot be read is never
//! trusted: the next commit is indexed from scratch, with a notice, and
//! writes whole layers that later commits build on again.

use std::io::{Seek, SeekFrom, Write};

use refscope_engine::{Indexer, Progress, Source, SourceLimits, Store};

use crate::common::{commit, config};

const STOCK: &str = "package p;
public class Stock {
    public int take(int n) {
        return n;
    }
}
";

const SHOP: &str = "package p;
class Shop {
    int order(Stock stock) {
        return stock.take(1);
    }
}
";

/// Indexes HEAD of `dir`; the summary and the notices reported.
fn index_noting(
    dir: &std::path::Path,
    store: &Store,
) -> (refscope_engine::IndexSummary, Vec<String>) {
    let source = Source::open(dir).unwrap();
    let revision = source
        .resolve_revision(None, &SourceLimits::default())
        .unwrap();
    let mut notices = Vec::new();
    let summary = Indexer::new(store, config())
        .index(&source, &revision, &mut |event| {
            if let Progress::Notice(notice) = event {
                notices.push(notice);
            }
        })
        .unwrap();
    (summary, notices)
}

#[test]
fn a_damaged_dependency_index_is_rebuilt_with_a_notice() {
    let work = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(work.path()).unwrap();
    let store_dir = work.path().join(".git/refscope");
    let store = Store::open(&store_dir).unwrap();
    let first = commit(
        &repo,
        &[("src/p/Stock.java", STOCK), ("src/p/Shop.java", SHOP)],
        &[],
        "two",
    );
    let (summary, notices) = index_noting(work.path(), &store);
    assert_eq!(summary.revision, first);
    assert!(notices.is_empty(), "{notices:?}");

    // Overwrite the middle of the first revision's dependency index.
    let (offset, len): (i64, i64) = rusqlite::Connection::open(store_dir.join("refscope.sqlite"))
        .unwrap()
        .query_row(
            "SELECT lookups_offset, lookups_len FROM revisions WHERE name = ?1",
            [&first],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(len > 8, "a dependency index of {len} bytes");
    let mut pack = std::fs::OpenOptions::new()
        .write(true)
        .open(store.pack_path())
        .unwrap();
    pack.seek(SeekFrom::Start((offset + len / 2) as u64))
        .unwrap();
    pack.write_all(&[0xA5; 4]).unwrap();
    drop(pack);

    let body = STOCK.replace("return n;", "return n + 0;");
    commit(&repo, &[("src/p/Stock.java", &body)], &[], "body");
    let (summary, notices) = index_noting(work.path(), &store);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains(&first) && notices[0].contains("indexing every file"),
        "{notices:?}"
    );
    assert_eq!((summary.n_resolved, summary.dirty), (2, None));

    // The revision indexed from scratch wrote whole layers: the next
    // commit is a layer over it again.
    let signature = body.replace("int take(int n)", "long take(int n)");
    commit(&repo, &[("src/p/Stock.java", &signature)], &[], "signature");
    let (next, notices) = index_noting(work.path(), &store);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(next.parent.as_deref(), Some(summary.revision.as_str()));
    assert_eq!(
        next.dirty,
        Some(vec![
            "src/p/Shop.java".to_string(),
            "src/p/Stock.java".to_string()
        ])
    );
}
