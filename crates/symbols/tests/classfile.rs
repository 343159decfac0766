//! Class files read into signatures: the JDK's (from its jmods), jars, and
//! a fixture compiled with the `javac` on `PATH`.
//!
//! These tests need a JDK with `jmods` and `javac` (JDK 17 on every CI
//! machine): they are opt-in (`--features full-tests`), and fail, rather
//! than skip, without one. `stub_jdk.rs` reads class files without them. Snapshots are re-blessed with
//! `UPDATE_EXPECT=1 cargo test -p refscope-symbols --test classfile`.

#![cfg(feature = "full-tests")]

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use expect_test::expect;
use refscope_symbols::classfile::{ClassPath, parse_class};
use refscope_symbols::{
    ClassKind, ClassSig, MethodSig, Prim, TypeArg, TypeParamSig, TypeSig, flags,
};
use refscope_symbols::{JdkOrigin, JdkTypes};

/// One javac run for every fixture class; each test reads what it needs.
const FIXTURE: &str = r#"
package p;

import java.util.*;
import java.util.function.Function;

public class Outer<T> {
    public int 𝑥;
    protected transient List<? super T> sink;
    static final String[][] GRID = {};

    public class Inner {
        public Inner(String s) {}
    }

    public class GenericInner<U> {
        GenericInner(List<U> list, T t) {}
    }

    private static class Nested {
        Nested(int x) {}
    }

    public enum Color {
        RED("r"),
        GREEN("g") {
            @Override
            public String code() { return "G"; }
        };

        private final String code;

        Color(String code) { this.code = code; }

        public String code() { return code; }
    }

    public enum Plain { A, B }

    public record Point(int x, int y) implements Comparable<Point> {
        public int compareTo(Point other) { return 0; }
    }

    public @interface Marker {
        String value() default "";
        int[] numbers();
    }

    public interface Shape<S extends Shape<S>> {
        double area();
        default S self() { return null; }
        static int count() { return 0; }
        private void helper() {}
    }

    public static <K extends Comparable<? super K>, V> Map<K, List<V>> group(
            Collection<? extends V> values, Function<? super V, K> key) throws java.io.IOException {
        return null;
    }

    public static String join(String separator, Object... parts) { return ""; }

    public <X extends Number & Comparable<X>> X max(X[] xs) { return null; }

    public <C extends Comparable<C>> void sortable(C c) {}

    Outer<String>.Inner make() { return new Outer<String>().new Inner(""); }

    Outer<T>.GenericInner<Integer> makeGeneric() { return null; }

    Object anonymous() { return new Object() {}; }

    Runnable lambda() { return () -> {}; }

    static {
        System.out.println();
    }
}
"#;

struct Fixture {
    /// Where javac wrote; removed with the fixture.
    _dir: tempfile::TempDir,
    /// Class file paths relative to the output directory, sorted, with
    /// their bytes.
    classes: Vec<(String, Vec<u8>)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE_CLASSES: OnceLock<Fixture> = OnceLock::new();
    FIXTURE_CLASSES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("src/p/Outer.java");
        std::fs::create_dir_all(source.parent().unwrap()).unwrap();
        std::fs::write(&source, FIXTURE).unwrap();
        let out = dir.path().join("classes");
        let status = std::process::Command::new("javac")
            .args(["-encoding", "UTF-8", "-d"])
            .arg(&out)
            .arg(&source)
            .status()
            .expect("these tests need `javac` (JDK 17 or later) on PATH");
        assert!(status.success(), "javac failed on the fixture");
        let mut classes = Vec::new();
        for entry in std::fs::read_dir(out.join("p")).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            classes.push((relative, std::fs::read(&path).unwrap()));
        }
        classes.sort();
        Fixture { _dir: dir, classes }
    })
}

fn fixture_class(relative: &str) -> &'static [u8] {
    &fixture()
        .classes
        .iter()
        .find(|(path, _)| path == relative)
        .unwrap_or_else(|| panic!("javac wrote no {relative}"))
        .1
}

fn jdk() -> &'static JdkTypes {
    static JDK: OnceLock<JdkTypes> = OnceLock::new();
    JDK.get_or_init(|| {
        let jdk = JdkTypes::discover().expect("the JDK's jmods can be read");
        assert!(
            matches!(jdk.origin, JdkOrigin::Jmods(_)),
            "these tests need a JDK with jmods (JDK 17 on CI): found {:?}; set JAVA_HOME to one",
            jdk.origin
        );
        jdk
    })
}

fn jdk_class_path() -> &'static ClassPath {
    static CLASS_PATH: OnceLock<ClassPath> = OnceLock::new();
    CLASS_PATH.get_or_init(|| ClassPath::new(jdk(), &[]).unwrap())
}

fn load(name: &str) -> Arc<ClassSig> {
    jdk_class_path()
        .load(name)
        .unwrap_or_else(|| panic!("{name} does not load from the JDK"))
}

fn methods<'a>(class: &'a ClassSig, name: &str) -> Vec<&'a MethodSig> {
    class.methods.iter().filter(|m| &*m.name == name).collect()
}

fn class_type(name: &str, args: Vec<TypeArg>) -> TypeSig {
    TypeSig::Class {
        name: name.into(),
        args,
    }
}

fn var(name: &str) -> TypeSig {
    TypeSig::Var(name.into())
}

fn render_type(ty: &TypeSig) -> String {
    match ty {
        TypeSig::Prim(prim) => prim.as_str().to_string(),
        TypeSig::Class { name, args } if args.is_empty() => name.to_string(),
        TypeSig::Class { name, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|arg| match arg {
                    TypeArg::Type(ty) => render_type(ty),
                    TypeArg::Extends(ty) => format!("? extends {}", render_type(ty)),
                    TypeArg::Super(ty) => format!("? super {}", render_type(ty)),
                    TypeArg::Any => "?".to_string(),
                })
                .collect();
            format!("{name}<{}>", args.join(", "))
        }
        TypeSig::Var(name) => name.to_string(),
        TypeSig::Array(element) => format!("{}[]", render_type(element)),
        TypeSig::Unknown(name) => format!("?{name}"),
    }
}

fn render_type_params(params: &[TypeParamSig]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let params: Vec<String> = params
        .iter()
        .map(|param| {
            let bounds: Vec<String> = param.bounds.iter().map(render_type).collect();
            if bounds.is_empty() {
                param.name.to_string()
            } else {
                format!("{} extends {}", param.name, bounds.join(" & "))
            }
        })
        .collect();
    format!("<{}> ", params.join(", "))
}

fn render_flags(bits: u16) -> String {
    let names = [
        (flags::PUBLIC, "public"),
        (flags::PRIVATE, "private"),
        (flags::PROTECTED, "protected"),
        (flags::STATIC, "static"),
        (flags::FINAL, "final"),
        (flags::ABSTRACT, "abstract"),
        (flags::VARARGS, "varargs"),
        (flags::DEFAULT, "default"),
    ];
    names
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| format!(" {name}"))
        .collect()
}

/// One line per class, supertype and member; members in class file order.
fn render_class(class: &ClassSig) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{:?} {}{} [{}]{}",
        class.kind,
        render_type_params(&class.type_params),
        class.name,
        class.binary_name,
        render_flags(class.flags)
    )
    .unwrap();
    if let Some(superclass) = &class.superclass {
        writeln!(out, "  extends {}", render_type(superclass)).unwrap();
    }
    for interface in &class.interfaces {
        writeln!(out, "  implements {}", render_type(interface)).unwrap();
    }
    for field in &class.fields {
        writeln!(
            out,
            "  field {}: {}{}",
            field.name,
            render_type(&field.ty),
            render_flags(field.flags)
        )
        .unwrap();
    }
    for method in &class.methods {
        let params: Vec<String> = method.params.iter().map(render_type).collect();
        writeln!(
            out,
            "  method {}{}({}): {}{}",
            render_type_params(&method.type_params),
            method.name,
            params.join(", "),
            render_type(&method.ret),
            render_flags(method.flags)
        )
        .unwrap();
    }
    out
}

#[test]
fn fixture_classes_read_with_generics_and_source_modifiers() {
    let mut out = String::new();
    for (path, bytes) in &fixture().classes {
        let class = parse_class(bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        writeln!(out, "{path}").unwrap();
        out.push_str(&render_class(&class));
    }
    expect![[r#"
        p/Outer$1.class
        Class p.Outer$1 [p.Outer$1]
          extends java.lang.Object
          method <init>(p.Outer): void
        p/Outer$Color$1.class
        Class p.Outer$Color$1 [p.Outer$Color$1] final
          extends p.Outer.Color
          method <init>(java.lang.String, int, java.lang.String): void private
          method code(): java.lang.String public
        p/Outer$Color.class
        Enum p.Outer.Color [p.Outer$Color] public static
          extends java.lang.Enum<p.Outer.Color>
          field RED: p.Outer.Color public static final
          field GREEN: p.Outer.Color public static final
          field code: java.lang.String private final
          method values(): p.Outer.Color[] public static
          method valueOf(java.lang.String): p.Outer.Color public static
          method <init>(java.lang.String): void private
          method code(): java.lang.String public
        p/Outer$GenericInner.class
        Class <U> p.Outer.GenericInner [p.Outer$GenericInner] public
          extends java.lang.Object
          method <init>(java.util.List<U>, T): void
        p/Outer$Inner.class
        Class p.Outer.Inner [p.Outer$Inner] public
          extends java.lang.Object
          method <init>(java.lang.String): void public
        p/Outer$Marker.class
        Annotation p.Outer.Marker [p.Outer$Marker] public static abstract
          implements java.lang.annotation.Annotation
          method value(): java.lang.String public abstract
          method numbers(): int[] public abstract
        p/Outer$Nested.class
        Class p.Outer.Nested [p.Outer$Nested] private static
          extends java.lang.Object
          method <init>(int): void
        p/Outer$Plain.class
        Enum p.Outer.Plain [p.Outer$Plain] public static final
          extends java.lang.Enum<p.Outer.Plain>
          field A: p.Outer.Plain public static final
          field B: p.Outer.Plain public static final
          method values(): p.Outer.Plain[] public static
          method valueOf(java.lang.String): p.Outer.Plain public static
          method <init>(): void private
        p/Outer$Point.class
        Record p.Outer.Point [p.Outer$Point] public static final
          extends java.lang.Record
          implements java.lang.Comparable<p.Outer.Point>
          field x: int private final
          field y: int private final
          method <init>(int, int): void public
          method compareTo(p.Outer.Point): int public
          method toString(): java.lang.String public final
          method hashCode(): int public final
          method equals(java.lang.Object): boolean public final
          method x(): int public
          method y(): int public
        p/Outer$Shape.class
        Interface <S extends p.Outer.Shape<S>> p.Outer.Shape [p.Outer$Shape] public static abstract
          method area(): double public abstract
          method self(): S public default
          method count(): int public static
          method helper(): void private
        p/Outer.class
        Class <T> p.Outer [p.Outer] public
          extends java.lang.Object
          field 𝑥: int public
          field sink: java.util.List<? super T> protected
          field GRID: java.lang.String[][] static final
          method <init>(): void public
          method <K extends java.lang.Comparable<? super K>, V> group(java.util.Collection<? extends V>, java.util.function.Function<? super V, K>): java.util.Map<K, java.util.List<V>> public static
          method join(java.lang.String, java.lang.Object[]): java.lang.String public static varargs
          method <X extends java.lang.Number & java.lang.Comparable<X>> max(X[]): X public
          method <C extends java.lang.Comparable<C>> sortable(C): void public
          method make(): p.Outer.Inner
          method makeGeneric(): p.Outer.GenericInner<java.lang.Integer>
          method anonymous(): java.lang.Object
          method lambda(): java.lang.Runnable
    "#]]
    .assert_eq(&out);
}

#[test]
fn jdk_inner_class_constructor_drops_the_outer_instance() {
    // `HashMap.KeySet` is an inner class whose constructor has no generic
    // signature: its descriptor is `(Ljava/util/HashMap;)V`.
    let key_set = load("java.util.HashMap.KeySet");
    assert_eq!(&*key_set.binary_name, "java.util.HashMap$KeySet");
    assert_eq!(key_set.flags & flags::STATIC, 0);
    let constructors = methods(&key_set, "<init>");
    assert_eq!(constructors.len(), 1);
    assert_eq!(constructors[0].params, vec![]);
    // With a generic signature the constructor keeps its declared
    // parameters: the Signature attribute has no outer instance.
    let entry_iterator = load("java.util.TreeMap.EntryIterator");
    let constructors = methods(&entry_iterator, "<init>");
    assert_eq!(constructors.len(), 1);
    assert_eq!(
        constructors[0].params,
        vec![class_type(
            "java.util.TreeMap.Entry",
            vec![TypeArg::Type(var("K")), TypeArg::Type(var("V"))]
        )]
    );
    assert_eq!(
        key_set.superclass,
        Some(class_type(
            "java.util.AbstractSet",
            vec![TypeArg::Type(var("K"))]
        ))
    );
}

#[test]
fn jdk_map_entry() {
    let entry = load("java.util.Map.Entry");
    assert_eq!(entry.kind, ClassKind::Interface);
    assert_eq!(&*entry.name, "java.util.Map.Entry");
    assert_eq!(&*entry.binary_name, "java.util.Map$Entry");
    assert_ne!(entry.flags & flags::STATIC, 0);
    assert_eq!(entry.superclass, None);
    let type_params: Vec<&str> = entry.type_params.iter().map(|p| &*p.name).collect();
    assert_eq!(type_params, ["K", "V"]);
    let get_key = methods(&entry, "getKey");
    assert_eq!(get_key.len(), 1);
    assert_eq!(get_key[0].ret, var("K"));
    assert_eq!(get_key[0].flags & flags::ABSTRACT, flags::ABSTRACT);
    let comparing_by_key = methods(&entry, "comparingByKey");
    assert_eq!(comparing_by_key.len(), 2);
    for method in comparing_by_key {
        assert_ne!(method.flags & flags::STATIC, 0);
        assert_eq!(method.flags & flags::DEFAULT, 0);
        assert!(!method.type_params.is_empty());
    }
    // `<K extends Comparable<? super K>, V>` for the one without a comparator.
    let natural = methods(&entry, "comparingByKey")
        .into_iter()
        .find(|m| m.params.is_empty())
        .unwrap();
    assert_eq!(
        natural.type_params[0].bounds,
        vec![class_type(
            "java.lang.Comparable",
            vec![TypeArg::Super(var("K"))]
        )]
    );
    // The binary name finds it too.
    assert!(Arc::ptr_eq(&entry, &load("java.util.Map$Entry")));
}

#[test]
fn jdk_array_list() {
    let list = load("java.util.ArrayList");
    assert_eq!(list.kind, ClassKind::Class);
    assert_eq!(
        list.superclass,
        Some(class_type(
            "java.util.AbstractList",
            vec![TypeArg::Type(var("E"))]
        ))
    );
    assert!(
        list.interfaces
            .contains(&class_type("java.util.List", vec![TypeArg::Type(var("E"))]))
    );
    let get = methods(&list, "get");
    assert_eq!(get.len(), 1);
    assert_eq!(get[0].params, vec![TypeSig::Prim(Prim::Int)]);
    assert_eq!(get[0].ret, var("E"));
    let from_collection = methods(&list, "<init>")
        .into_iter()
        .find(|m| matches!(&m.params[..], [TypeSig::Class { name, .. }] if &**name == "java.util.Collection"))
        .expect("ArrayList(Collection<? extends E>)");
    assert_eq!(
        from_collection.params,
        vec![class_type(
            "java.util.Collection",
            vec![TypeArg::Extends(var("E"))]
        )]
    );
    assert_eq!(from_collection.ret, TypeSig::Prim(Prim::Void));
    let to_array = methods(&list, "toArray");
    assert!(
        to_array
            .iter()
            .any(|m| m.params.is_empty() && m.type_params.is_empty())
    );
    let generic = to_array
        .iter()
        .find(|m| !m.type_params.is_empty())
        .expect("<T> T[] toArray(T[])");
    assert_eq!(&*generic.type_params[0].name, "T");
    assert!(generic.type_params[0].bounds.is_empty());
    assert_eq!(generic.params, vec![TypeSig::Array(Box::new(var("T")))]);
    assert_eq!(generic.ret, TypeSig::Array(Box::new(var("T"))));
    // No bridge or synthetic methods, no static initializer.
    assert!(
        list.methods
            .iter()
            .all(|m| &*m.name != "<clinit>" && !m.name.starts_with("lambda$"))
    );
}

#[test]
fn jdk_string() {
    let string = load("java.lang.String");
    let format = methods(&string, "format");
    let plain: Vec<&MethodSig> = format.into_iter().filter(|m| m.params.len() == 2).collect();
    assert_eq!(plain.len(), 1);
    let format = plain[0];
    assert_eq!(
        format.flags & (flags::STATIC | flags::VARARGS),
        flags::STATIC | flags::VARARGS
    );
    assert_eq!(
        format.params,
        vec![
            class_type("java.lang.String", vec![]),
            TypeSig::Array(Box::new(class_type("java.lang.Object", vec![])))
        ]
    );
    assert!(methods(&string, "valueOf").len() >= 9);
    let order = string
        .fields
        .iter()
        .find(|f| &*f.name == "CASE_INSENSITIVE_ORDER")
        .unwrap();
    assert_ne!(order.flags & flags::STATIC, 0);
    assert_eq!(
        order.ty,
        class_type(
            "java.util.Comparator",
            vec![TypeArg::Type(class_type("java.lang.String", vec![]))]
        )
    );
    assert_eq!(
        string.superclass,
        Some(class_type("java.lang.Object", vec![]))
    );
    assert_eq!(load("java.lang.Object").superclass, None);
}

#[test]
fn jdk_nested_classes_and_enums() {
    let state = load("java.lang.Thread.State");
    assert_eq!(state.kind, ClassKind::Enum);
    assert_eq!(&*state.binary_name, "java.lang.Thread$State");
    assert!(state.fields.iter().any(|f| &*f.name == "NEW"));
    assert!(state.fields.iter().all(|f| !f.name.starts_with('$')));
    let block = load("java.lang.Character.UnicodeBlock");
    assert_eq!(&*block.name, "java.lang.Character.UnicodeBlock");
    assert_eq!(
        block.superclass,
        Some(class_type("java.lang.Character.Subset", vec![]))
    );
    assert!(jdk_class_path().load("java.lang.NoSuchClass").is_none());
    assert!(!jdk_class_path().contains("java.lang.NoSuchClass"));
    assert!(jdk_class_path().contains("java.util.Map.Entry"));
}

#[test]
fn jar_classes_load_after_the_jdk() {
    let dir = tempfile::tempdir().unwrap();
    let jar = dir.path().join("fixture.jar");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for (path, bytes) in &fixture().classes {
        zip.start_file(path.as_str(), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    // Entries that are not the jar's own classes, and a class the JDK has.
    let outer = fixture_class("p/Outer.class");
    for name in [
        "META-INF/versions/11/p/Versioned.class",
        "module-info.class",
        "p/package-info.class",
        "java/lang/String.class",
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(outer).unwrap();
    }
    zip.start_file("p/Broken.class", options).unwrap();
    zip.write_all(b"\xca\xfe\xba\xbe broken").unwrap();
    zip.finish().unwrap();

    let class_path = ClassPath::new(jdk(), std::slice::from_ref(&jar)).unwrap();
    let mut names: Vec<&str> = class_path.class_names().collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "p.Broken",
            "p.Outer",
            "p.Outer$1",
            "p.Outer$Color",
            "p.Outer$Color$1",
            "p.Outer$GenericInner",
            "p.Outer$Inner",
            "p.Outer$Marker",
            "p.Outer$Nested",
            "p.Outer$Plain",
            "p.Outer$Point",
            "p.Outer$Shape",
        ]
    );
    let inner = class_path.load("p.Outer.Inner").unwrap();
    assert_eq!(&*inner.binary_name, "p.Outer$Inner");
    assert!(class_path.load("p.Outer$1").is_some());
    assert_eq!(
        &*class_path.load("java.lang.String").unwrap().name,
        "java.lang.String"
    );
    assert!(class_path.load("java.lang.String").unwrap().methods.len() > 50);
    assert!(class_path.load("p.Missing").is_none());
    assert!(class_path.load("p.Versioned").is_none());
    // A corrupt entry is no class, every time.
    assert!(class_path.contains("p.Broken"));
    assert!(class_path.load("p.Broken").is_none());
    assert!(class_path.load("p.Broken").is_none());

    // Without a JDK, only the jar.
    let jar_only = ClassPath::new(&JdkTypes::missing(), &[jar]).unwrap();
    assert!(jar_only.load("p.Outer.Color").is_some());
    assert!(jar_only.load("java.lang.Object").is_none());
}

#[test]
fn missing_or_broken_jar_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jar");
    let error = ClassPath::new(jdk(), std::slice::from_ref(&missing)).unwrap_err();
    assert!(error.to_string().contains("missing.jar"), "{error}");
    let not_a_zip = dir.path().join("text.jar");
    std::fs::write(&not_a_zip, "not a zip archive").unwrap();
    let error = ClassPath::new(jdk(), std::slice::from_ref(&not_a_zip)).unwrap_err();
    assert!(error.to_string().contains("text.jar"), "{error}");
}

#[test]
fn three_thousand_jdk_classes_load() {
    let class_path = ClassPath::new(jdk(), &[]).unwrap();
    let names: Vec<&String> = jdk()
        .binary_names
        .iter()
        .filter(|n| !n.contains('$'))
        .take(3000)
        .collect();
    assert_eq!(names.len(), 3000);
    let start = Instant::now();
    let failed: Vec<&&String> = names
        .iter()
        .filter(|name| class_path.load(name).is_none())
        .collect();
    let elapsed = start.elapsed();
    eprintln!("loaded {} JDK classes in {elapsed:?}", names.len());
    assert_eq!(failed, Vec::<&&String>::new());
    // Loaded once: the second time is the same parse.
    let again = class_path.load(names[0]).unwrap();
    assert!(Arc::ptr_eq(&again, &class_path.load(names[0]).unwrap()));
}

#[test]
fn concurrent_loads_share_one_parse() {
    let class_path = ClassPath::new(jdk(), &[]).unwrap();
    let names: Vec<&String> = jdk()
        .binary_names
        .iter()
        .filter(|n| n.starts_with("java.util."))
        .take(200)
        .collect();
    let loaded: Vec<Vec<Arc<ClassSig>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    names
                        .iter()
                        .map(|name| class_path.load(name).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap())
            .collect()
    });
    for other in &loaded[1..] {
        assert!(loaded[0].iter().zip(other).all(|(a, b)| Arc::ptr_eq(a, b)));
    }
}

/// The bytes of a JDK class file, read from its jmod with the zip crate
/// (which finds the zip data after the jmod header itself).
fn jdk_class_bytes(module: &str, binary: &str) -> Vec<u8> {
    let JdkOrigin::Jmods(jmods) = &jdk().origin else {
        unreachable!("jdk() asserts jmods");
    };
    let file = std::fs::File::open(jmods.join(format!("{module}.jmod"))).unwrap();
    let mut archive = zip::ZipArchive::new(file).unwrap();
    let mut entry = archive
        .by_name(&format!("classes/{}.class", binary.replace('.', "/")))
        .unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
    bytes
}

#[test]
fn class_path_is_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ClassPath>();
}

#[test]
fn malformed_class_files_are_errors_not_panics() {
    let map_entry = jdk_class_bytes("java.base", "java.util.Map$Entry");
    for bytes in [fixture_class("p/Outer.class"), &map_entry] {
        parse_class(bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(parse_class(&bytes[..len]).is_err(), "truncated at {len}");
        }
    }
    assert!(parse_class(b"").is_err());
    assert!(parse_class(b"PK\x03\x04 not a class").is_err());
    // Garbage after a valid magic number and version, from a fixed seed.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..2000 {
        let len = (next() % 300) as usize;
        let mut garbage = b"\xca\xfe\xba\xbe\x00\x00\x00\x3d".to_vec();
        garbage.extend((0..len).map(|_| next() as u8));
        let _ = parse_class(&garbage);
    }
    // Corruptions of real class files: one to three bytes changed.
    let targets: Vec<&[u8]> = fixture()
        .classes
        .iter()
        .map(|(_, b)| b.as_slice())
        .collect();
    for round in 0..20_000 {
        let mut corrupted = targets[round % targets.len()].to_vec();
        for _ in 0..1 + next() % 3 {
            let at = (next() as usize) % corrupted.len();
            corrupted[at] = next() as u8;
        }
        let _ = parse_class(&corrupted);
    }
}
