//! One blob read and extracted: its facts, encoded for the pack, or why
//! it was left out. The parse phase and the thread parsing ahead share it.

use refscope_store::{BlobId, BlobStats, DeltaFrame, EncodedFacts, encode_facts};
use refscope_syntax::{Passes, extract_with};

use crate::source::{BlobReader, SourceFile};

/// Bytes sniffed to tell binary files.
const BINARY_SNIFF_LEN: usize = 8000;

/// A parsed blob on its way from a worker to the writer.
pub(super) enum ParsedBlob {
    Facts {
        blob_id: BlobId,
        payload: EncodedFacts,
        /// The payload compressed over the file's previous version, when
        /// that pays (made on the worker: the writer only writes).
        delta: Option<DeltaFrame>,
        stats: BlobStats,
    },
    Skipped {
        blob_id: BlobId,
        reason: String,
    },
}

impl ParsedBlob {
    pub(super) fn blob_id(&self) -> &BlobId {
        match self {
            Self::Facts { blob_id, .. } | Self::Skipped { blob_id, .. } => blob_id,
        }
    }

    /// The bytes it holds, roughly: its facts.
    pub(super) fn held_bytes(&self) -> usize {
        match self {
            Self::Facts { payload, .. } => payload.len(),
            Self::Skipped { reason, .. } => reason.len(),
        }
    }
}

/// Reads and extracts one blob.
pub(super) fn parse_blob(
    reader: &BlobReader,
    file: &SourceFile,
    verify_content: bool,
    passes: Passes,
) -> ParsedBlob {
    let bytes = match reader.read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            return ParsedBlob::Skipped {
                blob_id: file.blob_id,
                reason: format!("cannot read: {e}"),
            };
        }
    };
    // A directory's file may have changed since the revision was listed;
    // its facts must not be stored under the old content's id.
    if verify_content && BlobId::of_bytes(&bytes) != file.blob_id {
        return ParsedBlob::Skipped {
            blob_id: file.blob_id,
            reason: "changed while being indexed".into(),
        };
    }
    parse_bytes(file, bytes, passes)
}

/// Extracts the facts of `bytes`, the content of blob `file.blob_id`.
pub(super) fn parse_bytes(file: &SourceFile, bytes: Vec<u8>, passes: Passes) -> ParsedBlob {
    if looks_binary(&bytes) {
        return ParsedBlob::Skipped {
            blob_id: file.blob_id,
            reason: "binary content (NUL bytes)".into(),
        };
    }
    let facts = extract_with(&bytes, passes);
    let stats = BlobStats {
        location: None,
        n_elements: facts.elements.len() as u64,
        n_ref_sites: facts.ref_sites.len() as u64,
        n_syntax_errors: u64::from(facts.diagnostics.n_syntax_errors),
        n_invalid_utf8_bytes: u64::from(facts.diagnostics.n_invalid_utf8_bytes),
        signature_digest: facts.signature_digest(),
    };
    ParsedBlob::Facts {
        blob_id: file.blob_id,
        payload: encode_facts(facts, bytes.len()),
        delta: None,
        stats,
    }
}

/// Binary content: NUL bytes in text that is not UTF-8. NUL alone is not
/// enough, since javac accepts it in Java source (fuzzing tests carry it in
/// string literals).
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if !head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        // A character cut at the end of the sniffed bytes is still text.
        Err(e) => e.error_len().is_some(),
    }
}
