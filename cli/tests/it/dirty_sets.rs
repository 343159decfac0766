//! Which files a commit indexed over its parent resolves again, for each
//! shape of commit: exactly the dirty set — the changed files, and the
//! files whose recorded lookups touch a name whose declaration changed
//! (when only a class's members changed, those of them that spell a
//! changed member's name).
//! Every expected set below is derived by hand from the sources, and
//! every revision must export what a from-scratch index exports.

use refscope_test_support::Change;

use crate::common::{TestRepo, export_from_scratch, export_revision, run};

const STOCK: &str = "package p;
public class Stock {
    public int take(String item, int n) {
        return n;
    }

    public int left(String item) {
        return 0;
    }
}
";

const SHOP: &str = "package p;
public class Shop {
    private final Stock stock = new Stock();

    public int order(String item, int n) {
        return stock.take(item, n);
    }

    long at() {
        return new Clock().now();
    }
}
";

const CLOCK: &str = "package p;
class Clock {
    long now() {
        return System.currentTimeMillis();
    }
}
";

/// Uses `List` through an on-demand import, so a class `q.List` added
/// beside it shadows `java.util.List`.
const AUDIT: &str = "package q;

import java.util.*;
import p.Stock;

class Audit {
    private final List<String> seen = new ArrayList<>();

    int check(Stock stock) {
        seen.add(\"x\");
        return Util.twice(stock.left(\"x\"));
    }
}
";

/// Looks up simple names of its own package too (`String`, `Object`), but
/// never `List`.
const UTIL: &str = "package q;
class Util {
    static int twice(int n) {
        return 2 * n;
    }

    static String name(Object o) {
        return String.valueOf(o);
    }
}
";

const PLAIN: &str = "package q;
class Plain {
    int one() {
        return 1;
    }
}
";

const LIST: &str = "package q;
public class List<T> {
    public boolean add(T item) {
        return true;
    }
}
";

/// An interface whose method a lambda implements without naming it.
const JOB: &str = "package q;
public interface Job {
    int run();
}
";

const WORKER: &str = "package q;
class Worker {
    Job job = () -> 1;
}
";

/// What `index --json` says of one revision: its parent and dirty set.
fn index_json(repo: &TestRepo, store: &str, rev: &str) -> serde_json::Value {
    let out = run(
        repo.path(),
        &["index", "--rev", rev, "--store", store, "--json"],
    )
    .ok();
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn dirty_of(summary: &serde_json::Value) -> Vec<String> {
    summary["dirty"]
        .as_array()
        .unwrap_or_else(|| panic!("no dirty set: {summary}"))
        .iter()
        .map(|path| path.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_commit_shape_resolves_exactly_its_dirty_set() {
    let repo = TestRepo::new();
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path().to_str().unwrap();
    let base = repo.commit(
        &[
            ("src/p/Stock.java", STOCK),
            ("src/p/Shop.java", SHOP),
            ("src/p/Clock.java", CLOCK),
            ("src/q/Audit.java", AUDIT),
            ("src/q/Util.java", UTIL),
            ("src/q/Plain.java", PLAIN),
            ("src/q/Job.java", JOB),
            ("src/q/Worker.java", WORKER),
        ],
        "eight files",
    );
    let first = index_json(&repo, store, &base);
    assert_eq!(first["dirty"], serde_json::Value::Null, "{first}");
    assert_eq!(first["resolved"], 8, "{first}");
    // What each file looked up, as `dependents` reads it from the units:
    // only Audit tried q.List (through its on-demand import); p.Stock was
    // named by Shop and Audit, and declared by Stock itself.
    let dependents = |name: &str| {
        run(
            repo.path(),
            &["dependents", name, "--rev", &base, "--store", store],
        )
        .ok()
    };
    assert_eq!(dependents("q.List"), "src/q/Audit.java\n");
    assert_eq!(
        dependents("p.Stock"),
        "src/p/Shop.java\nsrc/p/Stock.java\nsrc/q/Audit.java\n"
    );
    assert_eq!(dependents("q.Nothing"), "");

    let stock_long_body = STOCK.replace("return n;", "int asked = n;\n        return asked;");
    // A member appended: no other member's signature ordinal moves.
    let stock_with_count = format!(
        "{}    public int count;\n}}\n",
        stock_long_body.trim_end().strip_suffix('}').unwrap()
    );
    let stock_new_signature =
        stock_with_count.replace("left(String item)", "left(CharSequence item)");
    let stock_serializable = stock_new_signature.replace(
        "public class Stock {",
        "public class Stock implements java.io.Serializable {",
    );
    let job_renamed = JOB.replace("run()", "go()");
    let list_in_r = LIST.replace("package q;", "package r;");
    let shapes: Vec<(&str, Vec<Change<'_>>, Vec<&str>)> = vec![
        (
            // No declaration changes: only the file itself.
            "body edit",
            vec![Change::write("src/p/Stock.java", &stock_long_body)],
            vec!["src/p/Stock.java"],
        ),
        (
            // p.Stock gains a field no file names: Shop and Audit looked
            // p.Stock up, but neither spells `count`.
            "member added that no file names",
            vec![Change::write("src/p/Stock.java", &stock_with_count)],
            vec!["src/p/Stock.java"],
        ),
        (
            // Only Stock.left changes: Audit calls it; Shop looked p.Stock
            // up too, but only calls `take`.
            "signature change",
            vec![Change::write("src/p/Stock.java", &stock_new_signature)],
            vec!["src/p/Stock.java", "src/q/Audit.java"],
        ),
        (
            // p.Stock's supertypes change: every file that looked it up
            // (Shop: field and call; Audit: import, parameter), whatever
            // it names; Clock, Util, Plain did not look it up.
            "supertypes change",
            vec![Change::write("src/p/Stock.java", &stock_serializable)],
            vec!["src/p/Shop.java", "src/p/Stock.java", "src/q/Audit.java"],
        ),
        (
            // An interface's method is renamed: Worker's lambda implements
            // it without spelling either name.
            "interface method renamed",
            vec![Change::write("src/q/Job.java", &job_renamed)],
            vec!["src/q/Job.java", "src/q/Worker.java"],
        ),
        (
            // q.List now exists: Audit looked it up (and fell through to
            // java.util.*); Util and Plain never named List.
            "class added that shadows an imported name",
            vec![Change::write("src/q/List.java", LIST)],
            vec!["src/q/Audit.java", "src/q/List.java"],
        ),
        (
            // q.Util is gone: Audit called it.
            "delete",
            vec![Change::Delete("src/q/Util.java")],
            vec!["src/q/Audit.java"],
        ),
        (
            // p.Clock is declared as before, in another file: Shop's unit
            // records the file each of its targets is declared in, so Shop
            // is resolved again; nothing else named p.Clock.
            "rename",
            vec![
                Change::Delete("src/p/Clock.java"),
                Change::write("src/p/Timer.java", CLOCK),
            ],
            vec!["src/p/Shop.java", "src/p/Timer.java"],
        ),
        (
            // q.List is removed (Audit looked it up) and r.List added (no
            // file looked it up).
            "move between packages",
            vec![
                Change::Delete("src/q/List.java"),
                Change::write("src/r/List.java", &list_in_r),
            ],
            vec!["src/q/Audit.java", "src/r/List.java"],
        ),
    ];
    let mut parent = base;
    for (shape, changes, expected) in shapes {
        let commit = repo.commit_changes(&changes, shape);
        let summary = index_json(&repo, store, &commit);
        assert_eq!(summary["parent"], parent.as_str(), "{shape}: {summary}");
        assert_eq!(dirty_of(&summary), expected, "{shape}: {summary}");
        assert_eq!(
            export_revision(repo.path(), store_dir.path(), &commit),
            export_from_scratch(repo.path(), &commit),
            "{shape}"
        );
        parent = commit;
    }
}
