//! The files and file texts one answer reads: each file decoded once per
//! revision while the snapshot's cache keeps it, each text read once.

use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use refscope_engine::BlobReader;
use refscope_engine::FileData;
use refscope_engine::{ElementView, Snapshot};

/// One file as the assembly reads it: decoded once per revision while
/// the snapshot's cache keeps it.
#[derive(Clone)]
pub(super) struct LoadedFile(Arc<FileData>);

impl Deref for LoadedFile {
    type Target = FileData;

    fn deref(&self) -> &FileData {
        &self.0
    }
}

impl LoadedFile {
    pub(super) fn view(&self, index: u32) -> Option<ElementView> {
        Some(ElementView {
            path: self.entry.path.clone(),
            record: self.records.get(index as usize)?.clone(),
            element: self.facts.elements.get(index as usize)?.clone(),
        })
    }

    pub(super) fn index_of(&self, id: &str) -> Option<u32> {
        self.records
            .iter()
            .position(|r| r.element_id == id)
            .map(|i| i as u32)
    }
}

/// Files and file texts read while assembling one answer.
pub(super) struct FileCache<'a, 's> {
    pub(super) snapshot: &'a Snapshot<'s>,
    pub(super) blobs: &'a BlobReader,
    pub(super) files: HashMap<String, LoadedFile>,
    pub(super) lines: HashMap<String, Option<Rc<Vec<String>>>>,
}

impl FileCache<'_, '_> {
    pub(super) fn load(&mut self, path: &str) -> Result<LoadedFile, refscope_engine::Error> {
        if let Some(file) = self.files.get(path) {
            return Ok(file.clone());
        }
        let entry = self.snapshot.file(path)?;
        let file = LoadedFile(self.snapshot.file_data(&entry)?);
        self.files.insert(path.to_string(), file.clone());
        Ok(file)
    }

    /// The lines of a file's text, `None` when it cannot be read (a
    /// directory whose file changed on disk since it was indexed).
    pub(super) fn lines(&mut self, file: &LoadedFile) -> Option<Rc<Vec<String>>> {
        if let Some(lines) = self.lines.get(&file.entry.path) {
            return lines.clone();
        }
        let lines = self
            .blobs
            .read_blob(&file.entry.path, &file.entry.blob_id)
            .ok()
            .map(|bytes| {
                Rc::new(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_string)
                        .collect(),
                )
            });
        self.lines.insert(file.entry.path.clone(), lines.clone());
        lines
    }
}
