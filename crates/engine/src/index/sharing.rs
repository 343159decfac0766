//! What decides whether a file of a new revision shares the unit of an
//! indexed one: the libraries' digest and the revision's resolution
//! context (libraries, and every file's path and signature digest).

use std::collections::HashMap;

use refscope_store::{BlobId, BlobStats, PackLocation};
use refscope_symbols::{JdkOrigin, JdkTypes};
use refscope_syntax::Digest128;

/// The digest of the libraries resolution reads: the JDK and the class
/// path, by location, size and modification time.
pub(super) fn library_digest(jdk: &JdkTypes, classpath: &[std::path::PathBuf]) -> [u8; 16] {
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

/// The digest of a revision's resolution context: its libraries and every
/// file's path and signature digest.
pub(super) fn context_digest(
    library_digest: &[u8; 16],
    files: &[(&str, BlobId, PackLocation)],
    blobs: &HashMap<BlobId, BlobStats>,
) -> [u8; 16] {
    let mut digest = Digest128::new(b"resolution context");
    digest.write(library_digest);
    let mut sorted: Vec<(&str, &[u8; 16])> = files
        .iter()
        .map(|(path, blob_id, _)| (*path, &blobs[blob_id].signature_digest))
        .collect();
    sorted.sort_unstable();
    for (path, signature) in sorted {
        digest.write_str(path);
        digest.write(signature);
    }
    digest.finish()
}
