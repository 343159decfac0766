//! The class file format read safely: a bounds-checked cursor over
//! big-endian structures, the constant pool, modified UTF-8, and the
//! errors a malformed file yields.

use std::borrow::Cow;

/// Why a class file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassFileError {
    /// The bytes do not start with the class file magic number.
    #[error("not a class file: it does not start with 0xCAFEBABE")]
    NotAClassFile,

    /// The bytes end in the middle of a structure.
    #[error("class file is truncated: a structure at byte {offset} runs past its end")]
    Truncated {
        /// Where the structure that does not fit starts.
        offset: usize,
    },

    /// The constant pool has an entry of a tag this reader does not know.
    #[error("class file constant pool entry #{index} has unknown tag {tag}")]
    UnknownConstant {
        /// The entry's index.
        index: u16,
        /// Its tag.
        tag: u8,
    },

    /// A structure refers to a constant that is missing or of the wrong kind.
    #[error("class file refers to constant #{index}, which is not a {expected}")]
    BadConstantRef {
        /// The index referred to.
        index: u16,
        /// What the reference should point at.
        expected: &'static str,
    },

    /// A descriptor does not follow the JVMS grammar.
    #[error("class file has a malformed descriptor '{text}'")]
    BadDescriptor {
        /// The descriptor.
        text: String,
    },
}

/// A bounds-checked reader of big-endian class file structures.
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn take(&mut self, len: usize) -> Result<&'a [u8], ClassFileError> {
        let taken = self
            .at
            .checked_add(len)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or(ClassFileError::Truncated { offset: self.at })?;
        self.at += len;
        Ok(taken)
    }

    pub(super) fn skip(&mut self, len: usize) -> Result<(), ClassFileError> {
        self.take(len).map(|_| ())
    }

    pub(super) fn u1(&mut self) -> Result<u8, ClassFileError> {
        Ok(self.take(1)?[0])
    }

    pub(super) fn u2(&mut self) -> Result<u16, ClassFileError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(super) fn u4(&mut self) -> Result<u32, ClassFileError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// The constant pool as the offsets of its entries; texts are decoded only
/// when asked for.
pub(super) struct ConstantPool<'a> {
    pub(super) bytes: &'a [u8],
    /// Byte offset of each entry's tag; 0 for index 0 and the unusable
    /// slot after a long or double (no entry can start at byte 0).
    pub(super) offsets: Vec<u32>,
}

pub(super) const TAG_UTF8: u8 = 1;
pub(super) const TAG_CLASS: u8 = 7;

impl<'a> ConstantPool<'a> {
    pub(super) fn read(cursor: &mut Cursor<'a>) -> Result<Self, ClassFileError> {
        let count = cursor.u2()?;
        let mut offsets = vec![0u32; usize::from(count).max(1)];
        let mut index = 1u16;
        while index < count {
            let offset = u32::try_from(cursor.at)
                .map_err(|_| ClassFileError::Truncated { offset: cursor.at })?;
            offsets[usize::from(index)] = offset;
            let tag = cursor.u1()?;
            match tag {
                TAG_UTF8 => {
                    let len = cursor.u2()?;
                    cursor.skip(usize::from(len))?;
                }
                // Class, String, MethodType, Module, Package.
                TAG_CLASS | 8 | 16 | 19 | 20 => cursor.skip(2)?,
                // MethodHandle.
                15 => cursor.skip(3)?,
                // Integer, Float, the refs, NameAndType, Dynamic, InvokeDynamic.
                3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => cursor.skip(4)?,
                // Long and Double take two slots.
                5 | 6 => {
                    cursor.skip(8)?;
                    index = index.saturating_add(1);
                }
                _ => return Err(ClassFileError::UnknownConstant { index, tag }),
            }
            index = index.saturating_add(1);
        }
        Ok(Self {
            bytes: cursor.bytes,
            offsets,
        })
    }

    /// The bytes after the tag of entry `index`, which must have `tag`.
    pub(super) fn entry(
        &self,
        index: u16,
        tag: u8,
        expected: &'static str,
    ) -> Result<&'a [u8], ClassFileError> {
        let bad = ClassFileError::BadConstantRef { index, expected };
        let offset = match self.offsets.get(usize::from(index)) {
            Some(&offset) if offset != 0 => offset as usize,
            _ => return Err(bad),
        };
        match self.bytes.get(offset..) {
            Some([found, rest @ ..]) if *found == tag => Ok(rest),
            _ => Err(bad),
        }
    }

    pub(super) fn utf8_bytes(&self, index: u16) -> Result<&'a [u8], ClassFileError> {
        let bad = ClassFileError::BadConstantRef {
            index,
            expected: "Utf8 constant",
        };
        match self.entry(index, TAG_UTF8, "Utf8 constant")? {
            [hi, lo, text @ ..] => text
                .get(..usize::from(u16::from_be_bytes([*hi, *lo])))
                .ok_or(bad),
            _ => Err(bad),
        }
    }

    pub(super) fn utf8(&self, index: u16) -> Result<Cow<'a, str>, ClassFileError> {
        Ok(decode_modified_utf8(self.utf8_bytes(index)?))
    }

    /// The internal binary name (`java/util/Map$Entry`) of a Class entry.
    pub(super) fn class_name(&self, index: u16) -> Result<Cow<'a, str>, ClassFileError> {
        match self.entry(index, TAG_CLASS, "Class constant")? {
            [hi, lo, ..] => self.utf8(u16::from_be_bytes([*hi, *lo])),
            _ => Err(ClassFileError::BadConstantRef {
                index,
                expected: "Class constant",
            }),
        }
    }
}

/// Class file texts are "modified UTF-8" (JVMS §4.4.7): NUL as two bytes
/// and supplementary characters as surrogate pairs. Nearly every text is
/// plain UTF-8 as well, and is borrowed; the others are decoded, with
/// U+FFFD for what does not decode.
pub(super) fn decode_modified_utf8(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let b0 = bytes[at];
        let continuation = |i: usize| {
            bytes
                .get(at + i)
                .filter(|b| *b & 0xc0 == 0x80)
                .map(|b| u16::from(b & 0x3f))
        };
        if b0 < 0x80 {
            units.push(u16::from(b0));
            at += 1;
        } else if b0 & 0xe0 == 0xc0
            && let Some(b1) = continuation(1)
        {
            units.push((u16::from(b0 & 0x1f) << 6) | b1);
            at += 2;
        } else if b0 & 0xf0 == 0xe0
            && let (Some(b1), Some(b2)) = (continuation(1), continuation(2))
        {
            units.push((u16::from(b0 & 0x0f) << 12) | (b1 << 6) | b2);
            at += 3;
        } else {
            units.push(0xfffd);
            at += 1;
        }
    }
    Cow::Owned(String::from_utf16_lossy(&units))
}
