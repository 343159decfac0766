//! 128-bit content digests for change detection inside one store.
//!
//! XXH3 with 128-bit output: a digest is only ever compared with digests
//! of the same store (never with anything an adversary chose to collide),
//! so 128 bits keep accidental collisions out of reach, and XXH3 is many
//! times cheaper than a cryptographic hash, or SipHash, over the same
//! bytes. Changing the function changes every stored digest: it goes with
//! a new store format version.

use std::hash::Hasher;

use xxhash_rust::xxh3::Xxh3;

/// Accumulates bytes into a 128-bit digest. Strings are written with a
/// terminator, so `("ab", "c")` and `("a", "bc")` differ.
pub struct Digest128 {
    state: Xxh3,
}

impl Digest128 {
    /// A digest of what follows, in the domain `domain` (digests of
    /// different domains never compare equal by construction).
    pub fn new(domain: &[u8]) -> Self {
        let mut digest = Self {
            state: Xxh3::with_seed(0x7265_6673_636f_7065),
        };
        digest.write(domain);
        digest
    }

    /// Adds raw bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        self.state.update(bytes);
        self.state.update(&(bytes.len() as u64).to_le_bytes());
    }

    /// Adds a string.
    pub fn write_str(&mut self, text: &str) {
        self.write(text.as_bytes());
    }

    /// Adds a list of strings.
    pub fn write_strs(&mut self, texts: &[String]) {
        for text in texts {
            self.write_str(text);
        }
        self.write_u32(texts.len() as u32);
    }

    /// Adds a number.
    pub fn write_u32(&mut self, n: u32) {
        self.state.update(&n.to_le_bytes());
    }

    /// The digest.
    pub fn finish(&self) -> [u8; 16] {
        self.state.digest128().to_le_bytes()
    }
}

/// Lets values with a derived `Hash` feed a digest (integers are written
/// little-endian, whatever the platform).
impl Hasher for Digest128 {
    fn write(&mut self, bytes: &[u8]) {
        Digest128::write(self, bytes);
    }

    fn write_u8(&mut self, n: u8) {
        self.state.update(&[n]);
    }

    fn write_u32(&mut self, n: u32) {
        self.state.update(&n.to_le_bytes());
    }

    fn write_u64(&mut self, n: u64) {
        self.state.update(&n.to_le_bytes());
    }

    fn write_usize(&mut self, n: usize) {
        self.state.update(&(n as u64).to_le_bytes());
    }

    fn finish(&self) -> u64 {
        u64::from_le_bytes(Digest128::finish(self)[..8].try_into().expect("8 bytes"))
    }
}
