//! A revision's symbol table or dependency index as the chain of layers
//! it is stored as ([`crate::layers`]), and how a new revision's layer
//! goes on top of its parent's chain.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::codec::Damaged;
use crate::error::Error;
use crate::full_layer::BulkLayer;
use crate::layers::{Layer, LayerBuilder, LayerKind, MAX_DEPTH};
use crate::merge::merge;
use crate::pack::{PackLocation, PackReader};
use crate::pack_writer::PackWriter;

/// The pack section kind of a layer of `kind`.
fn section_kind(kind: LayerKind) -> u32 {
    0x4c00 | kind as u32
}

fn name(kind: LayerKind) -> &'static str {
    match kind {
        LayerKind::Symbols => "symbol table layer",
        LayerKind::Lookups => "dependency index layer",
    }
}

/// One revision's map: the locations of its layers, newest first, in a
/// pack it keeps open. Each layer's checksum is checked once, when the
/// chain is read; lookups then read the mapped bytes directly.
#[derive(Clone)]
pub struct LayerChain {
    kind: LayerKind,
    pack: Arc<PackReader>,
    /// (where, depth), newest first.
    layers: Vec<(PackLocation, u32)>,
}

impl LayerChain {
    /// The chain whose newest layer is at `top` in `pack`.
    pub fn read(pack: &Arc<PackReader>, kind: LayerKind, top: PackLocation) -> Result<Self, Error> {
        Self::read_past(pack, kind, top, |_| false)
    }

    /// [`Self::read`], but the checksums of layers for which `checked`
    /// holds are not checked again: an indexer that checked a layer, or
    /// wrote it, for one revision reads the same layers for the next,
    /// and checking a full layer again costs a slice of the repository's
    /// size on every commit. Their headers are still read and must agree.
    pub fn read_past(
        pack: &Arc<PackReader>,
        kind: LayerKind,
        top: PackLocation,
        checked: impl Fn(PackLocation) -> bool,
    ) -> Result<Self, Error> {
        let mut layers = Vec::new();
        let mut next = Some(top);
        while let Some(at) = next {
            if layers.len() > MAX_DEPTH as usize + 1 {
                return Err(pack.corrupt(format!(
                    "{} at offset {} is too deep",
                    name(kind),
                    at.offset
                )));
            }
            let bytes = if checked(at) {
                pack.section_again(section_kind(kind), at, name(kind))?
            } else {
                pack.section(section_kind(kind), at, name(kind))?
            };
            let damaged = || {
                pack.corrupt(format!(
                    "{} at offset {} does not decode",
                    name(kind),
                    at.offset
                ))
            };
            let layer = Layer::parse(&bytes).map_err(|_| damaged())?;
            let expected_depth = layers.first().map(|&(_, depth)| depth);
            if layer.kind() != kind
                || expected_depth.is_some_and(|d| layer.depth() + layers.len() as u32 != d)
                || (layer.depth() == 0) != layer.parent().is_none()
            {
                return Err(damaged());
            }
            next = layer.parent();
            layers.push((at, layer.depth()));
        }
        Ok(Self {
            kind,
            pack: pack.clone(),
            layers,
        })
    }

    /// A chain of no layer: a map with no name, for a revision with no
    /// parent.
    pub fn empty(pack: &Arc<PackReader>, kind: LayerKind) -> Self {
        Self {
            kind,
            pack: pack.clone(),
            layers: Vec::new(),
        }
    }

    /// Where its layers are in the pack, newest first.
    pub fn locations(&self) -> impl Iterator<Item = PackLocation> + '_ {
        self.layers.iter().map(|&(at, _)| at)
    }

    /// The deltas above the full layer.
    pub fn depth(&self) -> u32 {
        self.layers.first().map_or(0, |&(_, depth)| depth)
    }

    fn damaged(&self) -> Error {
        self.pack
            .corrupt(format!("a {} does not decode", name(self.kind)))
    }

    /// Calls `each` with every layer, newest first, until it returns
    /// something.
    fn find<T>(
        &self,
        mut each: impl FnMut(&Layer<'_>) -> Result<Option<T>, Damaged>,
    ) -> Result<Option<T>, Error> {
        for &(at, _) in &self.layers {
            let bytes = self
                .pack
                .section_again(section_kind(self.kind), at, name(self.kind))?;
            let layer = Layer::parse(&bytes).map_err(|_| self.damaged())?;
            if let Some(found) = each(&layer).map_err(|_| self.damaged())? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// The paths declaring `name` (symbol table): the newest layer's
    /// listing; empty when no path declares it.
    pub fn declarers(&self, name: &str) -> Result<Vec<String>, Error> {
        debug_assert_eq!(self.kind, LayerKind::Symbols);
        let found = self.find(|layer| {
            Ok(layer
                .get(name)?
                .map(|paths| paths.into_iter().map(str::to_string).collect()))
        })?;
        Ok(found.unwrap_or_default())
    }

    /// The paths listed for `name` in any layer (dependency index): every
    /// path whose resolution looked it up, and possibly paths whose later
    /// resolution did not (the caller checks).
    pub fn lookers(&self, name: &str) -> Result<BTreeSet<String>, Error> {
        debug_assert_eq!(self.kind, LayerKind::Lookups);
        let mut out = BTreeSet::new();
        self.find::<()>(|layer| {
            if let Some(paths) = layer.get(name)? {
                out.extend(paths.into_iter().map(str::to_string));
            }
            Ok(None)
        })?;
        Ok(out)
    }

    /// Writes `delta` as the newest layer of a new revision's map over this
    /// chain, to `writer`; the new revision's top. An empty delta adds
    /// nothing: the new revision shares its parent's top.
    ///
    /// Layers are merged by size, as a log-structured merge does: the new
    /// delta is merged with the newest deltas while what is merged is at
    /// least half the size of the next older layer, or while the chain
    /// would pass [`MAX_DEPTH`]. Deltas so grow geometrically from the top
    /// down, and an entry is written again only a logarithmic number of
    /// times, not once every few revisions. When all deltas merged come to
    /// half the full layer's size, they are folded into a new full layer.
    pub fn push(
        &self,
        delta: &LayerBuilder,
        writer: &mut PackWriter,
    ) -> Result<PackLocation, Error> {
        let kind = self.kind;
        let Some(&(top, depth)) = self.layers.first() else {
            return writer.append_section(
                section_kind(kind),
                &full(delta.clone()).encode(kind, 0, None),
            );
        };
        if delta.entries.is_empty() {
            return Ok(top);
        }
        let encoded = delta.encode(kind, depth + 1, Some(top));
        let n_deltas = self.layers.len() - 1;
        let mut size = encoded.len() as u64;
        let mut merged_deltas = 0;
        while merged_deltas < n_deltas
            && (size * 2 > self.layers[merged_deltas].0.len
                || n_deltas - merged_deltas + 1 > MAX_DEPTH as usize)
        {
            size += self.layers[merged_deltas].0.len;
            merged_deltas += 1;
        }
        if merged_deltas == 0 {
            return writer.append_section(section_kind(kind), &encoded);
        }
        let (base_at, _) = *self.layers.last().expect("a chain has a full layer");
        let fold_all = merged_deltas == n_deltas && size * 2 > base_at.len;
        let merged = if fold_all {
            self.layers.len()
        } else {
            merged_deltas
        };
        let sections: Vec<std::borrow::Cow<'_, [u8]>> = self.layers[..merged]
            .iter()
            .map(|&(at, _)| self.pack.section_again(section_kind(kind), at, name(kind)))
            .collect::<Result<_, _>>()?;
        let delta_layer = Layer::parse(&encoded).expect("encoded here");
        let mut layers = vec![delta_layer];
        for bytes in &sections {
            layers.push(Layer::parse(bytes).map_err(|_| self.damaged())?);
        }
        let bytes = if fold_all {
            merge(kind, &layers, true, 0, None)
        } else {
            let (parent, parent_depth) = self.layers[merged_deltas];
            merge(kind, &layers, false, parent_depth + 1, Some(parent))
        }
        .map_err(|_| self.damaged())?;
        writer.append_section(section_kind(kind), &bytes)
    }
}

/// Writes `layer` as a full layer of `kind` (the map of a revision with no
/// parent); where it is.
pub fn write_full_layer(
    writer: &mut PackWriter,
    kind: LayerKind,
    layer: BulkLayer,
) -> Result<PackLocation, Error> {
    layer.encoded(kind, |encoded| {
        writer.append_section_pieces(section_kind(kind), encoded.pieces())
    })
}

/// `builder` as a full layer: nothing below it to override, so names
/// listed with no path go.
fn full(mut builder: LayerBuilder) -> LayerBuilder {
    builder.entries.retain(|_, paths| !paths.is_empty());
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(entries: &[(&str, &[&str])]) -> LayerBuilder {
        LayerBuilder::of(entries)
    }

    /// A pack in a temporary directory, to push revisions' layers into.
    struct Pack {
        _dir: tempfile::TempDir,
        path: std::path::PathBuf,
    }

    impl Pack {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("facts.pack");
            Self { _dir: dir, path }
        }

        fn reader(&self) -> Arc<PackReader> {
            Arc::new(PackReader::open(&self.path).unwrap())
        }

        /// Pushes `delta` over the chain at `top` (none: the first
        /// revision); the new top.
        fn push(
            &self,
            kind: LayerKind,
            top: Option<PackLocation>,
            delta: &LayerBuilder,
        ) -> PackLocation {
            let reader = self.reader();
            let chain = match top {
                Some(top) => LayerChain::read(&reader, kind, top).unwrap(),
                None => LayerChain::empty(&reader, kind),
            };
            let len = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
            let mut writer = PackWriter::open(&self.path, len).unwrap();
            let top = chain.push(delta, &mut writer).unwrap();
            writer.finish().unwrap();
            top
        }

        fn chain(&self, kind: LayerKind, top: PackLocation) -> LayerChain {
            LayerChain::read(&self.reader(), kind, top).unwrap()
        }
    }

    #[test]
    fn chains_stay_short_and_answer_as_the_revision_was_written() {
        let pack = Pack::new();
        let names: Vec<String> = (0..40).map(|i| format!("p.C{i:02}")).collect();
        let mut base = LayerBuilder::default();
        for n in &names {
            base.set(n, [format!("{n}.java")].into());
        }
        base.set("p.Nowhere", BTreeSet::new());
        let mut tops = vec![pack.push(LayerKind::Symbols, None, &base)];
        // Each revision moves one class to another file.
        for name in names.iter().take(30) {
            let moved = delta(&[(name, &[&format!("moved/{name}.java")])]);
            let top = pack.push(LayerKind::Symbols, tops.last().copied(), &moved);
            tops.push(top);
        }
        // Every revision still reads as it was written, through a short
        // chain.
        for (step, top) in tops.iter().enumerate() {
            let chain = pack.chain(LayerKind::Symbols, *top);
            assert!(chain.depth() <= MAX_DEPTH, "step {step}");
            assert!(chain.declarers("p.Nowhere").unwrap().is_empty());
            assert!(chain.declarers("p.Other").unwrap().is_empty());
            for (i, n) in names.iter().enumerate() {
                let expected = if i < step {
                    format!("moved/{n}.java")
                } else {
                    format!("{n}.java")
                };
                assert_eq!(chain.declarers(n).unwrap(), vec![expected], "step {step}");
            }
        }
        // An empty delta shares the parent's top.
        let last = *tops.last().unwrap();
        assert_eq!(
            pack.push(LayerKind::Symbols, Some(last), &LayerBuilder::default()),
            last
        );
    }

    #[test]
    fn lookups_unite_over_the_chain() {
        let pack = Pack::new();
        let mut top = None;
        for i in 0..12 {
            let d = delta(&[("p.A", &[&format!("F{i:02}.java")])]);
            top = Some(pack.push(LayerKind::Lookups, top, &d));
            assert!(pack.chain(LayerKind::Lookups, top.unwrap()).depth() <= MAX_DEPTH);
        }
        let chain = pack.chain(LayerKind::Lookups, top.unwrap());
        assert_eq!(chain.lookers("p.A").unwrap().len(), 12);
        assert!(chain.lookers("p.B").unwrap().is_empty());
    }

    #[test]
    fn a_damaged_layer_is_an_error_naming_it() {
        let pack = Pack::new();
        let top = pack.push(LayerKind::Symbols, None, &delta(&[("p.A", &["A.java"])]));
        let mut bytes = std::fs::read(&pack.path).unwrap();
        let last = bytes.len() - 20;
        bytes[last] ^= 0xff;
        std::fs::write(&pack.path, bytes).unwrap();
        let message = match LayerChain::read(&pack.reader(), LayerKind::Symbols, top) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a damaged layer reads"),
        };
        assert!(message.contains("symbol table layer"), "{message}");
        // Read as the other map, it is refused too.
        assert!(LayerChain::read(&pack.reader(), LayerKind::Lookups, top).is_err());
    }
}
