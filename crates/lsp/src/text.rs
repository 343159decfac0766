//! Text as the protocol addresses it: lines, UTF-16 columns, the
//! identifier under a position, and doc comments made readable.

use lsp_types::Position;

/// The lines of a text, to turn protocol positions (0-based lines, UTF-16
/// columns) into byte offsets and back.
#[derive(Debug)]
pub struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
}

/// An identifier on a line: its UTF-16 columns (0-based, end exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The first column.
    pub start: u32,
    /// One past the last column.
    pub end: u32,
    /// The identifier.
    pub text: String,
}

impl<'t> LineIndex<'t> {
    /// The lines of `text` (`\n` ends a line; a `\r` before it is not part
    /// of the line).
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        Self { text, starts }
    }

    /// The text of 0-based line `line`, without its ending; `None` past
    /// the last line.
    pub fn line(&self, line: u32) -> Option<&'t str> {
        let start = *self.starts.get(line as usize)?;
        let end = self
            .starts
            .get(line as usize + 1)
            .map_or(self.text.len(), |next| next - 1);
        let text = &self.text[start..end.max(start)];
        Some(text.strip_suffix('\r').unwrap_or(text))
    }

    /// The byte offset of `position`, a column past its line's end taken
    /// as the end; `None` past the last line.
    pub fn offset(&self, position: Position) -> Option<usize> {
        let start = *self.starts.get(position.line as usize)?;
        let line = self.line(position.line)?;
        Some(start + byte_of_column(line, position.character))
    }

    /// The position of byte offset `offset` (clamped to the text, and back
    /// to a character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let start = self.starts[line];
        Position {
            line: line as u32,
            character: utf16_len(&self.text[start..offset]),
        }
    }
}

/// The byte offset in `line` of UTF-16 column `column`: the end of the
/// line past it, and the start of a character a column falls inside.
pub fn byte_of_column(line: &str, column: u32) -> usize {
    let mut units = 0;
    for (at, c) in line.char_indices() {
        if units >= column {
            return at;
        }
        units += c.len_utf16() as u32;
        if units > column {
            return at;
        }
    }
    line.len()
}

/// How many UTF-16 code units `text` takes.
pub fn utf16_len(text: &str) -> u32 {
    text.chars().map(|c| c.len_utf16() as u32).sum()
}

/// Whether `c` may be part of a Java identifier.
fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier of `line` that UTF-16 column `column` is in, or that
/// ends right before it (an editor's cursor just after a name).
pub fn word_at(line: &str, column: u32) -> Option<Word> {
    let at = byte_of_column(line, column);
    let mut start = at;
    let mut end = at;
    while let Some(c) = line[end..]
        .chars()
        .next()
        .filter(|&c| is_identifier_char(c))
    {
        end += c.len_utf8();
    }
    while let Some(c) = line[..start]
        .chars()
        .next_back()
        .filter(|&c| is_identifier_char(c))
    {
        start -= c.len_utf8();
    }
    let text = &line[start..end];
    if text.is_empty() || text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let start_column = utf16_len(&line[..start]);
    Some(Word {
        start: start_column,
        end: start_column + utf16_len(text),
        text: text.to_string(),
    })
}

/// A Javadoc comment as Markdown: the `/**`, `*/` and leading `*` gone,
/// `{@code x}` and `{@link x}` as code, block tags (`@param`) on lines of
/// their own.
pub fn javadoc_markdown(comment: &str) -> String {
    let mut lines = Vec::new();
    for line in comment.lines() {
        let mut line = line.trim();
        line = line.strip_prefix("/**").unwrap_or(line);
        line = line.strip_suffix("*/").unwrap_or(line);
        line = line.trim_start();
        if let Some(rest) = line.strip_prefix('*') {
            line = rest.strip_prefix(' ').unwrap_or(rest);
        }
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix('@') {
            let (tag, text) = rest.split_once(' ').unwrap_or((rest, ""));
            lines.push(String::new());
            lines.push(format!("*@{tag}* {text}"));
        } else {
            lines.push(line.to_string());
        }
    }
    let text = lines.join("\n");
    inline_tags_as_code(text.trim())
}

/// `{@code x}`, `{@link x}` and `{@linkplain x}` as Markdown code.
fn inline_tags_as_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{@") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let (tag, body) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        match tag {
            "code" | "link" | "linkplain" | "literal" => {
                out.push('`');
                out.push_str(body.trim());
                out.push('`');
            }
            _ => out.push_str(body.trim()),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_offsets_round_trip_in_utf16_columns() {
        let text = "a\r\nπ𝄞x\n\nlast";
        let lines = LineIndex::new(text);
        assert_eq!(lines.line(0), Some("a"));
        assert_eq!(lines.line(1), Some("π𝄞x"));
        assert_eq!(lines.line(2), Some(""));
        assert_eq!(lines.line(3), Some("last"));
        assert_eq!(lines.line(4), None);
        // π is one unit, 𝄞 two: x is at column 3.
        let x = lines.offset(Position::new(1, 3)).unwrap();
        assert_eq!(&text[x..x + 1], "x");
        assert_eq!(lines.position(x), Position::new(1, 3));
        // Past a line's end: its end; inside a surrogate pair: the pair.
        assert_eq!(lines.offset(Position::new(0, 99)), Some(1));
        assert_eq!(
            lines.offset(Position::new(1, 2)),
            lines.offset(Position::new(1, 1))
        );
        assert_eq!(lines.offset(Position::new(9, 0)), None);
        assert_eq!(lines.position(999), Position::new(3, 4));
    }

    #[test]
    fn the_word_at_a_column_includes_a_cursor_right_after_it() {
        let line = "    animal.eat(food);";
        let word = |column| word_at(line, column).map(|w| (w.start, w.end, w.text));
        assert_eq!(word(4), Some((4, 10, "animal".into())));
        assert_eq!(word(12), Some((11, 14, "eat".into())));
        assert_eq!(word(14), Some((11, 14, "eat".into())));
        assert_eq!(word(2), None);
        assert_eq!(word(200), None);
        assert_eq!(word_at("x = 42;", 5), None);
    }

    #[test]
    fn javadoc_becomes_markdown() {
        let comment = "/**\n     * Feeds {@code animal} with {@link Food#MEAT}.\n     *\n     * @param animal who eats\n     */";
        assert_eq!(
            javadoc_markdown(comment),
            "Feeds `animal` with `Food#MEAT`.\n\n\n*@param* animal who eats"
        );
    }
}
