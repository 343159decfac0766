//! Where Java files come from: a git revision read in-process, or a plain
//! directory on disk. Both yield `(path, blob id)` pairs; a directory's
//! files are hashed the way git hashes blobs, so the same content has the
//! same id everywhere and its facts are shared.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use refscope_store::BlobId;

use crate::error::Error;

/// The blob id of a git object id.
fn blob_id_of(oid: git2::Oid) -> BlobId {
    let mut id = [0u8; 20];
    id.copy_from_slice(oid.as_bytes());
    BlobId(id)
}

/// One Java file of a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Repository-relative path with `/` separators.
    pub path: String,
    /// The content's blob id.
    pub blob_id: BlobId,
    /// Size in bytes.
    pub size: u64,
}

/// What a revision is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionKind {
    /// A git commit.
    Commit,
    /// The files of a directory on disk at one moment.
    WorkTree,
}

impl RevisionKind {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Commit => "commit",
            Self::WorkTree => "worktree",
        }
    }
}

/// A revision to index: its name and its Java files.
#[derive(Debug, Clone)]
pub struct Revision {
    /// The commit id, or `worktree:<digest of the manifest>` for a
    /// directory, so identical content is recognised as already indexed.
    pub name: String,
    /// What the revision is.
    pub kind: RevisionKind,
    /// The branch HEAD pointed at, when the revision was resolved from it.
    pub branch: Option<String>,
    /// The Java files, sorted by path.
    pub files: Vec<SourceFile>,
    /// Files left out, with why.
    pub skipped: Vec<(String, String)>,
    /// Contents read while the files were listed (a directory's files are
    /// read to be hashed), for the indexer to parse instead of reading
    /// them again.
    pub prefetched: Option<Arc<Prefetched>>,
}

/// File contents read while a directory's files were listed and hashed,
/// by blob id: each is handed out once ([`Self::take`]), so the indexer
/// reads and hashes a file once, and its memory goes with its parse.
/// Bounded by [`PREFETCH_BUDGET`]; the files beyond it are read again.
#[derive(Default)]
pub struct Prefetched {
    contents: HashMap<BlobId, Mutex<Option<Vec<u8>>>>,
}

/// At most this many bytes of file contents are kept from a directory's
/// listing for the parse (the JDK's 15,132 source files hold 202 MB).
pub const PREFETCH_BUDGET: u64 = 256 << 20;

impl Prefetched {
    /// The content of blob `blob_id`, if it was kept and not taken yet.
    /// It is the content the blob id was computed from.
    pub fn take(&self, blob_id: &BlobId) -> Option<Vec<u8>> {
        self.contents
            .get(blob_id)?
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Frees the contents not taken (blobs indexed before, which are not
    /// parsed again).
    pub fn release(&self) {
        for content in self.contents.values() {
            content
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
        }
    }

    /// How many contents were kept (taken or not).
    pub fn len(&self) -> usize {
        self.contents.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.contents.is_empty()
    }
}

impl fmt::Debug for Prefetched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Prefetched({} files)", self.contents.len())
    }
}

/// Where sources are read from.
pub enum Source {
    /// A git repository.
    Git {
        /// The work tree (or the git directory of a bare repository).
        root: PathBuf,
        /// The `.git` directory.
        git_dir: PathBuf,
        /// The opened repository.
        repo: git2::Repository,
    },
    /// A plain directory.
    Directory {
        /// The directory.
        root: PathBuf,
    },
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Git { root, .. } => write!(f, "Source::Git({})", root.display()),
            Self::Directory { root } => write!(f, "Source::Directory({})", root.display()),
        }
    }
}

/// Limits applied when collecting files.
#[derive(Debug, Clone)]
pub struct SourceLimits {
    /// Files larger than this are skipped (and counted).
    pub max_file_bytes: u64,
}

impl Default for SourceLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 8 << 20,
        }
    }
}

impl Source {
    /// Opens `path`: the git repository containing it, or else the plain
    /// directory.
    pub fn open(path: &Path) -> Result<Self, Error> {
        if !path.exists() {
            return Err(Error::NotASource {
                path: path.to_path_buf(),
            });
        }
        match git2::Repository::discover(path) {
            Ok(repo) => {
                let git_dir = repo.path().to_path_buf();
                let root = repo
                    .workdir()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| git_dir.clone());
                Ok(Self::Git {
                    root,
                    git_dir,
                    repo,
                })
            }
            Err(_) if path.is_dir() => Ok(Self::Directory {
                root: std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?,
            }),
            Err(_) => Err(Error::NotASource {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Opens `path` as a plain directory, even inside a git work tree: its
    /// files on disk are the revision.
    pub fn open_directory(path: &Path) -> Result<Self, Error> {
        if !path.is_dir() {
            return Err(Error::NotASource {
                path: path.to_path_buf(),
            });
        }
        Ok(Self::Directory {
            root: std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?,
        })
    }

    /// The top directory paths are relative to.
    pub fn root(&self) -> &Path {
        match self {
            Self::Git { root, .. } | Self::Directory { root } => root,
        }
    }

    /// Where the store lives by default: inside `.git` for a repository,
    /// `.refscope` in a plain directory.
    pub fn default_store_dir(&self) -> PathBuf {
        match self {
            Self::Git { git_dir, .. } => git_dir.join("refscope"),
            Self::Directory { root } => root.join(".refscope"),
        }
    }

    /// The files of a revision: `rev` in git (HEAD by default), or the
    /// directory's files on disk.
    pub fn resolve_revision(
        &self,
        rev: Option<&str>,
        limits: &SourceLimits,
    ) -> Result<Revision, Error> {
        match self {
            Self::Git { repo, root, .. } => git_revision(repo, root, rev, limits),
            Self::Directory { root } => {
                if let Some(_rev) = rev {
                    return Err(Error::RevisionOnDirectory { path: root.clone() });
                }
                directory_revision(root, limits)
            }
        }
    }

    /// The commit ids of HEAD's first-parent history, newest first, at most
    /// `limit` of them (used to find the newest indexed revision of the
    /// current branch).
    pub fn head_history(&self, limit: usize) -> Vec<String> {
        let Self::Git { repo, .. } = self else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let Ok(mut commit) = repo.head().and_then(|h| h.peel_to_commit()) else {
            return out;
        };
        while out.len() < limit {
            out.push(commit.id().to_string());
            match commit.parent(0) {
                Ok(parent) => commit = parent,
                Err(_) => break,
            }
        }
        out
    }

    /// Resolves a revision expression to a commit id without listing files.
    pub fn commit_id(&self, rev: &str) -> Result<String, Error> {
        match self {
            Self::Git { repo, root, .. } => repo
                .revparse_single(rev)
                .and_then(|o| o.peel_to_commit())
                .map(|c| c.id().to_string())
                .map_err(|_| Error::RevisionNotFound {
                    repo: root.clone(),
                    revision: rev.to_string(),
                }),
            Self::Directory { root } => Err(Error::RevisionOnDirectory { path: root.clone() }),
        }
    }

    /// The commits of `from..to` along `to`'s first-parent history, oldest
    /// first: from `to` back to (not including) the first commit that is
    /// `from` or an ancestor of it. Empty when `to` is `from` or behind it;
    /// an error when the two share no history.
    pub fn first_parent_range(&self, from: &str, to: &str) -> Result<Vec<String>, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let from_id = git2::Oid::from_str(&self.commit_id(from)?).expect("commit ids parse");
        let to_id = git2::Oid::from_str(&self.commit_id(to)?).expect("commit ids parse");
        if repo.merge_base(from_id, to_id).is_err() {
            return Err(Error::UnrelatedRange {
                repo: root.clone(),
                from: from.to_string(),
                to: to.to_string(),
            });
        }
        self.first_parent_walk(to, |commit| {
            commit == from_id || repo.graph_descendant_of(from_id, commit).unwrap_or(false)
        })
    }

    /// The first-parent history of `tip`, oldest first, stopping before
    /// the first commit (walking back from `tip`) for which `stop` holds
    /// (given the commit id).
    pub fn first_parent_history(
        &self,
        tip: &str,
        mut stop: impl FnMut(&str) -> bool,
    ) -> Result<Vec<String>, Error> {
        self.first_parent_walk(tip, |commit| stop(&commit.to_string()))
    }

    fn first_parent_walk(
        &self,
        tip: &str,
        mut stop: impl FnMut(git2::Oid) -> bool,
    ) -> Result<Vec<String>, Error> {
        let Self::Git { repo, root, .. } = self else {
            return Err(Error::RevisionOnDirectory {
                path: self.root().to_path_buf(),
            });
        };
        let git_error = |e: git2::Error| Error::Git {
            repo: root.clone(),
            message: e.message().to_string(),
        };
        let mut commit = repo
            .find_commit(git2::Oid::from_str(&self.commit_id(tip)?).expect("commit ids parse"))
            .map_err(git_error)?;
        let mut out = Vec::new();
        loop {
            if stop(commit.id()) {
                break;
            }
            out.push(commit.id().to_string());
            if commit.parent_count() == 0 {
                break;
            }
            commit = commit.parent(0).map_err(git_error)?;
        }
        out.reverse();
        Ok(out)
    }

    /// Where workers open their own readers of file contents.
    pub fn reader_spec(&self) -> ReaderSpec {
        match self {
            Self::Git { git_dir, .. } => ReaderSpec::Git(git_dir.clone()),
            Self::Directory { root } => ReaderSpec::Directory(root.clone()),
        }
    }
}

/// What a worker thread needs to open its own [`BlobReader`]; unlike a git
/// repository handle it can be shared between threads.
#[derive(Debug, Clone)]
pub enum ReaderSpec {
    /// A git directory.
    Git(PathBuf),
    /// A plain directory.
    Directory(PathBuf),
}

impl ReaderSpec {
    /// Opens a reader for the calling thread.
    pub fn open(&self) -> Result<BlobReader, Error> {
        match self {
            Self::Git(git_dir) => git2::Repository::open(git_dir)
                .map(BlobReader::Git)
                .map_err(|e| Error::Git {
                    repo: git_dir.clone(),
                    message: e.message().to_string(),
                }),
            Self::Directory(root) => Ok(BlobReader::Directory(root.clone())),
        }
    }
}

/// Reads file contents of a revision.
pub enum BlobReader {
    /// From the git object database.
    Git(git2::Repository),
    /// From the directory on disk.
    Directory(PathBuf),
}

impl BlobReader {
    /// The bytes of blob `blob_id`, which revision `path` held. For a
    /// directory the file is read from disk and must still have that
    /// content.
    pub fn read_blob(&self, path: &str, blob_id: &BlobId) -> Result<Vec<u8>, Error> {
        let file = SourceFile {
            path: path.to_string(),
            blob_id: *blob_id,
            size: 0,
        };
        let bytes = self.read(&file)?;
        if matches!(self, Self::Directory(_)) && BlobId::of_bytes(&bytes) != *blob_id {
            return Err(Error::FileChanged {
                path: path.to_string(),
            });
        }
        Ok(bytes)
    }

    /// The bytes of a file. For a directory the file is read again and must
    /// still have the same content.
    pub fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        match self {
            Self::Git(repo) => {
                let oid = git2::Oid::from_bytes(&file.blob_id.0).expect("20-byte id");
                let blob = repo.find_blob(oid).map_err(|e| Error::Git {
                    repo: repo.path().to_path_buf(),
                    message: format!("{}: {}", file.path, e.message()),
                })?;
                Ok(blob.content().to_vec())
            }
            Self::Directory(root) => {
                let path = root.join(&file.path);
                std::fs::read(&path).map_err(|e| Error::io(&path, e))
            }
        }
    }
}

fn is_java_path(path: &str) -> bool {
    path.ends_with(".java")
}

/// The content of the file at `path`, or `None` if it is larger than `max`
/// bytes (then it is not read, unless it grew past `max` meanwhile).
fn read_at_most(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
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

fn git_revision(
    repo: &git2::Repository,
    root: &Path,
    rev: Option<&str>,
    limits: &SourceLimits,
) -> Result<Revision, Error> {
    let not_found = |revision: &str| Error::RevisionNotFound {
        repo: root.to_path_buf(),
        revision: revision.to_string(),
    };
    let git_error = |e: git2::Error| Error::Git {
        repo: root.to_path_buf(),
        message: e.message().to_string(),
    };
    let (commit, branch) = match rev {
        Some(rev) => {
            let commit = repo
                .revparse_single(rev)
                .and_then(|o| o.peel_to_commit())
                .map_err(|_| not_found(rev))?;
            (commit, None)
        }
        None => {
            let head = repo.head().map_err(|e| match e.code() {
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound => Error::NoCommits {
                    repo: root.to_path_buf(),
                },
                _ => not_found("HEAD"),
            })?;
            let branch = head
                .shorthand()
                .ok()
                .filter(|_| head.is_branch())
                .map(str::to_string);
            (
                head.peel_to_commit().map_err(|_| not_found("HEAD"))?,
                branch,
            )
        }
    };
    let tree = commit.tree().map_err(git_error)?;
    let odb = repo.odb().map_err(git_error)?;
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    // Walked by hand rather than with `Tree::walk`, whose callback cannot
    // take a directory name that is not UTF-8 and then aborts the walk.
    let mut pending: Vec<(git2::Tree, String)> = vec![(tree, String::new())];
    while let Some((tree, prefix)) = pending.pop() {
        for entry in tree.iter() {
            let Ok(name) = std::str::from_utf8(entry.name_bytes()) else {
                let lossy = String::from_utf8_lossy(entry.name_bytes()).into_owned();
                skipped.push((format!("{prefix}{lossy}"), "name is not UTF-8".to_string()));
                continue;
            };
            let path = format!("{prefix}{name}");
            match entry.kind() {
                Some(git2::ObjectType::Tree) => {
                    let subtree = repo.find_tree(entry.id()).map_err(git_error)?;
                    pending.push((subtree, format!("{path}/")));
                }
                Some(git2::ObjectType::Blob) if is_java_path(name) => {
                    // A symlink's blob holds its target, not Java source.
                    if entry.filemode() == 0o120000 {
                        skipped.push((path, "symbolic link".to_string()));
                        continue;
                    }
                    let size = odb
                        .read_header(entry.id())
                        .map(|(len, _)| len as u64)
                        .unwrap_or(0);
                    if size > limits.max_file_bytes {
                        skipped
                            .push((path, format!("larger than {} bytes", limits.max_file_bytes)));
                        continue;
                    }
                    files.push(SourceFile {
                        path,
                        blob_id: blob_id_of(entry.id()),
                        size,
                    });
                }
                // Other blobs, and submodules (commits).
                _ => {}
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Revision {
        name: commit.id().to_string(),
        kind: RevisionKind::Commit,
        branch,
        files,
        skipped,
        prefetched: None,
    })
}

fn directory_revision(root: &Path, limits: &SourceLimits) -> Result<Revision, Error> {
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
    limits: SourceLimits,
    files: BTreeMap<String, SourceFile>,
    skipped: BTreeMap<String, String>,
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
            limits: limits.clone(),
            files: BTreeMap::new(),
            skipped: BTreeMap::new(),
        };
        let prefetched = tree.rescan(root.to_path_buf(), String::new(), budget);
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
            let before = self.forget(&rel);
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_dir() => {
                    let prefix = if rel.is_empty() {
                        String::new()
                    } else {
                        format!("{rel}/")
                    };
                    self.rescan(path.clone(), prefix, 0);
                }
                Ok(meta) if meta.is_file() && is_java_path(&rel) => {
                    self.add_files(vec![(rel.clone(), path.clone())], 0);
                }
                _ => {}
            }
            // A directory event may cover the whole tree: compare by path
            // through a map, not pairwise.
            let before: std::collections::HashMap<&str, BlobId> = before
                .iter()
                .map(|f| (f.path.as_str(), f.blob_id))
                .collect();
            let after = self.under(&rel);
            changed += after
                .iter()
                .filter(|file| before.get(file.path.as_str()) != Some(&file.blob_id))
                .count();
            let after: HashSet<&str> = after.iter().map(|f| f.path.as_str()).collect();
            changed += before.keys().filter(|path| !after.contains(*path)).count();
        }
        changed
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
        Revision {
            name: format!("worktree:{digest}"),
            kind: RevisionKind::WorkTree,
            branch: None,
            files,
            skipped,
            prefetched: None,
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
        self.skipped
            .retain(|path, _| !(rel.is_empty() || path == rel || path.starts_with(&dir)));
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
                    match std::fs::metadata(&path) {
                        Ok(metadata) => kind = metadata.file_type(),
                        Err(_) => {
                            self.skipped.insert(rel, "dangling symbolic link".into());
                            continue;
                        }
                    }
                }
                if kind.is_dir() {
                    pending.push((path, format!("{rel}/")));
                } else if kind.is_file() && is_java_path(&name) {
                    found.push((rel, path));
                }
            }
        }
        self.add_files(found, budget)
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
    use super::BlobId;

    #[test]
    fn blob_ids_are_the_ones_git_gives() {
        let long: Vec<u8> = (0..100_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let inputs: [&[u8]; 5] = [b"", b"class A {}\n", b"a\0b", &[0xff; 64], &long];
        for bytes in inputs {
            let git = git2::Oid::hash_object(git2::ObjectType::Blob, bytes).unwrap();
            assert_eq!(
                BlobId::of_bytes(bytes).to_string(),
                git.to_string(),
                "{} bytes",
                bytes.len()
            );
        }
    }
}
