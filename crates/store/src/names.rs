//! Sorted name lists stored front-coded: the names a unit's resolution
//! looked up (`units.deps`).
//!
//! Each name is written as the length of the prefix it shares with the
//! name before it, the length of the rest, then the rest's bytes; both
//! lengths as LEB128 varints. Sorted class keys share most of their bytes
//! with their neighbours (`java.util.Map`, `java.util.Map.Entry`), so a
//! list takes about a third of the bytes of the names written out, and a
//! unit carries its names itself instead of ids into a table of names
//! that every first index had to write in its serial tail.

use std::cmp::Ordering;
use std::ops::ControlFlow;

use crate::codec::{Damaged, Reader, write_varint};

/// A list that does not decode: the store is damaged.
#[derive(Debug, PartialEq, Eq)]
pub struct BadNames;

/// `names` front-coded. Any order decodes back as it was; sorted names
/// take the fewest bytes.
pub fn encode_names<N: AsRef<str>>(names: impl IntoIterator<Item = N>) -> Vec<u8> {
    let names = names.into_iter();
    let mut out = Vec::with_capacity(names.size_hint().0 * 12);
    let mut previous: Option<N> = None;
    for name in names {
        let bytes = name.as_ref().as_bytes();
        let before = previous.as_ref().map_or(&[][..], |p| p.as_ref().as_bytes());
        let shared = before.iter().zip(bytes).take_while(|(a, b)| a == b).count();
        write_varint(&mut out, shared as u64);
        write_varint(&mut out, (bytes.len() - shared) as u64);
        out.extend_from_slice(&bytes[shared..]);
        previous = Some(name);
    }
    out
}

/// The names of an [`encode_names`] list.
pub fn decode_names(bytes: &[u8]) -> Result<Vec<String>, BadNames> {
    let mut names = Vec::new();
    for_each_name(bytes, |name| names.push(name.to_string()))?;
    Ok(names)
}

/// Calls `f` with each name of an [`encode_names`] list in turn, without
/// making a string of each.
pub fn for_each_name(bytes: &[u8], mut f: impl FnMut(&str)) -> Result<(), BadNames> {
    let stopped = each_name(bytes, |name| match std::str::from_utf8(name) {
        Ok(name) => {
            f(name);
            ControlFlow::Continue(())
        }
        Err(_) => ControlFlow::Break(()),
    })?;
    match stopped {
        Some(()) => Err(BadNames),
        None => Ok(()),
    }
}

/// Whether a sorted [`encode_names`] list holds `key`: read up to the
/// first name not before it, no string made.
pub fn contains_name(bytes: &[u8], key: &str) -> Result<bool, BadNames> {
    let found = each_name(bytes, |name| match name.cmp(key.as_bytes()) {
        Ordering::Less => ControlFlow::Continue(()),
        Ordering::Equal => ControlFlow::Break(true),
        Ordering::Greater => ControlFlow::Break(false),
    })?;
    Ok(found.unwrap_or(false))
}

/// Calls `f` with each name's bytes in turn until it breaks; what it broke
/// with, `None` when it read them all.
fn each_name<B>(
    bytes: &[u8],
    mut f: impl FnMut(&[u8]) -> ControlFlow<B>,
) -> Result<Option<B>, BadNames> {
    let mut reader = Reader::new(bytes);
    let mut name: Vec<u8> = Vec::new();
    while !reader.is_empty() {
        let shared =
            usize::try_from(reader.varint().map_err(|Damaged| BadNames)?).map_err(|_| BadNames)?;
        let rest = reader.len().map_err(|Damaged| BadNames)?;
        if shared > name.len() {
            return Err(BadNames);
        }
        name.truncate(shared);
        name.extend_from_slice(reader.take(rest).map_err(|Damaged| BadNames)?);
        if let ControlFlow::Break(value) = f(&name) {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What fuzzing kept (`fuzz/corpus/store_names`) decodes or is
    /// refused, without a panic.
    #[test]
    fn the_fuzz_corpus_decodes_without_a_panic() {
        for (_, input) in refscope_test_support::paths::fuzz_corpus("store_names") {
            let _ = decode_names(&input);
        }
    }

    #[test]
    fn names_come_back_as_they_went_in() {
        let long = "x".repeat(300);
        let lists: Vec<Vec<String>> = vec![
            vec![],
            vec![String::new()],
            vec![
                "java.util.Map".into(),
                "java.util.Map.Entry".into(),
                "java.util.Set".into(),
            ],
            // Unsorted, repeated, a prefix after a longer name, and names
            // that share part of a multi-byte character.
            vec!["b".into(), "a".into(), "a".into(), "ab".into(), "a".into()],
            vec![
                "p.Été".into(),
                "p.Ész".into(),
                "p.É".into(),
                long.clone(),
                long + "y",
            ],
        ];
        for names in lists {
            let bytes = encode_names(&names);
            assert_eq!(decode_names(&bytes), Ok(names));
        }
    }

    #[test]
    fn a_sorted_list_is_searched_by_name() {
        let names = [
            "java.util.Map",
            "java.util.Map.Entry",
            "java.util.Set",
            "p.Été",
        ];
        let bytes = encode_names(names);
        for name in names {
            assert_eq!(contains_name(&bytes, name), Ok(true), "{name}");
        }
        for absent in ["", "java", "java.util.Map.E", "java.util.Mapx", "q", "p.É"] {
            assert_eq!(contains_name(&bytes, absent), Ok(false), "{absent}");
        }
        assert_eq!(contains_name(&encode_names::<&str>([]), "a"), Ok(false));
        assert_eq!(contains_name(&bytes[..bytes.len() - 1], "q"), Err(BadNames));
    }

    #[test]
    fn sorted_names_share_their_prefixes() {
        let names = ["java.util.Map", "java.util.Map.Entry", "java.util.Set"];
        let bytes = encode_names(names);
        // 2 + 13, then 2 + 6 (".Entry"), then 2 + 3 ("Set").
        assert_eq!(bytes.len(), 28);
    }

    #[test]
    fn damaged_lists_are_errors() {
        let bytes = encode_names(["java.util.Map", "java.util.Map.Entry"]);
        for cut in 1..bytes.len() {
            // A list cut short either ends between names or fails.
            if let Ok(names) = decode_names(&bytes[..cut]) {
                assert_eq!(names, vec!["java.util.Map"], "cut at {cut}");
            }
        }
        assert_eq!(decode_names(&bytes[..5]), Err(BadNames));
        // More shared bytes than the name before has.
        assert_eq!(decode_names(&[5, 1, b'a']), Err(BadNames));
        // A varint that never ends.
        assert_eq!(decode_names(&[0x80; 12]), Err(BadNames));
        // Bytes that are not UTF-8.
        assert_eq!(decode_names(&[0, 1, 0xff]), Err(BadNames));
    }
}
