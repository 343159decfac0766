//! The merge of a chain's layers into one: a k-way walk of their sorted
//! paths and names, straight from the encoded bytes.

use crate::codec::Damaged;
use crate::layers::{Layer, LayerKind, encode_sorted, whole_names};
use crate::pack::PackLocation;

/// Merges `layers` (newest first) into one layer's bytes, at `depth` over
/// `parent`, without decoding them into maps: names and paths are merged
/// as the sorted lists they are. For the symbol table the newest listing
/// of each name wins; for the dependency index the paths unite. With
/// `drop_empty` (a merge down to a new full layer) names listed with no
/// path go, and so do paths no name lists any more.
pub fn merge(
    kind: LayerKind,
    layers: &[Layer<'_>],
    drop_empty: bool,
    depth: u32,
    parent: Option<PackLocation>,
) -> Result<Vec<u8>, Damaged> {
    // Every layer's paths, merged: each layer's numbers renumbered.
    let mut paths: Vec<&[u8]> = Vec::new();
    let mut renumbered: Vec<Vec<u32>> = layers
        .iter()
        .map(|l| Vec::with_capacity(l.n_paths))
        .collect();
    let mut heads = vec![0usize; layers.len()];
    while let Some(least) = least_head(layers, &heads, Region::Paths)? {
        for ((layer, at), numbers) in layers.iter().zip(&mut heads).zip(&mut renumbered) {
            if layer.nth(Region::Paths, *at)? == Some(least) {
                numbers.push(paths.len() as u32);
                *at = layer.after(Region::Paths, *at, least)?;
            }
        }
        paths.push(least);
    }
    // Every layer's names, merged; each name's paths as merged numbers,
    // all in one array.
    let mut names: Vec<&[u8]> = Vec::new();
    let mut bounds: Vec<usize> = vec![0];
    let mut listed: Vec<u32> = Vec::new();
    heads.iter_mut().for_each(|at| *at = 0);
    while let Some(least) = least_head(layers, &heads, Region::Names)? {
        let start = listed.len();
        let mut decided = false;
        for ((layer, at), numbers) in layers.iter().zip(&mut heads).zip(&renumbered) {
            if layer.nth(Region::Names, *at)? != Some(least) {
                continue;
            }
            // The symbol table's newest listing decides.
            if !(kind == LayerKind::Symbols && decided) {
                for n in layer.value_iter(*at)? {
                    listed.push(*numbers.get(n? as usize).ok_or(Damaged)?);
                }
                decided = true;
            }
            *at = layer.after(Region::Names, *at, least)?;
        }
        let list = &mut listed[start..];
        list.sort_unstable();
        let kept = start + dedup_sorted(list);
        listed.truncate(kept);
        if drop_empty && kept == start {
            continue;
        }
        names.push(least);
        bounds.push(listed.len());
    }
    // Paths no name lists go, when names went.
    let mut paths_kept: Vec<&str> = Vec::with_capacity(paths.len());
    if drop_empty {
        let mut used = vec![false; paths.len()];
        for &n in &listed {
            used[n as usize] = true;
        }
        let mut new_number = vec![0u32; paths.len()];
        for (n, path) in paths.iter().enumerate() {
            if used[n] {
                new_number[n] = paths_kept.len() as u32;
                paths_kept.push(std::str::from_utf8(path).map_err(|_| Damaged)?);
            }
        }
        for n in &mut listed {
            *n = new_number[*n as usize];
        }
    } else {
        for path in &paths {
            paths_kept.push(std::str::from_utf8(path).map_err(|_| Damaged)?);
        }
    }
    let names: Vec<&str> = names
        .into_iter()
        .map(|n| std::str::from_utf8(n).map_err(|_| Damaged))
        .collect::<Result<_, _>>()?;
    let entries = names
        .iter()
        .enumerate()
        .map(|(i, name)| (name.len(), listed[bounds[i]..bounds[i + 1]].to_vec()));
    Ok(encode_sorted(
        kind,
        depth,
        parent,
        &paths_kept,
        entries,
        whole_names(&names),
    )
    .to_vec())
}

/// The sorted lists of a layer that [`merge`] walks.
#[derive(Clone, Copy)]
enum Region {
    Paths,
    Names,
}

impl<'b> Layer<'b> {
    /// Entry `i` of `region`, `None` past its end.
    fn nth(&self, region: Region, i: usize) -> Result<Option<&'b [u8]>, Damaged> {
        match region {
            Region::Paths if i < self.n_paths => self.path_bytes(i).map(Some),
            Region::Names if i < self.n_names => self.name_bytes(i).map(Some),
            _ => Ok(None),
        }
    }

    /// The entry after `i` (which is `current`) in `region`, checking the
    /// order: each entry greater than the one before.
    fn after(&self, region: Region, i: usize, current: &[u8]) -> Result<usize, Damaged> {
        match self.nth(region, i + 1)? {
            Some(next) if next <= current => Err(Damaged),
            _ => Ok(i + 1),
        }
    }
}

/// The least entry of `region` at the layers' `heads`, `None` when every
/// layer is through.
fn least_head<'b>(
    layers: &[Layer<'b>],
    heads: &[usize],
    region: Region,
) -> Result<Option<&'b [u8]>, Damaged> {
    let mut least: Option<&'b [u8]> = None;
    for (layer, &at) in layers.iter().zip(heads) {
        if let Some(entry) = layer.nth(region, at)?
            && least.is_none_or(|l| entry < l)
        {
            least = Some(entry);
        }
    }
    Ok(least)
}

/// Removes repeats from the sorted `list` in place; how many values stay.
fn dedup_sorted(list: &mut [u32]) -> usize {
    let mut kept = 0;
    for i in 0..list.len() {
        if kept == 0 || list[i] != list[kept - 1] {
            list[kept] = list[i];
            kept += 1;
        }
    }
    kept
}
