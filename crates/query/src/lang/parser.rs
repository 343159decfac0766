//! The recursive-descent parser: tokens → [`Query`]. The grammar (EBNF) is
//! in `docs/query-language.md`; each function here is one of its rules.

use super::ast::{
    CompareOp, Condition, Expr, Field, HistoryStage, KindSelector, Query, Relation, Revision,
    Selector, SetOp, Span, Stage,
};
use super::error::QueryError;
use super::lexer::{Token, TokenKind, tokenize};

/// Kind words of the kind selector, with what they select.
pub const KIND_WORDS: [&str; 14] = [
    "elements",
    "types",
    "classes",
    "interfaces",
    "enums",
    "records",
    "annotations",
    "methods",
    "constructors",
    "fields",
    "constants",
    "initializers",
    "lambdas",
    "executables",
];

/// Words that begin a selector besides ids and locations.
const SELECTOR_WORDS: [&str; 3] = ["file", "changed", "at"];

/// Words that begin a stage.
const STAGE_WORDS: [&str; 4] = ["where", "limit", "count", "history"];

/// Words joining two sets.
const SET_WORDS: [&str; 3] = ["union", "intersect", "except"];

/// The deepest nesting of parentheses, `not` and `at` a query may have: the
/// parser and the evaluator recurse once a level, and a query from a
/// client must not run them out of stack.
const MAX_NESTING: usize = 64;

/// The longest query read, in bytes (a query of pipes nests as deep as it
/// has stages).
const MAX_QUERY_BYTES: usize = 4 << 10;

/// Parses a query.
pub fn parse(text: &str) -> Result<Query, QueryError> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(QueryError::syntax(
            Span {
                start: 0,
                end: text.len(),
            },
            format!("the query is longer than {} KiB", MAX_QUERY_BYTES >> 10),
            vec!["a shorter query".into()],
        ));
    }
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    let expr = parser.expr()?;
    let mut count = false;
    let mut history = None;
    if parser.previous_is_pipe() {
        match parser.peek_word() {
            Some("count") => {
                count = true;
                parser.at += 1;
            }
            Some("history") => {
                parser.at += 1;
                let limit = match parser.peek_word() {
                    Some(word) if word.bytes().all(|b| b.is_ascii_digit()) => {
                        Some(parser.number("a number of commits")?)
                    }
                    _ => None,
                };
                history = Some(HistoryStage { limit });
            }
            _ => {}
        }
    }
    let next = parser.peek().clone();
    if next.kind != TokenKind::End {
        let expected = if count {
            vec!["the end of the query (count comes last)".to_string()]
        } else if history.is_some() {
            vec!["the end of the query (history comes last)".to_string()]
        } else {
            vec![
                "'|'".to_string(),
                "union".into(),
                "intersect".into(),
                "except".into(),
                "the end of the query".into(),
            ]
        };
        let error = QueryError::syntax(
            next.span,
            format!("unexpected {}", next.kind.describe()),
            expected,
        );
        return Err(match &next.kind {
            TokenKind::Word(w) => error.suggesting(w, SET_WORDS),
            _ => error,
        });
    }
    Ok(Query {
        expr,
        count,
        history,
    })
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// How deep in parentheses, `not` and `at` the parser is.
    depth: usize,
}

impl Parser {
    /// Runs `inner` one level deeper, or refuses a query nested deeper
    /// than [`MAX_NESTING`] at `span`.
    fn nested<T>(
        &mut self,
        span: Span,
        inner: impl FnOnce(&mut Self) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        if self.depth == MAX_NESTING {
            return Err(QueryError::syntax(
                span,
                format!("nested more than {MAX_NESTING} levels deep"),
                vec!["a query with fewer parentheses".into()],
            ));
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn peek(&self) -> &Token {
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn peek_word(&self) -> Option<&str> {
        match &self.peek().kind {
            TokenKind::Word(w) => Some(w),
            _ => None,
        }
    }

    fn previous_is_pipe(&self) -> bool {
        self.at > 0 && self.tokens[self.at - 1].kind == TokenKind::Pipe
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if self.at < self.tokens.len() - 1 {
            self.at += 1;
        }
        token
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> Result<Token, QueryError> {
        let token = self.next();
        if token.kind == kind {
            Ok(token)
        } else {
            Err(QueryError::syntax(
                token.span,
                format!("unexpected {}", token.kind.describe()),
                vec![what.to_string()],
            ))
        }
    }

    /// `expr = scoped { ("union" | "except") scoped }`, where
    /// `scoped = conj` binds `intersect` tighter.
    fn expr(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.conj()?;
        loop {
            let op = match self.peek_word() {
                Some("union") => SetOp::Union,
                Some("except") => SetOp::Except,
                _ => return Ok(left),
            };
            self.next();
            let right = self.conj()?;
            left = Expr::Combine(op, Box::new(left), Box::new(right));
        }
    }

    /// `conj = scoped { "intersect" scoped }`.
    fn conj(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.scoped()?;
        while self.peek_word() == Some("intersect") {
            self.next();
            let right = self.scoped()?;
            left = Expr::Combine(SetOp::Intersect, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `scoped = "at" REV scoped | pipeline`.
    fn scoped(&mut self) -> Result<Expr, QueryError> {
        if self.peek_word() == Some("at") {
            let at = self.next().span;
            let revision = self.revision("a revision after 'at' (HEAD~1, a tag, a commit id)")?;
            let inner = self.nested(at, Self::scoped)?;
            return Ok(Expr::At(revision, Box::new(inner)));
        }
        self.pipeline()
    }

    fn revision(&mut self, what: &str) -> Result<Revision, QueryError> {
        let token = self.next();
        match token.kind {
            TokenKind::Word(name) | TokenKind::Str(name) => Ok(Revision {
                name,
                span: token.span,
            }),
            other => Err(QueryError::syntax(
                token.span,
                format!("unexpected {}", other.describe()),
                vec![what.to_string()],
            )),
        }
    }

    /// `pipeline = primary { "|" stage }`; a final `| count` is left for
    /// [`parse`].
    fn pipeline(&mut self) -> Result<Expr, QueryError> {
        let mut expr = self.primary()?;
        while self.peek().kind == TokenKind::Pipe {
            let pipe = self.next();
            if matches!(self.peek_word(), Some("count" | "history")) {
                return Ok(expr);
            }
            let start = self.peek().span;
            let stage = self.stage()?;
            let end = self.tokens[self.at.saturating_sub(1)].span;
            expr = Expr::Pipe(Box::new(expr), stage, pipe.span.to(start).to(end));
        }
        Ok(expr)
    }

    /// `primary = "(" expr ")" | "file" PATTERN | "changed" RANGE
    ///          | KINDS [NAME] { "in" PACKAGE | "under" PATH } | LOCATION | ID`.
    fn primary(&mut self) -> Result<Expr, QueryError> {
        let token = self.next();
        let span = token.span;
        match token.kind {
            TokenKind::Open => {
                let inner = self.nested(span, Self::expr)?;
                self.expect(TokenKind::Close, "')'")?;
                Ok(inner)
            }
            TokenKind::Str(text) => Ok(Expr::Select(element_or_lines(&text), span)),
            TokenKind::Word(word) => match word.as_str() {
                "file" => {
                    let (pattern, pattern_span) = self.pattern("a file path or pattern")?;
                    Ok(Expr::Select(Selector::File(pattern), span.to(pattern_span)))
                }
                "changed" => self.changed(span),
                w if KIND_WORDS.contains(&w) => self.kind_selector(word, span),
                w if is_keyword(w) => Err(QueryError::syntax(
                    span,
                    format!("'{w}' cannot start a selection"),
                    selector_expectations(),
                )),
                _ => Ok(Expr::Select(element_or_lines(&word), span)),
            },
            other => Err(QueryError::syntax(
                span,
                format!("unexpected {}", other.describe()),
                selector_expectations(),
            )),
        }
    }

    fn changed(&mut self, keyword: Span) -> Result<Expr, QueryError> {
        let range =
            self.revision("a revision range A..B or A...B (or A.., A... up to the revision read)")?;
        let expected = || vec!["A..B, A...B, A.. or A...".into()];
        // Git forbids `..` in a ref name, so the first run of dots splits.
        let (base, head, dots) = match range.name.split_once("..") {
            Some((base, rest)) => match rest.strip_prefix('.') {
                Some(head) => (base, head, 3),
                None => (base, rest, 2),
            },
            None => {
                return Err(QueryError::syntax(
                    range.span,
                    format!("'{}' is not a revision range", range.name),
                    expected(),
                ));
            }
        };
        if base.is_empty() {
            return Err(QueryError::syntax(
                range.span,
                "the range has no older revision",
                expected(),
            ));
        }
        let base_span = Span::new(range.span.start, range.span.start + base.len());
        let head_start = base_span.end + dots;
        let head = (!head.is_empty()).then(|| Revision {
            name: head.to_string(),
            span: Span::new(head_start, range.span.end),
        });
        Ok(Expr::Select(
            Selector::Changed {
                base: Revision {
                    name: base.to_string(),
                    span: base_span,
                },
                head,
                merge_base: dots == 3,
            },
            keyword.to(range.span),
        ))
    }

    fn kind_selector(&mut self, kind_word: String, start: Span) -> Result<Expr, QueryError> {
        let mut selector = KindSelector {
            kind_word,
            name: None,
            package: None,
            path: None,
        };
        let mut span = start;
        match &self.peek().kind {
            TokenKind::Str(_) => {
                let (name, name_span) = self.pattern("a name pattern")?;
                selector.name = Some(name);
                span = span.to(name_span);
            }
            TokenKind::Word(w) if !is_keyword(w) => {
                let (name, name_span) = self.pattern("a name pattern")?;
                selector.name = Some(name);
                span = span.to(name_span);
            }
            _ => {}
        }
        loop {
            match self.peek_word() {
                Some("in") => {
                    self.next();
                    let (package, package_span) = self.pattern("a package or package pattern")?;
                    selector.package = Some(package);
                    span = span.to(package_span);
                }
                Some("under") => {
                    self.next();
                    let (path, path_span) = self.pattern("a path pattern")?;
                    selector.path = Some(path);
                    span = span.to(path_span);
                }
                _ => return Ok(Expr::Select(Selector::Kind(selector), span)),
            }
        }
    }

    fn pattern(&mut self, what: &str) -> Result<(String, Span), QueryError> {
        let token = self.next();
        match token.kind {
            TokenKind::Word(w) | TokenKind::Str(w) => Ok((w, token.span)),
            other => Err(QueryError::syntax(
                token.span,
                format!("unexpected {}", other.describe()),
                vec![what.to_string()],
            )),
        }
    }

    /// `stage = RELATION { "depth" N | "direct" } | "where" cond
    ///        | "limit" N`.
    fn stage(&mut self) -> Result<Stage, QueryError> {
        let token = self.next();
        let word = match &token.kind {
            TokenKind::Word(w) => w.clone(),
            other => {
                return Err(QueryError::syntax(
                    token.span,
                    format!("unexpected {} after '|'", other.describe()),
                    stage_expectations(),
                ));
            }
        };
        if let Some(relation) = Relation::parse(&word) {
            let mut depth = None;
            let mut direct = false;
            loop {
                match self.peek_word() {
                    Some("depth") => {
                        self.next();
                        let n = self.number("a depth of 1 or more")?;
                        depth = Some(n as u32);
                    }
                    Some("direct") if relation == Relation::Callers => {
                        self.next();
                        direct = true;
                    }
                    _ => break,
                }
            }
            return Ok(Stage::Relation {
                relation,
                depth,
                direct,
            });
        }
        match word.as_str() {
            "where" => Ok(Stage::Where(self.condition()?)),
            "limit" => Ok(Stage::Limit(self.number("a number")?)),
            "count" => Err(QueryError::syntax(
                token.span,
                "count ends a query",
                vec!["count as the last stage".into()],
            )),
            "history" => Err(QueryError::syntax(
                token.span,
                "history ends a query",
                vec!["history as the last stage".into()],
            )),
            _ => {
                let known = Relation::ALL
                    .iter()
                    .map(|r| r.as_str())
                    .chain(STAGE_WORDS)
                    .chain(["depth", "direct"]);
                Err(QueryError::syntax(
                    token.span,
                    format!("unknown stage '{word}'"),
                    stage_expectations(),
                )
                .suggesting(&word, known))
            }
        }
    }

    fn number(&mut self, what: &str) -> Result<usize, QueryError> {
        let token = self.next();
        let parsed = match &token.kind {
            TokenKind::Word(w) => w
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n)),
            _ => None,
        };
        parsed.ok_or_else(|| {
            QueryError::syntax(
                token.span,
                format!("unexpected {}", token.kind.describe()),
                vec![what.to_string()],
            )
        })
    }

    /// `cond = conj { "or" conj }`.
    fn condition(&mut self) -> Result<Condition, QueryError> {
        let mut left = self.condition_conj()?;
        while self.peek_word() == Some("or") {
            self.next();
            let right = self.condition_conj()?;
            left = Condition::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `conj = neg { "and" neg }`.
    fn condition_conj(&mut self) -> Result<Condition, QueryError> {
        let mut left = self.condition_atom()?;
        while self.peek_word() == Some("and") {
            self.next();
            let right = self.condition_atom()?;
            left = Condition::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `neg = "not" neg | "(" cond ")" | FIELD OP VALUE`.
    fn condition_atom(&mut self) -> Result<Condition, QueryError> {
        let token = self.next();
        let fields = || {
            Field::ALL
                .iter()
                .map(|f| format!("'{}'", f.as_str()))
                .collect()
        };
        match token.kind {
            TokenKind::Open => {
                let inner = self.nested(token.span, Self::condition)?;
                self.expect(TokenKind::Close, "')'")?;
                Ok(inner)
            }
            TokenKind::Word(w) if w == "not" => Ok(Condition::Not(Box::new(
                self.nested(token.span, Self::condition_atom)?,
            ))),
            TokenKind::Word(w) => {
                let Some(field) = Field::parse(&w) else {
                    return Err(QueryError::syntax(
                        token.span,
                        format!("unknown field '{w}'"),
                        fields(),
                    )
                    .suggesting(&w, Field::ALL.iter().map(|f| f.as_str())));
                };
                let op_token = self.next();
                let op = match op_token.kind {
                    TokenKind::Eq => CompareOp::Eq,
                    TokenKind::NotEq => CompareOp::NotEq,
                    TokenKind::Tilde => CompareOp::Matches,
                    TokenKind::NotTilde => CompareOp::NotMatches,
                    other => {
                        return Err(QueryError::syntax(
                            op_token.span,
                            format!("unexpected {} after '{w}'", other.describe()),
                            vec!["'='".into(), "'!='".into(), "'~'".into(), "'!~'".into()],
                        ));
                    }
                };
                let (value, span) = self.pattern("a value")?;
                check_value(field, op, &value, span)?;
                Ok(Condition::Compare {
                    field,
                    op,
                    value,
                    span,
                })
            }
            other => Err(QueryError::syntax(
                token.span,
                format!("unexpected {} in a condition", other.describe()),
                fields(),
            )),
        }
    }
}

/// Values that an equality on `kind`, `confidence` or `change` accepts.
pub fn known_values(field: Field) -> Option<Vec<&'static str>> {
    match field {
        Field::Kind => Some(
            refscope_engine::ElementKind::ALL
                .iter()
                .map(|k| k.as_str())
                .chain(["type"])
                .collect(),
        ),
        Field::Confidence => Some(vec!["exact", "external", "ambiguous", "unresolved"]),
        Field::Change => Some(
            refscope_engine::ChangeKind::ALL
                .iter()
                .map(|k| k.as_str())
                .collect(),
        ),
        Field::Modifier => Some(refscope_engine::Modifiers::KEYWORDS.to_vec()),
        _ => None,
    }
}

fn check_value(field: Field, op: CompareOp, value: &str, span: Span) -> Result<(), QueryError> {
    if !matches!(op, CompareOp::Eq | CompareOp::NotEq) {
        return Ok(());
    }
    let Some(known) = known_values(field) else {
        return Ok(());
    };
    if known.contains(&value) {
        return Ok(());
    }
    Err(QueryError::syntax(
        span,
        format!("'{value}' is not a {}", field.as_str()),
        known.iter().map(|k| k.to_string()).collect(),
    )
    .suggesting(value, known))
}

/// A word or string in selector position: `FILE:LINE[-END]` or an id.
fn element_or_lines(text: &str) -> Selector {
    if let Some((file, lines)) = text.rsplit_once(':')
        && !file.is_empty()
    {
        let (start, end) = lines.split_once('-').unwrap_or((lines, lines));
        if let (Ok(start), Ok(end)) = (start.parse::<u32>(), end.parse::<u32>()) {
            return Selector::Lines {
                file: file.to_string(),
                start,
                end,
            };
        }
    }
    Selector::Element(text.to_string())
}

fn is_keyword(word: &str) -> bool {
    KIND_WORDS.contains(&word)
        || SELECTOR_WORDS.contains(&word)
        || STAGE_WORDS.contains(&word)
        || SET_WORDS.contains(&word)
        || Relation::parse(word).is_some()
        || matches!(word, "in" | "under" | "depth" | "direct")
}

fn selector_expectations() -> Vec<String> {
    vec![
        "an element id".into(),
        "FILE:LINE".into(),
        "'file'".into(),
        "a kind (methods, classes, ...)".into(),
        "'changed'".into(),
        "'at'".into(),
        "'('".into(),
    ]
}

fn stage_expectations() -> Vec<String> {
    Relation::ALL
        .iter()
        .map(|r| r.as_str().to_string())
        .chain(STAGE_WORDS.iter().map(|w| w.to_string()))
        .collect()
}
