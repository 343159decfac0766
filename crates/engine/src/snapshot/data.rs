//! What the read API hands out about files and elements: a file of a
//! revision decoded ([`FileData`]) and an element with everything known
//! about it ([`ElementView`]).

use std::sync::OnceLock;

use refscope_resolve::FileResolution;
use refscope_resolve::records::ElementRecord;
use refscope_store::FileEntry;
use refscope_syntax::facts::{Element, FileFacts};

/// Everything read of one file of a revision: its facts and element
/// records, and its resolved references once asked for.
#[derive(Debug)]
pub struct FileData {
    /// Where it is and what it holds.
    pub entry: FileEntry,
    /// Its facts as extracted.
    pub facts: FileFacts,
    /// Its qualified element records, by element index.
    pub records: Vec<ElementRecord>,
    /// Its resolved references, decoded on first use (many questions need
    /// only the declarations).
    pub(super) resolution: OnceLock<FileResolution>,
}

impl FileData {
    pub(super) fn new(entry: FileEntry, facts: FileFacts, records: Vec<ElementRecord>) -> Self {
        Self {
            entry,
            facts,
            records,
            resolution: OnceLock::new(),
        }
    }

    pub(super) fn weight(&self) -> u64 {
        1 + self.facts.elements.len() as u64 + self.facts.ref_sites.len() as u64
    }
}

/// An element with everything known about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementView {
    /// The file it is in.
    pub path: String,
    /// Its qualified record.
    pub record: ElementRecord,
    /// Its facts as extracted (modifiers, annotations, parameter names,
    /// javadoc, types as written).
    pub element: Element,
}
