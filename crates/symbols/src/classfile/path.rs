//! The class path: which classes the JDK's jmods and the jars hold, by
//! canonical name, and their class files read from the archives on first
//! use, shared between threads.

use super::names::canonical_name_of_binary;
use super::parse::parse_class;
use crate::archive::{ArchiveReader, open_zip};
use crate::error::Error;
use crate::jdk::JdkTypes;
use crate::signatures::ClassSig;
use std::borrow::Cow;
use std::collections::hash_map::Entry;

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::{fmt, io};

/// A jmod file is a zip archive after a 4-byte header (`JM`, version).
pub(super) const JMOD_HEADER_LEN: u64 = 4;
pub(super) const JMOD_CLASSES_PREFIX: &str = "classes/";
/// Larger class files are taken for corrupt entries.
pub(super) const MAX_CLASS_FILE_LEN: u64 = 64 << 20;

/// The library classes a revision can refer to: the JDK's (from its
/// `jmods`) and those of jar files, found by canonical name and parsed on
/// first use. Shared by reference between threads.
pub struct ClassPath {
    archives: Vec<ClassArchive>,
    /// JDK classes first, then jar classes; no two with the same canonical
    /// name.
    classes: Vec<LibraryClass>,
    n_jdk_classes: usize,
    by_canonical: rustc_hash::FxHashMap<Box<str>, u32>,
    /// What each class parsed to, once asked for; `None` for a class file
    /// that could not be read.
    loaded: Vec<OnceLock<Option<Arc<ClassSig>>>>,
}

impl ClassPath {
    /// The JDK's classes (when its type names came from `jmods`; none for a
    /// `src.zip` or a missing JDK) and the classes of `jars`, in that
    /// order of precedence: a class in the JDK and in a jar is the JDK's,
    /// and a class in two jars is the first jar's.
    ///
    /// Only the jars' central directories are read here; the jmods were
    /// listed by [`JdkTypes`] already and are opened on first use. A jar
    /// that cannot be opened or is not a zip archive is an error naming it.
    pub fn new(jdk: &JdkTypes, jars: &[PathBuf]) -> Result<Self, Error> {
        let mut class_path = Self {
            archives: Vec::new(),
            classes: Vec::new(),
            n_jdk_classes: 0,
            by_canonical: Default::default(),
            loaded: Vec::new(),
        };
        if let Some((archive_of, jmods)) = jdk.class_file_archives() {
            class_path.by_canonical.reserve(jdk.binary_names.len());
            class_path.classes.reserve(jdk.binary_names.len());
            class_path
                .archives
                .extend(jmods.iter().map(|path| ClassArchive {
                    path: path.clone(),
                    header_len: JMOD_HEADER_LEN,
                    entry_prefix: JMOD_CLASSES_PREFIX,
                    zip: OnceLock::new(),
                }));
            for (binary, &archive) in jdk.binary_names.iter().zip(archive_of) {
                class_path.add(binary, u32::from(archive), None);
            }
        }
        class_path.n_jdk_classes = class_path.classes.len();
        for jar in jars {
            let zip = open_zip(jar, 0).map_err(|e| Error::io(jar, e))?;
            let archive = class_path.archives.len() as u32;
            for index in 0..zip.len() {
                let Some(binary) = zip.name_for_index(index).and_then(jar_entry_binary_name) else {
                    continue;
                };
                class_path.add(&binary, archive, Some(index as u32));
            }
            class_path.archives.push(ClassArchive {
                path: jar.clone(),
                header_len: 0,
                entry_prefix: "",
                zip: OnceLock::from(Some(zip)),
            });
        }
        class_path.loaded = class_path.classes.iter().map(|_| OnceLock::new()).collect();
        Ok(class_path)
    }

    /// The binary names (`com.acme.Outer$Inner`) of the jar classes, in
    /// jar order, without those the JDK or an earlier jar already has. The
    /// JDK's are [`JdkTypes::binary_names`].
    pub fn class_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.classes[self.n_jdk_classes..]
            .iter()
            .map(|class| &*class.binary_name)
    }

    /// Whether a class of that canonical (or binary) name is on the class
    /// path, without reading it.
    pub fn contains(&self, canonical_or_binary: &str) -> bool {
        self.find(canonical_or_binary).is_some()
    }

    /// The class of that canonical name (`java.util.Map.Entry`; a binary
    /// name such as `java.util.Map$Entry` is understood too), parsed on the
    /// first request and shared afterwards. `None` for a class that is not
    /// on the class path or whose class file cannot be read.
    pub fn load(&self, canonical_or_binary: &str) -> Option<Arc<ClassSig>> {
        let index = self.find(canonical_or_binary)?;
        self.loaded[index]
            .get_or_init(|| self.read_class(&self.classes[index]).map(Arc::new))
            .clone()
    }

    pub(super) fn add(&mut self, binary: &str, archive: u32, zip_index: Option<u32>) {
        let canonical = canonical_name_of_binary(binary);
        if let Entry::Vacant(slot) = self.by_canonical.entry(Box::from(&*canonical)) {
            slot.insert(self.classes.len() as u32);
            self.classes.push(LibraryClass {
                binary_name: Box::from(binary),
                archive,
                zip_index,
            });
        }
    }

    pub(super) fn find(&self, name: &str) -> Option<usize> {
        if let Some(&index) = self.by_canonical.get(name) {
            return Some(index as usize);
        }
        match canonical_name_of_binary(name) {
            Cow::Owned(canonical) => self.by_canonical.get(&*canonical).map(|&i| i as usize),
            Cow::Borrowed(_) => None,
        }
    }

    pub(super) fn read_class(&self, class: &LibraryClass) -> Option<ClassSig> {
        let archive = &self.archives[class.archive as usize];
        let bytes = match archive.read_class_file(class) {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::debug!(archive = %archive.path.display(), class = %class.binary_name, %error, "cannot read class file");
                return None;
            }
        };
        match parse_class(&bytes) {
            Ok(sig) => Some(sig),
            Err(error) => {
                tracing::debug!(archive = %archive.path.display(), class = %class.binary_name, %error, "cannot parse class file");
                None
            }
        }
    }
}

impl fmt::Debug for ClassPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassPath")
            .field(
                "archives",
                &self.archives.iter().map(|a| &a.path).collect::<Vec<_>>(),
            )
            .field("n_jdk_classes", &self.n_jdk_classes)
            .field("n_jar_classes", &(self.classes.len() - self.n_jdk_classes))
            .finish()
    }
}

/// A class the class path knows, not yet read.
pub(super) struct LibraryClass {
    pub(super) binary_name: Box<str>,
    pub(super) archive: u32,
    /// The entry's index in a jar; jmod entries are found by name.
    pub(super) zip_index: Option<u32>,
}

/// A jmod or jar, opened on first use and shared by all readers.
pub(super) struct ClassArchive {
    pub(super) path: PathBuf,
    /// Bytes before the zip data.
    pub(super) header_len: u64,
    /// What entry names start with before the binary name's path.
    pub(super) entry_prefix: &'static str,
    /// `None` once opening it failed.
    pub(super) zip: OnceLock<Option<zip::ZipArchive<ArchiveReader>>>,
}

impl ClassArchive {
    pub(super) fn read_class_file(&self, class: &LibraryClass) -> io::Result<Vec<u8>> {
        let opened = self.zip.get_or_init(|| match open_zip(&self.path, self.header_len) {
            Ok(zip) => Some(zip),
            Err(error) => {
                tracing::debug!(archive = %self.path.display(), %error, "cannot open class archive");
                None
            }
        });
        let Some(opened) = opened else {
            return Err(io::Error::other("the archive could not be opened"));
        };
        // A clone shares the central directory and the open file, and
        // reads on its own: loads on several threads do not wait for
        // each other.
        let mut zip = opened.clone();
        let index = match class.zip_index {
            Some(index) => index as usize,
            None => {
                let entry_name = format!(
                    "{}{}.class",
                    self.entry_prefix,
                    class.binary_name.replace('.', "/")
                );
                zip.index_for_name(&entry_name).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::NotFound, format!("no entry {entry_name}"))
                })?
            }
        };
        let entry = zip.by_index(index).map_err(io::Error::other)?;
        if entry.size() > MAX_CLASS_FILE_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "class file entry is too large",
            ));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.take(MAX_CLASS_FILE_LEN).read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

/// The dotted binary name of a jar entry that is a class file of the
/// jar's own classes: not a multi-release variant (`META-INF/versions/`),
/// not `module-info` or `package-info`.
pub(super) fn jar_entry_binary_name(entry: &str) -> Option<String> {
    let stem = entry.strip_suffix(".class")?;
    if stem.starts_with("META-INF/")
        || stem.ends_with("module-info")
        || stem.ends_with("package-info")
    {
        return None;
    }
    Some(stem.replace('/', "."))
}
