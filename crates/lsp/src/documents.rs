//! The documents the client has open, with their unsaved text, and the
//! mapping between `file:` URIs and the work tree's relative paths.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{TextDocumentContentChangeEvent, Uri};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use refscope_engine::{BlobId, FileEntry};

use crate::text::LineIndex;

/// What a path keeps unencoded in a URI: RFC 3986's unreserved characters
/// and the path separator.
const PATH_KEPT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// An open document: its version and its text as the editor has it.
#[derive(Debug, Clone)]
pub struct Document {
    /// The version the client gave it last.
    pub version: i32,
    /// Its text, unsaved edits included.
    pub text: String,
}

/// The open documents of a work tree, by relative path.
#[derive(Debug)]
pub struct Documents {
    root: PathBuf,
    open: HashMap<String, Document>,
}

impl Documents {
    /// No open documents, for the work tree at `root` (canonical).
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            open: HashMap::new(),
        }
    }

    /// The path of `uri` under the root, with `/` separators; `None` for a
    /// URI that is not a file's or is outside the work tree.
    pub fn relative(&self, uri: &Uri) -> Option<String> {
        let path = path_of_uri(uri)?;
        let rel = match path.strip_prefix(&self.root) {
            Ok(rel) => rel.to_path_buf(),
            // The client may name the root through a symbolic link; a new
            // file does not exist yet, so its directory is resolved.
            Err(_) => {
                let parent = path.parent()?.canonicalize().ok()?;
                let rel = parent.strip_prefix(&self.root).ok()?;
                rel.join(path.file_name()?)
            }
        };
        let rel = rel.to_str()?.to_string();
        (!rel.is_empty() && !rel.split('/').any(|part| part == ".." || part == ".")).then_some(rel)
    }

    /// The absolute path of relative path `rel`.
    pub fn absolute(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The URI of relative path `rel`.
    pub fn uri(&self, rel: &str) -> Uri {
        uri_of_path(&self.root.join(rel))
    }

    /// Opens (or reopens) the document at `rel`.
    pub fn open(&mut self, rel: String, version: i32, text: String) {
        self.open.insert(rel, Document { version, text });
    }

    /// Applies the client's changes to the open document at `rel`;
    /// `false` when it is not open.
    pub fn change(
        &mut self,
        rel: &str,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(document) = self.open.get_mut(rel) else {
            return false;
        };
        for change in changes {
            apply_change(&mut document.text, change);
        }
        document.version = version;
        true
    }

    /// Closes the document at `rel`; `false` when it was not open.
    pub fn close(&mut self, rel: &str) -> bool {
        self.open.remove(rel).is_some()
    }

    /// The open document at `rel`.
    pub fn get(&self, rel: &str) -> Option<&Document> {
        self.open.get(rel)
    }

    /// The text of the file at `rel` as the editor sees it: the open
    /// document's, else the disk's (lossily decoded).
    pub fn current_text(&self, rel: &str) -> Option<String> {
        match self.open.get(rel) {
            Some(document) => Some(document.text.clone()),
            None => std::fs::read(self.absolute(rel))
                .ok()
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        }
    }

    /// The text of `file` as the revision indexed it, when the open
    /// document or the disk still holds exactly that content; `None` when
    /// it changed since (positions in it would be off).
    pub fn indexed_text(&self, file: &FileEntry) -> Option<String> {
        let bytes = match self.open.get(&file.path) {
            Some(document) => document.text.as_bytes().to_vec(),
            None => std::fs::read(self.absolute(&file.path)).ok()?,
        };
        if BlobId::of_bytes(&bytes) != file.blob_id {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

/// Applies one content change (a range edit, or the whole text) to `text`.
/// A range past the end of the text is clamped to it.
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    let Some(range) = change.range else {
        *text = change.text;
        return;
    };
    let lines = LineIndex::new(text);
    let end_of_text = text.len();
    let start = lines.offset(range.start).unwrap_or(end_of_text);
    let end = lines.offset(range.end).unwrap_or(end_of_text).max(start);
    text.replace_range(start..end, &change.text);
}

/// The path of a `file:` URI (percent-decoded); `None` for other schemes,
/// other hosts and relative paths.
pub fn path_of_uri(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text
        .strip_prefix("file://")
        .or_else(|| text.strip_prefix("FILE://"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    Some(PathBuf::from(decoded.into_owned()))
}

/// The `file:` URI of an absolute path.
pub fn uri_of_path(path: &Path) -> Uri {
    let text = path.to_string_lossy();
    let encoded = utf8_percent_encode(&text, PATH_KEPT).to_string();
    Uri::from_str(&format!("file://{encoded}")).expect("an encoded path makes a valid URI")
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    #[test]
    fn uris_and_paths_round_trip_with_escapes() {
        let path = Path::new("/tmp/a b/Ünï.java");
        let uri = uri_of_path(path);
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%9Cn%C3%AF.java");
        assert_eq!(path_of_uri(&uri).as_deref(), Some(path));
        let other = Uri::from_str("https://example.com/A.java").unwrap();
        assert_eq!(path_of_uri(&other), None);
        let host = Uri::from_str("file://localhost/tmp/A.java").unwrap();
        assert_eq!(
            path_of_uri(&host).as_deref(),
            Some(Path::new("/tmp/A.java"))
        );
    }

    #[test]
    fn outside_the_root_is_no_relative_path() {
        let documents = Documents::new(PathBuf::from("/work/tree"));
        let inside = Uri::from_str("file:///work/tree/src/A.java").unwrap();
        let outside = Uri::from_str("file:///work/other/A.java").unwrap();
        let root = Uri::from_str("file:///work/tree").unwrap();
        assert_eq!(documents.relative(&inside).as_deref(), Some("src/A.java"));
        assert_eq!(documents.relative(&outside), None);
        assert_eq!(documents.relative(&root), None);
    }

    #[test]
    fn incremental_changes_apply_in_utf16_columns() {
        let mut text = "class A {\n  int π = 1;\n}\n".to_string();
        let edit = |line, start, end, new: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(
                Position::new(line, start),
                Position::new(line, end),
            )),
            range_length: None,
            text: new.to_string(),
        };
        apply_change(&mut text, edit(1, 10, 11, "2"));
        assert_eq!(text, "class A {\n  int π = 2;\n}\n");
        apply_change(&mut text, edit(9, 0, 0, "// end\n"));
        assert_eq!(text, "class A {\n  int π = 2;\n}\n// end\n");
        apply_change(
            &mut text,
            TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "class B {}".into(),
            },
        );
        assert_eq!(text, "class B {}");
    }
}
