//! What refscope's tests share, so that no test writes it again:
//!
//! * [`git`]: a real git repository in a temporary directory, written
//!   commit by commit ([`TestRepo`], [`Change`]);
//! * [`review`]: the review-tool fixture repository (three authors,
//!   renames, a deletion, symbolic links, a binary file);
//! * [`jdk_stub`]: a JDK of the classes the tests' fixtures use, so that
//!   no test depends on the JDK installed;
//! * [`paths`]: where the workspace, the fixtures and the golden exports
//!   are.
//!
//! ```
//! use refscope_test_support::TestRepo;
//!
//! let repo = TestRepo::new();
//! let first = repo.commit(&[("src/p/A.java", "package p; class A {}")], "one");
//! assert_eq!(first.len(), 40);
//! ```

#![forbid(unsafe_code)]

pub mod git;
pub mod jdk_stub;
pub mod paths;
pub mod review;

pub use git::{Author, Change, TestRepo, commit, commit_as};
pub use jdk_stub::{jar, jdk_stub_home};
