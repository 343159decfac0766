//! Blob ids: the content address of a file's facts in the pack.

use std::fmt;

/// A git blob id (SHA-1 of `blob <len>\0<bytes>`): the same content has
/// the same id in a git revision and in a plain directory, so its facts
/// are extracted and stored once.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlobId(pub [u8; 20]);

impl BlobId {
    /// The id git gives these bytes. Plain SHA-1 (with the CPU's SHA
    /// instructions where it has them) rather than libgit2's
    /// collision-detecting variant, which is several times slower on the
    /// large work trees this hashes; the two differ only on inputs crafted
    /// to collide.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        use sha1::Digest as _;
        let mut hasher = sha1::Sha1::new();
        hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
        hasher.update(bytes);
        Self(hasher.finalize().into())
    }

    /// Parses 40 hex digits (either case).
    pub fn from_hex(hex: &str) -> Option<Self> {
        let hex = hex.as_bytes();
        if hex.len() != 40 {
            return None;
        }
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        let mut id = [0u8; 20];
        for (byte, pair) in id.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = digit(pair[0])? << 4 | digit(pair[1])?;
        }
        Some(Self(id))
    }
}

impl fmt::Display for BlobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for BlobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BlobId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::BlobId;

    #[test]
    fn ids_are_gits_and_round_trip_through_hex() {
        // `printf 'hello\n' | git hash-object --stdin`
        let id = BlobId::of_bytes(b"hello\n");
        assert_eq!(id.to_string(), "ce013625030ba8dba906f756967f9e9ca394464a");
        assert_eq!(BlobId::from_hex(&id.to_string()), Some(id));
        assert_eq!(
            BlobId::from_hex("CE013625030BA8DBA906F756967F9E9CA394464A"),
            Some(id)
        );
        assert_eq!(BlobId::from_hex("ce01"), None);
        assert_eq!(BlobId::from_hex(&"g".repeat(40)), None);
    }
}
