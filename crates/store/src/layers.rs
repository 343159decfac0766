//! Layered maps from names to paths, read through the memory map: the
//! symbol table (a class or type name → the paths declaring it) and the
//! dependency index (a name → the paths whose resolution looked it up,
//! found or not) of each revision.
//!
//! A revision's map is a chain of layers in the pack, newest first: a
//! *delta* over its parent's map holds only the names the revision
//! changed, and a *full* layer (depth 0) holds every name. The symbol
//! table reads a name in the newest layer that has it (an empty list
//! says the name is no longer declared); the dependency index unites a
//! name's paths over the chain, and a reader checks each path's unit
//! still looked the name up. Chains stay short: a revision whose chain
//! would grow past [`MAX_DEPTH`] deltas merges them into one, and deltas
//! that grow past a quarter of their full layer are folded into a new
//! full layer.
//!
//! Layer encoding (little-endian): a 32-byte header — kind (`u8`), three
//! zero bytes, depth (`u32`), the parent layer's pack offset plus one
//! (`u64`, 0 for none) and length (`u64`), the number of paths and of
//! names (`u32` each) — then the offsets of the paths, the names and the
//! values (`u32` each, one more than there are), then the paths' bytes,
//! the names' bytes and the values' bytes. Paths and names are sorted; a
//! value is a list of path numbers, ascending, as varint gaps.

use std::collections::{BTreeMap, BTreeSet};

use crate::codec::{Damaged, Reader, write_varint};
use crate::pack::PackLocation;

/// Which map a layer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// Name → declaring paths; the newest layer with a name decides.
    Symbols = 1,
    /// Name → paths that looked it up; layers unite.
    Lookups = 2,
}

/// Deltas a chain may hold above its full layer: a read of a name looks
/// at most this many layers and the full one.
pub const MAX_DEPTH: u32 = 6;

const HEADER_LEN: usize = 32;

/// One decoded layer, borrowing its bytes.
#[derive(Clone, Copy)]
pub struct Layer<'b> {
    kind: LayerKind,
    depth: u32,
    parent: Option<PackLocation>,
    pub(crate) n_paths: usize,
    pub(crate) n_names: usize,
    /// Offsets of paths, names and values, then their bytes.
    offsets: &'b [u8],
    paths: &'b [u8],
    names: &'b [u8],
    values: &'b [u8],
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl<'b> Layer<'b> {
    /// The layer in `bytes`, its header and table sizes checked. Entries
    /// are checked as they are read (bounds, order, UTF-8): the pack's
    /// checksum already guards the bytes, and a cold process reads a few
    /// names of a large layer, so opening one must not cost its size.
    pub fn parse(bytes: &'b [u8]) -> Result<Self, Damaged> {
        let header = bytes.get(..HEADER_LEN).ok_or(Damaged)?;
        let kind = match header[0] {
            1 => LayerKind::Symbols,
            2 => LayerKind::Lookups,
            _ => return Err(Damaged),
        };
        let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
        let depth = u32_at(header, 4);
        let parent = match word(8) {
            0 => None,
            offset => Some(PackLocation {
                offset: offset - 1,
                len: word(16),
                declarations_len: 0,
            }),
        };
        let n_paths = u32_at(header, 24) as usize;
        let n_names = u32_at(header, 28) as usize;
        let n_offsets = (n_paths + 1) + 2 * (n_names + 1);
        let offsets_end = HEADER_LEN + 4 * n_offsets;
        let offsets = bytes.get(HEADER_LEN..offsets_end).ok_or(Damaged)?;
        let region_end = |first: usize, count: usize| u32_at(offsets, 4 * (first + count)) as usize;
        let paths_len = region_end(0, n_paths);
        let names_len = region_end(n_paths + 1, n_names);
        let values_len = region_end(n_paths + 1 + n_names + 1, n_names);
        let paths_end = offsets_end + paths_len;
        let names_end = paths_end + names_len;
        if bytes.len() != names_end + values_len {
            return Err(Damaged);
        }
        Ok(Self {
            kind,
            depth,
            parent,
            n_paths,
            n_names,
            offsets,
            paths: &bytes[offsets_end..paths_end],
            names: &bytes[paths_end..names_end],
            values: &bytes[names_end..],
        })
    }

    /// Entry `i`'s byte range in the region whose offsets start at number
    /// `first` of the table, checked against `len`.
    fn range(&self, first: usize, i: usize, len: usize) -> Result<std::ops::Range<usize>, Damaged> {
        let at = |k: usize| u32_at(self.offsets, 4 * (first + k)) as usize;
        let (start, end) = (at(i), at(i + 1));
        if start > end || end > len {
            return Err(Damaged);
        }
        Ok(start..end)
    }

    pub(crate) fn path_bytes(&self, i: usize) -> Result<&'b [u8], Damaged> {
        Ok(&self.paths[self.range(0, i, self.paths.len())?])
    }

    pub(crate) fn name_bytes(&self, i: usize) -> Result<&'b [u8], Damaged> {
        Ok(&self.names[self.range(self.n_paths + 1, i, self.names.len())?])
    }

    pub(crate) fn value_iter(
        &self,
        i: usize,
    ) -> Result<impl Iterator<Item = Result<u32, Damaged>> + 'b, Damaged> {
        let range = self.range(self.n_paths + 1 + self.n_names + 1, i, self.values.len())?;
        let mut reader = Reader::new(&self.values[range]);
        let mut next = 0u32;
        let mut first = true;
        Ok(std::iter::from_fn(move || {
            if reader.is_empty() {
                return None;
            }
            let gap = match reader.u32() {
                Ok(gap) => gap,
                Err(e) => return Some(Err(e)),
            };
            let following = if first {
                Some(gap)
            } else {
                next.checked_add(gap).and_then(|n| n.checked_add(1))
            };
            first = false;
            match following {
                Some(n) => {
                    next = n;
                    Some(Ok(n))
                }
                None => Some(Err(Damaged)),
            }
        }))
    }

    /// Which map this layer belongs to.
    pub fn kind(&self) -> LayerKind {
        self.kind
    }

    /// 0 for a full layer; a delta's is its parent's plus one.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The layer below, if this one is a delta.
    pub fn parent(&self) -> Option<PackLocation> {
        self.parent
    }

    /// How many names the layer holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.n_names
    }

    /// Path number `i`.
    fn path(&self, i: u32) -> Result<&'b str, Damaged> {
        if i as usize >= self.n_paths {
            return Err(Damaged);
        }
        std::str::from_utf8(self.path_bytes(i as usize)?).map_err(|_| Damaged)
    }

    /// The paths listed for `name` in this layer, if it lists the name
    /// (an empty list is a listing too).
    pub fn get(&self, name: &str) -> Result<Option<Vec<&'b str>>, Damaged> {
        let mut low = 0;
        let mut high = self.n_names;
        while low < high {
            let mid = (low + high) / 2;
            match self.name_bytes(mid)?.cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return self.paths_of(mid).map(Some),
            }
        }
        Ok(None)
    }

    fn paths_of(&self, i: usize) -> Result<Vec<&'b str>, Damaged> {
        self.value_iter(i)?.map(|p| self.path(p?)).collect()
    }

    /// Every (name, paths) of the layer, by name.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = Result<(&'b str, Vec<&'b str>), Damaged>> + '_ {
        (0..self.n_names).map(|i| {
            let name = std::str::from_utf8(self.name_bytes(i)?).map_err(|_| Damaged)?;
            Ok((name, self.paths_of(i)?))
        })
    }
}

/// A layer being made: names with their paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayerBuilder {
    /// Name → paths.
    pub entries: BTreeMap<String, BTreeSet<String>>,
}

impl LayerBuilder {
    /// A builder listing each entry's paths for its name (for tests).
    #[cfg(test)]
    pub(crate) fn of(entries: &[(&str, &[&str])]) -> Self {
        let mut b = Self::default();
        for (name, paths) in entries {
            b.set(name, paths.iter().map(|p| p.to_string()).collect());
        }
        b
    }

    /// Lists `paths` for `name` (for the symbol table, replacing what
    /// layers below say; an empty set says it is declared nowhere).
    pub fn set(&mut self, name: &str, paths: BTreeSet<String>) {
        self.entries.insert(name.to_string(), paths);
    }

    /// Adds `path` to `name`'s paths.
    pub fn add(&mut self, name: &str, path: &str) {
        match self.entries.get_mut(name) {
            Some(paths) => {
                paths.insert(path.to_string());
            }
            None => {
                self.entries
                    .insert(name.to_string(), BTreeSet::from([path.to_string()]));
            }
        }
    }

    /// The layer's bytes, over `parent` (at `depth`).
    pub fn encode(&self, kind: LayerKind, depth: u32, parent: Option<PackLocation>) -> Vec<u8> {
        let paths: BTreeSet<&str> = self
            .entries
            .values()
            .flat_map(|paths| paths.iter().map(String::as_str))
            .collect();
        let paths: Vec<&str> = paths.into_iter().collect();
        let number = |path: &str| paths.binary_search(&path).expect("listed") as u32;
        let entries = self
            .entries
            .iter()
            .map(|(name, list)| (name.len(), list.iter().map(|p| number(p)).collect()));
        let names = Box::new(self.entries.keys().map(|name| name.as_bytes()));
        encode_sorted(kind, depth, parent, &paths, entries, names).to_vec()
    }
}

/// The names of a layer being encoded, in order, as the pieces of bytes
/// they are made of (a name may be several).
pub(crate) type NamePieces<'n> = Box<dyn ClonePieces<'n> + 'n>;

/// An iterator over pieces of bytes that clones behind a `Box`.
pub(crate) trait ClonePieces<'n>: Iterator<Item = &'n [u8]> {
    fn boxed_clone(&self) -> NamePieces<'n>;
}

impl<'n, I: Iterator<Item = &'n [u8]> + Clone + 'n> ClonePieces<'n> for I {
    fn boxed_clone(&self) -> NamePieces<'n> {
        Box::new(self.clone())
    }
}

impl<'n> Clone for NamePieces<'n> {
    fn clone(&self) -> Self {
        (**self).boxed_clone()
    }
}

/// `names` as the pieces of a layer's names, one piece each.
pub(crate) fn whole_names<'n, S: AsRef<str> + 'n>(names: &'n [S]) -> NamePieces<'n> {
    Box::new(names.iter().map(|name| name.as_ref().as_bytes()))
}

/// A layer's bytes as the pieces they are made of, in order: the header,
/// the offsets and the paths' bytes; the names; the values. A full layer
/// is mostly names, so it is written out piece by piece rather than
/// copied into one buffer first.
pub(crate) struct EncodedLayer<'n> {
    head: Vec<u8>,
    names: NamePieces<'n>,
    values: Vec<u8>,
}

impl<'n> EncodedLayer<'n> {
    /// The layer's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.pieces().map(<[u8]>::len).sum()
    }

    /// The layer's bytes, piece by piece.
    pub(crate) fn pieces<'s>(&'s self) -> impl Iterator<Item = &'s [u8]> + Clone
    where
        'n: 's,
    {
        std::iter::once(&self.head[..])
            .chain(self.names.clone().map(|piece| -> &'s [u8] { piece }))
            .chain(std::iter::once(&self.values[..]))
    }

    /// The layer's bytes in one buffer.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        self.pieces().for_each(|piece| out.extend_from_slice(piece));
        out
    }
}

/// A layer from its paths (sorted, each once), its entries (sorted by
/// name: each name's length in bytes with its path numbers ascending) and
/// the names' bytes in the same order.
pub(crate) fn encode_sorted<'n>(
    kind: LayerKind,
    depth: u32,
    parent: Option<PackLocation>,
    paths: &[&str],
    entries: impl Iterator<Item = (usize, Vec<u32>)>,
    names: NamePieces<'n>,
) -> EncodedLayer<'n> {
    let mut offsets: Vec<u32> = Vec::new();
    let mut path_bytes = Vec::new();
    offsets.push(0);
    for path in paths {
        path_bytes.extend_from_slice(path.as_bytes());
        offsets.push(path_bytes.len() as u32);
    }
    let mut name_offsets: Vec<u32> = vec![0];
    let mut name_len = 0;
    let mut value_offsets: Vec<u32> = vec![0];
    let mut values = Vec::new();
    for (len, list) in entries {
        name_len += len;
        name_offsets.push(name_len as u32);
        let mut previous: Option<u32> = None;
        for n in list {
            let gap = match previous {
                None => n,
                Some(p) => n - p - 1,
            };
            write_varint(&mut values, u64::from(gap));
            previous = Some(n);
        }
        value_offsets.push(values.len() as u32);
    }
    let n_names = name_offsets.len() as u32 - 1;
    offsets.extend(name_offsets);
    offsets.extend(value_offsets);
    let mut head = Vec::with_capacity(HEADER_LEN + 4 * offsets.len() + path_bytes.len());
    head.push(kind as u8);
    head.extend_from_slice(&[0; 3]);
    head.extend_from_slice(&depth.to_le_bytes());
    let (offset, len) = parent.map_or((0, 0), |p| (p.offset + 1, p.len));
    head.extend_from_slice(&offset.to_le_bytes());
    head.extend_from_slice(&len.to_le_bytes());
    head.extend_from_slice(&(paths.len() as u32).to_le_bytes());
    head.extend_from_slice(&n_names.to_le_bytes());
    for o in offsets {
        head.extend_from_slice(&o.to_le_bytes());
    }
    head.extend_from_slice(&path_bytes);
    EncodedLayer {
        head,
        names,
        values,
    }
}

/// Folds `layers` (newest first) into one builder: for the symbol table
/// the newest listing of each name wins; for the dependency index the
/// paths unite. A full fold (down to a full layer) drops the names no
/// path declares any more. (What [`merge`](crate::merge::merge) does, through maps: the tests'
/// reference.)
#[cfg(test)]
pub fn fold(kind: LayerKind, layers: &[Layer<'_>]) -> Result<LayerBuilder, Damaged> {
    let mut out = LayerBuilder::default();
    for layer in layers.iter().rev() {
        for entry in layer.entries() {
            let (name, paths) = entry?;
            match kind {
                LayerKind::Symbols => {
                    out.set(name, paths.into_iter().map(str::to_string).collect());
                }
                LayerKind::Lookups => {
                    for path in paths {
                        out.add(name, path);
                    }
                }
            }
        }
    }
    if layers.last().is_some_and(|l| l.depth() == 0) {
        out.entries.retain(|_, paths| !paths.is_empty());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::merge;

    fn builder(entries: &[(&str, &[&str])]) -> LayerBuilder {
        LayerBuilder::of(entries)
    }

    #[test]
    fn a_layer_reads_back_what_it_was_made_of() {
        let b = builder(&[
            ("p.A", &["a/A.java"]),
            ("p.B", &["b/B.java", "a/A.java", "z/Z.java"]),
            ("p.Gone", &[]),
            ("Été", &["é/É.java"]),
        ]);
        let parent = PackLocation {
            offset: 4096,
            len: 77,
            declarations_len: 0,
        };
        let bytes = b.encode(LayerKind::Symbols, 2, Some(parent));
        let layer = Layer::parse(&bytes).unwrap();
        assert_eq!(layer.kind(), LayerKind::Symbols);
        assert_eq!((layer.depth(), layer.parent()), (2, Some(parent)));
        assert_eq!(layer.len(), 4);
        assert_eq!(layer.get("p.A"), Ok(Some(vec!["a/A.java"])));
        assert_eq!(
            layer.get("p.B"),
            Ok(Some(vec!["a/A.java", "b/B.java", "z/Z.java"]))
        );
        assert_eq!(layer.get("p.Gone"), Ok(Some(vec![])));
        assert_eq!(layer.get("Été"), Ok(Some(vec!["é/É.java"])));
        assert_eq!(layer.get("p.C"), Ok(None));
        assert_eq!(layer.get(""), Ok(None));
        assert_eq!(fold(LayerKind::Symbols, &[layer]), Ok(b));

        let empty = LayerBuilder::default().encode(LayerKind::Lookups, 0, None);
        let layer = Layer::parse(&empty).unwrap();
        assert!(layer.len() == 0 && layer.parent().is_none());
        assert_eq!(layer.get("p.A"), Ok(None));
    }

    #[test]
    fn folding_keeps_the_newest_declarers_and_unites_lookups() {
        let base = builder(&[("p.A", &["A.java"]), ("p.B", &["B.java"])]);
        let delta = builder(&[("p.A", &[]), ("p.C", &["C.java"])]);
        let base_bytes = base.encode(LayerKind::Symbols, 0, None);
        let delta_bytes = delta.encode(LayerKind::Symbols, 1, None);
        let layers = [
            Layer::parse(&delta_bytes).unwrap(),
            Layer::parse(&base_bytes).unwrap(),
        ];
        assert_eq!(
            fold(LayerKind::Symbols, &layers),
            Ok(builder(&[("p.B", &["B.java"]), ("p.C", &["C.java"])]))
        );
        // Deltas alone keep the tombstone: the layer below still lists it.
        assert_eq!(
            fold(LayerKind::Symbols, &layers[..1]),
            Ok(builder(&[("p.A", &[]), ("p.C", &["C.java"])]))
        );

        let base = builder(&[("p.A", &["A.java", "B.java"])]);
        let delta = builder(&[("p.A", &["C.java"])]);
        let base_bytes = base.encode(LayerKind::Lookups, 0, None);
        let delta_bytes = delta.encode(LayerKind::Lookups, 1, None);
        let layers = [
            Layer::parse(&delta_bytes).unwrap(),
            Layer::parse(&base_bytes).unwrap(),
        ];
        assert_eq!(
            fold(LayerKind::Lookups, &layers),
            Ok(builder(&[("p.A", &["A.java", "B.java", "C.java"])]))
        );
    }

    #[test]
    fn damaged_layers_are_errors() {
        let bytes = builder(&[("p.A", &["a/A.java", "b/B.java"]), ("p.B", &["b/B.java"])]).encode(
            LayerKind::Lookups,
            0,
            None,
        );
        for cut in 0..bytes.len() {
            assert!(Layer::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        // Any single byte flipped is an error when parsed or read, or
        // reads as another well-formed layer: never a panic. (The pack's
        // checksum catches such damage before a layer is parsed.)
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xa5;
            if let Ok(layer) = Layer::parse(&flipped) {
                for entry in layer.entries().flatten() {
                    let _ = layer.get(entry.0);
                }
            }
        }
        // A path number past the paths.
        let mut wrong = bytes.clone();
        let last = wrong.len() - 1; // p.B's one path number
        wrong[last] = 7;
        let layer = Layer::parse(&wrong).unwrap();
        assert_eq!(layer.get("p.B"), Err(Damaged));
    }

    #[test]
    fn merging_encoded_layers_is_folding_them() {
        // A small generator, so names and paths recur across layers.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..200 {
            let kind = if round % 2 == 0 {
                LayerKind::Symbols
            } else {
                LayerKind::Lookups
            };
            let n_layers = 1 + next(5) as usize;
            let builders: Vec<LayerBuilder> = (0..n_layers)
                .map(|_| {
                    let mut b = LayerBuilder::default();
                    for _ in 0..next(12) {
                        let paths = (0..next(4))
                            .map(|_| format!("d{}/F{}.java", next(3), next(9)))
                            .collect();
                        b.set(&format!("p.N{}", next(20)), paths);
                    }
                    b
                })
                .collect();
            // Newest first, all deltas (so `fold` keeps empty listings).
            let encoded: Vec<Vec<u8>> = builders
                .iter()
                .enumerate()
                .map(|(i, b)| b.encode(kind, (n_layers - i) as u32, None))
                .collect();
            let layers: Vec<Layer<'_>> = encoded.iter().map(|e| Layer::parse(e).unwrap()).collect();
            for drop_empty in [false, true] {
                let depth = if drop_empty { 0 } else { 1 };
                let merged = merge(kind, &layers, drop_empty, depth, None).unwrap();
                let mut expected = fold(kind, &layers).unwrap();
                if drop_empty {
                    expected.entries.retain(|_, paths| !paths.is_empty());
                }
                let got = fold(kind, &[Layer::parse(&merged).unwrap()]).unwrap();
                assert_eq!(got, expected, "round {round}, drop_empty {drop_empty}");
                if drop_empty {
                    // Exactly the paths still listed.
                    assert_eq!(merged, expected.encode(kind, 0, None), "round {round}");
                }
            }
        }
    }
}
