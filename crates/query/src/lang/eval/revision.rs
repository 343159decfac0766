//! Revisions other than the one read: the snapshot of each revision `at`
//! names, kept so that it is opened once, and the rows of `changed`, from
//! the engine's diff of two snapshots (which reads file contents through
//! the repository's blob reader, opened once too).

use std::rc::Rc;

use refscope_engine::{
    BlobReader, DiffConfig, Error, IndexConfig, Indexer, Snapshot, SourceLimits,
};

use super::super::ast::{Revision, Span};
use super::super::error::QueryError;
use super::Evaluator;
use super::row::Row;

impl<'s> Evaluator<'s> {
    pub(super) fn snapshot_at(&self, revision: &Revision) -> Result<Rc<Snapshot<'s>>, QueryError> {
        if let Some(known) = self.snapshots.borrow().get(&revision.name) {
            return Ok(known.clone());
        }
        let at = |e: Error| QueryError::evaluation(Some(revision.span), e.to_string());
        let row =
            Snapshot::pick_revision(self.store, self.source, Some(&revision.name)).map_err(at)?;
        let snapshot = Rc::new(Snapshot::new(self.store, row).map_err(at)?);
        self.snapshots
            .borrow_mut()
            .insert(revision.name.clone(), snapshot.clone());
        Ok(snapshot)
    }

    /// The rows of `changed`: the elements that differ between `base` and
    /// `head` (the snapshot read when no head is given), with how each
    /// changed.
    pub(super) fn changed(
        &self,
        snapshot: &Snapshot<'s>,
        base: &Revision,
        head: Option<&Revision>,
        merge_base: bool,
        span: Span,
    ) -> Result<Vec<Row>, QueryError> {
        let at = |e: Error| QueryError::evaluation(Some(span), e.to_string());
        let base_snapshot = if merge_base {
            self.snapshot_at(&self.merge_base(snapshot, base, head)?)?
        } else {
            self.snapshot_at(base)?
        };
        let named_head;
        let head_snapshot: &Snapshot<'s> = match head {
            Some(head) => {
                named_head = self.snapshot_at(head)?;
                &named_head
            }
            None => snapshot,
        };
        let blobs = self.blob_reader();
        let config = DiffConfig {
            blobs: blobs.as_ref().as_ref(),
        };
        let diff = head_snapshot
            .changes_since(&base_snapshot, &config)
            .map_err(at)?;
        Ok(diff
            .changes
            .into_iter()
            .map(|change| Row {
                id: change.id,
                view: change.head.or(change.base),
                edge: None,
                change: Some(change.kind),
                declared_in: None,
            })
            .collect())
    }

    /// The merge base of `base` and `head` (the revision read when there is
    /// none) as a revision of the repository, spanning `base`; indexed
    /// first when it is not yet (a pull request's merge base seldom is),
    /// unless `head` was indexed against other libraries than an index
    /// run here would use (a class path given to `refscope index`): the
    /// two would differ where the libraries do, not where the code does.
    fn merge_base(
        &self,
        snapshot: &Snapshot<'s>,
        base: &Revision,
        head: Option<&Revision>,
    ) -> Result<Revision, QueryError> {
        let at = |e: Error| QueryError::evaluation(Some(base.span), e.to_string());
        let Some(source) = self.source else {
            return Err(QueryError::evaluation(
                Some(base.span),
                "A...B needs the git repository the store indexed: run the query in its work tree or give --repo",
            ));
        };
        let named_head;
        let head_revision = match head {
            Some(head) => {
                named_head = self.snapshot_at(head)?;
                named_head.revision()
            }
            None => snapshot.revision(),
        };
        let name = source
            .merge_base(&base.name, &head_revision.name)
            .map_err(at)?;
        let indexed = self.store.revision(&name).map_err(|e| at(e.into()))?;
        if indexed.is_none() {
            let mut indexer = Indexer::new(self.store, IndexConfig::default());
            if indexer.library_digest().map_err(at)? != head_revision.library_digest {
                return Err(QueryError::evaluation(
                    Some(base.span),
                    format!(
                        "the merge base {name} is not indexed, and {} was indexed with other libraries (a class path) or path globs than a query can index it with: index it as {} was, `refscope index --rev {name} --classpath ... --exclude ...`",
                        head_revision.name, head_revision.name
                    ),
                ));
            }
            let revision = source
                .resolve_revision(Some(&name), &SourceLimits::default())
                .map_err(at)?;
            indexer.index(source, &revision, &mut |_| {}).map_err(at)?;
        }
        Ok(Revision {
            name,
            span: base.span,
        })
    }

    fn blob_reader(&self) -> Rc<Option<BlobReader>> {
        if let Some(reader) = self.blobs.borrow().as_ref() {
            return reader.clone();
        }
        let reader = Rc::new(
            self.source
                .and_then(|source| source.reader_spec().open().ok()),
        );
        *self.blobs.borrow_mut() = Some(reader.clone());
        reader
    }
}
