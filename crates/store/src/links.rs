//! The reference index's links: the element ids that references and
//! override links point at (`targets`, interned), the postings target →
//! unit and the override links target → (unit, element). A revision's
//! links are gathered while its units are stored and written once, sorted
//! by key, so that SQLite appends to its B-trees.

use std::collections::HashMap;

use refscope_syntax::facts::{ExprShape, FileFacts, NO_ELEMENT};
use rusqlite::{OptionalExtension, params};

use crate::bulk::{Value, insert_rows};
use crate::error::Error;
use crate::transaction::IndexTransaction;

/// What the stored units of a revision link to, written once they are all
/// stored ([`SortedLinks::write`]): the element ids that references and
/// override links point at (`targets`), and the postings and override
/// links by target. Written sorted by key, so SQLite appends to its
/// B-trees instead of inserting all over them; units are stored as they
/// come.
#[derive(Default)]
pub struct Links {
    /// Target names, each with its number in this revision's links.
    targets: HashMap<HashedName, u32, std::hash::BuildHasherDefault<HashPassed>>,
    /// (target number, unit, how the unit's sites of it read).
    pub(crate) postings: Vec<(u32, i64, SiteCounts)>,
    /// (target number, unit, element index).
    pub(crate) overrides: Vec<(u32, i64, u32)>,
}

/// How the sites of one unit that reference one target read, kept with
/// the posting: a caller can count an element's callers, and tell which
/// files it must read to list them, without reading every file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SiteCounts {
    /// Sites at distinct positions.
    pub sites: u32,
    /// Of those, calls on `super` (plain or qualified).
    pub on_super: u32,
    /// Of those, calls on `this` (written or implicit) inside an element:
    /// whether such a call can reach an override depends on the class
    /// the call is in.
    pub on_this: u32,
}

impl SiteCounts {
    /// The counts of the sites numbered `sites` of `facts` (numbers out of
    /// range are left out; two sites at one position count once).
    pub fn of(sites: &[u32], facts: &FileFacts) -> Self {
        let mut at: Vec<(u32, u32, u8)> = sites
            .iter()
            .filter_map(|&site| facts.ref_sites.get(site as usize))
            .map(|site| {
                let receiver = match site.receiver {
                    ExprShape::Super | ExprShape::QualifiedSuper => 1,
                    ExprShape::Implicit | ExprShape::This if site.enclosing != NO_ELEMENT => 2,
                    _ => 0,
                };
                (site.pos.line, site.pos.col, receiver)
            })
            .collect();
        at.sort_unstable();
        at.dedup_by_key(|&mut (line, col, _)| (line, col));
        let count = |receiver: u8| at.iter().filter(|&&(.., r)| r == receiver).count() as u32;
        Self {
            sites: at.len() as u32,
            on_super: count(1),
            on_this: count(2),
        }
    }
}

impl Links {
    pub(crate) fn target(&mut self, name: HashedName) -> u32 {
        let next = self.targets.len() as u32;
        *self.targets.entry(name).or_insert(next)
    }

    /// The links in the order they are written: by target name, then
    /// unit (and element), each once. Made on a thread of its own while
    /// SQLite builds the element index.
    pub fn sorted(&self) -> SortedLinks<'_> {
        let mut names: Vec<(&str, u32)> = self
            .targets
            .iter()
            .map(|(name, &number)| (name.name.as_str(), number))
            .collect();
        names.sort_unstable();
        let mut rank = vec![0u32; names.len()];
        for (at, &(_, number)) in names.iter().enumerate() {
            rank[number as usize] = at as u32;
        }
        let mut postings: Vec<(u32, i64, SiteCounts)> = self
            .postings
            .iter()
            .map(|&(target, unit, counts)| (rank[target as usize], unit, counts))
            .collect();
        postings.sort_unstable();
        postings.dedup_by_key(|&mut (target, unit, _)| (target, unit));
        let mut overrides: Vec<(u32, i64, u32)> = self
            .overrides
            .iter()
            .map(|&(target, unit, idx)| (rank[target as usize], unit, idx))
            .collect();
        overrides.sort_unstable();
        overrides.dedup();
        SortedLinks {
            names: names.into_iter().map(|(name, _)| name).collect(),
            postings,
            overrides,
        }
    }
}

/// [`Links`] sorted for writing: targets by name, and the postings and
/// override links by the rank of their target's name.
pub struct SortedLinks<'l> {
    names: Vec<&'l str>,
    /// (target rank, unit, counts).
    postings: Vec<(u32, i64, SiteCounts)>,
    /// (target rank, unit, element index).
    overrides: Vec<(u32, i64, u32)>,
}

impl SortedLinks<'_> {
    /// Writes the links, by key order.
    pub fn write(self, tx: &IndexTransaction) -> Result<(), Error> {
        self.insert(tx.tx()).map_err(|e| tx.error(e))
    }

    fn insert(self, tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
        let ids = intern_targets(tx, &self.names)?;
        // New targets' ids follow their names' order: when all are new (a
        // first index), the rows are in key order already.
        let resort = !ids.is_sorted();
        let mut postings: Vec<(i64, i64, SiteCounts)> = self
            .postings
            .iter()
            .map(|&(target, unit, counts)| (ids[target as usize], unit, counts))
            .collect();
        if resort {
            postings.sort_unstable();
        }
        insert_rows(
            tx,
            "INSERT OR IGNORE INTO ref_postings (target_id, unit_id, sites, on_super, on_this) \
             VALUES ",
            &postings,
            |&(target, unit, counts)| {
                [
                    Value::Int(target),
                    Value::Int(unit),
                    Value::from(counts.sites),
                    Value::from(counts.on_super),
                    Value::from(counts.on_this),
                ]
            },
        )?;
        let mut overrides: Vec<(i64, i64, u32)> = self
            .overrides
            .iter()
            .map(|&(target, unit, idx)| (ids[target as usize], unit, idx))
            .collect();
        if resort {
            overrides.sort_unstable();
        }
        insert_rows(
            tx,
            "INSERT OR IGNORE INTO overrides (target_id, unit_id, idx) VALUES ",
            &overrides,
            |&(target, unit, idx)| [Value::Int(target), Value::Int(unit), Value::from(idx)],
        )
    }
}

/// A target name with its hash, computed by the worker that resolved it,
/// so that the single writer only compares names it already has.
pub(crate) struct HashedName {
    hash: u64,
    name: String,
}

impl HashedName {
    pub(crate) fn new(name: String) -> Self {
        use std::hash::BuildHasher;
        Self {
            hash: rustc_hash::FxBuildHasher.hash_one(name.as_str()),
            name,
        }
    }
}

impl PartialEq for HashedName {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.name == other.name
    }
}

impl Eq for HashedName {}

impl std::hash::Hash for HashedName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The hasher of [`Links::targets`]: the key's hash is computed already.
#[derive(Default)]
struct HashPassed(u64);

impl std::hash::Hasher for HashPassed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, _: &[u8]) {
        unreachable!("only HashedName is hashed with HashPassed");
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

/// The ids of targets `names` (sorted, distinct), in their order; the new
/// ones are added, with ids in that order too. A first index adds them
/// all, in runs of [`ROWS_PER_INSERT`] without a lookup each: 213 K
/// targets on the JDK, written in the serial tail after resolution.
fn intern_targets(tx: &rusqlite::Transaction, names: &[&str]) -> rusqlite::Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(names.len());
    // The table is keyed by name alone: the next id is kept in `meta`.
    let next: i64 = tx.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_target_id'",
        [],
        |r| r.get(0),
    )?;
    let mut new: Vec<(&str, i64)> = Vec::new();
    let mut find = tx.prepare_cached("SELECT id FROM targets WHERE name = ?1")?;
    for &name in names {
        let known = if next == 1 {
            None
        } else {
            find.query_row(params![name], |r| r.get(0)).optional()?
        };
        ids.push(known.unwrap_or_else(|| {
            let id = next + new.len() as i64;
            new.push((name, id));
            id
        }));
    }
    insert_rows(
        tx,
        "INSERT INTO targets (name, id) VALUES ",
        &new,
        |&(name, id)| [Value::Text(name), Value::Int(id)],
    )?;
    tx.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'next_target_id'",
        params![(next + new.len() as i64).to_string()],
    )?;
    Ok(ids)
}
