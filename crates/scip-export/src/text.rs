//! A Java file's text, for what the index keeps only as byte offsets and
//! line numbers: enclosing ranges in UTF-16 columns, and javadoc.

/// A file's text with the byte offset of each line.
pub struct SourceText {
    text: String,
    /// Byte offset of each line's first byte.
    line_starts: Vec<usize>,
}

impl SourceText {
    /// The text of a file; `None` when it is not UTF-8 (extraction decoded
    /// it lossily, so the index's byte offsets are not this text's).
    pub fn new(bytes: Vec<u8>) -> Option<Self> {
        let text = String::from_utf8(bytes).ok()?;
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Some(Self { text, line_starts })
    }

    /// The 0-based line and UTF-16 column of byte offset `offset`, or
    /// `None` past the end or inside a character.
    pub fn position(&self, offset: u32) -> Option<(i32, i32)> {
        let offset = offset as usize;
        if offset > self.text.len() || !self.text.is_char_boundary(offset) {
            return None;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let column = self.text[self.line_starts[line]..offset]
            .encode_utf16()
            .count();
        Some((line as i32, column as i32))
    }

    /// The 0-based line and UTF-16 column of the first `needle` at or
    /// after byte offset `offset`.
    pub fn find(&self, needle: &str, offset: u32) -> Option<(i32, i32)> {
        let offset = offset as usize;
        let found = self.text.get(offset..)?.find(needle)?;
        self.position((offset + found) as u32)
    }

    /// Line `line` (1-based), without its line break.
    pub fn line(&self, line: u32) -> Option<&str> {
        let index = (line as usize).checked_sub(1)?;
        let start = *self.line_starts.get(index)?;
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |next| next - 1);
        Some(self.text[start..end].trim_end_matches('\r'))
    }

    /// The text of a javadoc comment on lines `first..=last`: without
    /// `/**`, `*/` and the leading `*` of each line; `None` when empty.
    pub fn javadoc(&self, first: u32, last: u32) -> Option<String> {
        let mut lines: Vec<&str> = Vec::new();
        for number in first..=last {
            let mut line = self.line(number)?.trim();
            if number == first {
                line = line.find("/**").map_or(line, |at| &line[at + 3..]);
            }
            if number == last {
                line = line.rfind("*/").map_or(line, |at| &line[..at]);
            }
            let line = line.trim_start();
            let line = line.strip_prefix('*').unwrap_or(line);
            lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end());
        }
        while lines.first().is_some_and(|l| l.is_empty()) {
            lines.remove(0);
        }
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// The length of a name in UTF-16 code units, as SCIP ranges count here.
pub fn utf16_len(name: &str) -> i32 {
    name.encode_utf16().count() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_from_the_line_start() {
        let text = SourceText::new("ab\r\n  ß𝄞x\n".as_bytes().to_vec()).unwrap();
        assert_eq!(text.position(0), Some((0, 0)));
        assert_eq!(text.position(4), Some((1, 0)));
        // `ß` is 2 bytes and 1 unit, `𝄞` 4 bytes and 2 units.
        assert_eq!(text.position(12), Some((1, 5)));
        assert_eq!(text.position(7), None);
        assert_eq!(text.find("x", 4), Some((1, 5)));
        assert_eq!(text.find("q", 0), None);
        assert_eq!(text.line(1), Some("ab"));
        assert_eq!(text.line(2), Some("  ß𝄞x"));
        assert_eq!(utf16_len("ß𝄞"), 3);
    }

    #[test]
    fn javadoc_loses_its_comment_marks() {
        let text = SourceText::new(
            b"  /**\n   * Feeds the animals.\n   *\n   * Twice a day.\n   */\n  /** One line. */\n"
                .to_vec(),
        )
        .unwrap();
        assert_eq!(
            text.javadoc(1, 5).as_deref(),
            Some("Feeds the animals.\n\nTwice a day.")
        );
        assert_eq!(text.javadoc(6, 6).as_deref(), Some("One line."));
    }
}
