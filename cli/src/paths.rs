//! The paths `index`, `watch` and `lsp` leave out: `--include` and
//! `--exclude` globs, and the `[index]` table of a `refscope.toml` at the
//! top of the tree (see docs/indexing.md, "Leaving paths out").

use std::path::Path;

use anyhow::{Context, Result};
use refscope_engine::PathFilter;
use serde::Deserialize;

/// The file that holds a tree's settings, at its top.
pub(crate) const CONFIG_FILE: &str = "refscope.toml";

/// `--include` and `--exclude`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PathArgs {
    /// Index only the Java files whose path (from the top of the tree,
    /// `/` between directories) matches GLOB: `*` within a directory,
    /// `**` across them; may be repeated.
    #[arg(long = "include", value_name = "GLOB")]
    include: Vec<String>,
    /// Leave out the files whose path matches GLOB, and the directories
    /// it matches whole (`vendor/**`, `**/generated/**`); may be repeated.
    #[arg(long = "exclude", value_name = "GLOB")]
    exclude: Vec<String>,
}

/// A `refscope.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    index: IndexTable,
}

/// Its `[index]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexTable {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

impl PathArgs {
    /// The paths indexed under `root`: the globs of its `refscope.toml`,
    /// if it has one, and these.
    pub(crate) fn filter(&self, root: &Path) -> Result<PathFilter> {
        let config = read_config(root)?;
        let include: Vec<String> = config
            .index
            .include
            .into_iter()
            .chain(self.include.clone())
            .collect();
        let exclude: Vec<String> = config
            .index
            .exclude
            .into_iter()
            .chain(self.exclude.clone())
            .collect();
        PathFilter::new(&include, &exclude).map_err(|e| crate::UsageError(e.to_string()).into())
    }
}

/// The `refscope.toml` at `root`; the default settings without one.
fn read_config(root: &Path) -> Result<Config> {
    let path = root.join(CONFIG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    toml::from_str(&text).map_err(|e| {
        // One line: where, then what (toml's own text quotes the file).
        let at = match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |at| at + 1) + 1;
                format!(" line {line}, column {column}:")
            }
            None => String::new(),
        };
        crate::UsageError(format!("{}:{at} {}", path.display(), e.message())).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(include: &[&str], exclude: &[&str]) -> PathArgs {
        PathArgs {
            include: include.iter().map(|g| g.to_string()).collect(),
            exclude: exclude.iter().map(|g| g.to_string()).collect(),
        }
    }

    #[test]
    fn the_config_files_globs_come_with_the_options() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[index]\nexclude = [\"vendor/**\"]\n",
        )
        .unwrap();
        let filter = args(&[], &["**/generated/**"]).filter(dir.path()).unwrap();
        assert!(!filter.admits("vendor/a/A.java"));
        assert!(!filter.admits("src/generated/G.java"));
        assert!(filter.admits("src/a/A.java"));
        // No file: the options alone.
        let bare = tempfile::tempdir().unwrap();
        assert!(args(&[], &[]).filter(bare.path()).unwrap().is_everything());
    }

    #[test]
    fn a_broken_config_file_is_an_error_naming_it_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[index]\nexclude = [\"vendor/**\"]\nexlude = [\"x\"]\n",
        )
        .unwrap();
        let message = args(&[], &[]).filter(dir.path()).unwrap_err().to_string();
        assert!(message.contains(CONFIG_FILE), "{message}");
        assert!(message.contains("line 3"), "{message}");
        assert!(message.contains("exlude"), "{message}");
    }
}
