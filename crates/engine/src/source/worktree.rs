//! A directory's Java files on disk, hashed the way git hashes blobs, and
//! brought up to date path by path after file system events; an editor's
//! unsaved text may stand for a file's content on disk (an overlay).

use super::revision::{
    Changes, Files, PREFETCH_BUDGET, Prefetched, Revision, RevisionKind, SourceFile, SourceLimits,
    is_java_path,
};
use crate::error::Error;
use refscope_store::BlobId;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The content of the file at `path`, or `None` if it is larger than `max`
/// bytes (then it is not read, unless it grew past `max` meanwhile).
pub(super) fn read_at_most(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Ok(None);
    }
    // Read by hand: `read_to_end` would ask for the length again.
    let mut bytes = vec![0; len as usize];
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    // Grown since its length was taken: the rest too, up to the limit.
    if filled == bytes.len() {
        file.take(max + 1 - filled as u64).read_to_end(&mut bytes)?;
    }
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

pub(super) fn directory_revision(root: &Path, limits: &SourceLimits) -> Result<Revision, Error> {
    let (tree, prefetched) = WorkTree::scan_keeping(root, limits, PREFETCH_BUDGET);
    let mut revision = tree.revision();
    revision.prefetched = Some(Arc::new(prefetched));
    Ok(revision)
}

/// The Java files of a directory on disk, kept current path by path: after
/// a file system event only the paths it names are read again.
#[derive(Debug, Clone)]
pub struct WorkTree {
    root: PathBuf,
    /// The root with every symbolic link resolved: a link whose target is
    /// not under it leads out of the tree and is not followed.
    real_root: PathBuf,
    limits: SourceLimits,
    files: BTreeMap<String, SourceFile>,
    skipped: BTreeMap<String, String>,
    /// Paths (files, or left out) that may have changed since the last
    /// [`Self::changes_since`].
    touched: BTreeSet<String>,
    /// Contents that stand for the files at these paths instead of what
    /// the disk holds ([`Self::set_overlay`]).
    overlays: BTreeMap<String, Arc<Vec<u8>>>,
}

impl WorkTree {
    /// Lists and hashes every Java file under `root` (not `.git` or
    /// `.refscope`); files that cannot be read are kept as skipped.
    pub fn scan(root: &Path, limits: &SourceLimits) -> Self {
        Self::scan_keeping(root, limits, 0).0
    }

    /// [`Self::scan`], keeping the contents read to hash the files, up to
    /// `budget` bytes in all.
    pub fn scan_keeping(root: &Path, limits: &SourceLimits, budget: u64) -> (Self, Prefetched) {
        let mut tree = Self {
            root: root.to_path_buf(),
            real_root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            limits: limits.clone(),
            files: BTreeMap::new(),
            skipped: BTreeMap::new(),
            touched: BTreeSet::new(),
            overlays: BTreeMap::new(),
        };
        let prefetched = tree.rescan(root.to_path_buf(), String::new(), budget);
        tree.touched.clear();
        (tree, prefetched)
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Brings `paths` (absolute, under the root; files or directories,
    /// present or gone) up to date; returns how many files were added,
    /// changed or removed. Paths outside the root, in `.git` or in
    /// `.refscope` are ignored.
    pub fn refresh(&mut self, paths: &[PathBuf]) -> usize {
        let mut changed = 0;
        for path in paths {
            let Ok(rel) = path.strip_prefix(&self.root) else {
                continue;
            };
            let Some(rel) = rel.to_str().map(|r| r.replace('\\', "/")) else {
                continue;
            };
            if rel
                .split('/')
                .any(|component| component == ".git" || component == ".refscope")
            {
                continue;
            }
            // A path under an excluded directory, or an excluded file.
            let mut up = rel.as_str();
            let mut excluded = false;
            while let Some((dir, _)) = up.rsplit_once('/') {
                excluded |= !self.limits.paths.enters(dir);
                up = dir;
            }
            if excluded || (!rel.is_empty() && !self.limits.paths.enters(&rel)) {
                continue;
            }
            let before = self.forget(&rel);
            self.touched.extend(before.iter().map(|f| f.path.clone()));
            let metadata = match std::fs::symlink_metadata(path) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    self.link_target(path).map_err(|why| {
                        self.skipped.insert(rel.clone(), why);
                    })
                }
                Ok(metadata) => Ok(metadata),
                Err(_) => Err(()),
            };
            match metadata {
                Ok(meta) if meta.is_dir() => {
                    let prefix = if rel.is_empty() {
                        String::new()
                    } else {
                        format!("{rel}/")
                    };
                    self.rescan(path.clone(), prefix, 0);
                }
                Ok(meta)
                    if meta.is_file() && is_java_path(&rel) && self.limits.paths.admits(&rel) =>
                {
                    self.add_files(vec![(rel.clone(), path.clone())], 0);
                }
                _ => {}
            }
            self.apply_overlays(&rel);
            // A directory event may cover the whole tree: compare by path
            // through a map, not pairwise.
            let before: std::collections::HashMap<&str, BlobId> = before
                .iter()
                .map(|f| (f.path.as_str(), f.blob_id))
                .collect();
            let after = self.under(&rel);
            self.touched.extend(after.iter().map(|f| f.path.clone()));
            let dir = format!("{rel}/");
            let left_out = self
                .skipped
                .keys()
                .filter(|path| rel.is_empty() || **path == rel || path.starts_with(&dir))
                .cloned()
                .collect::<Vec<_>>();
            self.touched.extend(left_out);
            changed += after
                .iter()
                .filter(|file| before.get(file.path.as_str()) != Some(&file.blob_id))
                .count();
            let after: HashSet<&str> = after.iter().map(|f| f.path.as_str()).collect();
            changed += before.keys().filter(|path| !after.contains(*path)).count();
        }
        changed
    }

    /// Makes `content` the content of the Java file at `path` (absolute,
    /// under the root), whatever the disk holds there or whether it exists
    /// — an editor's unsaved text — or, with `None`, the disk's content
    /// again. Revisions read an overlaid file's content from here, not
    /// from the disk. Returns how many files changed, as
    /// [`Self::refresh`] does; other paths are ignored.
    pub fn set_overlay(&mut self, path: &Path, content: Option<Vec<u8>>) -> usize {
        let Some(rel) = path
            .strip_prefix(&self.root)
            .ok()
            .and_then(|rel| rel.to_str())
            .map(|rel| rel.replace('\\', "/"))
        else {
            return 0;
        };
        if !is_java_path(&rel) || !self.limits.paths.admits(&rel) {
            return 0;
        }
        match content {
            Some(content) => self.overlays.insert(rel, Arc::new(content)),
            None => self.overlays.remove(&rel),
        };
        self.refresh(&[path.to_path_buf()])
    }

    /// The revision the files make now.
    pub fn revision(&self) -> Revision {
        let files: Vec<SourceFile> = self.files.values().cloned().collect();
        let skipped: Vec<(String, String)> = self
            .skipped
            .iter()
            .map(|(path, reason)| (path.clone(), reason.clone()))
            .collect();
        let mut manifest = String::new();
        for file in &files {
            manifest.push_str(&file.path);
            manifest.push('\0');
            manifest.push_str(&file.blob_id.to_string());
            manifest.push('\n');
        }
        let digest = BlobId::of_bytes(manifest.as_bytes());
        let prefetched = self.overlaid(self.overlays.keys().map(String::as_str));
        Revision {
            name: format!("worktree:{digest}"),
            kind: RevisionKind::WorkTree,
            branch: None,
            files: Files::All { files, skipped },
            prefetched,
        }
    }

    /// The changes since the revision named `base`, which was these files
    /// as they were at the last call (or the scan): the revision the files
    /// make now, as a layer over `base`. Its name digests `base`'s and the
    /// changes.
    pub fn changes_since(&mut self, base: &str) -> Revision {
        let mut changes = Changes::default();
        let mut digest = format!("{base}\n");
        for path in std::mem::take(&mut self.touched) {
            match self.files.get(&path) {
                Some(file) => {
                    digest.push_str(&format!("{path}\0{}\n", file.blob_id));
                    changes.changed.push(file.clone());
                }
                None => {
                    digest.push_str(&format!("{path}\0-\n"));
                    changes.removed.push(path.clone());
                }
            }
            match self.skipped.get(&path) {
                Some(reason) => changes.skipped.push((path, reason.clone())),
                None => changes.unskipped.push(path),
            }
        }
        let digest = BlobId::of_bytes(digest.as_bytes());
        let prefetched = self.overlaid(changes.changed.iter().map(|file| file.path.as_str()));
        Revision {
            name: format!("worktree:{digest}"),
            kind: RevisionKind::WorkTree,
            branch: None,
            files: Files::Changes {
                base: base.to_string(),
                changes,
            },
            prefetched,
        }
    }

    /// The contents of the overlaid files among `paths`, for the parse
    /// (the disk does not hold them); `None` when there are none.
    fn overlaid<'p>(&self, paths: impl Iterator<Item = &'p str>) -> Option<Arc<Prefetched>> {
        let mut prefetched = Prefetched::default();
        for path in paths {
            if let (Some(content), Some(file)) = (self.overlays.get(path), self.files.get(path)) {
                prefetched
                    .contents
                    .entry(file.blob_id)
                    .or_insert_with(|| Mutex::new(Some(content.to_vec())));
            }
        }
        (!prefetched.is_empty()).then(|| Arc::new(prefetched))
    }

    /// Puts the overlaid files at `rel` or under it in place of what the
    /// disk holds there.
    fn apply_overlays(&mut self, rel: &str) {
        let dir = format!("{rel}/");
        let max = self.limits.max_file_bytes;
        let under: Vec<(String, Arc<Vec<u8>>)> = self
            .overlays
            .iter()
            .filter(|(path, _)| rel.is_empty() || *path == rel || path.starts_with(&dir))
            .map(|(path, content)| (path.clone(), content.clone()))
            .collect();
        for (path, content) in under {
            if content.len() as u64 > max {
                self.files.remove(&path);
                self.skipped
                    .insert(path, format!("larger than {max} bytes"));
                continue;
            }
            self.skipped.remove(&path);
            let file = SourceFile {
                path: path.clone(),
                blob_id: BlobId::of_bytes(&content),
                size: content.len() as u64,
            };
            self.files.insert(path, file);
        }
    }

    /// The files at `rel` or under it.
    fn under(&self, rel: &str) -> Vec<SourceFile> {
        let dir = format!("{rel}/");
        self.files
            .range::<str, _>((std::ops::Bound::Included(rel), std::ops::Bound::Unbounded))
            .take_while(|(path, _)| path.starts_with(rel))
            .filter(|(path, _)| rel.is_empty() || *path == rel || path.starts_with(&dir))
            .map(|(_, file)| file.clone())
            .collect()
    }

    /// Drops `rel` and everything under it; returns the files dropped.
    fn forget(&mut self, rel: &str) -> Vec<SourceFile> {
        let gone = self.under(rel);
        for file in &gone {
            self.files.remove(&file.path);
        }
        let dir = format!("{rel}/");
        let touched = &mut self.touched;
        self.skipped.retain(|path, _| {
            let under = rel.is_empty() || path == rel || path.starts_with(&dir);
            if under {
                touched.insert(path.clone());
            }
            !under
        });
        gone
    }

    /// Walks the directory `dir` (relative path `prefix`, ending in `/`
    /// unless empty) and adds its Java files, keeping up to `budget` bytes
    /// of their contents.
    fn rescan(&mut self, dir: PathBuf, prefix: String, budget: u64) -> Prefetched {
        use std::os::unix::fs::MetadataExt as _;
        let mut found = Vec::new();
        // Directories already entered, by device and inode: a symlink
        // loop is entered once.
        let mut visited: HashSet<(u64, u64)> = HashSet::new();
        let mut pending: Vec<(PathBuf, String)> = vec![(dir, prefix)];
        while let Some((dir, prefix)) = pending.pop() {
            let identity = match std::fs::metadata(&dir) {
                Ok(metadata) => (metadata.dev(), metadata.ino()),
                Err(e) => {
                    // Removed while we walked, or unreadable: note it and
                    // go on.
                    self.skipped.insert(
                        prefix.trim_end_matches('/').to_string(),
                        format!("cannot enter: {e}"),
                    );
                    continue;
                }
            };
            if !visited.insert(identity) {
                self.skipped.insert(
                    prefix.trim_end_matches('/').to_string(),
                    "directory already visited (symlink loop)".into(),
                );
                continue;
            }
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    self.skipped
                        .insert(prefix.clone(), format!("cannot read directory: {e}"));
                    continue;
                }
            };
            for entry in entries.flatten() {
                let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                    let lossy = entry.file_name().to_string_lossy().into_owned();
                    self.skipped
                        .insert(format!("{prefix}{lossy}"), "name is not UTF-8".into());
                    continue;
                };
                if name == ".git" || name == ".refscope" {
                    continue;
                }
                let path = entry.path();
                let rel = format!("{prefix}{name}");
                // The entry's type comes with the listing; only a symbolic
                // link needs a call to learn what it points at.
                let Ok(mut kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_symlink() {
                    match self.link_target(&path) {
                        Ok(metadata) => kind = metadata.file_type(),
                        Err(why) => {
                            self.skipped.insert(rel, why);
                            continue;
                        }
                    }
                }
                if kind.is_dir() {
                    if self.limits.paths.enters(&rel) {
                        pending.push((path, format!("{rel}/")));
                    }
                } else if kind.is_file() && is_java_path(&name) && self.limits.paths.admits(&rel) {
                    found.push((rel, path));
                }
            }
        }
        self.add_files(found, budget)
    }

    /// What the symbolic link at `path` leads to, or why it is not
    /// followed: it dangles, or it leads out of the tree (a tree's index
    /// holds the tree's files, never ones elsewhere on the machine).
    fn link_target(&self, path: &Path) -> Result<std::fs::Metadata, String> {
        let target =
            std::fs::canonicalize(path).map_err(|_| "dangling symbolic link".to_string())?;
        if !target.starts_with(&self.real_root) {
            return Err(format!(
                "symbolic link leads out of the tree, to {}",
                target.display()
            ));
        }
        std::fs::metadata(&target).map_err(|_| "dangling symbolic link".to_string())
    }

    /// Hashes files (in parallel) and adds them, or records why not;
    /// keeps up to `budget` bytes of their contents.
    fn add_files(&mut self, found: Vec<(String, PathBuf)>, budget: u64) -> Prefetched {
        use rayon::prelude::*;
        let max = self.limits.max_file_bytes;
        let kept = AtomicU64::new(0);
        // Whether `len` more bytes fit in the budget, counting them if so.
        let keep = |len: u64| {
            kept.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
                (total + len <= budget).then_some(total + len)
            })
            .is_ok()
        };
        type Found = Result<(SourceFile, Option<Vec<u8>>), (String, String)>;
        let results: Vec<Found> = found
            .into_par_iter()
            .with_max_len(1)
            .map(|(rel, path)| match read_at_most(&path, max) {
                Ok(None) => Err((rel, format!("larger than {max} bytes"))),
                Ok(Some(bytes)) => {
                    let file = SourceFile {
                        path: rel,
                        blob_id: BlobId::of_bytes(&bytes),
                        size: bytes.len() as u64,
                    };
                    let bytes = keep(bytes.len() as u64).then_some(bytes);
                    Ok((file, bytes))
                }
                Err(e) => Err((rel, format!("cannot read: {e}"))),
            })
            .collect();
        let mut prefetched = Prefetched::default();
        for result in results {
            match result {
                Ok((file, bytes)) => {
                    if let Some(bytes) = bytes {
                        prefetched
                            .contents
                            .entry(file.blob_id)
                            .or_insert(Mutex::new(Some(bytes)));
                    }
                    self.files.insert(file.path.clone(), file);
                }
                Err((path, reason)) => {
                    self.skipped.insert(path, reason);
                }
            }
        }
        prefetched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An overlay stands for the file's content until it is taken away,
    /// and the revisions made meanwhile carry its content for the parse.
    #[test]
    fn excluded_paths_are_neither_listed_nor_refreshed() {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("src/A.java", "class A {}"),
            ("vendor/lib/B.java", "class B {}"),
            ("src/ATest.java", "class ATest {}"),
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let limits = SourceLimits {
            paths: crate::source::PathFilter::new(
                &[],
                &["vendor/**".to_string(), "**/*Test.java".to_string()],
            )
            .unwrap(),
            ..SourceLimits::default()
        };
        let mut tree = WorkTree::scan(dir.path(), &limits);
        let listed = |tree: &WorkTree| -> Vec<String> {
            match tree.revision().files {
                Files::All { files, skipped } => {
                    assert!(skipped.is_empty(), "{skipped:?}");
                    files.into_iter().map(|f| f.path).collect()
                }
                other => panic!("a whole listing expected, got {other:?}"),
            }
        };
        assert_eq!(listed(&tree), ["src/A.java"]);
        // Saves under an excluded tree, of an excluded file, or of the
        // excluded tree itself change nothing; a save elsewhere does.
        std::fs::write(dir.path().join("vendor/lib/B.java"), "class B { int b; }").unwrap();
        std::fs::write(dir.path().join("src/ATest.java"), "class ATest { int t; }").unwrap();
        let excluded = [
            dir.path().join("vendor/lib/B.java"),
            dir.path().join("vendor"),
            dir.path().join("src/ATest.java"),
        ];
        assert_eq!(tree.refresh(&excluded), 0);
        std::fs::write(dir.path().join("src/A.java"), "class A { int a; }").unwrap();
        assert_eq!(tree.refresh(&[dir.path().join("src")]), 1);
        assert_eq!(listed(&tree), ["src/A.java"]);
    }

    #[test]
    fn an_overlay_stands_for_the_file_on_disk_until_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("A.java");
        std::fs::write(&path, "class A {}").unwrap();
        let mut tree = WorkTree::scan(dir.path(), &SourceLimits::default());
        let on_disk = BlobId::of_bytes(b"class A {}");
        let base = tree.revision();
        assert!(base.prefetched.is_none());

        let unsaved = b"class A { void m() {} }".to_vec();
        assert_eq!(tree.set_overlay(&path, Some(unsaved.clone())), 1);
        let blob = BlobId::of_bytes(&unsaved);
        let over = tree.changes_since(&base.name);
        let Files::Changes { changes, .. } = &over.files else {
            panic!("changes expected, got {:?}", over.files);
        };
        assert_eq!(changes.changed.len(), 1);
        assert_eq!(changes.changed[0].blob_id, blob);
        let prefetched = over.prefetched.expect("the overlay's content");
        assert_eq!(prefetched.take(&blob), Some(unsaved.clone()));

        // A refresh of the path (a save elsewhere, an event) keeps it; a new
        // file that exists only in the editor is a file too.
        assert_eq!(tree.refresh(std::slice::from_ref(&path)), 0);
        let new_file = dir.path().join("B.java");
        assert_eq!(tree.set_overlay(&new_file, Some(b"class B {}".to_vec())), 1);
        assert_eq!(
            tree.set_overlay(&dir.path().join("notes.txt"), Some(vec![])),
            0
        );
        let Files::All { files, .. } = tree.revision().files else {
            panic!("a listing expected");
        };
        assert_eq!(files.len(), 2);

        assert_eq!(tree.set_overlay(&path, None), 1);
        assert_eq!(tree.set_overlay(&new_file, None), 1);
        let Files::All { files, .. } = tree.revision().files else {
            panic!("a listing expected");
        };
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].blob_id, on_disk);
    }
}
