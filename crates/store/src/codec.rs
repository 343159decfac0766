//! The byte encodings the store's own formats share: LEB128 varints,
//! length-prefixed strings, and a reader that turns running out of bytes
//! (a damaged record) into an error instead of a panic.

/// Bytes that do not decode: the record holding them is damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

/// Appends `value` as an unsigned LEB128 varint.
pub(crate) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a signed value zigzag-coded, so small negative values stay
/// short.
pub(crate) fn write_signed(out: &mut Vec<u8>, value: i64) {
    write_varint(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// Appends `text` as its length then its bytes.
pub(crate) fn write_str(out: &mut Vec<u8>, text: &str) {
    write_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Reads what the `write_*` functions wrote, front to back.
pub(crate) struct Reader<'b> {
    bytes: &'b [u8],
}

impl<'b> Reader<'b> {
    pub(crate) fn new(bytes: &'b [u8]) -> Self {
        Self { bytes }
    }

    /// Whether every byte was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'b [u8], Damaged> {
        if n > self.bytes.len() {
            return Err(Damaged);
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }

    /// The next byte.
    pub(crate) fn byte(&mut self) -> Result<u8, Damaged> {
        Ok(self.take(1)?[0])
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], Damaged> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// An unsigned LEB128 varint.
    pub(crate) fn varint(&mut self) -> Result<u64, Damaged> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f).checked_shl(shift).ok_or(Damaged)?;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Damaged)
    }

    /// A varint that must fit a `u32`.
    pub(crate) fn u32(&mut self) -> Result<u32, Damaged> {
        u32::try_from(self.varint()?).map_err(|_| Damaged)
    }

    /// A varint used as a length or count: at most the bytes left, so a
    /// damaged count cannot make the caller reserve memory for nothing.
    pub(crate) fn len(&mut self) -> Result<usize, Damaged> {
        let n = usize::try_from(self.varint()?).map_err(|_| Damaged)?;
        if n > self.bytes.len() {
            return Err(Damaged);
        }
        Ok(n)
    }

    /// A zigzag-coded signed value.
    pub(crate) fn signed(&mut self) -> Result<i64, Damaged> {
        let raw = self.varint()?;
        Ok((raw >> 1) as i64 ^ -((raw & 1) as i64))
    }

    /// A length-prefixed UTF-8 string.
    pub(crate) fn str(&mut self) -> Result<&'b str, Damaged> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| Damaged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_and_damage_is_an_error() {
        let mut out = Vec::new();
        let numbers = [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX];
        for n in numbers {
            write_varint(&mut out, n);
        }
        let signed = [0i64, -1, 1, -64, 64, i64::MIN, i64::MAX];
        for n in signed {
            write_signed(&mut out, n);
        }
        write_str(&mut out, "Été");
        write_str(&mut out, "");
        let mut reader = Reader::new(&out);
        for n in numbers {
            assert_eq!(reader.varint(), Ok(n));
        }
        for n in signed {
            assert_eq!(reader.signed(), Ok(n));
        }
        assert_eq!(reader.str(), Ok("Été"));
        assert_eq!(reader.str(), Ok(""));
        assert!(reader.is_empty());
        assert_eq!(reader.byte(), Err(Damaged));

        // A varint that never ends, a length past the end, bad UTF-8.
        assert_eq!(Reader::new(&[0x80; 11]).varint(), Err(Damaged));
        assert_eq!(Reader::new(&[5, b'a']).str(), Err(Damaged));
        assert_eq!(Reader::new(&[1, 0xff]).str(), Err(Damaged));
        assert_eq!(
            Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x7f]).u32(),
            Err(Damaged)
        );
    }
}
