//! Class files read into signatures without a JDK installed: the stub JDK
//! of `refscope-test-support` (class files written from JDK 17's
//! signatures) read through the class path as the installed JDK's would
//! be, and damaged class files refused without a panic.

use std::io::Read;
use std::sync::Arc;

use refscope_symbols::classfile::{ClassPath, canonical_name_of_binary, parse_class};
use refscope_symbols::{ClassKind, ClassSig, JdkOrigin, JdkTypes, TypeArg, TypeSig, flags};
use refscope_test_support::jdk_stub_home;

fn stub_jdk() -> JdkTypes {
    let jdk = JdkTypes::read(jdk_stub_home()).unwrap();
    assert!(
        matches!(jdk.origin, JdkOrigin::Jmods(_)),
        "{:?}",
        jdk.origin
    );
    jdk
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

/// The bytes of one class file of the stub's jmod.
fn stub_class_bytes(binary: &str) -> Vec<u8> {
    let jmod = std::fs::read(jdk_stub_home().join("jmods/java.base.jmod")).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&jmod[4..])).unwrap();
    let mut entry = archive
        .by_name(&format!("classes/{}.class", binary.replace('.', "/")))
        .unwrap();
    let mut bytes = Vec::new();
    entry.read_to_end(&mut bytes).unwrap();
    bytes
}

#[test]
fn every_stub_class_loads_by_its_canonical_name() {
    let jdk = stub_jdk();
    let class_path = ClassPath::new(&jdk, &[]).unwrap();
    assert!(jdk.binary_names.len() >= 80, "{}", jdk.binary_names.len());
    for binary in &jdk.binary_names {
        let canonical = canonical_name_of_binary(binary);
        let class = class_path
            .load(&canonical)
            .unwrap_or_else(|| panic!("{binary} does not load"));
        assert_eq!(&*class.binary_name, binary.as_str());
    }
}

#[test]
fn generic_signatures_come_through() {
    let class_path = ClassPath::new(&stub_jdk(), &[]).unwrap();
    let load = |name: &str| -> Arc<ClassSig> { class_path.load(name).unwrap() };
    let list = load("java.util.ArrayList");
    assert_eq!(list.kind, ClassKind::Class);
    assert_eq!(
        list.superclass,
        Some(class_type(
            "java.util.AbstractList",
            vec![TypeArg::Type(var("E"))]
        ))
    );
    let entry = load("java.util.Map.Entry");
    assert_eq!(entry.kind, ClassKind::Interface);
    assert_eq!(&*entry.binary_name, "java.util.Map$Entry");
    assert_ne!(entry.flags & flags::STATIC, 0);
    let get_key: Vec<_> = entry
        .methods
        .iter()
        .filter(|m| &*m.name == "getKey")
        .collect();
    assert_eq!(get_key.len(), 1);
    assert_eq!(get_key[0].ret, var("K"));
    let string = load("java.lang.String");
    assert_eq!(string.flags & flags::FINAL, flags::FINAL);
    let value_of: Vec<_> = string
        .methods
        .iter()
        .filter(|m| &*m.name == "valueOf")
        .collect();
    assert!(
        value_of.len() >= 9,
        "{} overloads of valueOf",
        value_of.len()
    );
}

#[test]
fn damaged_class_files_are_errors_not_panics() {
    let bytes = stub_class_bytes("java.util.Map$Entry");
    parse_class(&bytes).unwrap();
    for len in 0..bytes.len() {
        assert!(parse_class(&bytes[..len]).is_err(), "truncated at {len}");
    }
    assert!(parse_class(b"PK\x03\x04 not a class").is_err());
    // One to three bytes changed, from a fixed seed.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let mut corrupted = bytes.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() as usize) % corrupted.len();
            corrupted[at] = next() as u8;
        }
        let _ = parse_class(&corrupted);
    }
}

#[test]
fn canonical_names_of_binary_names() {
    let cases = [
        ("java.util.Map$Entry", "java.util.Map.Entry"),
        ("java/util/Map$Entry", "java.util.Map.Entry"),
        ("java.lang.String", "java.lang.String"),
        ("p.A$1", "p.A$1"),
        ("p.A$1Local", "p.A$1Local"),
        ("p.A$1Local$Inner", "p.A$1Local$Inner"),
        ("p/A$1", "p.A$1"),
        ("com.sun.proxy.$Proxy1", "com.sun.proxy.$Proxy1"),
        ("p.A$$B", "p.A$$B"),
        ("p.A$", "p.A$"),
        ("Top$Level", "Top.Level"),
    ];
    for (binary, canonical) in cases {
        assert_eq!(canonical_name_of_binary(binary), canonical, "{binary}");
    }
}

/// What fuzzing kept (`fuzz/corpus/class_file`) reads or is refused,
/// without a panic.
#[test]
fn the_fuzz_corpus_reads_without_a_panic() {
    for (_, input) in refscope_test_support::paths::fuzz_corpus("class_file") {
        let _ = parse_class(&input);
    }
}
