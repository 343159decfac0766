//! A file's resolution in the database ([`resolve`]): the symbol table it
//! resolves against is answered by the database one class key at a time,
//! so that salsa records the keys the file looked up.

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::queries::{
    self, ClassName, Declarers, FactsError, anonymous_entry, class_copies, file_classes,
};
use super::{Db, Memoize, SourceFile, Workspace};
use refscope_resolve::class::{ClassCopies, is_anonymous, source_root};
use refscope_resolve::table::{CopiesMemo, SharedMemos, SourceClasses};
use refscope_resolve::{self as resolver, ClassEntry, SymbolTable, TrackedResolution};
use refscope_store::PackReader;
use refscope_syntax::facts::FileFacts;

/// The file's qualified records and resolution, with the names it looked
/// up. Reads the file's own facts and classes, the type universe, and one
/// [`class_copies`] per class key it looks up: it re-runs when the file
/// changes, or when a class it looked up (or failed to find) changes.
///
/// Kept for a bounded number of files once the driver asks the database
/// to evict (the driver stores each resolution as it comes, and what a
/// later revision needs again is recomputed; the dependencies stay).
#[salsa::tracked(returns(clone), lru = 128)]
pub fn resolve(db: &dyn Db, file: SourceFile) -> Result<Arc<TrackedResolution>, FactsError> {
    let facts = queries::facts(db, file)?;
    Ok(Arc::new(resolve_in_db(db, file, &facts, Memoize::Yes)))
}

/// [`resolve`] computed without memoizing it, nor the facts it reads from
/// the pack: for resolutions that are stored elsewhere and that this
/// database will not be asked for again (a revision resolved once).
/// Dependencies of the class lookups are still recorded by the class
/// queries themselves, whose results stay for the next revision.
pub fn resolve_unmemoized(
    db: &dyn Db,
    file: SourceFile,
) -> Result<Arc<TrackedResolution>, FactsError> {
    let facts = queries::read_uncached(db, file, PackReader::facts)?;
    Ok(Arc::new(resolve_in_db(db, file, &facts, Memoize::No)))
}

/// Sets how many resolutions an eviction keeps (tests make it small).
#[cfg(test)]
pub(super) fn set_resolve_capacity(db: &mut super::database::EngineDatabase, capacity: usize) {
    resolve::set_lru_capacity(db, capacity);
}

/// Resolves `file` against the database (the body of
/// [`resolve`] with [`Memoize::Yes`], of [`resolve_unmemoized`] with
/// [`Memoize::No`]).
pub(super) fn resolve_in_db(
    db: &dyn Db,
    file: SourceFile,
    facts: &FileFacts,
    memoize: Memoize,
) -> TrackedResolution {
    with_table(db, file, memoize, |table, workspace| {
        resolver::resolve_file_tracked(
            table,
            queries::universe(db, workspace),
            facts,
            file.slot(db),
        )
    })
}

/// [`resolver::lookups_digest`] of `names` for `file`, against the database.
pub(super) fn lookups_digest(db: &dyn Db, file: SourceFile, names: &[impl AsRef<str>]) -> [u8; 16] {
    with_table(db, file, Memoize::Yes, |table, workspace| {
        resolver::lookups_digest(
            table,
            queries::universe(db, workspace),
            file.slot(db),
            names,
        )
    })
}

/// Runs `work` with the symbol table `file` sees: source classes from the
/// database one name at a time, the libraries, and the revision's shared
/// memos.
///
/// With [`Memoize::No`] the result is not memoized, so no query needs the
/// class lookups recorded as its dependencies: the class copies come from
/// the revision's shared memo when there is one, and only a key no file
/// asked for yet is asked of the database (whose class query keeps its own
/// dependencies for the next revision).
fn with_table<R>(
    db: &dyn Db,
    file: SourceFile,
    memoize: Memoize,
    work: impl FnOnce(&SymbolTable, Workspace) -> R,
) -> R {
    let workspace = Workspace::get(db);
    let shared = shared_memos(db, file);
    let copies = match memoize {
        Memoize::No => shared.as_ref().map(|s| s.copies.clone()),
        Memoize::Yes => None,
    };
    let classes = DbClasses::new(db, workspace, file, copies);
    let table = SymbolTable::over(
        &classes,
        Some(workspace.libraries(db).class_path.clone()),
        shared,
    );
    work(&table, workspace)
}

/// The memos `file` shares with the files of its source root resolved or
/// checked with it, if any.
fn shared_memos(db: &dyn Db, file: SourceFile) -> Option<SharedMemos> {
    let package = &file_classes(db, file).package;
    db.shared_memos(source_root(file.path(db), package.as_deref()))
        .map(|s| s.0)
}

/// Source classes from the database, as `file` sees them: its own classes
/// with their lines and element indices, other files' by signature.
///
/// A database handle belongs to one thread, and so does this value: it is
/// neither `Send` nor `Sync` (its caches are `RefCell`s), which is all the
/// table needs, since a file resolves on one thread.
struct DbClasses<'d> {
    db: &'d dyn Db,
    slot: u32,
    own: FxHashMap<Arc<str>, Arc<ClassEntry>>,
    /// The revision's class copies, when the lookups need not be recorded
    /// (see [`with_table`]).
    revision_copies: Option<Arc<CopiesMemo>>,
    /// With `revision_copies`: which files declare each class key, so that
    /// a key no file declares (most names the type universe is asked about
    /// are packages or outer classes' prefixes) is answered without a
    /// query, which would intern the key and memoize its empty answer.
    declarers: Option<&'d Declarers>,
    /// The answer for a key no file declares.
    no_copies: ClassCopies,
    /// Copies already asked for: a file looks the same few classes up
    /// many times, and the first query recorded the dependency.
    asked: RefCell<FxHashMap<Box<str>, ClassCopies>>,
    /// Paths already asked for, by slot: one per reference into a file.
    paths: RefCell<FxHashMap<u32, Option<Arc<str>>>>,
}

impl<'d> DbClasses<'d> {
    fn new(
        db: &'d dyn Db,
        workspace: Workspace,
        file: SourceFile,
        revision_copies: Option<Arc<CopiesMemo>>,
    ) -> Self {
        let own = file_classes(db, file)
            .classes
            .iter()
            .map(|entry| {
                let entry = if is_anonymous(&entry.sig) {
                    anonymous_entry(db, workspace, entry)
                } else {
                    entry.clone()
                };
                (entry.sig.name.clone(), entry)
            })
            .collect();
        let declarers = revision_copies
            .as_ref()
            .map(|_| queries::declarers(db, workspace));
        Self {
            db,
            slot: file.slot(db),
            own,
            revision_copies,
            declarers,
            no_copies: ClassCopies::from(Vec::new()),
            asked: RefCell::default(),
            paths: RefCell::default(),
        }
    }
}

impl SourceClasses for DbClasses<'_> {
    fn copies(&self, name: &str) -> ClassCopies {
        let db = self.db;
        if let Some(copies) = self.asked.borrow().get(name) {
            return copies.clone();
        }
        // As `class_copies` answers, without recording the lookup: only
        // an unmemoized resolution has `declarers`.
        if self.declarers.is_some_and(|d| !d.contains_key(name)) {
            return self.no_copies.clone();
        }
        let fetch = || ClassCopies::from(class_copies(db, ClassName::new(db, name)));
        let mut copies = match &self.revision_copies {
            None => fetch(),
            Some(memo) => {
                let known = memo.read().expect("memo lock").get(name).cloned();
                known.unwrap_or_else(|| {
                    let copies = fetch();
                    memo.write()
                        .expect("memo lock")
                        .insert(name.into(), copies.clone());
                    copies
                })
            }
        };
        // This file sees its own classes with lines and element indices.
        let own = self.own.get(name);
        if let Some(own) = own
            && copies
                .iter()
                .any(|c| c.sig.decl.is_some_and(|d| d.file == self.slot))
        {
            copies = copies
                .iter()
                .map(|c| {
                    if c.sig.decl.is_some_and(|d| d.file == self.slot) {
                        own.clone()
                    } else {
                        c.clone()
                    }
                })
                .collect();
        }
        self.asked.borrow_mut().insert(name.into(), copies.clone());
        copies
    }

    fn path(&self, file: u32) -> Option<Arc<str>> {
        let db = self.db;
        if let Some(path) = self.paths.borrow().get(&file) {
            return path.clone();
        }
        let path = db.file_at_slot(file).map(|f| f.path(db).clone());
        self.paths.borrow_mut().insert(file, path.clone());
        path
    }

    /// Only a memoized resolution's lookups are recorded (by salsa, as
    /// the class queries they run): an unmemoized one takes the class
    /// copies from the revision's memo, and nothing keeps what it asked.
    fn records_lookups(&self) -> bool {
        self.revision_copies.is_none()
    }

    fn root(&self, file: u32) -> Option<Arc<str>> {
        let db = self.db;
        let source = db.file_at_slot(file)?;
        let path = source.path(db);
        let package = queries::signature(db, source).package.clone();
        Some(Arc::from(source_root(path, package.as_deref())))
    }
}
