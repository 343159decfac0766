//! Finding the repository, the store and the revision a reading command
//! works on, and parsing `FILE:LINE[-END]`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use refscope_engine::{Snapshot, Source, Store};

use crate::{StoreArgs, UsageError};

/// The source and store a reading command uses.
pub struct Opened {
    pub source: Option<Source>,
    pub store: Store,
}

/// Opens the repository (`--repo`, else the one around `hint` or the current
/// directory) and its store (`--store`, else the default location).
pub fn open_for_reading(args: &StoreArgs, hint: Option<&Path>) -> Result<Opened> {
    let start = match (&args.repo, hint) {
        (Some(repo), _) => repo.clone(),
        (None, Some(hint)) if hint.exists() => hint
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from(".")),
        _ => PathBuf::from("."),
    };
    let source = match Source::open(&start) {
        Ok(source) => Some(source),
        Err(e) if args.store.is_some() => {
            // A store given explicitly can be read without its repository.
            let _ = e;
            None
        }
        Err(e) => return Err(e.into()),
    };
    let store_dir = match (&args.store, &source) {
        (Some(dir), _) => dir.clone(),
        (None, Some(source)) => {
            let default = source.default_store_dir();
            // `index --files DIR` inside a repository keeps its store in
            // DIR/.refscope.
            // A plain directory has no `.git` to find upwards: from one of
            // its subdirectories, the nearest `.refscope` above is its store.
            let above = std::fs::canonicalize(&start)
                .ok()
                .filter(|_| matches!(source, Source::Directory { .. }))
                .into_iter()
                .flat_map(|start| {
                    start
                        .ancestors()
                        .skip(1)
                        .map(|dir| dir.join(".refscope"))
                        .collect::<Vec<_>>()
                });
            let beside = [start.join(".refscope"), PathBuf::from(".refscope")]
                .into_iter()
                .chain(above)
                .find(|dir| dir.join("refscope.sqlite").is_file());
            match beside {
                Some(dir) if !default.join("refscope.sqlite").is_file() => dir,
                _ => default,
            }
        }
        (None, None) => unreachable!("a missing source is only tolerated with --store"),
    };
    let store = Store::open_existing(&store_dir)?;
    // A store holding only directory snapshots (`index --files`) was made
    // from the files on disk: read paths against that directory (as
    // recorded at indexing time), not the git repository around it nor
    // the directory of the file named (`at p/A.java:3` from the indexed
    // directory).
    let source = if only_directory_revisions(&store)? {
        let recorded = store
            .revisions()?
            .into_iter()
            .find_map(|r| r.root)
            .map(PathBuf::from)
            .filter(|root| root.is_dir());
        let root = match (&args.repo, recorded, &source) {
            (Some(repo), _, _) => repo.clone(),
            (None, Some(recorded), _) => recorded,
            (None, None, Some(source)) => source.root().to_path_buf(),
            (None, None, None) => PathBuf::from("."),
        };
        Some(Source::open_directory(&root)?)
    } else {
        source
    };
    Ok(Opened { source, store })
}

fn only_directory_revisions(store: &Store) -> Result<bool> {
    let revisions = store.revisions()?;
    Ok(!revisions.is_empty() && revisions.iter().all(|r| r.kind == "worktree"))
}

impl Opened {
    /// The snapshot of `rev`, or of the newest indexed revision of the
    /// current branch.
    pub fn snapshot(&self, rev: Option<&str>) -> Result<Snapshot<'_>> {
        let row = Snapshot::pick_revision(&self.store, self.source.as_ref(), rev)?;
        Ok(Snapshot::new(&self.store, row)?)
    }

    /// A path as given on the command line, made repository-relative.
    pub fn relative_path(&self, given: &str) -> String {
        let Some(source) = &self.source else {
            return given.trim_start_matches("./").to_string();
        };
        let on_disk = Path::new(given);
        if let (Ok(file), Ok(root)) = (
            std::fs::canonicalize(on_disk),
            std::fs::canonicalize(source.root()),
        ) && let Ok(rel) = file.strip_prefix(&root)
        {
            return rel.to_string_lossy().replace('\\', "/");
        }
        given.trim_start_matches("./").to_string()
    }
}

/// `FILE:LINE` or `FILE:START-END`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLines {
    pub file: String,
    pub start: u32,
    pub end: u32,
}

/// Parses `FILE:LINE[-END]`.
pub fn parse_file_lines(text: &str) -> Result<FileLines> {
    let usage = || {
        UsageError(format!(
            "'{text}' is not FILE:LINE or FILE:START-END (e.g. src/A.java:42 or src/A.java:40-55)"
        ))
    };
    let (file, lines) = text.rsplit_once(':').ok_or_else(usage)?;
    if file.is_empty() {
        return Err(usage().into());
    }
    let (start, end) = match lines.split_once('-') {
        Some((a, b)) => (a, b),
        None => (lines, lines),
    };
    let start: u32 = start.trim().parse().map_err(|_| usage())?;
    let end: u32 = end.trim().parse().map_err(|_| usage())?;
    if start == 0 || end < start {
        return Err(UsageError(format!(
            "'{text}': lines count from 1 and the range must not end before it starts"
        ))
        .into());
    }
    Ok(FileLines {
        file: file.to_string(),
        start,
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_single_lines_and_ranges() {
        assert_eq!(
            parse_file_lines("src/A.java:42").unwrap(),
            FileLines {
                file: "src/A.java".into(),
                start: 42,
                end: 42
            }
        );
        assert_eq!(
            parse_file_lines("C:/x/A.java:4-9").unwrap(),
            FileLines {
                file: "C:/x/A.java".into(),
                start: 4,
                end: 9
            }
        );
        for bad in [
            "A.java",
            "A.java:",
            "A.java:x",
            "A.java:0",
            "A.java:9-4",
            ":3",
        ] {
            assert!(parse_file_lines(bad).is_err(), "{bad} should be refused");
        }
    }
}
