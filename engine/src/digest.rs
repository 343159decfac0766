//! 128-bit content digests for change detection inside one store.
//!
//! Two 64-bit SipHash passes with different keys: a digest is only ever
//! compared with digests of the same store, so 128 bits keep accidental
//! collisions out of reach, and SipHash is several times cheaper than a
//! cryptographic hash over the same bytes.

use std::hash::Hasher;

/// Accumulates bytes into a 128-bit digest. Strings are written with a
/// terminator, so `("ab", "c")` and `("a", "bc")` differ.
pub(crate) struct Digest128 {
    low: Sip,
    high: Sip,
}

#[allow(deprecated)]
type Sip = std::hash::SipHasher;

impl Digest128 {
    /// A digest of what follows, in the domain `domain` (digests of
    /// different domains never compare equal by construction).
    pub(crate) fn new(domain: &[u8]) -> Self {
        #[allow(deprecated)]
        let mut digest = Self {
            low: Sip::new_with_keys(0x7265_6673_636f_7065, 1),
            high: Sip::new_with_keys(0x7265_6673_636f_7065, 2),
        };
        digest.write(domain);
        digest
    }

    /// Adds raw bytes.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.low.write(bytes);
        self.high.write(bytes);
        self.low.write_usize(bytes.len());
        self.high.write_usize(bytes.len());
    }

    /// Adds a string.
    pub(crate) fn write_str(&mut self, text: &str) {
        self.write(text.as_bytes());
    }

    /// Adds a list of strings.
    pub(crate) fn write_strs(&mut self, texts: &[String]) {
        for text in texts {
            self.write_str(text);
        }
        self.write_u32(texts.len() as u32);
    }

    /// Adds a number.
    pub(crate) fn write_u32(&mut self, n: u32) {
        self.low.write_u32(n);
        self.high.write_u32(n);
    }

    /// The digest.
    pub(crate) fn finish(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.low.finish().to_le_bytes());
        out[8..].copy_from_slice(&self.high.finish().to_le_bytes());
        out
    }
}

/// Lets values with a derived `Hash` feed a digest (integers are written
/// little-endian, whatever the platform).
impl Hasher for Digest128 {
    fn write(&mut self, bytes: &[u8]) {
        Digest128::write(self, bytes);
    }

    fn finish(&self) -> u64 {
        u64::from_le_bytes(Digest128::finish(self)[..8].try_into().expect("8 bytes"))
    }
}
