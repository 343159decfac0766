//! The line → innermost element table.
//!
//! Each line is owned by the innermost elements whose span (javadoc
//! included) covers it. Usually that is one element; a line holding several
//! siblings (`int a, b;`, two one-line methods) has several. Lines outside
//! every element (package and imports) have none. A member generated from
//! an annotation owns the line it is placed on.

use crate::facts::{FileFacts, LineRun, NO_ELEMENT, Origin};

/// Fills `line_runs` and `line_owners` from the elements' spans.
pub(crate) fn build_line_table(facts: &mut FileFacts) {
    let n_lines = facts.n_lines as usize;
    // `primary[l]` is one owner of line l+1; `extra` holds further owners of
    // lines that several siblings share, which are rare.
    let mut primary = vec![NO_ELEMENT; n_lines];
    let mut extra: Vec<(u32, u32)> = Vec::new();
    for (index, element) in facts.elements.iter().enumerate() {
        let index = index as u32;
        let first = element
            .javadoc
            .map_or(element.span.start_line, |(start, _)| {
                start.min(element.span.start_line)
            });
        // A member Lombok generates owns only the line it is placed on:
        // its span may be its whole class's (`@UtilityClass`'s constructor).
        let last = match element.origin {
            Origin::Source => element.span.end_line,
            Origin::Lombok => element.name_pos.line,
        }
        .min(facts.n_lines);
        for line in first.max(1)..=last {
            let slot = &mut primary[line as usize - 1];
            if *slot == NO_ELEMENT || facts.encloses(*slot, index) {
                *slot = index;
            } else {
                extra.push((line, index));
            }
        }
    }
    extra.sort_unstable();

    let mut runs: Vec<LineRun> = Vec::new();
    let mut owners: Vec<u32> = Vec::new();
    let mut extra_at = 0;
    let mut set: Vec<u32> = Vec::new();
    for line in 1..=facts.n_lines {
        set.clear();
        let first = primary[line as usize - 1];
        if first != NO_ELEMENT {
            set.push(first);
        }
        while extra_at < extra.len() && extra[extra_at].0 == line {
            set.push(extra[extra_at].1);
            extra_at += 1;
        }
        if set.len() > 1 {
            // Keep only the innermost: drop every element that encloses
            // another one on the same line.
            let snapshot = set.clone();
            set.retain(|&a| !snapshot.iter().any(|&b| facts.encloses(a, b)));
            set.sort_unstable();
            set.dedup();
            facts.sort_by_appearance(&mut set);
        }
        if set.is_empty() {
            continue;
        }
        if let Some(last) = runs.last_mut() {
            let start = last.first_owner as usize;
            let same = last.last_line + 1 == line
                && owners[start..start + last.n_owners as usize] == set[..];
            if same {
                last.last_line = line;
                continue;
            }
        }
        runs.push(LineRun {
            first_line: line,
            last_line: line,
            first_owner: owners.len() as u32,
            n_owners: set.len() as u32,
        });
        owners.extend_from_slice(&set);
    }
    facts.line_runs = runs;
    facts.line_owners = owners;
}
