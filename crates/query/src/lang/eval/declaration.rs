//! The declarations of elements that relations reach, read through the
//! evaluator's cache of files, so that each file of a revision is read
//! once.

use refscope_engine::{ElementView, Error, Snapshot};

use super::Evaluator;
use super::row::Row;

impl<'s> Evaluator<'s> {
    /// Reads the declarations of `rows` that are not read yet (see
    /// [`Row::unread`]), from the files of `snapshot`.
    pub(super) fn read_declarations(
        &self,
        snapshot: &Snapshot<'s>,
        rows: &mut [Row],
    ) -> Result<(), Error> {
        for row in rows {
            if let Some(path) = row.declared_in.take() {
                row.view = self.view_in_file(snapshot, &path, &row.id)?;
            }
        }
        Ok(())
    }

    /// The declaration of `id` in the revision, if any (the first by path).
    pub(super) fn declared_view(
        &self,
        snapshot: &Snapshot<'s>,
        id: &str,
    ) -> Result<Option<ElementView>, Error> {
        match snapshot.declarations_of(id)?.into_iter().next() {
            Some((file, _)) => self.view_in_file(snapshot, &file.path, id),
            None => Ok(None),
        }
    }

    /// The element `id` declared in file `path`, read through the cache.
    pub(super) fn view_in_file(
        &self,
        snapshot: &Snapshot<'s>,
        path: &str,
        id: &str,
    ) -> Result<Option<ElementView>, Error> {
        let key = (snapshot.revision().id, path.to_string());
        let cached = self.files.borrow().get(&key).cloned();
        let data = match cached {
            Some(data) => data,
            None => {
                let data = snapshot.file_data(&snapshot.file(path)?)?;
                self.files.borrow_mut().insert(key, data.clone());
                data
            }
        };
        Ok(data.index_of(id).and_then(|idx| {
            Some(ElementView {
                path: path.to_string(),
                record: data.records.get(idx as usize)?.clone(),
                element: data.facts.elements.get(idx as usize)?.clone(),
            })
        }))
    }
}
