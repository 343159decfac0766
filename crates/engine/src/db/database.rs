//! The database itself: salsa's storage, its inputs ([`SourceFile`],
//! [`Workspace`]) and what queries may ask of it besides ([`Db`]).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use refscope_resolve::table::{CopiesMemo, LookupMemo, MethodMemo, SharedMemos};
use refscope_store::{BlobId, PackLocation, PackReader};
use refscope_symbols::classfile::ClassPath;
use refscope_symbols::jdk::JdkTypes;

/// The database: salsa's storage plus the table of files by slot.
#[salsa::db]
#[derive(Clone)]
pub struct EngineDatabase {
    pub(super) storage: salsa::Storage<Self>,
    /// Every file ever added, by slot. Append-only: a slot never changes
    /// its file, so queries may read it without being tracked.
    pub(super) slots: Arc<RwLock<Vec<SourceFile>>>,
    /// While [`Engine::resolve_all`] runs: the method lookups and lookup
    /// digests shared by the files it resolves. Their answers are those each file would compute
    /// in the current revision, and a file taking one asks for the
    /// classes it was computed from (see [`SymbolTable::over`]), so
    /// reading it untracked changes neither results nor dependencies.
    ///
    /// [`SymbolTable::over`]: refscope_resolve::SymbolTable
    pub(super) shared_memos: Arc<RwLock<Option<Arc<RevisionMemos>>>>,
}

/// A revision's shared memos, partitioned by source root.
#[derive(Default)]
pub(super) struct RevisionMemos {
    methods: Arc<MethodMemo>,
    lookups: Arc<LookupMemo>,
    copies: Arc<CopiesMemo>,
    roots: std::sync::Mutex<HashMap<String, u32>>,
}

/// What queries need from the database besides salsa's own.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The file with this slot (the number its declarations carry).
    fn file_at_slot(&self, slot: u32) -> Option<SourceFile>;

    /// The memos shared by the files being resolved together, if any,
    /// with the partition of files in source root `root`.
    fn shared_memos(&self, root: &str) -> Option<SharedMemoPartition>;
}

/// One source root's part of the shared memos (opaque outside the
/// engine).
pub struct SharedMemoPartition(pub(super) SharedMemos);

#[salsa::db]
impl salsa::Database for EngineDatabase {}

#[salsa::db]
impl Db for EngineDatabase {
    fn file_at_slot(&self, slot: u32) -> Option<SourceFile> {
        self.slots
            .read()
            .expect("slot lock")
            .get(slot as usize)
            .copied()
    }

    fn shared_memos(&self, root: &str) -> Option<SharedMemoPartition> {
        let shared = self.shared_memos.read().expect("memo lock").clone()?;
        let mut roots = shared.roots.lock().expect("roots lock");
        let next = roots.len() as u32;
        let partition = *roots.entry(root.to_string()).or_insert(next);
        Some(SharedMemoPartition(SharedMemos {
            methods: shared.methods.clone(),
            lookups: shared.lookups.clone(),
            copies: shared.copies.clone(),
            partition,
        }))
    }
}

/// One Java file of the work tree or revision.
#[salsa::input]
pub struct SourceFile {
    /// The number declarations of this file carry
    /// ([`refscope_symbols::SourceDecl::file`]); unique in the database.
    #[returns(copy)]
    pub slot: u32,
    /// Its path in the revision.
    #[returns(ref)]
    pub path: Arc<str>,
    /// Its content.
    #[returns(ref)]
    pub content: FileContent,
}

/// The revision as a whole: its files and its libraries. One per
/// database.
#[salsa::input(singleton)]
pub struct Workspace {
    /// The files, sorted by path.
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
    /// The JDK and the class path.
    #[returns(ref)]
    pub libraries: Arc<Libraries>,
}

/// A file's content, as the driver has it.
#[derive(Clone)]
pub enum FileContent {
    /// The bytes, extracted by [`queries::facts`] (tests give these; the
    /// driver extracts files into the pack itself).
    #[cfg(test)]
    Bytes {
        /// The git blob id of the bytes.
        blob_id: BlobId,
        /// The bytes.
        bytes: Arc<[u8]>,
    },
    /// Facts the driver extracted already and appended to the pack, read
    /// back on demand (the pack is content-addressed and append-only, so
    /// the read is a function of the blob id).
    Packed {
        /// The git blob id of the file's bytes.
        blob_id: BlobId,
        /// Where the facts are.
        location: PackLocation,
        /// The pack, mapped.
        reader: Arc<PackReader>,
    },
}

impl FileContent {
    #[cfg(test)]
    /// Content from bytes.
    pub fn bytes(bytes: &[u8]) -> Self {
        Self::Bytes {
            blob_id: BlobId::of_bytes(bytes),
            bytes: bytes.into(),
        }
    }

    /// The git blob id of the content.
    pub fn blob_id(&self) -> BlobId {
        match self {
            #[cfg(test)]
            Self::Bytes { blob_id, .. } => *blob_id,
            Self::Packed { blob_id, .. } => *blob_id,
        }
    }
}

/// The libraries resolution reads: the JDK's type names and the class
/// path its classes and the jars' are loaded from.
pub struct Libraries {
    /// The JDK's type names.
    pub jdk: JdkTypes,
    /// The class files, loaded on first use.
    pub class_path: Arc<ClassPath>,
    /// Tells libraries apart: equal digests, same libraries.
    pub digest: [u8; 16],
}

impl Libraries {
    #[cfg(test)]
    /// No JDK and no jars: library names stay unresolved.
    pub fn none() -> Self {
        let jdk = JdkTypes::missing();
        let class_path = ClassPath::new(&jdk, &[]).expect("an empty class path opens");
        Self {
            jdk,
            class_path: Arc::new(class_path),
            digest: refscope_syntax::Digest128::new(b"no libraries").finish(),
        }
    }
}

/// Whether [`Engine::resolve_in_chunks`] keeps resolutions in the
/// database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memoize {
    /// Keep them (within the bound): a later revision reuses them.
    Yes,
    /// Compute them for the caller only.
    No,
}
