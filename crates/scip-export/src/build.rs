//! The export: a revision's files through both passes into one
//! `scip::types::Index`, and its encoding.

use std::io::Write;
use std::path::Path;

use protobuf::{Message, MessageField};
use refscope_engine::Snapshot;
use scip::types::{Index, Metadata, ProtocolVersion, TextEncoding, ToolInfo};

use crate::builder::{Builder, ScipSummary};
use crate::error::ScipError;
use crate::files::RevisionFiles;
use crate::libraries::Libraries;
use crate::projects::ProjectPackages;
use crate::text::SourceText;

/// What an export needs besides the snapshot.
pub struct ScipConfig<'a> {
    /// The repository's directory on disk (absolute): the index's
    /// `project_root`, to which documents' paths are relative.
    pub project_root: &'a Path,
    /// The version of refscope writing the index (`tool_info`).
    pub tool_version: &'a str,
    /// Which library (the JDK, a jar) a library class is in.
    pub libraries: &'a Libraries,
    /// The revision's files: Java sources for enclosing ranges and
    /// javadoc, `pom.xml` files for the sources' Maven coordinates.
    pub files: &'a dyn RevisionFiles,
}

/// Writes the SCIP index of `snapshot`'s revision to `out`: a document per
/// Java file, in path order. Documents are kept compact until every
/// reference is resolved, and each is built whole only as it is written
/// (the index's fields one after the other, as SCIP allows streaming it).
pub fn export_scip(
    snapshot: &Snapshot,
    config: &ScipConfig,
    out: &mut dyn Write,
) -> Result<ScipSummary, ScipError> {
    let mut builder = Builder::new(config.libraries, ProjectPackages::new(config.files));
    for file in snapshot.files()? {
        let data = snapshot.file_data(&file)?;
        let resolution = snapshot.file_resolution(&data)?;
        let text = config.files.java_file(&file).and_then(SourceText::new);
        let package = builder.projects.package_of(&file.path);
        let document = builder.add_document(&file.path);
        builder.declare_file(document, &data, resolution, text.as_ref(), &package);
    }
    builder.resolve_references();
    builder.resolve_relationships();
    let mut summary = builder.summary;
    summary.n_external_symbols = builder.externals.len() as u64;

    let metadata = Metadata {
        version: ProtocolVersion::UnspecifiedProtocolVersion.into(),
        tool_info: MessageField::some(ToolInfo {
            name: "refscope".into(),
            version: config.tool_version.to_string(),
            ..ToolInfo::default()
        }),
        project_root: file_uri(config.project_root),
        text_document_encoding: TextEncoding::UTF8.into(),
        ..Metadata::default()
    };
    out.write_all(&[INDEX_METADATA])?;
    metadata.write_length_delimited_to_writer(out)?;
    for parts in builder.documents {
        out.write_all(&[INDEX_DOCUMENTS])?;
        parts
            .into_document()
            .write_length_delimited_to_writer(out)?;
    }
    for info in builder.externals.into_values() {
        out.write_all(&[INDEX_EXTERNAL_SYMBOLS])?;
        info.write_length_delimited_to_writer(out)?;
    }
    Ok(summary)
}

/// The tags of `scip.Index`'s fields: field number and the
/// length-delimited wire type (`metadata = 1`, `documents = 2`,
/// `external_symbols = 3`).
const INDEX_METADATA: u8 = (1 << 3) | 2;
const INDEX_DOCUMENTS: u8 = (2 << 3) | 2;
const INDEX_EXTERNAL_SYMBOLS: u8 = (3 << 3) | 2;

/// Decodes an index written by [`export_scip`] (or any SCIP index).
pub fn decode_index(bytes: &[u8]) -> Result<Index, ScipError> {
    Ok(Index::parse_from_bytes(bytes)?)
}

/// `file:///path/to/repo`, with what a URI path cannot hold
/// percent-encoded.
fn file_uri(path: &Path) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    const PATH: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'`')
        .add(b'{')
        .add(b'}');
    let text = path.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    format!("file://{}", utf8_percent_encode(&text, PATH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_roots_are_file_uris() {
        assert_eq!(file_uri(Path::new("/work/shop")), "file:///work/shop");
        assert_eq!(
            file_uri(Path::new("/tmp/my shop/#1")),
            "file:///tmp/my%20shop/%231"
        );
    }
}
