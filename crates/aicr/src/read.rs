//! What the review tools read of a revision, in the words both backends
//! (git, `repository.rs`; Subversion, `svn.rs`) answer in: a file found
//! at the revision, why a requested path cannot be read, a line attributed
//! to the commit that last changed it; and the rules a requested path
//! obeys before anything is read: relative, `/`-separated, free of `..`,
//! symbolic links followed only while they stay inside the repository.

use std::path::Path;

use serde::Serialize;

/// Why a requested path cannot be read. Each says to stop retrying the
/// path, since asking again cannot change the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathProblem {
    /// Not a relative `/`-separated path inside the repository.
    Malformed(&'static str),
    /// A symbolic link on the way leads out of the repository.
    SymlinkLeadsOut(String),
    /// Symbolic links refer to each other without end.
    SymlinkLoop,
    /// Nothing at this path at the revision.
    Missing,
    /// A directory, not a file.
    Directory,
    /// The repository could not be read (Subversion: the server or the
    /// client failed).
    Unreadable(String),
}

/// A file found at the revision.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedFile {
    /// Its path after following symbolic links.
    pub path: String,
    /// Its content.
    pub content: Content,
}

/// Where a resolved file's bytes are.
#[derive(Debug, Clone)]
pub(crate) enum Content {
    /// A git blob, read when asked for.
    Blob(git2::Oid),
    /// Bytes read already (Subversion reads a file to resolve it).
    Bytes(Vec<u8>),
}

/// The longest chain of symbolic links followed for one path.
pub(crate) const MAX_SYMLINK_HOPS: usize = 32;

/// The components that `components` stands for once the symbolic link at
/// `index`, pointing at `target`, is followed; an error when it leads out
/// of the repository.
pub(crate) fn linked_components(
    components: &[String],
    index: usize,
    target: &str,
) -> Result<Vec<String>, PathProblem> {
    let linked = components[..index].join("/");
    Ok(follow_symlink(&components[..index], target)
        .ok_or_else(|| {
            PathProblem::SymlinkLeadsOut(format!(
                "{}{}{} -> {target}",
                linked,
                if linked.is_empty() { "" } else { "/" },
                components[index]
            ))
        })?
        .into_iter()
        .chain(components[index + 1..].iter().cloned())
        .collect())
}

/// Who last changed one line.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BlamedLine {
    /// Line number at the task's revision.
    pub line: u32,
    /// The commit that last changed the line.
    pub revision: String,
    /// Its author's name.
    pub author: String,
    /// Its author's e-mail address.
    pub author_email: String,
    /// Its author time, RFC 3339 with the author's UTC offset.
    pub author_time: String,
    /// The first line of its message.
    pub summary: String,
    /// The file's path in that commit, when the file was renamed since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_path: Option<String>,
}

/// What one commit contributes to every line it is blamed for.
#[derive(Debug, Clone)]
pub(crate) struct CommitFacts {
    pub author: String,
    pub author_email: String,
    pub author_time: String,
    pub summary: String,
}

impl PathProblem {
    /// The message for the caller: what is wrong with `requested`, and that
    /// retrying it is pointless.
    pub fn message(&self, requested: &str, revision: &str) -> String {
        let what = match self {
            Self::Malformed(rule) => format!("path `{requested}` {rule}"),
            Self::SymlinkLeadsOut(link) => format!(
                "path `{requested}` leads out of the repository through the symbolic link {link}"
            ),
            Self::SymlinkLoop => {
                format!("path `{requested}` runs into a loop of symbolic links")
            }
            Self::Missing => {
                format!("path `{requested}` does not exist at revision {revision}")
            }
            Self::Directory => format!("path `{requested}` is a directory at revision {revision}"),
            Self::Unreadable(message) => {
                return format!("cannot read `{requested}` at revision {revision}: {message}");
            }
        };
        format!("{what}; stop retrying this path and name a file of the repository at the revision")
    }
}

/// The longest requested path looked at (as Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// `requested` as a plain repository path (`./` and doubled `/` dropped),
/// or why it is not a relative path inside the repository.
pub(crate) fn normalized_path(requested: &str) -> Result<String, PathProblem> {
    checked_components(requested).map(|components| components.join("/"))
}

/// The components of a requested path, or why it is not a relative
/// repository path. `.` and empty components are dropped.
pub(crate) fn checked_components(requested: &str) -> Result<Vec<String>, PathProblem> {
    let bytes = requested.as_bytes();
    if bytes.len() > MAX_PATH_BYTES {
        return Err(PathProblem::Malformed(
            "is longer than 4 KiB; no file of a repository has such a path",
        ));
    }
    if requested.starts_with('/') {
        return Err(PathProblem::Malformed(
            "is absolute; give it relative to the repository root",
        ));
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(PathProblem::Malformed(
            "is an absolute Windows path; give it relative to the repository root",
        ));
    }
    if requested.contains('\\') {
        return Err(PathProblem::Malformed(
            "contains '\\'; separate directories with '/'",
        ));
    }
    if requested.contains('\0') {
        return Err(PathProblem::Malformed("contains a NUL character"));
    }
    let components: Vec<String> = requested
        .split('/')
        .filter(|component| !component.is_empty() && *component != ".")
        .map(str::to_string)
        .collect();
    if components.iter().any(|component| component == "..") {
        return Err(PathProblem::Malformed(
            "contains '..'; paths must stay inside the repository",
        ));
    }
    if components.is_empty() {
        return Err(PathProblem::Malformed("names no file"));
    }
    Ok(components)
}

/// The components a symbolic link in directory `parent` pointing at `target`
/// stands for, or `None` when it leads out of the repository.
fn follow_symlink(parent: &[String], target: &str) -> Option<Vec<String>> {
    if target.starts_with('/') || Path::new(target).is_absolute() {
        return None;
    }
    let mut components = parent.to_vec();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                components.pop()?;
            }
            part => components.push(part.to_string()),
        }
    }
    Some(components)
}

/// Whether bytes look binary the way git decides it: a NUL in the first
/// 8000 bytes.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8000).any(|byte| *byte == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_paths_are_checked_before_the_tree_is_read() {
        let table: &[(&str, Result<&[&str], &str>)] = &[
            ("src/A.java", Ok(&["src", "A.java"])),
            ("./src//A.java", Ok(&["src", "A.java"])),
            ("/etc/passwd", Err("absolute")),
            ("C:/x/A.java", Err("absolute Windows")),
            ("src\\A.java", Err("'\\'")),
            ("src/../../A.java", Err("'..'")),
            ("..", Err("'..'")),
            ("", Err("names no file")),
            ("./", Err("names no file")),
            ("src/A\0.java", Err("NUL")),
        ];
        let too_long = format!("src/{}.java", "a".repeat(4100));
        assert!(matches!(
            checked_components(&too_long),
            Err(PathProblem::Malformed(rule)) if rule.contains("4 KiB")
        ));
        for (requested, expected) in table {
            let actual = checked_components(requested);
            match (expected, &actual) {
                (Ok(components), Ok(actual)) => assert_eq!(actual, components, "{requested}"),
                (Err(rule), Err(PathProblem::Malformed(actual))) => {
                    assert!(actual.contains(rule), "{requested}: {actual}")
                }
                _ => panic!("{requested}: expected {expected:?}, got {actual:?}"),
            }
        }
    }

    #[test]
    fn symlinks_resolve_inside_the_repository_only() {
        let parent = vec!["src".to_string(), "main".to_string()];
        assert_eq!(
            follow_symlink(&parent, "../shared/B.java"),
            Some(vec!["src".into(), "shared".into(), "B.java".into()])
        );
        assert_eq!(follow_symlink(&parent, "../../../outside"), None);
        assert_eq!(follow_symlink(&parent, "/etc/passwd"), None);
    }
}
