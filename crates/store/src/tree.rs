//! Revision manifests (path → blob, unit) as persistent trees, the way git
//! stores its trees: one node per directory, listing its files (name,
//! blob, unit) and its subdirectories (name, node), stored once by
//! content digest in `trees`. A revision names its root node.
//!
//! A revision that changes three files rewrites the nodes on their paths
//! to the root and shares every other node with its parent, so writing it
//! costs what it changes; two revisions' difference is found by walking
//! both trees and skipping every subtree they share.
//!
//! Node encoding: a varint entry count, then per entry, sorted by name, a
//! kind byte (0 file, 1 directory), the name (varint length, UTF-8), and
//! for a file the 20-byte blob id and the zigzag varint unit id, for a
//! directory the varint node id.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use refscope_syntax::Digest128;
use rusqlite::{Connection, OptionalExtension, params};

use crate::blob::BlobId;
use crate::codec::{Damaged, Reader, write_signed, write_str, write_varint};

/// A file of an indexed revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Repository-relative path.
    pub path: String,
    /// Content id.
    pub blob_id: BlobId,
    /// The unit holding its qualified elements.
    pub unit_id: i64,
}

/// One directory of a manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Node {
    /// Sorted by name; names are unique.
    entries: Vec<(String, Entry)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    File { blob_id: BlobId, unit_id: i64 },
    Dir(i64),
}

/// What a file of a manifest is: its blob and unit.
pub type FileValue = (BlobId, i64);

/// A file that differs between two manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    /// Its path.
    pub path: String,
    /// Blob and unit in the first manifest, if it has the file.
    pub old: Option<FileValue>,
    /// Blob and unit in the second, if it has the file.
    pub new: Option<FileValue>,
}

impl Node {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.entries.len() * 48);
        write_varint(&mut out, self.entries.len() as u64);
        for (name, entry) in &self.entries {
            match entry {
                Entry::File { blob_id, unit_id } => {
                    out.push(0);
                    write_str(&mut out, name);
                    out.extend_from_slice(&blob_id.0);
                    write_signed(&mut out, *unit_id);
                }
                Entry::Dir(node) => {
                    out.push(1);
                    write_str(&mut out, name);
                    write_varint(&mut out, *node as u64);
                }
            }
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<Self, Damaged> {
        let mut reader = Reader::new(bytes);
        let count = reader.len()?;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            let kind = reader.byte()?;
            let name = reader.str()?.to_string();
            let entry = match kind {
                0 => Entry::File {
                    blob_id: BlobId(reader.array()?),
                    unit_id: reader.signed()?,
                },
                1 => Entry::Dir(i64::try_from(reader.varint()?).map_err(|_| Damaged)?),
                _ => return Err(Damaged),
            };
            if entries
                .last()
                .is_some_and(|(last, _): &(String, Entry)| *last >= name)
            {
                return Err(Damaged);
            }
            entries.push((name, entry));
        }
        if !reader.is_empty() {
            return Err(Damaged);
        }
        Ok(Self { entries })
    }

    fn get(&self, name: &str) -> Option<Entry> {
        self.entries
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|at| self.entries[at].1)
    }

    fn set(&mut self, name: &str, entry: Option<Entry>) {
        match (
            self.entries.binary_search_by(|(n, _)| n.as_str().cmp(name)),
            entry,
        ) {
            (Ok(at), Some(entry)) => self.entries[at].1 = entry,
            (Ok(at), None) => {
                self.entries.remove(at);
            }
            (Err(at), Some(entry)) => self.entries.insert(at, (name.to_string(), entry)),
            (Err(_), None) => {}
        }
    }
}

/// What a set of manifests reaches ([`Trees::reachable`]).
#[derive(Debug, Default)]
pub(crate) struct Reached {
    pub(crate) nodes: HashSet<i64>,
    pub(crate) blobs: HashSet<BlobId>,
    pub(crate) units: HashSet<i64>,
}

/// Nodes decoded so far (nodes never change: an id always names the same
/// content).
pub(crate) type NodeCache = HashMap<i64, Arc<Node>>;

/// Reads and writes manifest trees over one connection, keeping the nodes
/// it decoded in a cache.
pub(crate) struct Trees<'c> {
    db: &'c Connection,
    nodes: &'c mut NodeCache,
}

/// A tree operation that failed: SQLite, or a node that does not decode.
#[derive(Debug)]
pub(crate) enum TreeError {
    Sqlite(rusqlite::Error),
    Damaged(i64),
}

impl From<rusqlite::Error> for TreeError {
    fn from(e: rusqlite::Error) -> Self {
        Self::Sqlite(e)
    }
}

type TreeResult<T> = std::result::Result<T, TreeError>;

impl<'c> Trees<'c> {
    pub(crate) fn new(db: &'c Connection, nodes: &'c mut NodeCache) -> Self {
        Self { db, nodes }
    }

    fn node(&mut self, id: i64) -> TreeResult<Arc<Node>> {
        if let Some(node) = self.nodes.get(&id) {
            return Ok(node.clone());
        }
        let node = Arc::new(self.read_node(id)?);
        self.nodes.insert(id, node.clone());
        Ok(node)
    }

    fn read_node(&self, id: i64) -> TreeResult<Node> {
        let bytes: Option<Vec<u8>> = self
            .db
            .prepare_cached("SELECT entries FROM trees WHERE id = ?1")?
            .query_row(params![id], |r| r.get(0))
            .optional()?;
        let bytes = bytes.ok_or(TreeError::Damaged(id))?;
        Node::decode(&bytes).map_err(|Damaged| TreeError::Damaged(id))
    }

    /// Stores `node` (or finds it stored); its id.
    fn store(&mut self, node: Node) -> TreeResult<i64> {
        let bytes = node.encode();
        let mut digest = Digest128::new(b"manifest tree");
        digest.write(&bytes);
        let digest = digest.finish();
        let found: Option<i64> = self
            .db
            .prepare_cached("SELECT id FROM trees WHERE digest = ?1")?
            .query_row(params![&digest[..]], |r| r.get(0))
            .optional()?;
        let id = match found {
            Some(id) => id,
            None => {
                self.db
                    .prepare_cached("INSERT INTO trees (digest, entries) VALUES (?1, ?2)")?
                    .execute(params![&digest[..], bytes])?;
                self.db.last_insert_rowid()
            }
        };
        self.nodes.entry(id).or_insert_with(|| Arc::new(node));
        Ok(id)
    }

    /// Notes that a manifest puts `unit` at `path` (see `unit_paths` in
    /// the schema).
    fn note_path(&self, unit: i64, path: &str) -> TreeResult<()> {
        self.db
            .prepare_cached("INSERT OR IGNORE INTO unit_paths (unit_id, path) VALUES (?1, ?2)")?
            .execute(params![unit, path])?;
        Ok(())
    }

    /// Writes the manifest of `files` (path, blob, unit; any order, paths
    /// unique); its root.
    pub(crate) fn write<'p>(
        &mut self,
        files: impl IntoIterator<Item = (&'p str, BlobId, i64)>,
    ) -> TreeResult<i64> {
        let mut sorted: Vec<(&str, BlobId, i64)> = files.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        self.write_sorted("", &sorted)
    }

    /// The node of directory `prefix` holding `files`, sorted by path, all
    /// under it.
    fn write_sorted(&mut self, prefix: &str, files: &[(&str, BlobId, i64)]) -> TreeResult<i64> {
        let mut node = Node::default();
        let mut at = 0;
        while at < files.len() {
            let rest = &files[at].0[prefix.len()..];
            match rest.split_once('/') {
                None => {
                    node.entries.push((
                        rest.to_string(),
                        Entry::File {
                            blob_id: files[at].1,
                            unit_id: files[at].2,
                        },
                    ));
                    self.note_path(files[at].2, files[at].0)?;
                    at += 1;
                }
                Some((dir, _)) => {
                    let sub = format!("{prefix}{dir}/");
                    let end = at + files[at..].partition_point(|f| f.0.starts_with(&sub));
                    let id = self.write_sorted(&sub, &files[at..end])?;
                    node.entries.push((dir.to_string(), Entry::Dir(id)));
                    at = end;
                }
            }
        }
        // Paths sort with `/` (0x2f) between names, and names may hold
        // characters below it: sort the node's own way.
        node.entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.store(node)
    }

    /// The manifest `root` with `changes` applied (path → new blob and
    /// unit, or `None` to remove it); its root. Only the nodes on the
    /// changed paths are written; a directory left empty disappears.
    pub(crate) fn update(
        &mut self,
        root: i64,
        changes: &[(&str, Option<FileValue>)],
    ) -> TreeResult<i64> {
        let mut sorted: Vec<(&str, Option<FileValue>)> = changes.to_vec();
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        sorted.dedup_by(|later, earlier| later.0 == earlier.0);
        match self.update_node(Some(root), "", &sorted)? {
            Some(root) => Ok(root),
            None => self.store(Node::default()),
        }
    }

    /// Node `id` (or an empty directory) of directory `prefix` with
    /// `changes` (sorted, all under `prefix`) applied; `None` when empty.
    fn update_node(
        &mut self,
        id: Option<i64>,
        prefix: &str,
        changes: &[(&str, Option<FileValue>)],
    ) -> TreeResult<Option<i64>> {
        let mut node = match id {
            Some(id) => (*self.node(id)?).clone(),
            None => Node::default(),
        };
        let mut at = 0;
        while at < changes.len() {
            let rest = &changes[at].0[prefix.len()..];
            match rest.split_once('/') {
                None => {
                    let entry = changes[at]
                        .1
                        .map(|(blob_id, unit_id)| Entry::File { blob_id, unit_id });
                    if let Some((_, unit_id)) = changes[at].1 {
                        self.note_path(unit_id, changes[at].0)?;
                    }
                    node.set(rest, entry);
                    at += 1;
                }
                Some((dir, _)) => {
                    let sub = format!("{prefix}{dir}/");
                    let end = at + changes[at..].partition_point(|c| c.0.starts_with(&sub));
                    let existing = match node.get(dir) {
                        Some(Entry::Dir(id)) => Some(id),
                        _ => None,
                    };
                    match self.update_node(existing, &sub, &changes[at..end])? {
                        Some(updated) => node.set(dir, Some(Entry::Dir(updated))),
                        // A file that took the directory's name stays.
                        None if existing.is_some() => node.set(dir, None),
                        None => {}
                    }
                    at = end;
                }
            }
        }
        if node.entries.is_empty() {
            return Ok(None);
        }
        if id.is_some_and(|id| self.nodes.get(&id).is_some_and(|old| **old == node)) {
            return Ok(id);
        }
        self.store(node).map(Some)
    }

    /// Every file of the manifest `root`, sorted by path.
    pub(crate) fn files(&mut self, root: i64) -> TreeResult<Vec<FileEntry>> {
        let mut out = Vec::new();
        self.collect(root, String::new(), &mut out)?;
        out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn collect(&mut self, id: i64, prefix: String, out: &mut Vec<FileEntry>) -> TreeResult<()> {
        let node = self.node(id)?;
        for (name, entry) in &node.entries {
            match *entry {
                Entry::File { blob_id, unit_id } => out.push(FileEntry {
                    path: format!("{prefix}{name}"),
                    blob_id,
                    unit_id,
                }),
                Entry::Dir(sub) => self.collect(sub, format!("{prefix}{name}/"), out)?,
            }
        }
        Ok(())
    }

    /// Everything the manifests `roots` reach: their nodes, and the blobs
    /// and units of their files. A node shared by many manifests is read
    /// once.
    pub(crate) fn reachable(
        &mut self,
        roots: impl IntoIterator<Item = i64>,
    ) -> TreeResult<Reached> {
        let mut reached = Reached::default();
        let mut pending: Vec<i64> = roots.into_iter().collect();
        while let Some(id) = pending.pop() {
            if !reached.nodes.insert(id) {
                continue;
            }
            // Read without keeping: a walk over every manifest of a store
            // would otherwise hold all of them decoded.
            let node = match self.nodes.get(&id) {
                Some(node) => node.clone(),
                None => Arc::new(self.read_node(id)?),
            };
            for (_, entry) in &node.entries {
                match *entry {
                    Entry::File { blob_id, unit_id } => {
                        reached.blobs.insert(blob_id);
                        reached.units.insert(unit_id);
                    }
                    Entry::Dir(sub) => pending.push(sub),
                }
            }
        }
        Ok(reached)
    }

    /// The file at `path` in the manifest `root`, if it has one.
    pub(crate) fn file(&mut self, root: i64, path: &str) -> TreeResult<Option<FileValue>> {
        let mut node = self.node(root)?;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            match (node.get(part), parts.peek().is_some()) {
                (Some(Entry::Dir(sub)), true) => node = self.node(sub)?,
                (Some(Entry::File { blob_id, unit_id }), false) => {
                    return Ok(Some((blob_id, unit_id)));
                }
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The files that differ between manifests `old` and `new`, sorted by
    /// path; subtrees the two share are skipped without being read.
    pub(crate) fn diff(&mut self, old: i64, new: i64) -> TreeResult<Vec<TreeChange>> {
        let mut out = Vec::new();
        self.diff_nodes(Some(old), Some(new), String::new(), &mut out)?;
        out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn diff_nodes(
        &mut self,
        old: Option<i64>,
        new: Option<i64>,
        prefix: String,
        out: &mut Vec<TreeChange>,
    ) -> TreeResult<()> {
        if old == new {
            return Ok(());
        }
        let old = match old {
            Some(id) => self.node(id)?,
            None => Arc::default(),
        };
        let new = match new {
            Some(id) => self.node(id)?,
            None => Arc::default(),
        };
        let (mut a, mut b) = (old.entries.iter().peekable(), new.entries.iter().peekable());
        loop {
            let order = match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some((x, _)), Some((y, _))) => x.cmp(y),
            };
            let (left, right) = match order {
                std::cmp::Ordering::Less => (a.next(), None),
                std::cmp::Ordering::Greater => (None, b.next()),
                std::cmp::Ordering::Equal => (a.next(), b.next()),
            };
            let name = &left.or(right).expect("one side has an entry").0;
            let path = format!("{prefix}{name}");
            let (left, right) = (left.map(|e| e.1), right.map(|e| e.1));
            let as_file = |e: Option<Entry>| match e {
                Some(Entry::File { blob_id, unit_id }) => Some((blob_id, unit_id)),
                _ => None,
            };
            let as_dir = |e: Option<Entry>| match e {
                Some(Entry::Dir(id)) => Some(id),
                _ => None,
            };
            let (old_file, new_file) = (as_file(left), as_file(right));
            if old_file != new_file {
                out.push(TreeChange {
                    path: path.clone(),
                    old: old_file,
                    new: new_file,
                });
            }
            let (old_dir, new_dir) = (as_dir(left), as_dir(right));
            if old_dir != new_dir {
                self.diff_nodes(old_dir, new_dir, format!("{path}/"), out)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(crate::SCHEMA).unwrap();
        db
    }

    fn blob(n: u8) -> BlobId {
        BlobId([n; 20])
    }

    fn listing(trees: &mut Trees, root: i64) -> Vec<(String, u8, i64)> {
        trees
            .files(root)
            .unwrap()
            .into_iter()
            .map(|f| (f.path, f.blob_id.0[0], f.unit_id))
            .collect()
    }

    #[test]
    fn a_manifest_reads_back_and_updates_share_what_they_keep() {
        let db = db();
        let mut cache = NodeCache::new();
        let mut trees = Trees::new(&db, &mut cache);
        let files = [
            ("a/b/C.java", blob(1), 1),
            ("a/b/D.java", blob(2), 2),
            ("a/b-c/E.java", blob(3), 3),
            ("a/F.java", blob(4), 4),
            ("Top.java", blob(5), -5),
        ];
        let root = trees.write(files).unwrap();
        let mut expected: Vec<(String, u8, i64)> = files
            .iter()
            .map(|(p, b, u)| (p.to_string(), b.0[0], *u))
            .collect();
        expected.sort();
        assert_eq!(listing(&mut trees, root), expected);
        assert_eq!(trees.file(root, "a/b/D.java").unwrap(), Some((blob(2), 2)));
        assert_eq!(trees.file(root, "a/b").unwrap(), None);
        assert_eq!(trees.file(root, "a/b/D.java/x").unwrap(), None);
        assert_eq!(trees.file(root, "nothing.java").unwrap(), None);

        // The same files in another order are the same tree.
        let mut reversed = files;
        reversed.reverse();
        assert_eq!(trees.write(reversed).unwrap(), root);

        let nodes_before: i64 = db
            .query_row("SELECT count(*) FROM trees", [], |r| r.get(0))
            .unwrap();
        let updated = trees
            .update(
                root,
                &[
                    ("a/b/C.java", Some((blob(9), 9))),
                    ("a/b-c/E.java", None),
                    ("n/New.java", Some((blob(7), 7))),
                ],
            )
            .unwrap();
        let nodes_after: i64 = db
            .query_row("SELECT count(*) FROM trees", [], |r| r.get(0))
            .unwrap();
        // a/b, a, n and the root are new; a/b-c is gone; nothing else.
        assert_eq!(nodes_after - nodes_before, 4);
        assert_eq!(
            listing(&mut trees, updated),
            vec![
                ("Top.java".to_string(), 5, -5),
                ("a/F.java".to_string(), 4, 4),
                ("a/b/C.java".to_string(), 9, 9),
                ("a/b/D.java".to_string(), 2, 2),
                ("n/New.java".to_string(), 7, 7),
            ]
        );
        // An update equals the tree written from scratch.
        let scratch = trees
            .write([
                ("Top.java", blob(5), -5),
                ("a/F.java", blob(4), 4),
                ("a/b/C.java", blob(9), 9),
                ("a/b/D.java", blob(2), 2),
                ("n/New.java", blob(7), 7),
            ])
            .unwrap();
        assert_eq!(updated, scratch);

        assert_eq!(
            trees.diff(root, updated).unwrap(),
            vec![
                TreeChange {
                    path: "a/b-c/E.java".into(),
                    old: Some((blob(3), 3)),
                    new: None
                },
                TreeChange {
                    path: "a/b/C.java".into(),
                    old: Some((blob(1), 1)),
                    new: Some((blob(9), 9))
                },
                TreeChange {
                    path: "n/New.java".into(),
                    old: None,
                    new: Some((blob(7), 7))
                },
            ]
        );
        assert!(trees.diff(updated, scratch).unwrap().is_empty());

        // Removing everything leaves the empty tree.
        let all: Vec<(&str, Option<FileValue>)> = expected
            .iter()
            .map(|(p, _, _)| (p.as_str(), None))
            .collect();
        let empty = trees.update(root, &all).unwrap();
        assert!(trees.files(empty).unwrap().is_empty());
        assert_eq!(trees.write([]).unwrap(), empty);
    }

    #[test]
    fn a_file_and_a_directory_of_one_name_swap_places() {
        let db = db();
        let mut cache = NodeCache::new();
        let mut trees = Trees::new(&db, &mut cache);
        let root = trees.write([("x", blob(1), 1)]).unwrap();
        let swapped = trees
            .update(root, &[("x", None), ("x/Y.java", Some((blob(2), 2)))])
            .unwrap();
        assert_eq!(
            listing(&mut trees, swapped),
            vec![("x/Y.java".into(), 2, 2)]
        );
        let diff = trees.diff(root, swapped).unwrap();
        assert_eq!(diff.len(), 2, "{diff:?}");
        // And back, the changes listed the other way round.
        let back = trees
            .update(swapped, &[("x/Y.java", None), ("x", Some((blob(1), 1)))])
            .unwrap();
        assert_eq!(back, root);
    }

    #[test]
    fn damaged_nodes_are_errors() {
        let node = Node {
            entries: vec![
                (
                    "A.java".into(),
                    Entry::File {
                        blob_id: blob(1),
                        unit_id: 3,
                    },
                ),
                ("b".into(), Entry::Dir(7)),
            ],
        };
        let bytes = node.encode();
        assert_eq!(Node::decode(&bytes), Ok(node));
        for cut in 0..bytes.len() {
            assert!(Node::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Node::decode(&longer).is_err());
    }
}
