//! The global reference index read back: elements by id and name, the
//! postings target → unit and the override links. Units are shared by
//! revisions, so every answer here names units of any revision; the read
//! API keeps those of the revision it reads.

use refscope_syntax::facts::ElementKind;
use rusqlite::{ToSql, params};

use crate::error::Error;
use crate::links::SiteCounts;
use crate::open::Store;

/// An element row found by id: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementKey {
    /// The unit holding it.
    pub unit_id: i64,
    /// Its index in the unit's blob's facts.
    pub idx: u32,
    /// Its element id.
    pub element_id: String,
    /// Its kind, `None` for a kind this build does not know.
    pub kind: Option<ElementKind>,
    /// Its simple name.
    pub name: String,
}

impl Store {
    /// `(unit, element index)` of every element with id `id`.
    pub fn elements_with_id(&self, id: &str) -> Result<Vec<(i64, u32)>, Error> {
        self.pairs(
            "SELECT unit_id, idx FROM elements WHERE element_id = ?1",
            &[&id],
        )
    }

    /// `(kind, unit)` of every element with id `id`; `None` for a kind
    /// this build does not know.
    pub fn element_kinds_with_id(
        &self,
        id: &str,
    ) -> Result<Vec<(Option<ElementKind>, i64)>, Error> {
        let rows: Vec<(String, i64)> = self.pairs(
            "SELECT kind, unit_id FROM elements WHERE element_id = ?1",
            &[&id],
        )?;
        Ok(rows
            .into_iter()
            .map(|(kind, unit)| (ElementKind::parse(&kind), unit))
            .collect())
    }

    /// Every element whose id is in `[low, high)`.
    pub fn elements_in_id_range(&self, low: &str, high: &str) -> Result<Vec<ElementKey>, Error> {
        let mut statement = self
            .db()
            .prepare_cached(
                "SELECT unit_id, idx, element_id, kind, name FROM elements \
                 WHERE element_id >= ?1 AND element_id < ?2",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![low, high], |r| {
                let kind: String = r.get(3)?;
                Ok(ElementKey {
                    unit_id: r.get(0)?,
                    idx: r.get(1)?,
                    element_id: r.get(2)?,
                    kind: ElementKind::parse(&kind),
                    name: r.get(4)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// `(element id, unit)` of every element with simple name `name`, case
    /// ignored.
    pub fn elements_named(&self, name: &str) -> Result<Vec<(String, i64)>, Error> {
        self.pairs(
            "SELECT element_id, unit_id FROM elements WHERE name = ?1 COLLATE NOCASE",
            &[&name],
        )
    }

    /// `(target, unit)` of the units with a site targeting exactly `target`.
    pub fn postings_of(&self, target: &str) -> Result<Vec<(String, i64)>, Error> {
        self.pairs(
            "SELECT t.name, p.unit_id FROM targets t JOIN ref_postings p ON p.target_id = t.id \
             WHERE t.name = ?1",
            &[&target],
        )
    }

    /// The units posted for `target`, each with how its sites of it read.
    pub fn postings_with_counts(&self, target: &str) -> Result<Vec<(i64, SiteCounts)>, Error> {
        let mut statement = self
            .db()
            .prepare_cached(
                "SELECT p.unit_id, p.sites, p.on_super, p.on_this FROM targets t \
                 JOIN ref_postings p ON p.target_id = t.id WHERE t.name = ?1",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![target], |r| {
                Ok((
                    r.get(0)?,
                    SiteCounts {
                        sites: r.get(1)?,
                        on_super: r.get(2)?,
                        on_this: r.get(3)?,
                    },
                ))
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// `(target, unit)` of the postings whose target is in `[low, high)`.
    pub fn postings_in_range(&self, low: &str, high: &str) -> Result<Vec<(String, i64)>, Error> {
        self.pairs(
            "SELECT t.name, p.unit_id FROM targets t JOIN ref_postings p ON p.target_id = t.id \
             WHERE t.name >= ?1 AND t.name < ?2",
            &[&low, &high],
        )
    }

    /// `(target, unit)` of the override links whose target is in
    /// `[low, high)`.
    pub fn overrides_in_range(&self, low: &str, high: &str) -> Result<Vec<(String, i64)>, Error> {
        self.pairs(
            "SELECT t.name, o.unit_id FROM targets t JOIN overrides o ON o.target_id = t.id \
             WHERE t.name >= ?1 AND t.name < ?2",
            &[&low, &high],
        )
    }

    /// `(unit, element index)` of the elements that directly override
    /// method `target` or extend type `target`.
    pub fn overriding_elements(&self, target: &str) -> Result<Vec<(i64, u32)>, Error> {
        self.pairs(
            "SELECT o.unit_id, o.idx FROM targets t JOIN overrides o ON o.target_id = t.id \
             WHERE t.name = ?1",
            &[&target],
        )
    }

    /// Runs a query of two columns.
    fn pairs<A, B>(&self, sql: &str, args: &[&dyn ToSql]) -> Result<Vec<(A, B)>, Error>
    where
        A: rusqlite::types::FromSql,
        B: rusqlite::types::FromSql,
    {
        let mut statement = self
            .db()
            .prepare_cached(sql)
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(args, |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
