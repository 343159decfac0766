//! The element-level difference between two indexed revisions of a store:
//! which elements were added, removed, or changed in their signature or
//! their body.
//!
//! Elements are matched by element id, so a method that only moved (other
//! lines inserted above it, or moved within its class) is unchanged. Only
//! files whose content or qualification differs between the two revisions
//! are read: a file with the same path and unit in both holds the same
//! elements in both.
//!
//! * The **signature** of an element is what declares it: kind, modifiers,
//!   annotations, declared type, parameters, `throws`, type parameters and
//!   supertypes, both as written and as qualified in the revision (an
//!   import that changes what a parameter type means changes the
//!   signature).
//! * The **body** is its source text after the header: for methods,
//!   constructors and types from the first `{` after the name (for a type,
//!   without the text of its members, which are elements of their own, but
//!   with where they stand: a member added or removed changes its type's
//!   body, even with only white space between the members); for
//!   fields, enum constants, lambdas and initializers everything after the
//!   name token. Runs of white space count as one space, so re-indenting a
//!   block is no change.
//!
//! Source text comes from a [`BlobReader`] ([`DiffConfig::blobs`]). Without
//! one, or when a blob cannot be read (a directory snapshot whose file has
//! changed on disk since it was indexed), bodies are compared by a
//! fingerprint of the facts instead: the length of the body text, the
//! reference sites and the local variables in it. That misses an edit that
//! keeps all three, such as `1` becoming `2`; [`Diff::exact_bodies`] says
//! which was used.
//!
//! ```no_run
//! use refscope_engine::DiffConfig;
//! use refscope_engine::{Snapshot, Source, Store};
//!
//! let source = Source::open("/repo".as_ref())?;
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let base = Snapshot::new(&store, Snapshot::pick_revision(&store, Some(&source), Some("main"))?)?;
//! let head = Snapshot::new(&store, Snapshot::pick_revision(&store, Some(&source), None)?)?;
//! let reader = source.reader_spec().open()?;
//! let diff = head.changes_since(&base, &DiffConfig { blobs: Some(&reader) })?;
//! for change in &diff.changes {
//!     println!("{} {}", change.kind.as_str(), change.id);
//! }
//! # Ok::<(), refscope_engine::Error>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use super::{ElementView, FileData, FileEntry, Snapshot};
use crate::error::Error;
use crate::source::BlobReader;
use refscope_resolve::records::ElementRecord;
use refscope_syntax::facts::{ElementKind, FileFacts, NO_ELEMENT};

/// How [`Snapshot::changes_since`] compares.
#[derive(Default, Clone, Copy)]
pub struct DiffConfig<'r> {
    /// Reads file contents by blob id, so bodies are compared by their
    /// text; `None` compares them by a fingerprint of the facts.
    pub blobs: Option<&'r BlobReader>,
}

/// What happened to an element between two revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// Declared in the newer revision only.
    Added,
    /// Declared in the older revision only.
    Removed,
    /// Declared in both, with a different signature (its body may have
    /// changed too: see [`ElementChange::body_changed`]).
    SignatureChanged,
    /// Declared in both with the same signature and a different body.
    BodyChanged,
}

impl ChangeKind {
    /// A lower-case name for display and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Removed => "removed",
            Self::SignatureChanged => "signature_changed",
            Self::BodyChanged => "body_changed",
        }
    }

    /// Every kind.
    pub const ALL: [Self; 4] = [
        Self::Added,
        Self::Removed,
        Self::SignatureChanged,
        Self::BodyChanged,
    ];
}

/// One element that differs between two revisions.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementChange {
    /// The element id.
    pub id: String,
    /// What happened to it.
    pub kind: ChangeKind,
    /// For elements in both revisions: whether the body differs as well
    /// (always true for [`ChangeKind::BodyChanged`]).
    pub body_changed: bool,
    /// Its declaration in the older revision.
    pub base: Option<ElementView>,
    /// Its declaration in the newer revision.
    pub head: Option<ElementView>,
}

/// The difference between two revisions, sorted by element id.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// Every element that differs, sorted by id.
    pub changes: Vec<ElementChange>,
    /// Whether bodies were compared by their text (true) or by a
    /// fingerprint of the facts (false: some blob could not be read).
    pub exact_bodies: bool,
}

impl Snapshot<'_> {
    /// The elements that differ between `base` (the older revision) and
    /// this one. Both snapshots should read the same store; snapshots of
    /// two stores are compared file by file by content.
    pub fn changes_since(&self, base: &Snapshot, config: &DiffConfig) -> Result<Diff, Error> {
        let same_store = self.store.dir() == base.store.dir();
        let head_files = self.files()?;
        let base_files = base.files()?;
        let key = |f: &FileEntry| (f.path.clone(), if same_store { f.unit_id } else { 0 });
        let head_keys: HashSet<(String, i64)> = head_files.iter().map(&key).collect();
        let base_keys: HashSet<(String, i64)> = base_files.iter().map(&key).collect();
        // A file is unchanged when the same path holds the same unit (or,
        // across stores, the same content) in both revisions.
        let unchanged =
            |f: &FileEntry, others: &HashSet<(String, i64)>, other_files: &[FileEntry]| {
                if same_store {
                    others.contains(&key(f))
                } else {
                    other_files
                        .binary_search_by(|o| o.path.cmp(&f.path))
                        .is_ok_and(|i| other_files[i].blob_id == f.blob_id)
                }
            };
        let head_changed: Vec<&FileEntry> = head_files
            .iter()
            .filter(|f| !unchanged(f, &base_keys, &base_files))
            .collect();
        let base_changed: Vec<&FileEntry> = base_files
            .iter()
            .filter(|f| !unchanged(f, &head_keys, &head_files))
            .collect();
        let mut head_side = Side::load(self, &head_changed, config.blobs)?;
        let mut base_side = Side::load(base, &base_changed, config.blobs)?;
        let exact_bodies = head_side.all_read && base_side.all_read;
        if !exact_bodies {
            head_side.drop_bytes();
            base_side.drop_bytes();
        }
        let mut changes = Vec::new();
        for (id, head_at) in &head_side.by_id {
            match base_side.by_id.get(id) {
                Some(base_at) => {
                    let (h, b) = (head_side.summary(*head_at), base_side.summary(*base_at));
                    let signature_changed = h.signature != b.signature;
                    let body_changed = h.body != b.body;
                    if signature_changed || body_changed {
                        changes.push(ElementChange {
                            id: id.clone(),
                            kind: if signature_changed {
                                ChangeKind::SignatureChanged
                            } else {
                                ChangeKind::BodyChanged
                            },
                            body_changed,
                            base: Some(base_side.view(*base_at)),
                            head: Some(head_side.view(*head_at)),
                        });
                    }
                }
                // Declared elsewhere in the older revision too, in a file
                // both revisions share: a duplicate, unchanged.
                None if base.declares(id)? => {}
                None => changes.push(ElementChange {
                    id: id.clone(),
                    kind: ChangeKind::Added,
                    body_changed: false,
                    base: None,
                    head: Some(head_side.view(*head_at)),
                }),
            }
        }
        for (id, base_at) in &base_side.by_id {
            if !head_side.by_id.contains_key(id) && !self.declares(id)? {
                changes.push(ElementChange {
                    id: id.clone(),
                    kind: ChangeKind::Removed,
                    body_changed: false,
                    base: Some(base_side.view(*base_at)),
                    head: None,
                });
            }
        }
        changes.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Diff {
            changes,
            exact_bodies,
        })
    }

    /// What happened to element `id` between `base` and this revision, or
    /// `None` when it is unchanged or declared in neither.
    pub fn change_of(
        &self,
        base: &Snapshot,
        id: &str,
        config: &DiffConfig,
    ) -> Result<Option<ElementChange>, Error> {
        let head_at = self.declarations_of(id)?.into_iter().next();
        let base_at = base.declarations_of(id)?.into_iter().next();
        let load = |snapshot: &Snapshot, at: Option<(FileEntry, u32)>| -> Result<_, Error> {
            match at {
                Some((file, idx)) => {
                    let mut side = Side::load(snapshot, &[&file], config.blobs)?;
                    side.by_id.clear();
                    Ok(Some((side, (0usize, idx))))
                }
                None => Ok(None),
            }
        };
        let head = load(self, head_at)?;
        let base_loaded = load(base, base_at)?;
        Ok(match (head, base_loaded) {
            (None, None) => None,
            (Some((side, at)), None) => Some(ElementChange {
                id: id.to_string(),
                kind: ChangeKind::Added,
                body_changed: false,
                base: None,
                head: Some(side.view(at)),
            }),
            (None, Some((side, at))) => Some(ElementChange {
                id: id.to_string(),
                kind: ChangeKind::Removed,
                body_changed: false,
                base: Some(side.view(at)),
                head: None,
            }),
            (Some((mut h, h_at)), Some((mut b, b_at))) => {
                if !(h.all_read && b.all_read) {
                    h.drop_bytes();
                    b.drop_bytes();
                }
                let (hs, bs) = (h.summary(h_at), b.summary(b_at));
                let signature_changed = hs.signature != bs.signature;
                let body_changed = hs.body != bs.body;
                (signature_changed || body_changed).then(|| ElementChange {
                    id: id.to_string(),
                    kind: if signature_changed {
                        ChangeKind::SignatureChanged
                    } else {
                        ChangeKind::BodyChanged
                    },
                    body_changed,
                    base: Some(b.view(b_at)),
                    head: Some(h.view(h_at)),
                })
            }
        })
    }

    /// Whether the revision declares element `id` in any file.
    fn declares(&self, id: &str) -> Result<bool, Error> {
        Ok(!self.declarations_of(id)?.is_empty())
    }
}

/// The changed files of one revision, loaded, with their elements by id.
struct Side {
    files: Vec<LoadedFile>,
    /// Element id → (file index, element index); the first declaration by
    /// path when several files declare the id.
    by_id: HashMap<String, (usize, u32)>,
    /// Whether every file's bytes could be read.
    all_read: bool,
}

struct LoadedFile {
    data: Arc<FileData>,
    bytes: Option<Vec<u8>>,
}

/// What is compared of an element.
struct ElementSummary {
    signature: u64,
    body: u64,
}

impl Side {
    fn load(
        snapshot: &Snapshot,
        files: &[&FileEntry],
        blobs: Option<&BlobReader>,
    ) -> Result<Self, Error> {
        let mut side = Side {
            files: Vec::with_capacity(files.len()),
            by_id: HashMap::new(),
            all_read: blobs.is_some(),
        };
        for file in files {
            let data = snapshot.file_data(file)?;
            let bytes = blobs.and_then(|reader| reader.read_blob(&file.path, &file.blob_id).ok());
            side.all_read &= bytes.is_some();
            let index = side.files.len();
            for record in &data.records {
                side.by_id
                    .entry(record.element_id.clone())
                    .or_insert((index, record.idx));
            }
            side.files.push(LoadedFile { data, bytes });
        }
        Ok(side)
    }

    fn drop_bytes(&mut self) {
        for file in &mut self.files {
            file.bytes = None;
        }
    }

    fn view(&self, (file, idx): (usize, u32)) -> ElementView {
        let loaded = &self.files[file];
        ElementView {
            path: loaded.data.entry.path.clone(),
            record: loaded.data.records[idx as usize].clone(),
            element: loaded.data.facts.elements[idx as usize].clone(),
        }
    }

    fn summary(&self, (file, idx): (usize, u32)) -> ElementSummary {
        let loaded = &self.files[file];
        ElementSummary {
            signature: signature_digest(&loaded.data.facts, &loaded.data.records[idx as usize]),
            body: match &loaded.bytes {
                Some(bytes) => body_text_digest(&loaded.data.facts, idx, bytes),
                None => body_fingerprint(&loaded.data.facts, idx),
            },
        }
    }
}

fn signature_digest(facts: &FileFacts, record: &ElementRecord) -> u64 {
    let element = &facts.elements[record.idx as usize];
    let mut hasher = DefaultHasher::new();
    element.kind.hash(&mut hasher);
    element.modifiers.hash(&mut hasher);
    element.annotations.hash(&mut hasher);
    element.type_text.hash(&mut hasher);
    record.type_name.hash(&mut hasher);
    record.params.hash(&mut hasher);
    for param in &element.params {
        (&param.type_text, &param.name, param.varargs).hash(&mut hasher);
    }
    element.throws.hash(&mut hasher);
    for type_param in &element.type_params {
        (&type_param.name, &type_param.bounds).hash(&mut hasher);
    }
    element.supertypes_written.hash(&mut hasher);
    hasher.finish()
}

/// The byte ranges of an element's body: from the first `{` after its name
/// (methods, constructors, types) or from the end of its name token
/// (everything else) to its end; for a type, without its members' spans.
fn body_ranges(facts: &FileFacts, idx: u32, bytes: &[u8]) -> Vec<(usize, usize)> {
    let element = &facts.elements[idx as usize];
    let end = (element.span.end_byte as usize).min(bytes.len());
    let start = (element.span.start_byte as usize).min(end);
    let name_at = byte_offset_of(bytes, start, element.span.start_line, element.name_pos);
    let body_start = if element.kind.is_type() || element.kind.is_executable() {
        first_brace_outside_parens(bytes, name_at, end)
    } else {
        let name_len = match element.kind {
            ElementKind::Lambda => 2,
            ElementKind::InstanceInitializer | ElementKind::StaticInitializer => 0,
            _ => element.name.len(),
        };
        (name_at + name_len).min(end)
    };
    let mut ranges = vec![(body_start, end)];
    if element.kind.is_type() {
        for child in facts.elements.iter().filter(|c| c.parent == idx) {
            let (cut_start, cut_end) =
                (child.span.start_byte as usize, child.span.end_byte as usize);
            ranges = ranges
                .into_iter()
                .flat_map(|(a, b)| {
                    if cut_end <= a || cut_start >= b {
                        vec![(a, b)]
                    } else {
                        vec![(a, cut_start.max(a)), (cut_end.min(b), b)]
                    }
                })
                .filter(|(a, b)| a < b)
                .collect();
        }
    }
    ranges
}

/// The byte offset of a 1-based line and UTF-16 column, counted from a
/// known line start.
fn byte_offset_of(
    bytes: &[u8],
    from: usize,
    from_line: u32,
    pos: refscope_syntax::facts::Position,
) -> usize {
    let mut offset = from;
    let mut line = from_line;
    while line < pos.line && offset < bytes.len() {
        if bytes[offset] == b'\n' {
            line += 1;
        }
        offset += 1;
    }
    if line < pos.line {
        return bytes.len();
    }
    let line_start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = bytes[line_start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| line_start + i);
    let text = String::from_utf8_lossy(&bytes[line_start..line_end]);
    let mut units = 0u32;
    let mut byte = 0usize;
    for c in text.chars() {
        if units + 1 >= pos.col {
            break;
        }
        units += c.len_utf16() as u32;
        byte += c.len_utf8();
    }
    (line_start + byte).min(bytes.len())
}

fn first_brace_outside_parens(bytes: &[u8], from: usize, end: usize) -> usize {
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate().take(end).skip(from) {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'{' if depth <= 0 => return i,
            _ => {}
        }
    }
    end
}

fn body_text_digest(facts: &FileFacts, idx: u32, bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for (start, end) in body_ranges(facts, idx, bytes) {
        // Runs of white space hash as one space, so re-indentation and
        // re-wrapping are no change.
        let mut in_space = false;
        for &b in &bytes[start..end] {
            if b.is_ascii_whitespace() {
                if !in_space {
                    hasher.write_u8(b' ');
                }
                in_space = true;
            } else {
                hasher.write_u8(b);
                in_space = false;
            }
        }
        hasher.write_u8(0);
    }
    hasher.finish()
}

/// Without the text: the length of the element's own text (members of a
/// type left out), and the reference sites and locals in it.
fn body_fingerprint(facts: &FileFacts, idx: u32) -> u64 {
    let element = &facts.elements[idx as usize];
    let mut hasher = DefaultHasher::new();
    let mut length = element
        .span
        .end_byte
        .saturating_sub(element.span.start_byte);
    let inside = |enclosing: u32| {
        enclosing != NO_ELEMENT
            && if element.kind.is_type() {
                enclosing == idx
            } else {
                facts.ancestry(enclosing).any(|a| a == idx)
            }
    };
    if element.kind.is_type() {
        for child in facts.elements.iter().filter(|c| c.parent == idx) {
            length =
                length.saturating_sub(child.span.end_byte.saturating_sub(child.span.start_byte));
        }
    }
    length.hash(&mut hasher);
    for site in facts.ref_sites.iter().filter(|s| inside(s.enclosing)) {
        (
            site.kind,
            &site.name,
            &site.receiver_text,
            site.n_args,
            &site.type_text,
        )
            .hash(&mut hasher);
    }
    for local in facts.locals.iter().filter(|l| inside(l.enclosing)) {
        (&local.name, &local.type_text).hash(&mut hasher);
    }
    hasher.finish()
}
