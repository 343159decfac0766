//! What a position in a document names: the element declared there, the
//! element a reference site there targets, or a type written by its
//! simple name (type names alone are not reference sites in the index, so
//! they are looked up as javac would: the file's own types, single-type
//! imports, the package, on-demand imports, `java.lang`).

use std::collections::HashMap;
use std::sync::OnceLock;

use lsp_types::Position;
use refscope_engine::{ElementKind, ElementView, FileData, FileEntry, Snapshot, Store};

use crate::documents::Documents;
use crate::text::{LineIndex, word_at};

/// What a request reads: the revision answering, and the documents (their
/// text, their URIs).
pub struct Context<'a> {
    /// The store the revision is in.
    pub store: &'a Store,
    /// The newest indexed revision of the work tree.
    pub snapshot: &'a Snapshot<'a>,
    /// The client's open documents over the work tree.
    pub documents: &'a Documents,
    /// The revision's files by path.
    pub files: &'a FilesByPath,
}

/// A revision's files by path, listed once: an answer that names
/// hundreds of files (the callers of a popular method) looks each up in
/// memory rather than in the store's manifest.
#[derive(Debug, Default)]
pub struct FilesByPath(OnceLock<HashMap<String, FileEntry>>);

impl FilesByPath {
    /// The file at `path` in the snapshot's revision (which must be the
    /// same on every call).
    pub fn get(
        &self,
        snapshot: &Snapshot<'_>,
        path: &str,
    ) -> Result<Option<FileEntry>, refscope_engine::Error> {
        if self.0.get().is_none() {
            let files = snapshot.files()?;
            let by_path = files.into_iter().map(|f| (f.path.clone(), f)).collect();
            let _ = self.0.set(by_path);
        }
        Ok(self.0.get().and_then(|files| files.get(path)).cloned())
    }
}

/// An element a position names.
#[derive(Debug, Clone)]
pub enum Target {
    /// An element the revision declares.
    Declared(Box<ElementView>),
    /// An element known only from references to it (a library's whose
    /// sources are not indexed).
    Library(String),
}

impl Target {
    /// The element id.
    pub fn id(&self) -> &str {
        match self {
            Self::Declared(view) => &view.record.element_id,
            Self::Library(id) => id,
        }
    }
}

/// The element named at `position` of the document at `rel`: declared
/// there, referenced there, or a type named there. `None` for a position
/// on no name, past the end of a line or of the file, on an unresolved
/// reference, or in a file the revision does not hold.
pub fn target_at(
    context: &Context<'_>,
    rel: &str,
    position: Position,
) -> Result<Option<Target>, refscope_engine::Error> {
    let Some(text) = context.documents.current_text(rel) else {
        return Ok(None);
    };
    let lines = LineIndex::new(&text);
    let Some(word) = lines
        .line(position.line)
        .and_then(|line| word_at(line, position.character))
    else {
        return Ok(None);
    };
    let snapshot = context.snapshot;
    let Ok(file) = snapshot.file(rel) else {
        return Ok(None);
    };
    let data = snapshot.file_data(&file)?;
    let (line, col) = (position.line + 1, word.start + 1);
    let declared_here = data.facts.elements.iter().position(|element| {
        element.name_pos.line == line && element.name_pos.col == col && is_named(element.kind)
    });
    if let Some(index) = declared_here {
        return Ok(view_in(&data, rel, index).map(|view| Target::Declared(Box::new(view))));
    }
    let hits = snapshot.callees_on_lines(rel, line, line)?;
    let mut at_word = hits.iter().filter(|hit| hit.col == col).peekable();
    if at_word.peek().is_some() {
        return match at_word.find_map(|hit| hit.target.clone()) {
            Some(id) => target_of_id(snapshot, &id).map(Some),
            None => Ok(None),
        };
    }
    type_named(snapshot, &data, rel, &word.text)
}

/// The element with id `id`: its declaration when the revision has one.
pub fn target_of_id(snapshot: &Snapshot<'_>, id: &str) -> Result<Target, refscope_engine::Error> {
    Ok(match declaration_of(snapshot, id)? {
        Some(view) => Target::Declared(Box::new(view)),
        None => Target::Library(id.to_string()),
    })
}

/// The declaration of element `id` in the revision (the first by path
/// when several files declare it), if any.
pub fn declaration_of(
    snapshot: &Snapshot<'_>,
    id: &str,
) -> Result<Option<ElementView>, refscope_engine::Error> {
    let Some((file, index)) = snapshot.declarations_of(id)?.into_iter().next() else {
        return Ok(None);
    };
    let data = snapshot.file_data(&file)?;
    Ok(view_in(&data, &file.path, index as usize))
}

/// Element `index` of a file read from the store.
pub fn view_in(data: &FileData, path: &str, index: usize) -> Option<ElementView> {
    Some(ElementView {
        path: path.to_string(),
        record: data.records.get(index)?.clone(),
        element: data.facts.elements.get(index)?.clone(),
    })
}

/// Whether elements of `kind` have a name a position can be on.
pub fn is_named(kind: ElementKind) -> bool {
    !matches!(
        kind,
        ElementKind::Lambda
            | ElementKind::AnonymousClass
            | ElementKind::InstanceInitializer
            | ElementKind::StaticInitializer
    )
}

/// The type that simple name `name`, written in the file at `rel`, names.
fn type_named(
    snapshot: &Snapshot<'_>,
    data: &FileData,
    rel: &str,
    name: &str,
) -> Result<Option<Target>, refscope_engine::Error> {
    let own = data
        .facts
        .elements
        .iter()
        .position(|element| element.kind.is_type() && element.name == name);
    if let Some(index) = own {
        return Ok(view_in(data, rel, index).map(|view| Target::Declared(Box::new(view))));
    }
    let imports = &data.facts.imports;
    let package = data.facts.package.as_deref();
    let mut candidates: Vec<String> = imports
        .iter()
        .filter(|import| !import.is_static && !import.on_demand)
        .filter(|import| import.path.rsplit('.').next() == Some(name))
        .map(|import| import.path.clone())
        .collect();
    candidates.push(match package {
        Some(package) => format!("{package}.{name}"),
        None => name.to_string(),
    });
    candidates.extend(
        imports
            .iter()
            .filter(|import| !import.is_static && import.on_demand)
            .map(|import| format!("{}.{name}", import.path)),
    );
    candidates.push(format!("java.lang.{name}"));
    for candidate in candidates {
        if let Ok(found) = snapshot.find_element(&candidate)
            && !found.id.contains('#')
        {
            return Ok(Some(match found.declared {
                Some(view) => Target::Declared(Box::new(view)),
                None => Target::Library(found.id),
            }));
        }
    }
    Ok(None)
}
