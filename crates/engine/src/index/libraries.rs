//! The libraries resolution reads besides the sources: the JDK's types
//! and the jars of the class path, and the digest that tells one set of
//! libraries from another (a revision is layered only over one resolved
//! with the same libraries).

use std::path::PathBuf;
use std::sync::Arc;

use refscope_symbols::{ClassPath, JdkOrigin, JdkTypes, LibraryTypes, TypeUniverse};
use refscope_syntax::Digest128;

use crate::error::Error;
use crate::source::PathFilter;

/// The JDK and the class path, loaded once per indexer.
pub(crate) struct Libraries {
    pub(crate) class_path: Arc<ClassPath>,
    pub(crate) digest: [u8; 16],
    /// Their types, shared by every revision's universe.
    types: Arc<LibraryTypes>,
}

impl Libraries {
    /// The libraries of `jdk` and the jars `classpath`.
    pub(crate) fn load(jdk: JdkTypes, classpath: &[PathBuf]) -> Result<Self, Error> {
        let class_path = Arc::new(ClassPath::new(&jdk, classpath)?);
        let digest = library_digest(&jdk, classpath);
        let types = Arc::new(LibraryTypes::new(&Arc::new(jdk), class_path.class_names()));
        Ok(Self {
            class_path,
            digest,
            types,
        })
    }

    /// Makes the digest tell the paths `filter` indexes too: a revision
    /// whose files were chosen otherwise is no parent to layer over.
    pub(crate) fn digest_paths(&mut self, filter: &PathFilter) {
        if filter.is_everything() {
            return;
        }
        let mut digest = Digest128::new(b"paths");
        digest.write(&self.digest);
        let (include, exclude) = filter.globs();
        for (kind, globs) in [("include", include), ("exclude", exclude)] {
            digest.write_str(kind);
            digest.write_u32(globs.len() as u32);
            for glob in globs {
                digest.write_str(glob);
            }
        }
        self.digest = digest.finish();
    }

    /// A type universe of the libraries' types, with no source type yet.
    pub(crate) fn universe(&self) -> TypeUniverse {
        TypeUniverse::over(self.types.clone())
    }
}

/// The digest of the libraries resolution reads: the JDK and the class
/// path, by location, size and modification time.
fn library_digest(jdk: &JdkTypes, classpath: &[PathBuf]) -> [u8; 16] {
    let mut digest = Digest128::new(b"libraries");
    let mut library = |path: &std::path::Path| {
        digest.write_str(&path.to_string_lossy());
        if let Ok(meta) = std::fs::metadata(path) {
            digest.write(&meta.len().to_le_bytes());
            if let Ok(modified) = meta.modified()
                && let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH)
            {
                digest.write(&since.as_nanos().to_le_bytes());
            }
        }
    };
    match &jdk.origin {
        JdkOrigin::Jmods(dir) => {
            library(dir);
            library(&dir.join("java.base.jmod"));
        }
        JdkOrigin::SourceZip(zip) => library(zip),
        JdkOrigin::Missing => {}
    }
    for jar in classpath {
        library(jar);
    }
    digest.write_u32(jdk.binary_names.len() as u32);
    digest.finish()
}
