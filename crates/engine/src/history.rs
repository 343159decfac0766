//! Element history: the commits that changed an element's declaration,
//! newest first, back to the one that added it — as `git log -L
//! START,END:FILE` finds them for the element's lines, but following the
//! element itself, across a changed signature, a rename or a move.
//!
//! The walk goes back along first parents from the revision asked for. A
//! commit whose tree holds the element's file unchanged is passed over by
//! blob id, without reading anything. Otherwise the file's facts in the
//! parent come from the pack, which keeps every indexed version of a file
//! by its blob id (extraction runs only for a version no revision indexed),
//! and the element is looked for there:
//!
//! 1. by its key (enclosing type, kind, name, parameter types as written):
//!    the declaration's lines are compared — unchanged, or changed only in
//!    whitespace, in the signature (the lines before the body) or in the
//!    body;
//! 2. else by name with another parameter list and the same body: the
//!    signature changed;
//! 3. else by the same body under another name: renamed;
//! 4. else by the same body in another file the commit changed: moved;
//! 5. else the commit added it, and the walk ends.
//!
//! A merge is compared with its first parent only, so a change made on a
//! merged branch is attributed to the merge.

use std::sync::Arc;

use refscope_store::{BlobId, Store};
use refscope_syntax::facts::{Element, ElementKind, FileFacts, NO_ELEMENT};

use crate::error::Error;
use crate::source::Source;

/// How a commit changed an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryChange {
    /// Its body (the lines from its opening brace, or after its name).
    Body,
    /// Its signature (the lines before the body), and maybe its body.
    Signature,
    /// Only whitespace.
    Whitespace,
    /// It moved to another file, its body unchanged.
    Moved,
    /// It was renamed, its body unchanged.
    Renamed,
    /// The commit added it.
    Added,
}

impl HistoryChange {
    /// The name answers use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Body => "body",
            Self::Signature => "signature",
            Self::Whitespace => "whitespace",
            Self::Moved => "moved",
            Self::Renamed => "renamed",
            Self::Added => "added",
        }
    }
}

/// One commit of an element's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The full commit id.
    pub commit: String,
    /// Its author's name.
    pub author: String,
    /// Its author's e-mail address.
    pub author_email: String,
    /// Its author time, RFC 3339 in the author's UTC offset.
    pub date: String,
    /// The first line of its message.
    pub summary: String,
    /// What it changed.
    pub change: HistoryChange,
    /// The element's file in that commit.
    pub path: String,
    /// The element's lines in that commit.
    pub start_line: u32,
    pub end_line: u32,
}

/// One version of the element: where it is, in which commit.
struct Version {
    commit: git2::Oid,
    path: String,
    blob: git2::Oid,
    facts: Arc<FileFacts>,
    bytes: Arc<Vec<u8>>,
    index: usize,
}

impl Source {
    /// The history of the element `index` (of the facts of `path`) at
    /// `commit`, newest first, at most `limit` commits. The facts come
    /// from `store` where a revision indexed the file's version.
    pub fn element_history(
        &self,
        store: &Store,
        commit: &str,
        path: &str,
        index: u32,
        limit: Option<usize>,
    ) -> Result<Vec<HistoryEntry>, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let git = |e: git2::Error| Error::Git {
            repo: root.clone(),
            message: e.message().to_string(),
        };
        let walker = Walker {
            repo,
            store,
            pack: store.pack_reader()?,
        };
        let commit = git2::Oid::from_str(&self.commit_id(commit)?).map_err(git)?;
        let blob = walker
            .blob_at(commit, path)
            .map_err(git)?
            .ok_or_else(|| Error::Git {
                repo: root.clone(),
                message: format!("{path} is not in commit {commit}"),
            })?;
        let (facts, bytes) = walker.version_of(blob)?;
        if index as usize >= facts.elements.len() {
            return Err(Error::Git {
                repo: root.clone(),
                message: format!("{path} has no element {index} in commit {commit}"),
            });
        }
        let mut current = Version {
            commit,
            path: path.to_string(),
            blob,
            facts,
            bytes,
            index: index as usize,
        };
        let mut entries = Vec::new();
        while limit.is_none_or(|limit| entries.len() < limit) {
            let commit = repo.find_commit(current.commit).map_err(git)?;
            let Ok(parent) = commit.parent(0) else {
                entries.push(entry(&commit, HistoryChange::Added, &current));
                break;
            };
            let (change, previous) =
                walker
                    .step(&current, &commit, &parent)
                    .map_err(|e| match e {
                        Step::Git(e) => git(e),
                        Step::Engine(e) => e,
                    })?;
            if let Some(change) = change {
                entries.push(entry(&commit, change, &current));
            }
            match previous {
                Some(previous) => current = previous,
                None => break,
            }
        }
        Ok(entries)
    }
}

/// Why a step failed.
enum Step {
    Git(git2::Error),
    Engine(Error),
}

impl From<git2::Error> for Step {
    fn from(e: git2::Error) -> Self {
        Self::Git(e)
    }
}

impl From<Error> for Step {
    fn from(e: Error) -> Self {
        Self::Engine(e)
    }
}

struct Walker<'a> {
    repo: &'a git2::Repository,
    store: &'a Store,
    pack: refscope_store::PackReader,
}

impl Walker<'_> {
    /// The blob at `path` in `commit`, if there is one.
    fn blob_at(&self, commit: git2::Oid, path: &str) -> Result<Option<git2::Oid>, git2::Error> {
        let tree = self.repo.find_commit(commit)?.tree()?;
        Ok(tree
            .get_path(std::path::Path::new(path))
            .ok()
            .filter(|entry| entry.kind() == Some(git2::ObjectType::Blob))
            .map(|entry| entry.id()))
    }

    /// The facts and bytes of a file version: the facts from the pack when
    /// a revision indexed it, else extracted.
    fn version_of(&self, blob: git2::Oid) -> Result<(Arc<FileFacts>, Arc<Vec<u8>>), Error> {
        let bytes = self
            .repo
            .find_blob(blob)
            .map(|b| b.content().to_vec())
            .map_err(|e| Error::Git {
                repo: self.repo.path().to_path_buf(),
                message: e.message().to_string(),
            })?;
        let id = BlobId(
            blob.as_bytes()
                .try_into()
                .expect("git blob ids are 20 bytes"),
        );
        let facts = match self.store.blob_location(&id)? {
            Some(at) => self.pack.facts(&id, at)?,
            // Extracted as the store's facts were, to compare like with like.
            None => {
                let passes = self.store.passes()?;
                let passes = crate::index::passes_named(passes.as_deref().unwrap_or(""));
                refscope_syntax::extract_with(&bytes, passes)
            }
        };
        Ok((Arc::new(facts), Arc::new(bytes)))
    }

    /// What `commit` did to the element of `current` (compared with
    /// `parent`), and the element's version in `parent` when it had one.
    fn step(
        &self,
        current: &Version,
        commit: &git2::Commit<'_>,
        parent: &git2::Commit<'_>,
    ) -> Result<(Option<HistoryChange>, Option<Version>), Step> {
        let in_parent = self.blob_at(parent.id(), &current.path)?;
        if in_parent == Some(current.blob) {
            return Ok((
                None,
                Some(Version {
                    commit: parent.id(),
                    path: current.path.clone(),
                    blob: current.blob,
                    facts: current.facts.clone(),
                    bytes: current.bytes.clone(),
                    index: current.index,
                }),
            ));
        }
        let element = &current.facts.elements[current.index];
        let text = Text::of(&current.facts, current.index, &current.bytes);
        if let Some(blob) = in_parent {
            let (facts, bytes) = self.version_of(blob)?;
            let version = |index| Version {
                commit: parent.id(),
                path: current.path.clone(),
                blob,
                facts: facts.clone(),
                bytes: bytes.clone(),
                index,
            };
            let key = key_of(&current.facts, current.index);
            if let Some(index) = (0..facts.elements.len()).find(|&i| key_of(&facts, i) == key) {
                let before = Text::of(&facts, index, &bytes);
                return Ok((text.change_from(&before), Some(version(index))));
            }
            let same_body = |i: usize| Text::of(&facts, i, &bytes).body == text.body;
            let kind = element.kind;
            if let Some(index) = (0..facts.elements.len()).find(|&i| {
                let e = &facts.elements[i];
                e.kind == kind && e.name == element.name && same_body(i)
            }) {
                return Ok((Some(HistoryChange::Signature), Some(version(index))));
            }
            if let Some(index) = (0..facts.elements.len())
                .find(|&i| facts.elements[i].kind == kind && same_body(i) && !text.body.is_empty())
            {
                return Ok((Some(HistoryChange::Renamed), Some(version(index))));
            }
        }
        // Moved: the same body in a file the commit took it out of.
        if !text.body.is_empty() {
            let diff =
                self.repo
                    .diff_tree_to_tree(Some(&parent.tree()?), Some(&commit.tree()?), None)?;
            for delta in diff.deltas() {
                let old = delta.old_file();
                let Some(path) = old.path().and_then(|p| p.to_str()) else {
                    continue;
                };
                if path == current.path || !path.ends_with(".java") || old.id().is_zero() {
                    continue;
                }
                let (facts, bytes) = self.version_of(old.id())?;
                if let Some(index) = (0..facts.elements.len()).find(|&i| {
                    facts.elements[i].kind == element.kind
                        && Text::of(&facts, i, &bytes).body == text.body
                }) {
                    return Ok((
                        Some(HistoryChange::Moved),
                        Some(Version {
                            commit: parent.id(),
                            path: path.to_string(),
                            blob: old.id(),
                            facts,
                            bytes,
                            index,
                        }),
                    ));
                }
            }
        }
        Ok((Some(HistoryChange::Added), None))
    }
}

/// What identifies an element within its file from version to version:
/// the keys of the elements around it, its kind, name and parameter types
/// as written.
fn key_of(facts: &FileFacts, index: usize) -> Vec<String> {
    let mut key = Vec::new();
    let mut at = index as u32;
    while at != NO_ELEMENT {
        let element: &Element = &facts.elements[at as usize];
        let params: Vec<&str> = element.params.iter().map(|p| p.erased.as_str()).collect();
        key.push(format!(
            "{:?} {} ({})",
            element.kind,
            element.name,
            params.join(",")
        ));
        at = element.parent;
    }
    key
}

/// An element's text in one version: its lines, and the part of them that
/// is its body.
struct Text {
    lines: String,
    signature: String,
    body: String,
}

impl Text {
    fn of(facts: &FileFacts, index: usize, bytes: &[u8]) -> Self {
        let element = &facts.elements[index];
        let span = &element.span;
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let first = (span.start_line as usize)
            .saturating_sub(1)
            .min(lines.len());
        let last = (span.end_line as usize).min(lines.len()).max(first);
        let all = lines[first..last].concat();
        // The body: from the first `{` after the name (types, methods,
        // constructors) or after the name (fields, constants).
        let name_line = (element.name_pos.line as usize).saturating_sub(first + 1);
        let name_at: usize = all
            .split_inclusive('\n')
            .take(name_line)
            .map(str::len)
            .sum::<usize>()
            + element.name_pos.col as usize;
        let name_at = name_at.min(all.len());
        let braced = element.kind.is_type()
            || matches!(element.kind, ElementKind::Method | ElementKind::Constructor);
        let body_at = if braced {
            all.get(name_at..)
                .and_then(|rest| rest.find('{'))
                .map_or(all.len(), |at| name_at + at)
        } else {
            (name_at + element.name.len()).min(all.len())
        };
        let body_at = if all.is_char_boundary(body_at) {
            body_at
        } else {
            all.len()
        };
        Self {
            signature: all[..body_at].to_string(),
            body: all[body_at..].to_string(),
            lines: all,
        }
    }

    /// The change from `before` to this text, if any.
    fn change_from(&self, before: &Text) -> Option<HistoryChange> {
        if self.lines == before.lines {
            return None;
        }
        let squeezed = |text: &str| text.split_whitespace().collect::<String>();
        Some(if squeezed(&self.lines) == squeezed(&before.lines) {
            HistoryChange::Whitespace
        } else if squeezed(&self.signature) != squeezed(&before.signature) {
            HistoryChange::Signature
        } else {
            HistoryChange::Body
        })
    }
}

fn entry(commit: &git2::Commit<'_>, change: HistoryChange, version: &Version) -> HistoryEntry {
    let author = commit.author();
    let span = &version.facts.elements[version.index].span;
    HistoryEntry {
        commit: commit.id().to_string(),
        author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
        author_email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
        date: rfc3339(author.when()),
        summary: commit
            .summary_bytes()
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default(),
        change,
        path: version.path.clone(),
        start_line: span.start_line,
        end_line: span.end_line,
    }
}

/// A git time as RFC 3339 in its own offset.
fn rfc3339(time: git2::Time) -> String {
    let offset = chrono::FixedOffset::east_opt(time.offset_minutes() * 60)
        .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("UTC"));
    chrono::DateTime::from_timestamp(time.seconds(), 0)
        .map(|utc| utc.with_timezone(&offset).to_rfc3339())
        .unwrap_or_default()
}
