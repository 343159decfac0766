//! Extraction tests: small Java fixtures in, a compact dump of the facts
//! out, compared with `expect!` snapshots (re-bless with
//! `UPDATE_EXPECT=1 cargo test`).

use std::fmt::Write as _;

use expect_test::{Expect, expect};

use super::extract;
use crate::facts::{FileFacts, NO_ELEMENT};

fn dump_elements(facts: &FileFacts) -> String {
    let mut out = String::new();
    for element in &facts.elements {
        let depth = if element.parent == NO_ELEMENT {
            0
        } else {
            facts.ancestry(element.parent).count()
        };
        let _ = write!(
            out,
            "{}{} {} [{}] {}-{} @{}:{}",
            "  ".repeat(depth),
            element.kind.as_str(),
            element.name,
            element.binary_name,
            element.span.start_line,
            element.span.end_line,
            element.name_pos.line,
            element.name_pos.col,
        );
        if !element.params.is_empty() {
            let params: Vec<String> = element
                .params
                .iter()
                .map(|p| format!("{}|{} {}", p.type_text, p.erased, p.name))
                .collect();
            let _ = write!(out, " ({})", params.join(", "));
        }
        if !element.type_text.is_empty() {
            let _ = write!(out, " : {}|{}", element.type_text, element.type_erased);
        }
        let modifiers: Vec<&str> = element.modifiers.keywords().collect();
        if !modifiers.is_empty() || !element.annotations.is_empty() {
            let _ = write!(
                out,
                " mods={}{}",
                element.annotations.join(" "),
                modifiers.join(" ")
            );
        }
        if !element.type_params.is_empty() {
            let tp: Vec<String> = element
                .type_params
                .iter()
                .map(|t| format!("{}:{}", t.name, t.bounds.join("&")))
                .collect();
            let _ = write!(out, " <{}>", tp.join(","));
        }
        if !element.throws.is_empty() {
            let _ = write!(out, " throws {}", element.throws.join(","));
        }
        if !element.supertypes.is_empty() {
            let _ = write!(out, " super={:?}", element.supertypes);
        }
        if let Some((a, b)) = element.javadoc {
            let _ = write!(out, " doc={a}-{b}");
        }
        out.push('\n');
    }
    out
}

fn dump_sites(facts: &FileFacts) -> String {
    let mut out = String::new();
    for site in &facts.ref_sites {
        let enclosing = match site.enclosing {
            NO_ELEMENT => "-".to_string(),
            i => facts.elements[i as usize].name.clone(),
        };
        let _ = write!(
            out,
            "{} {} @{}:{} recv={:?}",
            site.kind.as_str(),
            site.name,
            site.pos.line,
            site.pos.col,
            site.receiver
        );
        if !site.receiver_text.is_empty() {
            let _ = write!(out, "({})", site.receiver_text);
        }
        if site.n_args != u32::MAX {
            let _ = write!(out, " args={:?}", site.arg_shapes);
        }
        if site.is_qualifier {
            out.push_str(" qualifier");
        }
        if site.anonymous_class != NO_ELEMENT {
            let _ = write!(
                out,
                " anon={}",
                facts.elements[site.anonymous_class as usize].binary_name
            );
        }
        let _ = writeln!(out, " in {enclosing}");
    }
    out
}

fn check_elements(java: &str, expect: Expect) {
    expect.assert_eq(&dump_elements(&extract(java.as_bytes())));
}

fn check_sites(java: &str, expect: Expect) {
    expect.assert_eq(&dump_sites(&extract(java.as_bytes())));
}

#[test]
fn every_declaration_kind() {
    check_elements(
        r#"package p;
import java.util.*;
/** Doc
 */
@Deprecated
public class A<T extends Comparable<? super T>> extends Base implements Runnable {
    private int a = 1,
        b[] = {2};
    static { }
    { }
    A(T t, int... xs) throws java.io.IOException { }
    <U> U m(Map.Entry<String, U> e, @Ann final List<? extends T> l) { return null; }
    enum Color { RED { void f() {} }, GREEN(1); Color() {} Color(int x) {} void f() {} }
    record R(int x, @Deprecated String y) { R { } static int z; }
    @interface Ann { int value() default 1; }
    interface I { int K = 1, L = 2; void m(); }
    Runnable r = () -> {
        class Local { }
    };
    Object o = new Object() { int f; };
    public void run() {}
}
"#,
        expect![[r#"
            class A [p.A] 5-22 @6:14 mods=@Deprecatedpublic <T:Comparable> super=["Base", "Runnable"] doc=3-4
              field a [p.A] 7-7 @7:17 : int|int mods=private
              field b [p.A] 7-8 @8:9 : int[]|int[] mods=private
              static_initializer <clinit> [p.A] 9-9 @9:5 mods=static
              initializer <instinit> [p.A] 10-10 @10:5
              constructor <init> [p.A] 11-11 @11:5 (T|T t, int...|int[] xs) throws java.io.IOException
              method m [p.A] 12-12 @12:11 (Map.Entry<String, U>|Map.Entry e, List<? extends T>|List l) : U|U <U:>
              enum Color [p.A$Color] 13-13 @13:10
                enum_constant RED [p.A$Color] 13-13 @13:18
                  anonymous_class <anonymous> [p.A$Color$1] 13-13 @13:22 super=["Color"]
                    method f [p.A$Color$1] 13-13 @13:29 : void|void
                enum_constant GREEN [p.A$Color] 13-13 @13:39
                constructor <init> [p.A$Color] 13-13 @13:49
                constructor <init> [p.A$Color] 13-13 @13:60 (int|int x)
                method f [p.A$Color] 13-13 @13:81 : void|void
              record R [p.A$R] 14-14 @14:12 (int|int x, String|String y)
                record_component x [p.A$R] 14-14 @14:18 : int|int
                record_component y [p.A$R] 14-14 @14:40 : String|String mods=@Deprecated
                constructor <init> [p.A$R] 14-14 @14:45 (int|int x, String|String y)
                field z [p.A$R] 14-14 @14:62 : int|int mods=static
              annotation Ann [p.A$Ann] 15-15 @15:16
                annotation_element value [p.A$Ann] 15-15 @15:26 : int|int
              interface I [p.A$I] 16-16 @16:15
                field K [p.A$I] 16-16 @16:23 : int|int
                field L [p.A$I] 16-16 @16:30 : int|int
                method m [p.A$I] 16-16 @16:42 : void|void
              field r [p.A] 17-19 @17:14 : Runnable|Runnable
                lambda <lambda> [p.A] 17-19 @17:18
                  class Local [p.A$1Local] 18-18 @18:15 super=[""]
              field o [p.A] 20-20 @20:12 : Object|Object
                anonymous_class <anonymous> [p.A$1] 20-20 @20:20 : Object|Object super=["Object"]
                  field f [p.A$1] 20-20 @20:35 : int|int
              method run [p.A] 21-21 @21:17 : void|void mods=public
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    let facts = extract(b"class A { void ok() {} void broken( { } int f; }");
    assert!(facts.diagnostics.n_syntax_errors > 0);
    let names: Vec<&str> = facts.elements.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"A") && names.contains(&"ok"), "{names:?}");
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_counted() {
    let mut bytes = b"class A { String s = \"".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b"\"; void m() {} }");
    let facts = extract(&bytes);
    assert_eq!(facts.diagnostics.n_invalid_utf8_bytes, 2);
    assert!(facts.elements.iter().any(|e| e.name == "m"));
}

#[test]
fn nul_bytes_do_not_end_the_file() {
    let facts = extract(b"class A {\n String s = \"\0\0\0\";\n void m() {}\n}\n");
    assert!(facts.elements.iter().any(|e| e.name == "m"));
}

#[test]
fn empty_and_garbage_input_yield_facts() {
    assert!(extract(b"").elements.is_empty());
    let garbage = extract(b"\x00\x01\x02 }}}{{{ ;;; class");
    assert!(garbage.diagnostics.n_syntax_errors > 0);
}

#[test]
fn columns_count_utf16_units() {
    // 'größe' has non-ASCII letters; '😀' is two UTF-16 units.
    check_elements(
        "class Ä { int größe; /*😀*/ int x; }\n",
        expect![[r#"
            class Ä [Ä] 1-1 @1:7 super=[""]
              field größe [Ä] 1-1 @1:15 : int|int
              field x [Ä] 1-1 @1:33 : int|int
        "#]],
    );
}

#[test]
fn reference_sites() {
    check_sites(
        r#"class A extends B {
    int f;
    A() { this(1); }
    A(int x) { super(x, "s"); }
    void m(String s, int local) {
        foo();
        s.length();
        this.f = local;
        super.g(1, 2.0, null);
        Outer.this.h();
        java.util.List.of(1).size();
        new A(s) { };
        Runnable r = A::new;
        java.util.function.Function<String, Integer> len = String::length;
        int n = f + CONSTANT;
        switch (e) { case RED: break; }
    }
}
"#,
        expect![[r#"
            ctor_call this @3:11 recv=Implicit args=[IntLiteral] in <init>
            ctor_call super @4:16 recv=Implicit args=[Name, StringLiteral] in <init>
            call foo @6:9 recv=Implicit args=[] in m
            call length @7:11 recv=Name(s) args=[] in m
            field_access f @8:14 recv=This(this) in m
            call g @9:15 recv=Super(super) args=[IntLiteral, FloatLiteral, NullLiteral] in m
            call h @10:20 recv=QualifiedThis(Outer.this) args=[] in m
            name Outer @10:9 recv=Implicit qualifier in m
            call size @11:30 recv=Call(java.util.List.of(1)) args=[] in m
            call of @11:24 recv=FieldAccess(java.util.List) args=[IntLiteral] in m
            field_access List @11:19 recv=FieldAccess(java.util) qualifier in m
            field_access util @11:14 recv=Name(java) qualifier in m
            name java @11:9 recv=Implicit qualifier in m
            new A @12:13 recv=Implicit args=[Name] anon=A$1 in m
            method_ref new @13:25 recv=Name(A) in m
            name A @13:22 recv=Implicit qualifier in m
            method_ref length @14:68 recv=Name(String) in m
            name String @14:60 recv=Implicit qualifier in m
            name f @15:17 recv=Implicit in m
            name CONSTANT @15:21 recv=Implicit in m
            name e @16:17 recv=Implicit in m
            name RED @16:27 recv=Implicit in m
        "#]],
    );
}

#[test]
fn line_table_gives_innermost_owners() {
    let java = "package p;\n\
                class A {\n\
                  /** doc */\n\
                  @Deprecated\n\
                  void m() {\n\
                    Runnable r = () -> {\n\
                      go();\n\
                    };\n\
                  }\n\
                  int a, b;\n\
                \n\
                }\n";
    let facts = extract(java.as_bytes());
    let owner_names = |line: u32| -> Vec<String> {
        facts
            .owners_of_line(line)
            .iter()
            .map(|&i| {
                let e = &facts.elements[i as usize];
                format!("{}:{}", e.kind.as_str(), e.name)
            })
            .collect()
    };
    assert!(owner_names(1).is_empty());
    assert_eq!(owner_names(2), ["class:A"]);
    assert_eq!(
        owner_names(3),
        ["method:m"],
        "javadoc belongs to the method"
    );
    assert_eq!(owner_names(4), ["method:m"], "annotation line");
    assert_eq!(owner_names(6), ["lambda:<lambda>"]);
    assert_eq!(owner_names(7), ["lambda:<lambda>"]);
    assert_eq!(owner_names(9), ["method:m"]);
    assert_eq!(owner_names(10), ["field:a", "field:b"]);
    assert_eq!(owner_names(11), ["class:A"]);
    assert!(owner_names(13).is_empty());
}

#[test]
fn lone_carriage_returns_end_lines_like_javac() {
    let facts = extract(b"class A {\r  void m() {}\r\n  int f;\r}\r");
    let lines: Vec<(String, u32)> = facts
        .elements
        .iter()
        .map(|e| (e.name.clone(), e.name_pos.line))
        .collect();
    assert_eq!(
        lines,
        [
            ("A".to_string(), 1),
            ("m".to_string(), 2),
            ("f".to_string(), 3)
        ]
    );
    assert_eq!(facts.n_lines, 4);
}

/// The walk fetches the named children of a node with few children by
/// index and steps through those of a node with many with a cursor: both
/// must see the same things, field positions and javadoc included.
#[test]
fn nodes_with_many_children_are_walked_like_nodes_with_few() {
    // More members, and more array elements, than a node may have for its
    // children to be fetched by index.
    const N: usize = 30;
    let member = |i: usize| {
        format!(
            "  /** Doc {i:02}. */ int m{i:02}(int p) {{ return a.b.c(p, d.e, new int[] {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}).f; }}\n"
        )
    };
    let one = extract(format!("class A {{\n{}}}\n", member(0)).as_bytes());
    let many =
        extract(format!("class A {{\n{}}}\n", (0..N).map(member).collect::<String>()).as_bytes());
    assert_eq!(
        many.elements.len(),
        1 + N * one.elements.len().saturating_sub(1)
    );
    for (i, method) in many
        .elements
        .iter()
        .filter(|e| e.name.starts_with('m'))
        .enumerate()
    {
        assert_eq!(method.name, format!("m{i:02}"));
        let doc = method.javadoc.expect("each method keeps its javadoc");
        assert_eq!(doc.0, 2 + i as u32, "m{i}'s javadoc line");
    }
    // Every member's sites, read as if it were the only one.
    let sites_of = |facts: &FileFacts, line: u32| -> String {
        let mut shifted = facts.clone();
        shifted.ref_sites.retain(|s| s.pos.line == line);
        for site in &mut shifted.ref_sites {
            site.pos.line = 2;
            site.enclosing = 1;
        }
        shifted.elements.truncate(2);
        dump_sites(&shifted)
    };
    let expected = sites_of(&one, 2);
    assert!(expected.contains("qualifier"), "{expected}");
    for i in 0..N as u32 {
        assert_eq!(sites_of(&many, 2 + i), expected, "member {i}");
    }
}

/// Line starts after LF, CRLF and lone CRs, runs of them included: the
/// line of every byte, checked against a byte-by-byte count.
#[test]
fn line_index_counts_every_kind_of_line_end() {
    let text = "a\nb\r\nc\rd\r\r\ne\n\n\r\rf\r";
    let source = super::syntax::SourceText::new(text);
    let bytes = text.as_bytes();
    let mut line = 1;
    for (i, &b) in bytes.iter().enumerate() {
        assert_eq!(source.line_of(i as u32), line, "byte {i}");
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            line += 1;
        }
    }
    assert_eq!(source.n_lines(), 10);
}

/// Every node's start line and column and its end line, taken from
/// tree-sitter's rows where they agree with javac's lines, equal those
/// found from the byte offsets alone, lone CRs (which tree-sitter does not
/// count) and non-ASCII text included.
#[test]
fn node_positions_follow_javac_lines() {
    let text = "class A {\r  int a;\r\n  String s = \"é\u{1F600}\"; int b;\r\r\n  void m() {\n    m();\r  }\n}\r";
    let source = super::syntax::SourceText::new(text);
    let tree = super::parse_only(text.as_bytes()).expect("parses");
    let mut cursor = tree.walk();
    let mut seen = 0;
    loop {
        let node = cursor.node();
        let start = node.start_byte();
        let line = source.line_of(start as u32);
        let line_start = (0..=start)
            .rev()
            .find(|&b| source.line_of(b as u32) != line)
            .map_or(0, |b| b + 1);
        let col = text[line_start..start].encode_utf16().count() as u32 + 1;
        let position = source.start(node);
        assert_eq!((position.line, position.col), (line, col), "{node:?}");
        assert_eq!(source.start_line(node), line, "{node:?}");
        let last = node.end_byte().max(start + 1) - 1;
        assert_eq!(
            source.end_line(node),
            source.line_of(last as u32),
            "{node:?}"
        );
        seen += 1;
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                assert!(seen > 30, "walked {seen} nodes");
                return;
            }
        }
    }
}

/// What fuzzing kept (`fuzz/corpus/java_extract`) extracts without a panic.
#[test]
fn the_fuzz_corpus_extracts_without_a_panic() {
    for (_, input) in refscope_test_support::paths::fuzz_corpus("java_extract") {
        let _ = extract(&input);
    }
}
