//! The in-memory engine: a salsa database holding a revision's files,
//! their facts, their signatures and their resolutions, so that the next
//! revision (the next commit of a range, the next save under `watch`)
//! recomputes only what its changes reach.
//!
//! Inputs are set by the driver; queries read no file of the work tree or
//! repository (facts in the pack, addressed by blob id, and the libraries'
//! class files are functions of their input):
//! [`SourceFile`] (one per path: its bytes, or facts the driver already
//! extracted into the pack) and [`Workspace`] (the files of the revision
//! and the libraries). The tracked functions in [`queries`] derive, per
//! file, its facts, its type skeleton, its class signatures and its
//! resolution; per revision, the type universe and which files declare
//! which class; per class name, its source copies. A file's resolution
//! reads classes one name at a time through [`queries::class_copies`], so
//! it depends on exactly the names it looked up, and a signature without
//! positions is what those names lead to: an edit inside a method body
//! re-resolves that one file, a changed signature of class `A` re-resolves
//! the files that looked up `A`.

mod database;
pub mod queries;
mod resolution;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rayon::prelude::*;
use salsa::{Database as _, Durability, Setter};

use crate::parallel::StatePool;
use refscope_resolve::TrackedResolution;
use refscope_store::BlobId;

pub use database::{Db, EngineDatabase, FileContent, Libraries, Memoize, SourceFile, Workspace};
pub use queries::FactsError;

use database::RevisionMemos;

/// Files whose facts and signatures [`Engine::prepare`] derives between two
/// evictions of facts beyond their bound.
const PREPARE_CHUNK: usize = 1024;

/// The driver's handle on the database: sets inputs from a revision's
/// files and asks for resolutions, in parallel.
pub struct Engine {
    db: EngineDatabase,
    workspace: Workspace,
    by_path: HashMap<Arc<str>, SourceFile>,
}

impl Engine {
    /// An engine with no files over `libraries`.
    pub fn new(libraries: Libraries) -> Self {
        Self::with_storage(salsa::Storage::default(), libraries)
    }

    #[cfg(test)]
    /// An engine that reports every salsa event to `on_event` (tests count
    /// what re-executes this way).
    pub fn with_event_callback(
        on_event: impl Fn(salsa::Event) + Send + Sync + 'static,
        libraries: Libraries,
    ) -> Self {
        Self::with_storage(salsa::Storage::new(Some(Box::new(on_event))), libraries)
    }

    fn with_storage(storage: salsa::Storage<EngineDatabase>, libraries: Libraries) -> Self {
        let db = EngineDatabase {
            storage,
            slots: Default::default(),
            shared_memos: Default::default(),
        };
        let workspace = Workspace::builder(Arc::from(Vec::new()), Arc::new(libraries))
            .libraries_durability(Durability::HIGH)
            .new(&db);
        Self {
            db,
            workspace,
            by_path: HashMap::new(),
        }
    }

    #[cfg(test)]
    /// The database, for calling queries directly.
    pub fn db(&self) -> &EngineDatabase {
        &self.db
    }

    /// The digest of the libraries in use.
    pub fn libraries_digest(&self) -> [u8; 16] {
        self.workspace.libraries(&self.db).digest
    }

    #[cfg(test)]
    /// Makes `files` the revision's files: new paths are added, paths whose
    /// blob changed get the new content, paths not named leave the
    /// workspace. Unchanged files keep everything computed for them.
    pub fn set_files<'p>(&mut self, files: impl IntoIterator<Item = (&'p str, FileContent)>) {
        self.update_files(files.into_iter().map(|(path, content)| {
            let blob_id = content.blob_id();
            (path, blob_id, move || content)
        }));
    }

    /// [`Self::set_files`] with contents made only for the paths that are
    /// new or whose blob changed.
    pub fn update_files<'p, F: FnOnce() -> FileContent>(
        &mut self,
        files: impl IntoIterator<Item = (&'p str, BlobId, F)>,
    ) {
        let mut listed: Vec<SourceFile> = Vec::new();
        for (path, blob_id, content) in files {
            let file = match self.by_path.get(path) {
                Some(&file) => {
                    if file.content(&self.db).blob_id() != blob_id {
                        file.set_content(&mut self.db)
                            .with_durability(Durability::LOW)
                            .to(content());
                    }
                    file
                }
                None => {
                    let mut slots = self.db.slots.write().expect("slot lock");
                    let slot = slots.len() as u32;
                    // Work-tree files are the volatile inputs: salsa's
                    // default (low) durability.
                    let file = SourceFile::new(&self.db, slot, Arc::from(path), content());
                    slots.push(file);
                    drop(slots);
                    self.by_path.insert(file.path(&self.db).clone(), file);
                    file
                }
            };
            listed.push(file);
        }
        listed.sort_by(|a, b| a.path(&self.db).cmp(b.path(&self.db)));
        listed.dedup();
        if **self.workspace.files(&self.db) != *listed {
            self.workspace
                .set_files(&mut self.db)
                .with_durability(Durability::LOW)
                .to(Arc::from(listed));
        }
    }

    #[cfg(test)]
    /// The files of the workspace, sorted by path.
    pub fn files(&self) -> Arc<[SourceFile]> {
        self.workspace.files(&self.db).clone()
    }

    /// The file at `path`, if it is in the workspace.
    pub fn file(&self, path: &str) -> Option<SourceFile> {
        let file = *self.by_path.get(path)?;
        self.workspace
            .files(&self.db)
            .binary_search_by(|f| f.path(&self.db).as_ref().cmp(path))
            .is_ok()
            .then_some(file)
    }

    #[cfg(test)]
    /// The path of `file`.
    pub fn path(&self, file: SourceFile) -> Arc<str> {
        file.path(&self.db).clone()
    }

    /// Derives every file's signature in parallel on `pool`, so that the table of classes is complete before any file
    /// looks a class up: first the type skeletons (the type universe needs
    /// them all), then the signatures. Each is recomputed only if what it
    /// read changed.
    pub fn prepare(&mut self, pool: &rayon::ThreadPool) {
        let all = self.workspace.files(&self.db).clone();
        // Facts are the biggest values and only bounded (LRU) between
        // writes: going through the files a chunk at a time, forgetting
        // facts beyond the bound after each, keeps a large revision's
        // facts from all being held at once.
        for chunk in all.chunks(PREPARE_CHUNK) {
            self.for_each_parallel(pool, chunk, |db, file| {
                queries::skeleton(db, file);
            });
            self.db.trigger_lru_eviction();
        }
        queries::universe(&self.db, self.workspace);
        for chunk in all.chunks(PREPARE_CHUNK) {
            self.for_each_parallel(pool, chunk, |db, file| {
                queries::signature(db, file);
            });
            self.db.trigger_lru_eviction();
        }
    }

    /// Runs `work` for every file on `pool`, each worker with its own
    /// database handle; the handles are gone when it returns.
    fn for_each_parallel(
        &self,
        pool: &rayon::ThreadPool,
        files: &[SourceFile],
        work: impl Fn(&EngineDatabase, SourceFile) + Sync,
    ) {
        let handle = self.handle();
        let dbs = StatePool::new(|| handle.lock().expect("handle lock").clone());
        pool.install(|| {
            files
                .par_iter()
                .with_max_len(1)
                .for_each(|&file| dbs.with(|db| work(db, file)))
        });
    }

    /// A handle to clone per worker thread: a database handle is not
    /// shared between threads, each worker clones its own.
    fn handle(&self) -> std::sync::Mutex<EngineDatabase> {
        std::sync::Mutex::new(self.db.clone())
    }

    #[cfg(test)]
    /// The resolutions of `files`, in order, computed in parallel on
    /// `pool` after [`Self::prepare`]. Each is recomputed only if what it
    /// read changed.
    pub fn resolve_all(
        &mut self,
        pool: &rayon::ThreadPool,
        files: &[SourceFile],
    ) -> Vec<Result<Arc<TrackedResolution>, FactsError>> {
        self.prepare(pool);
        let _shared = self.share_memos();
        self.resolve_prepared(pool, files, Memoize::Yes, &|_, resolved| resolved)
    }

    /// [`Self::resolve_all`] in chunks of `chunk_len` files, each handed to
    /// `consume` with the position of its first file; between chunks, the
    /// database forgets the resolutions it holds beyond its bound, so a
    /// large revision is not held in memory at once.
    ///
    /// `finish` turns each resolution into what `consume` takes, given the
    /// file's position in `files`. It runs on the worker that resolved the
    /// file, while the file's data is still in that core's cache, and the
    /// resolution is freed there too: its many small allocations cost more
    /// to free from another thread.
    ///
    /// With [`Memoize::No`], neither the resolutions nor the facts they
    /// read from the pack are kept ([`resolution::resolve_unmemoized`]): for a
    /// revision whose resolutions the caller stores and will not ask this
    /// engine for again unchanged. A cold engine's first revision is one:
    /// nothing before it could be reused, and keeping (then evicting) every
    /// file's resolution costs time and memory for nothing. Signatures and
    /// class lookups are memoized either way, so the next revision
    /// recomputes only what its changes reach.
    pub fn resolve_in_chunks<T: Send, E>(
        &mut self,
        pool: &rayon::ThreadPool,
        files: &[SourceFile],
        chunk_len: usize,
        memoize: Memoize,
        finish: impl Fn(usize, Arc<TrackedResolution>) -> T + Sync,
        mut consume: impl FnMut(usize, Vec<Result<T, FactsError>>) -> Result<(), E>,
    ) -> Result<(), E> {
        let chunk_len = chunk_len.max(1);
        self.prepare(pool);
        let _shared = self.share_memos();
        if memoize == Memoize::No {
            // Nothing to evict between chunks: the workers go through the
            // files without waiting for each other at the end of a chunk,
            // and the chunks are made up as the files are resolved.
            let handle = self.handle();
            let mut chunk = Vec::with_capacity(chunk_len);
            let mut first = 0;
            crate::parallel::in_order(
                pool,
                files.len(),
                chunk_len,
                || handle.lock().expect("handle lock").clone(),
                |db, at| resolution::resolve_unmemoized(db, files[at]).map(|r| finish(at, r)),
                |at, resolved| {
                    chunk.push(resolved);
                    if chunk.len() == chunk_len || at + 1 == files.len() {
                        let full = std::mem::replace(&mut chunk, Vec::with_capacity(chunk_len));
                        consume(first, full)?;
                        first = at + 1;
                    }
                    Ok(())
                },
            )?;
            return Ok(());
        }
        for (index, chunk) in files.chunks(chunk_len).enumerate() {
            let first = index * chunk_len;
            let resolved =
                self.resolve_prepared(pool, chunk, memoize, &|at, r| finish(first + at, r));
            consume(first, resolved)?;
            if memoize == Memoize::Yes {
                self.db.trigger_lru_eviction();
            }
        }
        Ok(())
    }

    /// The resolutions of `files` in parallel, each passed to `finish`
    /// with its position on the worker that resolved it.
    fn resolve_prepared<T: Send>(
        &self,
        pool: &rayon::ThreadPool,
        files: &[SourceFile],
        memoize: Memoize,
        finish: &(impl Fn(usize, Arc<TrackedResolution>) -> T + Sync),
    ) -> Vec<Result<T, FactsError>> {
        let handle = self.handle();
        let dbs = StatePool::new(|| handle.lock().expect("handle lock").clone());
        let resolve = match memoize {
            Memoize::Yes => resolution::resolve,
            Memoize::No => resolution::resolve_unmemoized,
        };
        pool.install(|| {
            files
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map(|(at, &file)| dbs.with(|db| resolve(db, file)).map(|r| finish(at, r)))
                .collect()
        })
    }

    /// Lets the files resolved or checked until the guard drops share
    /// method lookups and lookup digests; the next revision's answers may
    /// differ, so they are dropped with the guard.
    fn share_memos(&self) -> impl Drop + use<> {
        struct Sharing(Arc<RwLock<Option<Arc<RevisionMemos>>>>);
        impl Drop for Sharing {
            fn drop(&mut self) {
                let memos = self.0.write().expect("memo lock").take();
                // A revision's memos are millions of small allocations:
                // freeing them took 0.2 s after a JDK index, on the thread
                // the writer waits for before its last step.
                crate::parallel::drop_in_background(memos);
            }
        }
        *self.db.shared_memos.write().expect("memo lock") = Some(Arc::default());
        Sharing(self.db.shared_memos.clone())
    }

    /// The source root of `file`: its directory without its package's
    /// folders.
    pub fn source_root(&self, file: SourceFile) -> String {
        let package = queries::signature(&self.db, file).package.clone();
        refscope_resolve::class::source_root(file.path(&self.db), package.as_deref()).to_string()
    }

    /// [`Self::lookups_digest`] of many files, in parallel on `pool`.
    pub fn lookups_digests(
        &self,
        pool: &rayon::ThreadPool,
        asked: &[(SourceFile, &[String])],
    ) -> Vec<[u8; 16]> {
        let handle = self.handle();
        let dbs = StatePool::new(|| handle.lock().expect("handle lock").clone());
        let _shared = self.share_memos();
        pool.install(|| {
            asked
                .par_iter()
                .with_max_len(1)
                .map(|&(file, names)| dbs.with(|db| resolution::lookups_digest(db, file, names)))
                .collect()
        })
    }
}
