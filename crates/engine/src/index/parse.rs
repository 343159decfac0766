//! Phase *parse*: the blobs of a revision the store has not seen are read
//! and extracted in parallel, largest first; this thread appends their
//! facts to the pack in that order and records them, and they commit
//! before resolution starts (see [`IndexTransaction::commit_so_far`]).

use std::collections::HashMap;

use refscope_store::{
    BlobId, BlobStats, IndexTransaction, PackLocation, PackReader, PackWriter, Store,
};

use refscope_syntax::Passes;

use super::ahead::ParseAhead;
use super::blob::{ParsedBlob, parse_blob, parse_bytes};
use super::report::Progress;
use crate::error::Error;
use crate::source::{Revision, RevisionKind, Source, SourceFile};

/// Parsed files that may wait for the parse phase's writer: few, so
/// finished work waiting to be stored stays small.
const PARSED_AHEAD: usize = 64;

/// What the parse phase leaves for the next ones.
pub(super) struct Parsed {
    /// Blobs parsed in this run.
    pub(super) n_parsed: u64,
    /// Of those, blobs parsed ahead (see [`ParseAhead`]).
    pub(super) n_parsed_ahead: u64,
    /// Blobs that could not be parsed, with why.
    pub(super) skipped_blobs: HashMap<BlobId, String>,
}

/// Parses the blobs of `files` (of `revision`) not in `blobs` yet, adding
/// each to the pack, to the store's blob rows and to `blobs`. A blob in
/// `bases` (the new version of a file whose previous version is there) is
/// stored as a delta over that record when it pays. What `ahead` parsed
/// already is taken from there.
#[allow(clippy::too_many_arguments)]
pub(super) fn parse_new_blobs(
    pool: &rayon::ThreadPool,
    ahead: Option<&ParseAhead>,
    store: &Store,
    tx: &IndexTransaction<'_>,
    source: &Source,
    revision: &Revision,
    files: &[SourceFile],
    bases: &HashMap<BlobId, PackLocation>,
    blobs: &mut HashMap<BlobId, BlobStats>,
    passes: Passes,
    progress: &mut dyn FnMut(Progress),
) -> Result<Parsed, Error> {
    let mut seen_new = std::collections::HashSet::new();
    let mut new_files: Vec<&SourceFile> = files
        .iter()
        .filter(|f| !blobs.contains_key(&f.blob_id) && seen_new.insert(f.blob_id))
        .collect();
    // Largest first: the pool ends on small files, instead of one
    // worker parsing the largest while the others wait.
    new_files.sort_by_key(|f| std::cmp::Reverse(f.size));
    // Read from git, the blobs go in the order of the packs, those in no
    // pack last (still largest first): libgit2 keeps few of the delta
    // bases it inflates, and in any other order most of a blob's chain of
    // deltas was inflated again for each blob (from a one-commit JDK
    // repository, 40 % of the parse phase).
    let needed = new_files.iter().map(|f| f.blob_id).collect();
    let positions = source.pack_positions(&needed);
    if !positions.is_empty() {
        new_files.sort_by_key(|f| positions.get(&f.blob_id).copied().unwrap_or((u32::MAX, 0)));
    }
    progress(Progress::Phase {
        name: "parse",
        total: new_files.len() as u64,
    });
    let mut skipped_blobs: HashMap<BlobId, String> = HashMap::new();
    let mut pack = PackWriter::open(&store.pack_path(), store.committed_pack_len()?)?;
    // The committed records deltas are made over.
    let committed = match bases.is_empty() {
        true => None,
        false => Some(PackReader::open(&store.pack_path())?),
    };
    let reader_spec = source.reader_spec();
    let verify_content = revision.kind == RevisionKind::WorkTree;
    let prefetched = revision.prefetched.as_deref();
    let mut n_parsed = new_files.len() as u64;
    let n_parsed_ahead = std::sync::atomic::AtomicU64::new(0);
    // Files go to the workers largest first and reach the writer in
    // that order, so the pack's layout does not depend on timing.
    let write_result = crate::parallel::in_order(
        pool,
        new_files.len(),
        PARSED_AHEAD,
        || reader_spec.open(),
        |reader, at| {
            let file = new_files[at];
            let parsed_ahead = ahead.and_then(|ahead| ahead.take(&file.blob_id));
            if matches!(parsed_ahead, Some(ParsedBlob::Facts { .. })) {
                n_parsed_ahead.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let mut parsed = match parsed_ahead {
                Some(parsed) => parsed,
                None => match (prefetched.and_then(|p| p.take(&file.blob_id)), reader) {
                    (Some(bytes), _) => parse_bytes(file, bytes, passes),
                    (None, Ok(reader)) => parse_blob(reader, file, verify_content, passes),
                    (None, Err(e)) => ParsedBlob::Skipped {
                        blob_id: file.blob_id,
                        reason: e.to_string(),
                    },
                },
            };
            if let ParsedBlob::Facts {
                blob_id,
                payload,
                delta,
                ..
            } = &mut parsed
                && let (Some(&base), Some(committed)) = (bases.get(blob_id), &committed)
            {
                // A base that cannot be read leaves a full record, which
                // is always right; the base's own revision reports it.
                *delta = committed.delta_over(base, payload).ok().flatten();
            }
            parsed
        },
        |_, parsed| {
            match parsed {
                ParsedBlob::Facts {
                    blob_id,
                    payload,
                    delta,
                    mut stats,
                } => {
                    let location = match &delta {
                        Some(delta) => pack.append_delta(&blob_id, &payload, delta)?,
                        None => pack.append(&blob_id, &payload)?,
                    };
                    stats.location = Some(location);
                    tx.insert_blob(&blob_id, &stats)?;
                    blobs.insert(blob_id, stats);
                }
                ParsedBlob::Skipped { blob_id, reason } => {
                    n_parsed -= 1;
                    skipped_blobs.insert(blob_id, reason);
                }
            }
            progress(Progress::Advance(1));
            Ok::<(), refscope_store::Error>(())
        },
    );
    // Contents of blobs indexed before were listed but not parsed.
    if let Some(prefetched) = prefetched {
        prefetched.release();
    }
    write_result?;
    let pack_len = pack.finish()?;
    tx.set_pack_len(pack_len)?;
    tx.commit_so_far()?;
    Ok(Parsed {
        n_parsed,
        n_parsed_ahead: n_parsed_ahead.into_inner(),
        skipped_blobs,
    })
}
