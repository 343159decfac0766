//! Reading what the index does not hold: the text of the revision's Java
//! files (for enclosing ranges and javadoc) and its `pom.xml` files (for
//! Maven coordinates).

use std::path::PathBuf;

use refscope_engine::{BlobReader, FileEntry, RevisionRow, Source};

/// The files of the exported revision, as far as they can be read.
pub trait RevisionFiles {
    /// The bytes of one of the revision's Java files, or `None` when they
    /// cannot be read (then that document has no enclosing ranges and no
    /// documentation).
    fn java_file(&self, file: &FileEntry) -> Option<Vec<u8>>;

    /// The bytes of another file of the revision by repository-relative
    /// path (a `pom.xml`), or `None` when there is none.
    fn other_file(&self, path: &str) -> Option<Vec<u8>>;
}

/// Reads nothing: an export from the index alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFiles;

impl RevisionFiles for NoFiles {
    fn java_file(&self, _file: &FileEntry) -> Option<Vec<u8>> {
        None
    }

    fn other_file(&self, _path: &str) -> Option<Vec<u8>> {
        None
    }
}

/// The files of a revision read where the revision came from: a commit's
/// from the git object database (the files of that commit, not of the work
/// tree), a directory snapshot's from the directory on disk (Java files
/// only while they still have the indexed content).
pub struct SourceFiles<'s> {
    reader: Option<BlobReader>,
    /// The repository and commit, for a commit's other files.
    commit: Option<(&'s Source, String)>,
    /// The directory, for a directory snapshot's other files.
    directory: Option<PathBuf>,
}

impl<'s> SourceFiles<'s> {
    /// The files of `revision`, read from `source` (the repository or
    /// directory it was indexed from, when at hand).
    pub fn new(source: Option<&'s Source>, revision: &RevisionRow) -> Self {
        let is_commit = revision.kind == "commit";
        match source {
            Some(source @ Source::Git { .. }) if is_commit => Self {
                reader: source.reader_spec().open().ok(),
                commit: Some((source, revision.name.clone())),
                directory: None,
            },
            _ if is_commit => Self {
                reader: None,
                commit: None,
                directory: None,
            },
            _ => {
                let directory = revision
                    .root
                    .as_ref()
                    .map(PathBuf::from)
                    .filter(|root| root.is_dir())
                    .or_else(|| source.map(|s| s.root().to_path_buf()));
                Self {
                    reader: directory.clone().map(BlobReader::Directory),
                    commit: None,
                    directory,
                }
            }
        }
    }
}

impl RevisionFiles for SourceFiles<'_> {
    fn java_file(&self, file: &FileEntry) -> Option<Vec<u8>> {
        self.reader
            .as_ref()?
            .read_blob(&file.path, &file.blob_id)
            .ok()
    }

    fn other_file(&self, path: &str) -> Option<Vec<u8>> {
        if let Some((Source::Git { repo, .. }, commit)) = &self.commit {
            let object = repo.revparse_single(&format!("{commit}:{path}")).ok()?;
            let blob = object.peel_to_blob().ok()?;
            return Some(blob.content().to_vec());
        }
        let path = self.directory.as_ref()?.join(path);
        std::fs::read(path).ok()
    }
}
