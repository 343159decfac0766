//! Looking into a pack's records without decoding them: whether a record
//! holds a name, and what it takes in the pack.

use crate::blob::BlobId;
use crate::delta::DELTA_MAGIC;
use crate::error::Error;
use crate::pack::{ALIGN, HEADER_LEN, MAGIC, PackLocation, PackReader, Part};

/// Names to look for among a record's bytes ([`PackReader::holds_any`]).
pub struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    /// Searches for each of `names` (the empty name is never found).
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> Self {
        Self(
            names
                .into_iter()
                .filter(|name| !name.is_empty())
                .map(|name| memchr::memmem::Finder::new(name).into_owned())
                .collect(),
        )
    }
}

impl PackReader {
    /// Whether the payload of `blob_id`'s record at `at` holds any of
    /// `needles` among its bytes. Facts keep every string they spell as
    /// written, so a file whose facts spell a name holds it: `false` rules
    /// a file out without decoding its facts (`true` says nothing).
    pub fn holds_any(
        &self,
        blob_id: &BlobId,
        at: PackLocation,
        needles: &Needles,
    ) -> Result<bool, Error> {
        self.with_payload(blob_id, at, Part::Whole, |payload| {
            Ok(needles.0.iter().any(|n| n.find(payload).is_some()))
        })
    }

    /// The bytes the record at `at` takes in the pack (header, what it
    /// stores and the padding to the next record), and whether it is a
    /// delta over another record.
    pub fn record_bytes(&self, at: PackLocation) -> Result<(u64, bool), Error> {
        let header = self.header_at(at.offset)?;
        let stored = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
        let delta = header[0..4] == DELTA_MAGIC[..];
        if !delta && header[0..4] != MAGIC[..] {
            return Err(self.corrupt(format!("no record at offset {}", at.offset)));
        }
        Ok((
            HEADER_LEN + u64::from(stored).next_multiple_of(ALIGN),
            delta,
        ))
    }
}
