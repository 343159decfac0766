//! What the read API hands out about files and elements: a file of a
//! revision decoded ([`FileData`]) and an element with everything known
//! about it ([`ElementView`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use refscope_resolve::FileResolution;
use refscope_resolve::records::ElementRecord;
use refscope_store::FileEntry;
use refscope_syntax::facts::{Element, FileFacts, NO_ELEMENT};

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
    /// Element index by element id, made on first use and kept with the
    /// file (so in the revision's cache, across queries).
    by_id: OnceLock<HashMap<String, u32>>,
    /// Whether the file may hold a Spring injection point (`spring.rs`),
    /// worked out on first use.
    pub(super) may_inject: OnceLock<bool>,
}

impl FileData {
    /// A file read from the store, once its records describe its facts'
    /// elements one to one: everything that pairs them indexes one by the
    /// other. A store changed behind refscope's back may break that (the
    /// message says how).
    pub(super) fn new(
        entry: FileEntry,
        facts: FileFacts,
        records: Vec<ElementRecord>,
    ) -> Result<Self, String> {
        if records.len() != facts.elements.len() {
            return Err(format!(
                "{} element records for {} elements",
                records.len(),
                facts.elements.len()
            ));
        }
        for (index, record) in records.iter().enumerate() {
            let parent = facts.elements[index].parent;
            let parent = (parent != NO_ELEMENT).then_some(parent);
            if record.idx as usize != index || record.parent_idx != parent {
                return Err(format!(
                    "element record {index} says element {} under {:?}",
                    record.idx, record.parent_idx
                ));
            }
        }
        Ok(Self {
            entry,
            facts,
            records,
            resolution: OnceLock::new(),
            by_id: OnceLock::new(),
            may_inject: OnceLock::new(),
        })
    }

    /// The index of the element with id `id` (the last, for ids two
    /// elements share), if the file declares it.
    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id
            .get_or_init(|| {
                let mut by_id = HashMap::with_capacity(self.records.len());
                for record in &self.records {
                    by_id.insert(record.element_id.clone(), record.idx);
                }
                by_id
            })
            .get(id)
            .copied()
    }

    /// Checks that `resolution` speaks of this file's sites and elements.
    pub(super) fn check_resolution(&self, resolution: &FileResolution) -> Result<(), String> {
        let n_sites = self.facts.ref_sites.len();
        if let Some(r) = resolution.refs.iter().find(|r| r.site as usize >= n_sites) {
            return Err(format!("a reference names site {} of {n_sites}", r.site));
        }
        let n_elements = self.facts.elements.len();
        if let Some(o) = resolution
            .overrides
            .iter()
            .find(|o| o.element as usize >= n_elements)
        {
            return Err(format!(
                "an override names element {} of {n_elements}",
                o.element
            ));
        }
        Ok(())
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
