//! The lexer: query text → tokens with byte spans.
//!
//! Words are generous, because element ids, paths and revisions share the
//! query with keywords: a word runs until white space or one of `|()"=,`
//! and `!`; a `~` or `!` only starts an operator at the start of a token
//! (so `HEAD~1` is one word); and a word holding `#` takes a parameter
//! list that follows it without space (`Shop#order(String, int)`).
//! Keywords are words too: the parser decides what a word means where it
//! stands.

use super::ast::Span;
use super::error::QueryError;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// A word: keyword, element id, path, revision, number or pattern.
    Word(String),
    /// A double-quoted string, unescaped.
    Str(String),
    /// `|`.
    Pipe,
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `=`.
    Eq,
    /// `!=`.
    NotEq,
    /// `~` (glob match).
    Tilde,
    /// `!~`.
    NotTilde,
    /// `,`.
    Comma,
    /// The end of the query.
    End,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Byte span in the query text.
    pub span: Span,
}

impl TokenKind {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Self::Word(w) => format!("'{w}'"),
            Self::Str(s) => format!("\"{s}\""),
            Self::Pipe => "'|'".into(),
            Self::Open => "'('".into(),
            Self::Close => "')'".into(),
            Self::Eq => "'='".into(),
            Self::NotEq => "'!='".into(),
            Self::Tilde => "'~'".into(),
            Self::NotTilde => "'!~'".into(),
            Self::Comma => "','".into(),
            Self::End => "the end of the query".into(),
        }
    }
}

/// Splits a query into tokens, ending with [`TokenKind::End`].
pub fn tokenize(text: &str) -> Result<Vec<Token>, QueryError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0usize;
    while i < bytes.len() {
        let c = text[i..].chars().next().expect("inside the text");
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let single = |kind: TokenKind, len: usize| Token {
            kind,
            span: Span::new(start, start + len),
        };
        let token = match c {
            '|' => single(TokenKind::Pipe, 1),
            '(' => single(TokenKind::Open, 1),
            ')' => single(TokenKind::Close, 1),
            '=' => single(TokenKind::Eq, 1),
            ',' => single(TokenKind::Comma, 1),
            '~' => single(TokenKind::Tilde, 1),
            '!' => match bytes.get(i + 1) {
                Some(b'=') => single(TokenKind::NotEq, 2),
                Some(b'~') => single(TokenKind::NotTilde, 2),
                _ => {
                    return Err(QueryError::syntax(
                        Span::new(start, start + 1),
                        "'!' stands alone",
                        vec!["'!='".into(), "'!~'".into()],
                    ));
                }
            },
            '"' => lex_string(text, start)?,
            _ => lex_word(text, start),
        };
        i = token.span.end;
        tokens.push(token);
    }
    tokens.push(Token {
        kind: TokenKind::End,
        span: Span::new(text.len(), text.len()),
    });
    Ok(tokens)
}

fn lex_string(text: &str, start: usize) -> Result<Token, QueryError> {
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        match c {
            '"' => {
                return Ok(Token {
                    kind: TokenKind::Str(value),
                    span: Span::new(start, start + 1 + offset + 1),
                });
            }
            '\\' => match chars.next() {
                Some((_, escaped)) => value.push(escaped),
                None => break,
            },
            _ => value.push(c),
        }
    }
    Err(QueryError::syntax(
        Span::new(start, text.len()),
        "unterminated string",
        vec!["a closing '\"'".into()],
    ))
}

fn is_word_char(c: char) -> bool {
    !(c.is_whitespace() || matches!(c, '|' | '(' | ')' | '"' | '=' | ',' | '!'))
}

fn lex_word(text: &str, start: usize) -> Token {
    let mut end = start;
    for (offset, c) in text[start..].char_indices() {
        if !is_word_char(c) {
            break;
        }
        end = start + offset + c.len_utf8();
    }
    // `Owner#member(params)`: the parameter list belongs to the id, commas
    // and spaces included, up to the matching `)`.
    if text[start..end].contains('#') && text[end..].starts_with('(') {
        let mut depth = 0usize;
        for (offset, c) in text[end..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end += offset + 1;
                        // Anything glued on after the list (`$lambda1`)
                        // still belongs to the word.
                        let rest = text[end..]
                            .char_indices()
                            .find(|&(_, c)| !is_word_char(c))
                            .map_or(text.len() - end, |(o, _)| o);
                        end += rest;
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    Token {
        kind: TokenKind::Word(text[start..end].to_string()),
        span: Span::new(start, end),
    }
}
