//! The installed JDK's type names, read from its `jmods` (or, failing that,
//! its `lib/src.zip`), so that `import java.util.*` and implicit
//! `java.lang` names can be qualified.
//!
//! Only names are read here: which types exist and what they are called.
//! Reading member signatures is the resolution layer's business.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

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
}

impl JdkTypes {
    /// Finds the JDK (`$JAVA_HOME`, else `javac`/`java` on `PATH`) and
    /// reads its type names. A machine without a JDK gets an empty list and
    /// [`JdkOrigin::Missing`].
    pub fn discover() -> Result<Self, Error> {
        match find_jdk_home() {
            Some(home) => Self::read(&home),
            None => Ok(Self {
                origin: JdkOrigin::Missing,
                binary_names: Vec::new(),
            }),
        }
    }

    /// Reads the type names of the JDK at `home`.
    pub fn read(home: &Path) -> Result<Self, Error> {
        let jmods = home.join("jmods");
        if jmods.is_dir() {
            let mut names = Vec::new();
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&jmods)
                .map_err(|e| Error::io(&jmods, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jmod"))
                .collect();
            entries.sort();
            for path in entries {
                read_archive_names(&path, 4, "classes/", ".class", &mut names)?;
            }
            return Ok(Self::finish(JdkOrigin::Jmods(jmods), names));
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
        Ok(Self {
            origin: JdkOrigin::Missing,
            binary_names: Vec::new(),
        })
    }

    fn finish(origin: JdkOrigin, mut names: Vec<String>) -> Self {
        names.retain(|n| {
            !n.ends_with("module-info") && !n.ends_with("package-info") && n.contains('.')
        });
        names.sort_unstable();
        names.dedup();
        Self {
            origin,
            binary_names: names,
        }
    }
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
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let reader = OffsetReader::new(BufReader::new(file), skip).map_err(|e| Error::io(path, e))?;
    let archive = zip::ZipArchive::new(reader).map_err(|e| Error::Jdk {
        path: path.to_path_buf(),
        message: e.to_string(),
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

/// A reader that hides the first `skip` bytes of the inner reader.
struct OffsetReader<R> {
    inner: R,
    skip: u64,
}

impl<R: Read + Seek> OffsetReader<R> {
    fn new(mut inner: R, skip: u64) -> std::io::Result<Self> {
        inner.seek(SeekFrom::Start(skip))?;
        Ok(Self { inner, skip })
    }
}

impl<R: Read> Read for OffsetReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<R: Seek> Seek for OffsetReader<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let absolute = match pos {
            SeekFrom::Start(n) => self.inner.seek(SeekFrom::Start(n + self.skip))?,
            other => self.inner.seek(other)?,
        };
        Ok(absolute.saturating_sub(self.skip))
    }
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
