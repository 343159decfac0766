//! Which paths of a tree are indexed: globs of paths to include and to
//! exclude (`index --include/--exclude`, and the repository's
//! `refscope.toml`), so that generated or vendored trees stay out.
//!
//! A glob is matched against a file's path relative to the root, with `/`
//! between its parts: `*` and `?` stay within one part, `**` crosses them
//! (`vendor/**`, `**/generated/**`, `**/*Test.java`). A file is indexed
//! when it matches an include glob (or none is given) and no exclude glob.
//! A directory that an exclude glob matches, as itself or with a `/` after
//! it, is not entered at all.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::Error;

/// The paths of a tree that are indexed.
#[derive(Debug, Clone, Default)]
pub struct PathFilter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    /// The globs, as given: (include, exclude).
    globs: (Vec<String>, Vec<String>),
}

impl PathFilter {
    /// Files that match one of `include` (every file when it is empty)
    /// and none of `exclude`. A glob that does not parse is an error
    /// naming it.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, Error> {
        Ok(Self {
            include: glob_set(include)?,
            exclude: glob_set(exclude)?,
            globs: (include.to_vec(), exclude.to_vec()),
        })
    }

    /// Whether every path is indexed.
    pub fn is_everything(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    /// Whether the file at `path` is indexed.
    pub fn admits(&self, path: &str) -> bool {
        self.include.as_ref().is_none_or(|set| set.is_match(path))
            && !self.exclude.as_ref().is_some_and(|set| set.is_match(path))
    }

    /// Whether the directory at `path` (without a `/` at the end) may
    /// hold files that are indexed: false when it is excluded whole.
    pub fn enters(&self, path: &str) -> bool {
        !self
            .exclude
            .as_ref()
            .is_some_and(|set| set.is_match(path) || set.is_match(format!("{path}/")))
    }

    /// The globs (include, exclude) as given.
    pub fn globs(&self) -> (&[String], &[String]) {
        (&self.globs.0, &self.globs.1)
    }
}

fn glob_set(globs: &[String]) -> Result<Option<GlobSet>, Error> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        let built = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::BadGlob {
                glob: glob.clone(),
                message: e.kind().to_string(),
            })?;
        set.add(built);
    }
    set.build().map(Some).map_err(|e| Error::BadGlob {
        glob: globs.join(", "),
        message: e.kind().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(include: &[&str], exclude: &[&str]) -> PathFilter {
        let strings = |globs: &[&str]| globs.iter().map(|g| g.to_string()).collect::<Vec<_>>();
        PathFilter::new(&strings(include), &strings(exclude)).unwrap()
    }

    #[test]
    fn no_glob_admits_every_file() {
        let all = PathFilter::default();
        assert!(all.is_everything());
        assert!(all.admits("a/b/C.java"));
        assert!(all.enters("a/b"));
    }

    #[test]
    fn excluded_trees_are_neither_indexed_nor_entered() {
        let f = filter(&[], &["vendor/**", "**/generated/**", "**/*Test.java"]);
        assert!(!f.is_everything());
        assert!(f.admits("src/a/A.java"));
        assert!(!f.admits("vendor/lib/B.java"));
        assert!(!f.admits("src/generated/G.java"));
        assert!(!f.admits("generated/G.java"));
        assert!(!f.admits("src/a/ATest.java"));
        assert!(!f.enters("vendor"));
        assert!(!f.enters("src/main/generated"));
        assert!(f.enters("src"));
        // `*` stays within one part of a path.
        let one_level = filter(&[], &["src/*.java"]);
        assert!(!one_level.admits("src/A.java"));
        assert!(one_level.admits("src/a/A.java"));
        // A directory that only some of its files' globs exclude is entered.
        assert!(one_level.enters("src"));
    }

    #[test]
    fn includes_narrow_and_excludes_win() {
        let f = filter(&["src/main/**"], &["src/main/java/gen/**"]);
        assert!(f.admits("src/main/java/a/A.java"));
        assert!(!f.admits("src/test/java/a/ATest.java"));
        assert!(!f.admits("src/main/java/gen/G.java"));
        // Includes never keep a directory from being entered: a file
        // deeper down may match.
        assert!(f.enters("src/test"));
    }

    #[test]
    fn a_glob_that_does_not_parse_is_named() {
        let e = PathFilter::new(&[], &["src/[a-".to_string()]).unwrap_err();
        let message = e.to_string();
        assert!(message.contains("src/[a-"), "{message}");
    }
}
