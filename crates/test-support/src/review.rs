//! A real git repository for the review-tool tests, built commit by commit
//! with libgit2: three authors, a rename, a file deleted at the revision
//! under review, symbolic links inside and out, a binary file, and a base
//! revision whose diff to the revision is known line by line.
//!
//! History (first parent only):
//! 1. Alice: `Order.java` (30 lines), `Legacy.java`, `Old.java`,
//!    `Money.java`, `README.md`.
//! 2. Bob: renames `Old.java` to `Renamed.java` and changes its line 3;
//!    changes `Order.java` line 5. This is the **base**.
//! 3. Carol: changes `Order.java` lines 20-21, renames `Money.java` to
//!    `Amount.java` and changes its line 2, adds `Added.java`, deletes
//!    `Legacy.java`, adds `logo.png` (binary), the symbolic links
//!    `src/alias` (→ `main`, inside) and `escape` (→ `../outside`), and the
//!    loop `loop/a` ↔ `loop/b`. This is the **revision**.

use std::path::{Path, PathBuf};

use crate::git::{Author, Change, commit_as};

/// The directory of the Java files.
pub const JAVA_DIR: &str = "src/main/java/com/acme";
/// `Order.java`: 30 lines, line N reads `// line N` except the changed ones.
pub const ORDER: &str = "src/main/java/com/acme/Order.java";
/// Renamed from `OLD` by Bob.
pub const RENAMED: &str = "src/main/java/com/acme/Renamed.java";
/// `RENAMED`'s path before Bob's commit.
pub const OLD: &str = "src/main/java/com/acme/Old.java";
/// Deleted by Carol, so absent at the revision.
pub const LEGACY: &str = "src/main/java/com/acme/Legacy.java";
/// Renamed by Carol to `AMOUNT`, with its line 2 changed: a rename inside
/// the diff under review.
pub const MONEY: &str = "src/main/java/com/acme/Money.java";
/// `MONEY`'s path at the revision.
pub const AMOUNT: &str = "src/main/java/com/acme/Amount.java";
/// Added by Carol: 4 lines.
pub const ADDED: &str = "src/main/java/com/acme/Added.java";

/// The fixture repository and its three commits.
pub struct ReviewRepo {
    pub dir: tempfile::TempDir,
    /// Alice's commit.
    pub first: String,
    /// Bob's commit: the base.
    pub base: String,
    /// Carol's commit: the revision under review.
    pub revision: String,
}

/// `Order.java` with these lines replaced.
fn order_java(changed: &[(u32, &str)]) -> Vec<u8> {
    let mut text = String::new();
    for line in 1..=30 {
        match changed.iter().find(|(number, _)| *number == line) {
            Some((_, content)) => text.push_str(content),
            None => text.push_str(&format!("// line {line}")),
        }
        text.push('\n');
    }
    text.into_bytes()
}

/// `Money.java` with this field line: 8 lines, similar enough to be found
/// as a rename whatever the field.
fn money_java(field: &str) -> Vec<u8> {
    format!(
        "class Money {{\n{field}\n  String currency;\n  Money add(Money other) {{\n    return this;\n  }}\n  // end\n}}\n"
    )
    .into_bytes()
}

impl ReviewRepo {
    /// Builds the repository in a fresh temporary directory.
    pub fn build() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let old_java = b"class Old {\n  int a;\n  int b;\n  int c;\n}\n";
        let order = order_java(&[]);
        let money = money_java("  long cents;");
        let first = commit_as(
            &repo,
            &author("Alice", "alice@example.com", 1_700_000_000, 60),
            &[
                Change::Write(ORDER, &order),
                Change::Write(LEGACY, b"class Legacy {}\n"),
                Change::Write(OLD, old_java),
                Change::Write(MONEY, &money),
                Change::Write("README.md", b"# shop\n"),
            ],
            "Order, Legacy and Old",
        );
        let order = order_java(&[(5, "// line 5 by Bob")]);
        let base = commit_as(
            &repo,
            &author("Bob", "bob@example.com", 1_710_000_000, -300),
            &[
                Change::Delete(OLD),
                Change::Write(RENAMED, b"class Old {\n  int a;\n  long b;\n  int c;\n}\n"),
                Change::Write(ORDER, &order),
            ],
            "Rename Old to Renamed\n\nAnd fix b.",
        );
        let order = order_java(&[
            (5, "// line 5 by Bob"),
            (20, "// line 20 by Carol"),
            (21, "// line 21 by Carol"),
        ]);
        let amount = money_java("  java.math.BigDecimal cents;");
        let revision = commit_as(
            &repo,
            &author("Carol", "carol@example.com", 1_720_000_000, 0),
            &[
                Change::Write(ORDER, &order),
                Change::Delete(MONEY),
                Change::Write(AMOUNT, &amount),
                Change::Write(ADDED, b"class Added {\n  void run() {\n  }\n}\n"),
                Change::Delete(LEGACY),
                Change::Write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0binary"),
                Change::Symlink("src/alias", "main"),
                Change::Symlink("escape", "../outside"),
                Change::Symlink("loop/a", "b"),
                Change::Symlink("loop/b", "a"),
            ],
            "Carol's change under review",
        );
        Self {
            dir,
            first,
            base,
            revision,
        }
    }

    /// The repository's work tree.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The work tree as an owned path.
    pub fn path_buf(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

/// A fixed author and time, so that commit ids are the same on every run.
fn author<'a>(name: &'a str, email: &'a str, seconds: i64, offset: i32) -> Author<'a> {
    Author {
        name,
        email,
        time: Some((seconds, offset)),
    }
}
