//! The installed JDK's type names, read from its `jmods` (or, failing that,
//! its `lib/src.zip`), so that `import java.util.*` and implicit
//! `java.lang` names can be qualified.
//!
//! Names are read for every type; class files are opened only to learn the
//! direct supertypes of the few JDK types that repository types extend, so
//! inherited member types qualify. Member signatures are not read here.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::archive::{ArchiveReader, open_zip};
use crate::error::Error;

/// Where the JDK's type names came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JdkOrigin {
    /// The `jmods/*.jmod` files of a JDK.
    Jmods(PathBuf),
    /// The `lib/src.zip` of a JDK (top-level types only).
    SourceZip(PathBuf),
    /// No JDK was found.
    Missing,
}

/// The binary names of the JDK's types, e.g. `java.util.Map$Entry`.
#[derive(Debug, Clone)]
pub struct JdkTypes {
    /// Where the names were read from.
    pub origin: JdkOrigin,
    /// Binary names, sorted.
    pub binary_names: Vec<String>,
    /// For each name, the index in `archives` of the jmod holding its class
    /// file (empty when the names come from `src.zip`).
    archive_of: Vec<u16>,
    /// The jmod files.
    archives: Vec<PathBuf>,
}

impl JdkTypes {
    /// Finds the JDK (`$JAVA_HOME`, else `javac`/`java` on `PATH`) and
    /// reads its type names. A machine without a JDK gets an empty list and
    /// [`JdkOrigin::Missing`].
    pub fn discover() -> Result<Self, Error> {
        match find_jdk_home() {
            Some(home) => Self::read(&home),
            None => Ok(Self::missing()),
        }
    }

    /// Reads the type names of the JDK at `home`.
    pub fn read(home: &Path) -> Result<Self, Error> {
        let jmods = home.join("jmods");
        if jmods.is_dir() {
            let mut named: Vec<(String, u16)> = Vec::new();
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&jmods)
                .map_err(|e| Error::io(&jmods, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jmod"))
                .collect();
            entries.sort();
            for (index, path) in entries.iter().enumerate() {
                let mut names = Vec::new();
                read_archive_names(path, 4, "classes/", ".class", &mut names)?;
                named.extend(names.into_iter().map(|n| (n, index as u16)));
            }
            named.retain(|(n, _)| is_type_name(n));
            named.sort_unstable();
            named.dedup_by(|a, b| a.0 == b.0);
            let (binary_names, archive_of) = named.into_iter().unzip();
            return Ok(Self {
                origin: JdkOrigin::Jmods(jmods),
                binary_names,
                archive_of,
                archives: entries,
            });
        }
        let src_zip = [home.join("lib/src.zip"), home.join("src.zip")]
            .into_iter()
            .find(|p| p.is_file());
        if let Some(src_zip) = src_zip {
            let mut names = Vec::new();
            read_archive_names(&src_zip, 0, "", ".java", &mut names)?;
            // Entries are `module/pkg/Name.java`: drop the module folder.
            for name in &mut names {
                if let Some((_, rest)) = name.split_once('.') {
                    *name = rest.to_string();
                }
            }
            return Ok(Self::finish(JdkOrigin::SourceZip(src_zip), names));
        }
        Ok(Self::missing())
    }

    /// No JDK.
    pub fn missing() -> Self {
        Self {
            origin: JdkOrigin::Missing,
            binary_names: Vec::new(),
            archive_of: Vec::new(),
            archives: Vec::new(),
        }
    }

    fn finish(origin: JdkOrigin, mut names: Vec<String>) -> Self {
        names.retain(|n| is_type_name(n));
        names.sort_unstable();
        names.dedup();
        Self {
            origin,
            binary_names: names,
            archive_of: Vec::new(),
            archives: Vec::new(),
        }
    }

    /// Where the class files are: for each of `binary_names`, the index of
    /// its jmod in the second slice, the jmod paths. `None` when the names
    /// did not come from jmods (no class files to read).
    pub(crate) fn class_file_archives(&self) -> Option<(&[u16], &[PathBuf])> {
        match self.origin {
            JdkOrigin::Jmods(_) if self.archive_of.len() == self.binary_names.len() => {
                Some((&self.archive_of, &self.archives))
            }
            _ => None,
        }
    }

    /// A reader of class files, for supertypes; opens archives on demand.
    pub fn class_reader(self: &std::sync::Arc<Self>) -> JdkClassReader {
        JdkClassReader {
            types: self.clone(),
            open: Vec::new(),
        }
    }
}

fn is_type_name(name: &str) -> bool {
    !name.ends_with("module-info") && !name.ends_with("package-info") && name.contains('.')
}

type JmodArchive = zip::ZipArchive<ArchiveReader>;

/// Reads the direct supertypes of JDK classes from their class files.
pub struct JdkClassReader {
    types: std::sync::Arc<JdkTypes>,
    open: Vec<(u16, JmodArchive)>,
}

impl JdkClassReader {
    /// Binary names of the direct supertypes (superclass first, then
    /// interfaces) of the JDK class `binary`, or `None` when it cannot be
    /// read (no class files, unknown class, unreadable archive).
    pub fn supertypes(&mut self, binary: &str) -> Option<Vec<String>> {
        let at = self
            .types
            .binary_names
            .binary_search_by(|n| n.as_str().cmp(binary))
            .ok()?;
        let archive_index = *self.types.archive_of.get(at)?;
        let position = match self.open.iter().position(|(i, _)| *i == archive_index) {
            Some(p) => p,
            None => {
                let path = &self.types.archives[archive_index as usize];
                let archive = open_zip(path, 4).ok()?;
                self.open.push((archive_index, archive));
                self.open.len() - 1
            }
        };
        let archive = &mut self.open[position].1;
        let entry_name = format!("classes/{}.class", binary.replace('.', "/"));
        let mut entry = archive.by_name(&entry_name).ok()?;
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).ok()?;
        class_file_supertypes(&bytes)
    }
}

/// The superclass and interfaces named by a class file, as binary names.
fn class_file_supertypes(bytes: &[u8]) -> Option<Vec<String>> {
    let mut at = 0usize;
    let u1 = |at: &mut usize| -> Option<u8> {
        let v = *bytes.get(*at)?;
        *at += 1;
        Some(v)
    };
    let u2 = |at: &mut usize| -> Option<u16> {
        let v = u16::from_be_bytes([*bytes.get(*at)?, *bytes.get(*at + 1)?]);
        *at += 2;
        Some(v)
    };
    if bytes.get(0..4)? != [0xca, 0xfe, 0xba, 0xbe] {
        return None;
    }
    at += 8;
    let count = u2(&mut at)? as usize;
    // Constant pool: Utf8 texts and Class entries (pointing at a Utf8).
    let mut utf8: Vec<Option<(usize, usize)>> = vec![None; count];
    let mut class_name: Vec<u16> = vec![0; count];
    let mut index = 1;
    while index < count {
        let tag = u1(&mut at)?;
        match tag {
            1 => {
                let len = u2(&mut at)? as usize;
                utf8[index] = Some((at, len));
                at += len;
            }
            7 => class_name[index] = u2(&mut at)?,
            8 | 16 | 19 | 20 => at += 2,
            15 => at += 3,
            3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => at += 4,
            5 | 6 => {
                at += 8;
                index += 1;
            }
            _ => return None,
        }
        index += 1;
    }
    let name_of = |class_index: u16| -> Option<String> {
        let utf8_index = *class_name.get(class_index as usize)? as usize;
        let (start, len) = (*utf8.get(utf8_index)?)?;
        let text = std::str::from_utf8(bytes.get(start..start + len)?).ok()?;
        Some(text.replace('/', "."))
    };
    at += 4; // access flags, this class
    let mut out = Vec::new();
    let superclass = u2(&mut at)?;
    if superclass != 0 {
        out.push(name_of(superclass)?);
    }
    let n_interfaces = u2(&mut at)?;
    for _ in 0..n_interfaces {
        out.push(name_of(u2(&mut at)?)?);
    }
    Some(out)
}

/// Reads the entry names under `prefix` ending in `suffix` of a zip archive
/// that starts `skip` bytes into the file (a jmod has a 4-byte header), as
/// dotted binary names.
fn read_archive_names(
    path: &Path,
    skip: u64,
    prefix: &str,
    suffix: &str,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    // Positional reads through a buffer that seeking keeps: the central
    // directory is read in a few large reads, not two system calls an
    // entry (80 K of them over the JDK's jmods).
    let archive = open_zip(path, skip).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => Error::Jdk {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
        _ => Error::io(path, e),
    })?;
    for name in archive.file_names() {
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let Some(stem) = rest.strip_suffix(suffix) else {
            continue;
        };
        out.push(stem.replace('/', "."));
    }
    Ok(())
}

/// `$JAVA_HOME`, else the JDK that `javac` (or `java`) on `PATH` belongs to.
pub fn find_jdk_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME").map(PathBuf::from)
        && (home.join("jmods").is_dir() || home.join("lib/src.zip").is_file())
    {
        return Some(home);
    }
    let path = std::env::var_os("PATH")?;
    for tool in ["javac", "java"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(tool);
            if let Ok(real) = std::fs::canonicalize(&candidate) {
                // `<home>/bin/javac`.
                if let Some(home) = real.parent().and_then(Path::parent)
                    && (home.join("jmods").is_dir() || home.join("lib/src.zip").is_file())
                {
                    return Some(home.to_path_buf());
                }
            }
        }
    }
    None
}
