//! The full layer of a revision indexed from scratch, built from its
//! files' names in one pass (see `layers.rs` for the layers' encoding).

use crate::codec::{Reader, write_varint};
use crate::layers::{EncodedLayer, LayerKind, encode_sorted};
use crate::names::{BadNames, for_each_name};

/// A large layer made of (name, path) pairs, both interned: a full
/// layer of a revision indexed from scratch, with every name its files
/// declare or looked up.
///
/// It holds a whole revision's pairs at once, so it is kept small: each
/// path's names as one record of name numbers, ascending and
/// gap-coded in varints (about two bytes a pair over the JDK's millions of
/// pairs, where a pair of numbers took eight), turned around into name →
/// paths only when encoded.
#[derive(Default)]
pub struct BulkLayer {
    names: Names,
    paths: Vec<Box<str>>,
    /// Records: path number, count, then the name numbers as gaps.
    records: Vec<u8>,
    /// Where each record starts in `records`.
    starts: Vec<usize>,
    /// Numbers of the current record's names, reused.
    scratch: Vec<u32>,
}

/// Strings numbered in the order they came, each kept once in one buffer.
#[derive(Default)]
struct Strings {
    /// Every string, one after the other.
    bytes: String,
    /// Where string `n` ends in `bytes` (it starts where `n - 1` ends).
    ends: Vec<u32>,
    /// String numbers, by their strings' hashes.
    table: hashbrown::HashTable<u32>,
}

fn hash<T: std::hash::Hash>(value: T) -> u64 {
    std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, value)
}

impl Strings {
    /// String number `n`.
    fn get(&self, n: u32) -> &str {
        string_at(&self.bytes, &self.ends, n)
    }

    /// The number of `s`, numbering it if it is new.
    fn intern(&mut self, s: &str) -> u32 {
        let Self { bytes, ends, table } = self;
        if let Some(&n) = table.find(hash(s), |&n| string_at(bytes, ends, n) == s) {
            return n;
        }
        let n = ends.len() as u32;
        bytes.push_str(s);
        ends.push(u32::try_from(bytes.len()).expect("a layer's names fit in 4 GiB"));
        table.insert_unique(hash(s), n, |&n| hash(string_at(bytes, ends, n)));
        n
    }
}

fn string_at<'s>(bytes: &'s str, ends: &[u32], n: u32) -> &'s str {
    let end = ends[n as usize] as usize;
    let start = match n {
        0 => 0,
        _ => ends[n as usize - 1] as usize,
    };
    &bytes[start..end]
}

/// Names numbered in the order they came, each kept as the pair of its
/// qualifier (up to its last `.`, `#` or `$`) and its last part, both
/// interned: a full layer of a large revision has hundreds of thousands of
/// names (the JDK's: 234,000 in 10 MB) made of a few thousand qualifiers
/// and simple names (under 1 MB).
#[derive(Default)]
struct Names {
    parts: Strings,
    /// Each name's qualifier and last part.
    names: Vec<(u32, u32)>,
    /// Name numbers, by their pairs' hashes.
    table: hashbrown::HashTable<u32>,
}

impl Names {
    fn len(&self) -> usize {
        self.names.len()
    }

    /// Name number `n`: its qualifier and last part.
    fn get(&self, n: u32) -> (&str, &str) {
        let (qualifier, last) = self.names[n as usize];
        (self.parts.get(qualifier), self.parts.get(last))
    }

    /// The number of `name`, numbering it if it is new.
    fn intern(&mut self, name: &str) -> u32 {
        let at = name.rfind(['.', '#', '$']).map_or(0, |at| at + 1);
        let pair = (
            self.parts.intern(&name[..at]),
            self.parts.intern(&name[at..]),
        );
        let Self { names, table, .. } = self;
        if let Some(&n) = table.find(hash(pair), |&n| names[n as usize] == pair) {
            return n;
        }
        let n = names.len() as u32;
        names.push(pair);
        table.insert_unique(hash(pair), n, |&n| hash(names[n as usize]));
        n
    }

    /// Name `a` compared with name `b`, as strings.
    fn cmp(&self, a: u32, b: u32) -> std::cmp::Ordering {
        let (qa, la) = self.names[a as usize];
        let (qb, lb) = self.names[b as usize];
        if qa == qb {
            return self.parts.get(la).cmp(self.parts.get(lb));
        }
        let (a, b) = (self.get(a), self.get(b));
        // Qualifiers that differ before either ends decide alone.
        let common = a.0.len().min(b.0.len());
        let head = a.0.as_bytes()[..common].cmp(&b.0.as_bytes()[..common]);
        if head.is_ne() {
            return head;
        }
        let a = a.0.bytes().chain(a.1.bytes());
        a.cmp(b.0.bytes().chain(b.1.bytes()))
    }
}

impl BulkLayer {
    /// Adds a path; its number for [`Self::add`].
    pub fn add_path(&mut self, path: &str) -> u32 {
        self.paths.push(path.into());
        self.paths.len() as u32 - 1
    }

    /// Lists path number `path` for each of `names`.
    pub fn add<N: AsRef<str>>(&mut self, path: u32, names: impl IntoIterator<Item = N>) {
        self.scratch.clear();
        for name in names {
            let id = self.names.intern(name.as_ref());
            self.scratch.push(id);
        }
        self.add_scratch(path);
    }

    /// Lists path number `path` for each name of `names`, as
    /// [`encode_names`](crate::encode_names) wrote them. Damaged names add
    /// no record, but the names read before the damage stay numbered: the
    /// layer is not to be written then.
    pub fn add_encoded(&mut self, path: u32, names: &[u8]) -> Result<(), BadNames> {
        self.scratch.clear();
        let Self {
            names: table,
            scratch,
            ..
        } = self;
        for_each_name(names, |name| scratch.push(table.intern(name)))?;
        self.add_scratch(path);
        Ok(())
    }

    /// Lists path number `path` for each name numbered in `scratch`.
    fn add_scratch(&mut self, path: u32) {
        if self.scratch.is_empty() {
            return;
        }
        self.scratch.sort_unstable();
        self.scratch.dedup();
        self.starts.push(self.records.len());
        write_varint(&mut self.records, u64::from(path));
        write_varint(&mut self.records, self.scratch.len() as u64);
        let mut previous = 0;
        for &id in &self.scratch {
            write_varint(&mut self.records, u64::from(id - previous));
            previous = id;
        }
    }

    /// The path number and name numbers of the record at `start`.
    fn record(&self, start: usize, names: &mut Vec<u32>) -> u32 {
        let mut reader = Reader::new(&self.records[start..]);
        let mut next = || reader.varint().expect("records are written here") as u32;
        let path = next();
        let n = next();
        names.clear();
        let mut id = 0;
        for _ in 0..n {
            id += next();
            names.push(id);
        }
        path
    }

    /// The layer's bytes: a full layer.
    pub fn encode(self, kind: LayerKind) -> Vec<u8> {
        self.encoded(kind, |layer| layer.to_vec())
    }

    /// Calls `with` on the full layer this makes, in pieces (its names are
    /// not copied together, and the tables that numbered them are gone
    /// first).
    pub(crate) fn encoded<R>(
        mut self,
        kind: LayerKind,
        with: impl FnOnce(&EncodedLayer<'_>) -> R,
    ) -> R {
        drop(std::mem::take(&mut self.names.table));
        drop(std::mem::take(&mut self.names.parts.table));
        let mut names: Vec<u32> = (0..self.names.len() as u32).collect();
        names.sort_unstable_by(|&a, &b| self.names.cmp(a, b));
        let mut name_rank = vec![0u32; names.len()];
        for (rank, &id) in names.iter().enumerate() {
            name_rank[id as usize] = rank as u32;
        }
        let mut order: Vec<u32> = (0..self.paths.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.paths[a as usize].cmp(&self.paths[b as usize]));
        let mut path_rank = vec![0u32; self.paths.len()];
        for (rank, &at) in order.iter().enumerate() {
            path_rank[at as usize] = rank as u32;
        }
        // Records in path order, so that each name's paths come ascending.
        let mut ids = Vec::new();
        let mut records: Vec<(u32, usize)> = self
            .starts
            .iter()
            .map(|&start| (path_rank[self.record(start, &mut ids) as usize], start))
            .collect();
        records.sort_unstable();
        // Each name's slice of one array of path ranks.
        let mut bounds = vec![0usize; names.len() + 1];
        for &(_, start) in &records {
            self.record(start, &mut ids);
            for &id in &ids {
                bounds[name_rank[id as usize] as usize + 1] += 1;
            }
        }
        for at in 1..bounds.len() {
            bounds[at] += bounds[at - 1];
        }
        let mut filled = bounds.clone();
        let mut listed = vec![0u32; bounds[names.len()]];
        for &(rank, start) in &records {
            self.record(start, &mut ids);
            for &id in &ids {
                let slot = &mut filled[name_rank[id as usize] as usize];
                listed[*slot] = rank;
                *slot += 1;
            }
        }
        drop((name_rank, path_rank, records, filled));
        let paths: Vec<&str> = order.iter().map(|&at| &*self.paths[at as usize]).collect();
        let entries = names.iter().enumerate().map(|(rank, &id)| {
            let mut list = listed[bounds[rank]..bounds[rank + 1]].to_vec();
            // A path added twice lists its names twice.
            list.dedup();
            let (qualifier, last) = self.names.get(id);
            (qualifier.len() + last.len(), list)
        });
        let pieces = names.iter().flat_map(|&id| {
            let (qualifier, last) = self.names.get(id);
            [qualifier.as_bytes(), last.as_bytes()]
        });
        with(&encode_sorted(
            kind,
            0,
            None,
            &paths,
            entries,
            Box::new(pieces),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::{Layer, LayerBuilder};

    fn builder(entries: &[(&str, &[&str])]) -> LayerBuilder {
        LayerBuilder::of(entries)
    }

    #[test]
    fn a_bulk_layer_is_the_layer_of_its_pairs() {
        let mut bulk = BulkLayer::default();
        let z = bulk.add_path("z/Z.java");
        let a = bulk.add_path("a/A.java");
        bulk.add(z, ["p.B"]);
        bulk.add(a, ["p.B", "p.A", "p.B"]);
        bulk.add(z, ["p.B"]);
        bulk.add(a, Vec::<&str>::new());
        // Names as the store encodes them add the same pairs; a cut list
        // adds none.
        let encoded = crate::encode_names(["p.A", "p.B"]);
        assert!(bulk.add_encoded(a, &encoded[..encoded.len() - 1]).is_err());
        bulk.add_encoded(a, &encoded).unwrap();
        let bytes = bulk.encode(LayerKind::Lookups);
        let expected = builder(&[("p.A", &["a/A.java"]), ("p.B", &["a/A.java", "z/Z.java"])])
            .encode(LayerKind::Lookups, 0, None);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn a_bulk_layer_orders_names_as_strings_whatever_their_parts() {
        // Qualifiers that are prefixes of one another, names with no
        // qualifier, an empty name, a qualifier alone, non-ASCII parts.
        let names = [
            "a.c", "a.b$C", "a.b", "a.", "a", "", "b#m", "a.b.c", "a.b$", "Été.À", "a.b$C#x", "zz",
            "a$", "a.b.", "a.bc",
        ];
        let mut bulk = BulkLayer::default();
        let mut expected = LayerBuilder::default();
        for p in 0..4 {
            let path = format!("p{p}.java");
            let n = bulk.add_path(&path);
            let its_names = names.iter().enumerate().filter(|(i, _)| i % 4 == p);
            let its_names: Vec<&str> = its_names
                .flat_map(|(i, name)| [*name, names[(i + 3) % names.len()]])
                .collect();
            bulk.add(n, &its_names);
            for name in its_names {
                expected.add(name, &path);
            }
        }
        let bytes = bulk.encode(LayerKind::Lookups);
        assert_eq!(bytes, expected.encode(LayerKind::Lookups, 0, None));
        let layer = Layer::parse(&bytes).unwrap();
        assert_eq!(layer.len(), names.len());
        assert_eq!(layer.get("a.b$C"), Ok(Some(vec!["p1.java"])));
        assert_eq!(layer.get(""), Ok(Some(vec!["p1.java", "p2.java"])));
    }
}
