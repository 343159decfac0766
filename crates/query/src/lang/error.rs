//! Query errors: what was wrong, where (a caret under the column), what
//! was expected, and the nearest known word.

use serde::Serialize;

use super::ast::Span;

/// Whether the query could not be read, or could not be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorStage {
    /// The text is not a query (a usage error).
    Syntax,
    /// The query is well-formed but the index does not answer it.
    Evaluation,
}

/// An error with its position in the query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct QueryError {
    /// Syntax or evaluation.
    pub stage: ErrorStage,
    /// One line saying what was wrong.
    pub message: String,
    /// Where in the query; `None` when it concerns the whole query.
    pub span: Option<Span>,
    /// What would have been accepted there.
    pub expected: Vec<String>,
    /// The nearest known keyword or element name.
    pub suggestion: Option<String>,
}

impl QueryError {
    /// A syntax error at `span`.
    pub fn syntax(span: Span, message: impl Into<String>, expected: Vec<String>) -> Self {
        Self {
            stage: ErrorStage::Syntax,
            message: message.into(),
            span: Some(span),
            expected,
            suggestion: None,
        }
    }

    /// An evaluation error at `span`.
    pub fn evaluation(span: Option<Span>, message: impl Into<String>) -> Self {
        Self {
            stage: ErrorStage::Evaluation,
            message: message.into(),
            span,
            expected: Vec::new(),
            suggestion: None,
        }
    }

    /// Adds the nearest of `known` to `word` as a suggestion, if one is
    /// near enough.
    pub fn suggesting<'k>(mut self, word: &str, known: impl IntoIterator<Item = &'k str>) -> Self {
        if self.suggestion.is_none() {
            self.suggestion = nearest_word(word, known).map(str::to_string);
        }
        self
    }

    /// The 1-based column (in characters) where the error is.
    pub fn column(&self, query: &str) -> Option<usize> {
        let span = self.span?;
        let start = floor_char_boundary(query, span.start);
        Some(query[..start].chars().count() + 1)
    }

    /// The error as people read it: the message with the column and the
    /// suggestion on one line, then the query with a caret under the spot
    /// and what was expected there.
    pub fn render(&self, query: &str) -> String {
        let mut first = match self.column(query) {
            Some(column) => format!("column {column}: {}", self.message),
            None => self.message.clone(),
        };
        if let Some(suggestion) = &self.suggestion {
            first.push_str(&format!("; did you mean '{suggestion}'?"));
        }
        let Some(span) = self.span else {
            return first;
        };
        let one_line = query.replace(['\n', '\t', '\r'], " ");
        let start = floor_char_boundary(&one_line, span.start);
        let end = floor_char_boundary(&one_line, span.end.max(span.start));
        let pad = one_line[..start].chars().count();
        let width = one_line[start..end].chars().count().max(1);
        let mut caret = format!("  {}{}", " ".repeat(pad), "^".repeat(width));
        if !self.expected.is_empty() {
            caret.push_str(&format!(" expected {}", one_of(&self.expected)));
        }
        format!("{first}\n  {one_line}\n{caret}")
    }
}

/// "a", "a or b", "a, b or c".
pub fn one_of(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The known word nearest to `word` by edit distance, when at most a third
/// of its length, rounded up (and at least 1, at most 3), edits away.
pub fn nearest_word<'k>(word: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let limit = word.chars().count().div_ceil(3).clamp(1, 3);
    known
        .into_iter()
        .filter(|k| *k != word)
        .map(|k| (edit_distance(&word.to_lowercase(), &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, k)| (*d, *k))
        .map(|(_, k)| k)
}

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("callers", "callers"), 0);
        assert_eq!(edit_distance("caller", "callers"), 1);
        assert_eq!(edit_distance("calees", "callees"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn nearest_words_stay_near() {
        let known = ["callers", "callees", "count"];
        assert_eq!(nearest_word("caller", known), Some("callers"));
        assert_eq!(nearest_word("zzz", known), None);
        assert_eq!(nearest_word("cont", known), Some("count"));
    }
}
