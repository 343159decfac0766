//! The parser: golden syntax trees, golden error messages, and a property
//! test that no input makes it panic.

use expect_test::{Expect, expect};
use refscope_query::lang::parse;

fn check(query: &str, expect: Expect) {
    let actual = match parse(query) {
        Ok(tree) => format!("{tree:?}"),
        Err(error) => format!("error: {}", error.render(query)),
    };
    expect.assert_eq(&actual);
}

#[test]
fn selectors() {
    check(
        "com.acme.Shop#order(String, int)",
        expect![[
            r#"Query { expr: Select(Element("com.acme.Shop#order(String, int)"), Span { start: 0, end: 32 }), count: false, history: None }"#
        ]],
    );
    check(
        "src/A.java:40-55",
        expect![[
            r#"Query { expr: Select(Lines { file: "src/A.java", start: 40, end: 55 }, Span { start: 0, end: 16 }), count: false, history: None }"#
        ]],
    );
    check(
        r#"methods "get*" in com.acme under "src/main/*""#,
        expect![[
            r#"Query { expr: Select(Kind(KindSelector { kind_word: "methods", name: Some("get*"), package: Some("com.acme"), path: Some("src/main/*") }), Span { start: 0, end: 45 }), count: false, history: None }"#
        ]],
    );
    check(
        "file Shop.java",
        expect![[
            r#"Query { expr: Select(File("Shop.java"), Span { start: 0, end: 14 }), count: false, history: None }"#
        ]],
    );
    check(
        "changed HEAD~2..HEAD",
        expect![[
            r#"Query { expr: Select(Changed { base: Revision { name: "HEAD~2", span: Span { start: 8, end: 14 } }, head: Some(Revision { name: "HEAD", span: Span { start: 16, end: 20 } }), merge_base: false }, Span { start: 0, end: 20 }), count: false, history: None }"#
        ]],
    );
    check(
        "changed main...feature",
        expect![[
            r#"Query { expr: Select(Changed { base: Revision { name: "main", span: Span { start: 8, end: 12 } }, head: Some(Revision { name: "feature", span: Span { start: 15, end: 22 } }), merge_base: true }, Span { start: 0, end: 22 }), count: false, history: None }"#
        ]],
    );
    check(
        "changed main...",
        expect![[
            r#"Query { expr: Select(Changed { base: Revision { name: "main", span: Span { start: 8, end: 12 } }, head: None, merge_base: true }, Span { start: 0, end: 15 }), count: false, history: None }"#
        ]],
    );
    check(
        "\"a.B#m(int)$lambda1\"",
        expect![[
            r#"Query { expr: Select(Element("a.B#m(int)$lambda1"), Span { start: 0, end: 20 }), count: false, history: None }"#
        ]],
    );
    check(
        "a.B#m(int)$lambda1",
        expect![[
            r#"Query { expr: Select(Element("a.B#m(int)$lambda1"), Span { start: 0, end: 18 }), count: false, history: None }"#
        ]],
    );
}

#[test]
fn pipes_filters_and_sets() {
    check(
        r#"src/Shop.java:42 | callers depth 2 | where kind = method and path !~ "*Test*""#,
        expect![[
            r#"Query { expr: Pipe(Pipe(Select(Lines { file: "src/Shop.java", start: 42, end: 42 }, Span { start: 0, end: 16 }), Relation { relation: Callers, depth: Some(2), direct: false }, Span { start: 17, end: 34 }), Where(And(Compare { field: Kind, op: Eq, value: "method", span: Span { start: 50, end: 56 } }, Compare { field: Path, op: NotMatches, value: "*Test*", span: Span { start: 69, end: 77 } })), Span { start: 35, end: 77 }), count: false, history: None }"#
        ]],
    );
    check(
        "a.A | callers direct | limit 3 | count",
        expect![[
            r#"Query { expr: Pipe(Pipe(Select(Element("a.A"), Span { start: 0, end: 3 }), Relation { relation: Callers, depth: None, direct: true }, Span { start: 4, end: 20 }), Limit(3), Span { start: 21, end: 30 }), count: true, history: None }"#
        ]],
    );
    check(
        "a.A union b.B intersect c.C except d.D",
        expect![[
            r#"Query { expr: Combine(Except, Combine(Union, Select(Element("a.A"), Span { start: 0, end: 3 }), Combine(Intersect, Select(Element("b.B"), Span { start: 10, end: 13 }), Select(Element("c.C"), Span { start: 24, end: 27 }))), Select(Element("d.D"), Span { start: 35, end: 38 })), count: false, history: None }"#
        ]],
    );
    check(
        "at HEAD~1 (a.A | callers) except a.A | callers",
        expect![[
            r#"Query { expr: Combine(Except, At(Revision { name: "HEAD~1", span: Span { start: 3, end: 9 } }, Pipe(Select(Element("a.A"), Span { start: 11, end: 14 }), Relation { relation: Callers, depth: None, direct: false }, Span { start: 15, end: 24 })), Pipe(Select(Element("a.A"), Span { start: 33, end: 36 }), Relation { relation: Callers, depth: None, direct: false }, Span { start: 37, end: 46 })), count: false, history: None }"#
        ]],
    );
    check(
        "a.A | where not (modifier = static or annotation ~ \"Dep*\")",
        expect![[
            r#"Query { expr: Pipe(Select(Element("a.A"), Span { start: 0, end: 3 }), Where(Not(Or(Compare { field: Modifier, op: Eq, value: "static", span: Span { start: 28, end: 34 } }, Compare { field: Annotation, op: Matches, value: "Dep*", span: Span { start: 51, end: 57 } }))), Span { start: 4, end: 58 }), count: false, history: None }"#
        ]],
    );
}

#[test]
fn errors_point_at_the_column_and_suggest() {
    check(
        "a.A | calers",
        expect![[r#"
            error: column 7: unknown stage 'calers'; did you mean 'callers'?
              a.A | calers
                    ^^^^^^ expected callers, callees, refs, impls, overrides, supertypes, subtypes, members, owner, where, limit, count or history"#]],
    );
    check(
        "a.A | where knd = method",
        expect![[r#"
            error: column 13: unknown field 'knd'; did you mean 'kind'?
              a.A | where knd = method
                          ^^^ expected 'kind', 'name', 'id', 'path', 'package', 'modifier', 'annotation', 'type', 'confidence' or 'change'"#]],
    );
    check(
        "a.A | where kind = methd",
        expect![[r#"
            error: column 20: 'methd' is not a kind; did you mean 'method'?
              a.A | where kind = methd
                                 ^^^^^ expected class, interface, enum, record, annotation, anonymous_class, method, annotation_element, constructor, field, record_component, enum_constant, initializer, static_initializer, lambda or type"#]],
    );
    check(
        "a.A | callers depth x",
        expect![[r#"
            error: column 21: unexpected 'x'
              a.A | callers depth x
                                  ^ expected a depth of 1 or more"#]],
    );
    check(
        "a.A | count | callers",
        expect![[r#"
            error: column 13: unexpected '|'
              a.A | count | callers
                          ^ expected the end of the query (count comes last)"#]],
    );
    check(
        "a.A unoin b.B",
        expect![[r#"
            error: column 5: unexpected 'unoin'; did you mean 'union'?
              a.A unoin b.B
                  ^^^^^ expected '|', union, intersect, except or the end of the query"#]],
    );
    check(
        "(a.A | callers",
        expect![[r#"
            error: column 15: unexpected the end of the query
              (a.A | callers
                            ^ expected ')'"#]],
    );
    check(
        "methods \"get*",
        expect![[r#"
            error: column 9: unterminated string
              methods "get*
                      ^^^^^ expected a closing '"'"#]],
    );
    check(
        "| callers",
        expect![[r#"
            error: column 1: unexpected '|'
              | callers
              ^ expected an element id, FILE:LINE, 'file', a kind (methods, classes, ...), 'changed', 'at' or '('"#]],
    );
    check(
        "changed v1",
        expect![[r#"
            error: column 9: 'v1' is not a revision range
              changed v1
                      ^^ expected A..B, A...B, A.. or A..."#]],
    );
    check(
        "a.A | where name ! x",
        expect![[r#"
            error: column 18: '!' stands alone
              a.A | where name ! x
                               ^ expected '!=' or '!~'"#]],
    );
    check(
        "",
        expect![[r#"
            error: column 1: unexpected the end of the query
              
              ^ expected an element id, FILE:LINE, 'file', a kind (methods, classes, ...), 'changed', 'at' or '('"#]],
    );
}

/// A small xorshift generator: the property test needs no crate and is
/// the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces that make near-queries: keywords, operators, ids, locations,
/// quotes, brackets, and odd characters (multi-byte ones included).
const PIECES: &[&str] = &[
    "a.B",
    "a.B#m",
    "a.B#m(int, String)",
    "x.java:3",
    "x.java:3-9",
    "x.java:0",
    "*",
    "?",
    "|",
    "(",
    ")",
    "\"",
    "\"s\"",
    "\\",
    "=",
    "!=",
    "~",
    "!~",
    "!",
    ",",
    "..",
    "a..b",
    "#",
    "callers",
    "callees",
    "refs",
    "impls",
    "overrides",
    "supertypes",
    "subtypes",
    "members",
    "owner",
    "where",
    "limit",
    "count",
    "depth",
    "direct",
    "1",
    "0",
    "99999999999999999999",
    "union",
    "intersect",
    "except",
    "at",
    "changed",
    "file",
    "methods",
    "classes",
    "in",
    "under",
    "kind",
    "name",
    "path",
    "modifier",
    "and",
    "or",
    "not",
    "method",
    "ß",
    "日本",
    "🦀",
    "\t",
    "\n",
    " ",
    "  ",
    "#(",
    "a#(((",
    ")))",
];

#[test]
fn the_parser_never_panics() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let mut n_parsed = 0;
    for _ in 0..20_000 {
        let mut query = String::new();
        for _ in 0..random.below(12) {
            if random.below(8) == 0 {
                // A raw character, sometimes outside ASCII.
                let c = char::from_u32(random.below(0x3000) as u32).unwrap_or('x');
                query.push(c);
            } else {
                query.push_str(PIECES[random.below(PIECES.len())]);
            }
            if random.below(3) > 0 {
                query.push(' ');
            }
        }
        match parse(&query) {
            Ok(_) => n_parsed += 1,
            Err(error) => {
                // Rendering must not panic either, and the caret line
                // must exist.
                let rendered = error.render(&query);
                assert!(!rendered.is_empty(), "{query:?}");
                if let Some(column) = error.column(&query) {
                    assert!(column <= query.chars().count() + 1, "{query:?}");
                }
            }
        }
    }
    // The generator makes valid queries too, not only garbage.
    assert!(n_parsed > 100, "only {n_parsed} generated queries parsed");
}

/// What fuzzing kept (`fuzz/corpus/query_parse`) parses or is refused,
/// without a panic.
#[test]
fn the_fuzz_corpus_parses_without_a_panic() {
    for (_, input) in refscope_test_support::paths::fuzz_corpus("query_parse") {
        if let Ok(text) = std::str::from_utf8(&input) {
            let _ = parse(text);
        }
    }
}

/// Deep nesting is refused, not followed until the stack runs out (the
/// query parser's fuzz target found that deep parentheses crashed it).
#[test]
fn deep_nesting_and_huge_queries_are_refused() {
    for query in [
        "(".repeat(4000),
        format!("{}method{}", "(".repeat(65), ")".repeat(65)),
        format!("method | where {}name = \"x\"", "not ".repeat(100)),
        format!("{}method", "at HEAD ".repeat(100)),
    ] {
        let error = parse(&query).expect_err("refused");
        assert!(error.message.contains("levels deep"), "{}", error.message);
    }
    let nested = format!("{}method{}", "(".repeat(64), ")".repeat(64));
    assert!(parse(&nested).is_ok());
    let long = format!("method{}", " | limit 1".repeat(2000));
    let error = parse(&long).expect_err("refused");
    assert!(
        error.message.contains("longer than 4 KiB"),
        "{}",
        error.message
    );
}
