//! Units: a blob's qualified element records and resolution as one
//! revision's context made them, shared by every revision that qualifies
//! and resolves the blob alike.

use std::sync::Arc;

use refscope_resolve::records::ElementRecord;
use refscope_resolve::{FileResolution, StoredResolution, TrackedResolution};
use refscope_syntax::Digest128;
use refscope_syntax::facts::{ElementKind, FileFacts};
use rusqlite::{OptionalExtension, params};

use crate::blob::BlobId;
use crate::bulk::BulkInsert;
use crate::error::Error;
use crate::links::{HashedName, Links, SiteCounts};
use crate::names::{decode_names, encode_names};
use crate::open::Store;
use crate::symbols::UnitSymbols;
use crate::transaction::IndexTransaction;
use crate::tree::FileEntry;

/// A blob's resolution in the form the store writes, made on the worker
/// that resolved it (see [`Engine::resolve_in_chunks`]): the single writer
/// then only runs the inserts.
pub struct NewUnit {
    /// [`unit_digest`].
    digest: BlobId,
    /// The archived [`StoredResolution`](refscope_resolve::StoredResolution).
    refs: rkyv::util::AlignedVec,
    /// Names looked up, sorted, front-coded ([`encode_names`]).
    deps: Vec<u8>,
    /// The unit's symbols ([`crate::symbols::encode`]).
    symbols: Vec<u8>,
    /// The distinct targets of the references, with how their sites read.
    targets: Vec<(HashedName, SiteCounts)>,
    /// (element index, target) of each override link.
    overrides: Vec<(u32, HashedName)>,
    /// The element rows.
    elements: ElementRows,
}

impl NewUnit {
    /// The rows of `blob_id`'s resolution and symbols, made on the worker
    /// that resolved it. `deps` are every name the file's qualification
    /// and resolution looked up, sorted; `facts` are the file's, which
    /// the resolution's sites index.
    pub fn new(
        blob_id: &BlobId,
        resolved: Arc<TrackedResolution>,
        deps: impl IntoIterator<Item = impl AsRef<str>>,
        symbols: &UnitSymbols,
        facts: &FileFacts,
    ) -> Self {
        Self::from_parts(
            blob_id,
            &resolved.records,
            &resolved.resolution,
            deps,
            symbols,
            facts,
        )
    }

    /// The names looked up, as [`encode_names`] wrote them.
    pub fn encoded_deps(&self) -> &[u8] {
        &self.deps
    }

    fn from_parts(
        blob_id: &BlobId,
        records: &[ElementRecord],
        resolution: &FileResolution,
        deps: impl IntoIterator<Item = impl AsRef<str>>,
        symbols: &UnitSymbols,
        facts: &FileFacts,
    ) -> Self {
        let stored = resolution.to_stored();
        // Archived resolutions come to about 55 bytes per reference on the
        // JDK: a buffer of that size spares the growth by doubling.
        let buffer = rkyv::util::AlignedVec::with_capacity(64 * stored.n_refs() + 256);
        let refs = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(&stored, buffer)
            .expect("resolutions serialize");
        let deps = encode_names(deps);
        let symbols = crate::symbols::encode(symbols);
        let digest = unit_digest(blob_id, records, &refs, &deps, &symbols);
        let overrides = resolution
            .overrides
            .iter()
            .flat_map(|o| {
                o.targets
                    .iter()
                    .map(|target| (o.element, HashedName::new(target.clone())))
            })
            .collect();
        NewUnit {
            digest,
            refs,
            deps,
            symbols,
            targets: stored
                .sites_by_target()
                .into_iter()
                .map(|(id, sites)| (HashedName::new(id), SiteCounts::of(&sites, facts)))
                .collect(),
            overrides,
            elements: ElementRows::new(records),
        }
    }
}

/// A unit's element rows as the writer inserts them, the texts of all of
/// them in one buffer. Made on the worker, which frees the records there:
/// the writer then frees two buffers a unit, not eight strings an element
/// made on another thread (2.6 M over the JDK).
struct ElementRows {
    text: String,
    rows: Vec<ElementRow>,
}

/// A text of an [`ElementRows`]: its byte range in the buffer.
type TextRange = (u32, u32);

/// One element's row; see [`ElementRecord`].
struct ElementRow {
    idx: u32,
    kind: refscope_syntax::facts::ElementKind,
    parent_idx: Option<u32>,
    start_line: u32,
    end_line: u32,
    name_line: u32,
    name_col: u32,
    element_id: TextRange,
    name: TextRange,
    owner: Option<TextRange>,
    /// The parameter types, joined with commas.
    params: TextRange,
    type_name: TextRange,
}

impl ElementRows {
    fn new(records: &[ElementRecord]) -> Self {
        let size: usize = records
            .iter()
            .map(|r| {
                r.element_id.len()
                    + r.name.len()
                    + r.owner.as_ref().map_or(0, String::len)
                    + r.params.iter().map(|p| p.len() + 1).sum::<usize>()
                    + r.type_name.len()
            })
            .sum();
        let mut out = Self {
            text: String::with_capacity(size),
            rows: Vec::with_capacity(records.len()),
        };
        for r in records {
            let row = ElementRow {
                idx: r.idx,
                kind: r.kind,
                parent_idx: r.parent_idx,
                start_line: r.start_line,
                end_line: r.end_line,
                name_line: r.name_line,
                name_col: r.name_col,
                element_id: out.push(std::slice::from_ref(&r.element_id)),
                name: out.push(std::slice::from_ref(&r.name)),
                owner: r.owner.as_ref().map(|o| out.push(std::slice::from_ref(o))),
                params: out.push(&r.params),
                type_name: out.push(std::slice::from_ref(&r.type_name)),
            };
            out.rows.push(row);
        }
        out
    }

    /// Appends `parts`, joined with commas, to the buffer; their range.
    fn push(&mut self, parts: &[String]) -> TextRange {
        let at = |len: usize| u32::try_from(len).expect("a unit's texts are under 4 GiB");
        let start = at(self.text.len());
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            self.text.push_str(part);
        }
        (start, at(self.text.len()))
    }

    fn text(&self, (start, end): TextRange) -> &str {
        &self.text[start as usize..end as usize]
    }
}

/// Stores the units of an index, with the statements every unit runs
/// prepared once ([`IndexTransaction::unit_writer`]).
pub struct UnitWriter<'t> {
    tx: &'t IndexTransaction<'t>,
    elements: BulkInsert<'t>,
}

impl UnitWriter<'_> {
    /// Stores a blob's records as a unit, or finds the identical unit
    /// stored before; returns the unit id. A new unit's postings and
    /// override links go to `links`, written once every unit is stored.
    pub fn store(
        &mut self,
        blob_id: &BlobId,
        unit: NewUnit,
        links: &mut Links,
    ) -> Result<i64, Error> {
        store_unit(self.tx.tx(), &mut self.elements, blob_id, unit, links)
            .map_err(|e| self.tx.error(e))
    }
}

/// Stores a blob's records as a unit, or finds the identical unit stored
/// before; returns the unit id. A new unit's postings and override links
/// go to `links`, for [`SortedLinks::write`].
fn store_unit(
    tx: &rusqlite::Transaction,
    elements_insert: &mut BulkInsert,
    blob_id: &BlobId,
    unit: NewUnit,
    links: &mut Links,
) -> rusqlite::Result<i64> {
    let NewUnit {
        digest,
        refs,
        deps,
        symbols,
        targets,
        overrides,
        elements,
    } = unit;
    let existing: Option<i64> = tx
        .prepare_cached("SELECT id FROM units WHERE digest = ?1")?
        .query_row(params![&digest.0[..]], |r| r.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    tx.prepare_cached(
        "INSERT INTO units (blob_id, digest, refs, deps, symbols) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        &blob_id.0[..],
        &digest.0[..],
        &refs[..],
        deps,
        symbols
    ])?;
    let unit = tx.last_insert_rowid();
    // Most targets are referenced several times: the stored form has each
    // once.
    for (target, counts) in targets {
        let target = links.target(target);
        links.postings.push((target, unit, counts));
    }
    for (element, target) in overrides {
        let target = links.target(target);
        links.overrides.push((target, unit, element));
    }
    for r in &elements.rows {
        elements_insert.run(&[
            unit.into(),
            r.idx.into(),
            elements.text(r.element_id).into(),
            r.kind.as_str().into(),
            elements.text(r.name).into(),
            r.owner.map(|owner| elements.text(owner)).into(),
            elements.text(r.params).into(),
            elements.text(r.type_name).into(),
            r.parent_idx.into(),
            r.start_line.into(),
            r.end_line.into(),
            r.name_line.into(),
            r.name_col.into(),
        ])?;
    }
    Ok(unit)
}

/// A digest of a unit's content: the blob, its qualified names, its
/// resolution, the names it looked up and its symbols (SHA-1 over the
/// serialized references cost more than storing them).
fn unit_digest(
    blob_id: &BlobId,
    records: &[ElementRecord],
    refs: &[u8],
    deps: &[u8],
    symbols: &[u8],
) -> BlobId {
    let mut digest = Digest128::new(b"unit");
    digest.write(&blob_id.0);
    digest.write(refs);
    digest.write(deps);
    digest.write(symbols);
    for r in records {
        digest.write_str(&r.element_id);
        digest.write_str(r.owner.as_deref().unwrap_or(""));
        digest.write_str(&r.type_name);
    }
    let mut out = [0u8; 20];
    out[..16].copy_from_slice(&digest.finish());
    out[16..].copy_from_slice(&blob_id.0[..4]);
    BlobId(out)
}

/// While a store's `elements` table is filled from empty, its index by
/// element id is dropped ([`ElementIndex::defer`]) and made again from all
/// the rows at the end ([`ElementIndex::finish`]): SQLite builds an index
/// from sorted keys far more cheaply than it takes 328 K ids (the JDK)
/// inserted all over it one row at a time. On the JDK the writer's time
/// storing the resolutions went from 1.95-2.13 s to 1.50-1.57 s, for
/// 0.17 s building the index (three alternating runs). Later indexes add
/// few rows to a large table and keep the index.
pub struct ElementIndex {
    deferred: bool,
}

impl ElementIndex {
    /// Drops the index if the table is empty, in `tx`.
    fn defer(tx: &rusqlite::Transaction) -> rusqlite::Result<Self> {
        let empty: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM elements)", [], |r| {
            r.get(0)
        })?;
        if empty {
            tx.execute_batch("DROP INDEX IF EXISTS elements_by_id")?;
        }
        Ok(Self { deferred: empty })
    }

    /// Makes the index again if [`Self::defer`] dropped it, in the same
    /// transaction. (An index that fails before this rolls the drop back.)
    pub fn finish(self, tx: &IndexTransaction) -> Result<(), Error> {
        self.make_again(tx.tx()).map_err(|e| tx.error(e))
    }

    fn make_again(self, tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
        if self.deferred {
            tx.execute_batch(ELEMENTS_BY_ID)?;
        }
        Ok(())
    }
}

/// The index of elements by id, as the schema makes it.
const ELEMENTS_BY_ID: &str = "CREATE INDEX IF NOT EXISTS elements_by_id ON elements (element_id)";

impl<'s> IndexTransaction<'s> {
    /// Defers the element index while the `elements` table is filled from
    /// empty (see [`ElementIndex`]).
    pub fn defer_element_index(&self) -> Result<ElementIndex, Error> {
        ElementIndex::defer(self.tx()).map_err(|e| self.error(e))
    }

    /// A writer of units, its statements prepared.
    pub fn unit_writer(&'s self) -> Result<UnitWriter<'s>, Error> {
        let elements = BulkInsert::new(
            self.tx(),
            "INSERT INTO elements (unit_id, idx, element_id, kind, name, owner, params, type, \
             parent_idx, start_line, end_line, name_line, name_col) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            13,
        )
        .map_err(|e| self.error(e))?;
        Ok(UnitWriter { tx: self, elements })
    }
}

impl Store {
    /// The names unit `unit` looked up, sorted.
    pub fn unit_deps(&self, unit: i64) -> Result<Vec<String>, Error> {
        let bytes: Vec<u8> = self
            .db()
            .prepare_cached("SELECT deps FROM units WHERE id = ?1")
            .and_then(|mut select| select.query_row(params![unit], |r| r.get(0)))
            .map_err(|e| self.sqlite_error(e))?;
        decode_names(&bytes).map_err(|_| self.bad_unit(unit, "names looked up"))
    }

    /// The names unit `unit` looked up, as stored ([`encode_names`],
    /// sorted): for [`contains_name`](crate::contains_name).
    pub fn unit_deps_encoded(&self, unit: i64) -> Result<Vec<u8>, Error> {
        self.db()
            .prepare_cached("SELECT deps FROM units WHERE id = ?1")
            .and_then(|mut select| select.query_row(params![unit], |r| r.get(0)))
            .map_err(|e| self.sqlite_error(e))
    }

    /// The symbols of unit `unit`.
    pub fn unit_symbols(&self, unit: i64) -> Result<UnitSymbols, Error> {
        let bytes: Vec<u8> = self
            .db()
            .prepare_cached("SELECT symbols FROM units WHERE id = ?1")
            .and_then(|mut select| select.query_row(params![unit], |r| r.get(0)))
            .map_err(|e| self.sqlite_error(e))?;
        crate::symbols::decode(&bytes).map_err(|_| self.bad_unit(unit, "symbols"))
    }

    fn bad_unit(&self, unit: i64, what: &str) -> Error {
        Error::Corrupt {
            path: self.dir().to_path_buf(),
            message: format!("the {what} of unit {unit} do not decode"),
        }
    }

    /// The resolution stored for `file`'s unit, validated.
    pub fn unit_resolution(&self, file: &FileEntry) -> Result<StoredResolution, Error> {
        let bytes: Vec<u8> = self
            .db()
            .prepare_cached("SELECT refs FROM units WHERE id = ?1")
            .and_then(|mut select| select.query_row(params![file.unit_id], |r| r.get(0)))
            .map_err(|e| self.sqlite_error(e))?;
        decode_resolution(&bytes).map_err(|e| Error::Corrupt {
            path: self.dir().to_path_buf(),
            message: format!("references of {} do not validate: {e}", file.path),
        })
    }

    /// The qualified element records of `file`'s unit, by element index.
    pub fn unit_records(&self, file: &FileEntry) -> Result<Vec<ElementRecord>, Error> {
        let mut statement = self
            .db()
            .prepare_cached(
                "SELECT idx, element_id, kind, name, owner, params, type, parent_idx, start_line, \
                 end_line, name_line, name_col FROM elements WHERE unit_id = ?1 ORDER BY idx",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![file.unit_id], |r| {
                let kind: String = r.get(2)?;
                let kind = ElementKind::parse(&kind).ok_or_else(|| {
                    rusqlite::Error::FromSqlConversionFailure(
                        2,
                        rusqlite::types::Type::Text,
                        format!("unknown element kind '{kind}'").into(),
                    )
                })?;
                let params_text: String = r.get(5)?;
                Ok(ElementRecord {
                    idx: r.get(0)?,
                    element_id: r.get(1)?,
                    kind,
                    name: r.get(3)?,
                    owner: r.get(4)?,
                    params: split_params(&params_text),
                    type_name: r.get(6)?,
                    parent_idx: r.get(7)?,
                    start_line: r.get(8)?,
                    end_line: r.get(9)?,
                    name_line: r.get(10)?,
                    name_col: r.get(11)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}

/// A unit's `refs` column back into its resolution, validated.
pub(crate) fn decode_resolution(bytes: &[u8]) -> Result<StoredResolution, rkyv::rancor::Error> {
    // The column's bytes come unaligned; the archive needs them aligned.
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
    aligned.extend_from_slice(bytes);
    rkyv::from_bytes::<StoredResolution, rkyv::rancor::Error>(&aligned)
}

/// The `params` column back into parameter types.
fn split_params(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        // Lambda parameters without declared types are stored as empty
        // strings, so a parameter list may hold empty entries.
        text.split(',').map(str::to_string).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use refscope_syntax::facts::ElementKind;

    fn record(idx: u32, name: &str, owner: Option<&str>, params: &[&str]) -> ElementRecord {
        ElementRecord {
            idx,
            element_id: format!("p.{name}({})", params.join(",")),
            kind: ElementKind::Method,
            name: name.to_string(),
            owner: owner.map(str::to_string),
            params: params.iter().map(|p| p.to_string()).collect(),
            type_name: if idx.is_multiple_of(2) {
                "void".into()
            } else {
                String::new()
            },
            parent_idx: idx.checked_sub(1),
            start_line: idx + 1,
            end_line: idx + 2,
            name_line: idx + 3,
            name_col: idx + 4,
        }
    }

    /// Each row gives back its record's texts, the parameter types joined
    /// with commas as the `params` column has them, empty texts and
    /// missing owners included.
    #[test]
    fn element_rows_keep_every_text_of_their_records() {
        let records = [
            record(0, "m", Some("p.A"), &[]),
            record(1, "", None, &["int"]),
            record(
                2,
                "über",
                Some("p.A$B"),
                &["java.lang.String", "int[]", "p.A"],
            ),
        ];
        let rows = ElementRows::new(&records);
        assert_eq!(rows.rows.len(), records.len());
        for (row, r) in rows.rows.iter().zip(&records) {
            assert_eq!(rows.text(row.element_id), r.element_id);
            assert_eq!(rows.text(row.name), r.name);
            assert_eq!(row.owner.map(|o| rows.text(o)), r.owner.as_deref());
            assert_eq!(rows.text(row.params), r.params.join(","));
            assert_eq!(rows.text(row.type_name), r.type_name);
            assert_eq!(
                (row.idx, row.kind, row.parent_idx),
                (r.idx, r.kind, r.parent_idx)
            );
            assert_eq!(
                (row.start_line, row.end_line, row.name_line, row.name_col),
                (r.start_line, r.end_line, r.name_line, r.name_col)
            );
        }
    }
}
