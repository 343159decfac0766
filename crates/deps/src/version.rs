//! Ordering Maven versions, to pick the nearest one present when the one
//! asked for is not: `1.2.10` after `1.2.9`, `2.0-beta` before `2.0`.
//!
//! Versions split into items at `.` and `-` and between digits and
//! letters; numbers compare as numbers, and a qualifier compares by its
//! rank (`alpha` < `beta` < `milestone` < `rc` < `snapshot` < release <
//! `sp`) or, when unknown, as text after the known ones. Missing trailing
//! items count as a release `0`, so `1.0` equals `1`.

use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Number(u64),
    Qualifier(u8, String),
}

/// Rank of a qualifier; releases rank 5.
fn rank(qualifier: &str) -> u8 {
    match qualifier {
        "alpha" | "a" => 1,
        "beta" | "b" => 2,
        "milestone" | "m" => 3,
        "rc" | "cr" => 4,
        "snapshot" => 4,
        "" | "ga" | "final" | "release" => 5,
        "sp" => 6,
        _ => 7,
    }
}

fn items(version: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for part in version.split(['.', '-']) {
        let mut rest = part;
        while !rest.is_empty() {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            let (item, tail) = if digits > 0 {
                let (number, tail) = rest.split_at(digits);
                (Item::Number(number.parse().unwrap_or(u64::MAX)), tail)
            } else {
                let letters = rest
                    .find(|c: char| c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let (text, tail) = rest.split_at(letters);
                let text = text.to_ascii_lowercase();
                (Item::Qualifier(rank(&text), text), tail)
            };
            // A release qualifier says nothing (`1-ga` is `1`).
            if !matches!(&item, Item::Qualifier(5, _)) {
                out.push(item);
            }
            rest = tail;
        }
    }
    out
}

fn compare_items(a: Option<&Item>, b: Option<&Item>) -> Ordering {
    let release = Item::Qualifier(5, String::new());
    let zero = Item::Number(0);
    let (a, b) = match (a, b) {
        (None, None) => return Ordering::Equal,
        // What is missing is a zero against a number, a release against a
        // qualifier.
        (None, Some(b @ Item::Number(_))) => (&zero, b),
        (None, Some(b)) => (&release, b),
        (Some(a @ Item::Number(_)), None) => (a, &zero),
        (Some(a), None) => (a, &release),
        (Some(a), Some(b)) => (a, b),
    };
    match (a, b) {
        (Item::Number(x), Item::Number(y)) => x.cmp(y),
        // A number is newer than a qualifier (`1.0.1` after `1.0-rc`).
        (Item::Number(_), Item::Qualifier(..)) => Ordering::Greater,
        (Item::Qualifier(..), Item::Number(_)) => Ordering::Less,
        (Item::Qualifier(r, x), Item::Qualifier(s, y)) => r.cmp(s).then_with(|| x.cmp(y)),
    }
}

/// Orders two Maven versions.
pub fn compare(a: &str, b: &str) -> Ordering {
    let (a, b) = (items(a), items(b));
    (0..a.len().max(b.len()))
        .map(|at| compare_items(a.get(at), b.get(at)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Of `candidates`, the one nearest `asked`: the newest not after it, else
/// the oldest after it.
pub fn nearest<'c>(asked: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let before = candidates
        .iter()
        .filter(|c| compare(c, asked).is_le())
        .max_by(|a, b| compare(a, b));
    let after = candidates
        .iter()
        .filter(|c| compare(c, asked).is_gt())
        .min_by(|a, b| compare(a, b));
    before.or(after).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_maven_orders_them() {
        let ordered = [
            "1.0-alpha1",
            "1.0-beta",
            "1.0-rc1",
            "1",
            "1.0.1",
            "1.2",
            "1.2.9",
            "1.2.10",
            "2.0-SNAPSHOT",
            "2.0",
            "2.0-sp1",
            "10",
        ];
        for pair in ordered.windows(2) {
            assert_eq!(compare(pair[0], pair[1]), Ordering::Less, "{pair:?}");
            assert_eq!(compare(pair[1], pair[0]), Ordering::Greater, "{pair:?}");
        }
        assert_eq!(compare("1.0", "1"), Ordering::Equal);
        assert_eq!(compare("1.0.0", "1-ga"), Ordering::Equal);
    }

    #[test]
    fn the_nearest_version_is_the_newest_before_else_the_oldest_after() {
        let present = ["2.1", "3.9", "3.12.0", "4.0"];
        assert_eq!(nearest("3.11", &present), Some("3.9"));
        assert_eq!(nearest("3.12.0", &present), Some("3.12.0"));
        assert_eq!(nearest("1.0", &present), Some("2.1"));
        assert_eq!(nearest("9", &present), Some("4.0"));
        assert_eq!(nearest("1.0", &[]), None);
    }
}
