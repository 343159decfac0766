//! A stub JDK for the hermetic tests: the JDK classes the tests' Java
//! fixtures use, as class files in `jmods/java.base.jmod` under a JDK home
//! the tests hand to refscope (`JAVA_HOME` for the command line,
//! `JdkTypes::read` in process), so that no test depends on the JDK
//! installed, or on one being installed at all.
//!
//! The classes are described in `jdk-stub/java.base.txt` — names, access
//! flags, descriptors and generic signatures taken from JDK 17's class files
//! by `jdk-stub/make-listing` — and written here as class files with no
//! code: what refscope reads of a library class and nothing else.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The listing the stub is made from.
const LISTING: &str = include_str!("../jdk-stub/java.base.txt");

/// The home of the stub JDK (it has `jmods/java.base.jmod`), made on first
/// use in the system's temporary directory under a name that changes with
/// the listing, and shared by every test process after that.
pub fn jdk_stub_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let digest = LISTING.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        let home = std::env::temp_dir().join(format!("refscope-jdk-stub-{digest:016x}"));
        if !home.join("jmods/java.base.jmod").is_file() {
            // Made aside and renamed into place, so that concurrent test
            // processes never see half a JDK.
            let staging = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
            std::fs::create_dir_all(staging.path().join("jmods")).unwrap();
            std::fs::write(staging.path().join("jmods/java.base.jmod"), jmod(LISTING)).unwrap();
            let staged = staging.keep();
            if std::fs::rename(&staged, &home).is_err() {
                // Another process made it first.
                let _ = std::fs::remove_dir_all(&staged);
            }
        }
        home
    })
}

/// One class of the listing.
#[derive(Debug, Default)]
struct StubClass<'l> {
    name: &'l str,
    access: u16,
    superclass: Option<&'l str>,
    signature: Option<&'l str>,
    record: bool,
    interfaces: Vec<&'l str>,
    /// (inner, outer, simple name, access)
    inner: Vec<(&'l str, Option<&'l str>, Option<&'l str>, u16)>,
    /// (access, name, descriptor, signature)
    fields: Vec<(u16, &'l str, &'l str, Option<&'l str>)>,
    methods: Vec<(u16, &'l str, &'l str, Option<&'l str>)>,
}

/// The classes of a listing (see `make-listing` for its lines).
fn parse_listing(listing: &str) -> Vec<StubClass<'_>> {
    fn opt(word: &str) -> Option<&str> {
        (word != "-").then_some(word)
    }
    let hex = |word: &str| u16::from_str_radix(word, 16).expect("hexadecimal access flags");
    let mut classes: Vec<StubClass<'_>> = Vec::new();
    for line in listing.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [comment, ..] if comment.starts_with('#') => {}
            ["class", name, access, superclass, signature, rest @ ..] => classes.push(StubClass {
                name,
                access: hex(access),
                superclass: opt(superclass),
                signature: opt(signature),
                record: rest == ["record"],
                ..StubClass::default()
            }),
            ["implements", name] => classes.last_mut().unwrap().interfaces.push(name),
            ["inner", inner, outer, simple, access] => classes.last_mut().unwrap().inner.push((
                inner,
                opt(outer),
                opt(simple),
                hex(access),
            )),
            ["field", access, name, descriptor, signature] => classes
                .last_mut()
                .unwrap()
                .fields
                .push((hex(access), name, descriptor, opt(signature))),
            ["method", access, name, descriptor, signature] => classes
                .last_mut()
                .unwrap()
                .methods
                .push((hex(access), name, descriptor, opt(signature))),
            _ => panic!("jdk-stub/java.base.txt: a line that is not a listing line: {line}"),
        }
    }
    classes
}

/// A constant pool being written: `Utf8` and `Class` entries, each once.
#[derive(Default)]
struct ConstantPool {
    bytes: Vec<u8>,
    count: u16,
    utf8: HashMap<String, u16>,
    classes: HashMap<String, u16>,
}

impl ConstantPool {
    fn utf8(&mut self, text: &str) -> u16 {
        if let Some(&index) = self.utf8.get(text) {
            return index;
        }
        self.count += 1;
        let index = self.count;
        self.bytes.push(1);
        self.bytes
            .extend_from_slice(&u16::try_from(text.len()).unwrap().to_be_bytes());
        // Names in the listing are ASCII or plain UTF-8 without NUL or
        // supplementary characters, where modified UTF-8 is UTF-8.
        self.bytes.extend_from_slice(text.as_bytes());
        self.utf8.insert(text.to_string(), index);
        index
    }

    fn class(&mut self, name: &str) -> u16 {
        if let Some(&index) = self.classes.get(name) {
            return index;
        }
        let name_index = self.utf8(name);
        self.count += 1;
        let index = self.count;
        self.bytes.push(7);
        self.bytes.extend_from_slice(&name_index.to_be_bytes());
        self.classes.insert(name.to_string(), index);
        index
    }
}

/// The class file of `class`: no code, the attributes refscope reads.
fn class_file(class: &StubClass<'_>) -> Vec<u8> {
    let mut pool = ConstantPool::default();
    let mut body = Vec::new();
    let u2 = |out: &mut Vec<u8>, n: u16| out.extend_from_slice(&n.to_be_bytes());
    u2(&mut body, class.access);
    let this = pool.class(class.name);
    u2(&mut body, this);
    let superclass = class.superclass.map_or(0, |s| pool.class(s));
    u2(&mut body, superclass);
    u2(&mut body, class.interfaces.len() as u16);
    for interface in &class.interfaces {
        let index = pool.class(interface);
        u2(&mut body, index);
    }
    for members in [&class.fields, &class.methods] {
        u2(&mut body, members.len() as u16);
        for &(access, name, descriptor, signature) in members {
            u2(&mut body, access);
            let name = pool.utf8(name);
            u2(&mut body, name);
            let descriptor = pool.utf8(descriptor);
            u2(&mut body, descriptor);
            match signature {
                Some(signature) => {
                    u2(&mut body, 1);
                    signature_attribute(&mut pool, &mut body, signature);
                }
                None => u2(&mut body, 0),
            }
        }
    }
    let n_attributes = u16::from(class.signature.is_some())
        + u16::from(!class.inner.is_empty())
        + u16::from(class.record);
    u2(&mut body, n_attributes);
    if let Some(signature) = class.signature {
        signature_attribute(&mut pool, &mut body, signature);
    }
    if !class.inner.is_empty() {
        let name = pool.utf8("InnerClasses");
        u2(&mut body, name);
        body.extend_from_slice(&(2 + 8 * class.inner.len() as u32).to_be_bytes());
        u2(&mut body, class.inner.len() as u16);
        for &(inner, outer, simple, access) in &class.inner {
            let inner = pool.class(inner);
            let outer = outer.map_or(0, |o| pool.class(o));
            let simple = simple.map_or(0, |s| pool.utf8(s));
            for n in [inner, outer, simple, access] {
                u2(&mut body, n);
            }
        }
    }
    if class.record {
        let name = pool.utf8("Record");
        u2(&mut body, name);
        body.extend_from_slice(&2u32.to_be_bytes());
        u2(&mut body, 0);
    }
    let mut out = Vec::with_capacity(10 + pool.bytes.len() + body.len());
    out.extend_from_slice(&[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61]);
    out.extend_from_slice(&(pool.count + 1).to_be_bytes());
    out.extend_from_slice(&pool.bytes);
    out.extend_from_slice(&body);
    out
}

fn signature_attribute(pool: &mut ConstantPool, out: &mut Vec<u8>, signature: &str) {
    let name = pool.utf8("Signature");
    let value = pool.utf8(signature);
    out.extend_from_slice(&name.to_be_bytes());
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&value.to_be_bytes());
}

/// A jmod (`JM`, version, then a zip archive) holding the listing's
/// classes under `classes/`.
fn jmod(listing: &str) -> Vec<u8> {
    let mut out = b"JM\x01\x00".to_vec();
    out.extend_from_slice(&archive(listing, "classes/"));
    out
}

/// A zip of the class files of `listing` (lines as in
/// `jdk-stub/java.base.txt`), each under `prefix`.
fn archive(listing: &str, prefix: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for class in parse_listing(listing) {
        zip.start_file(format!("{prefix}{}.class", class.name), options)
            .unwrap();
        zip.write_all(&class_file(&class)).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A jar of the classes `listing` describes, one line per class or member
/// as in `jdk-stub/java.base.txt` (`class NAME ACCESS SUPER SIGNATURE`,
/// `method ACCESS NAME DESCRIPTOR SIGNATURE`, `-` for none): a library for
/// tests, with no code in its methods.
pub fn jar(listing: &str) -> Vec<u8> {
    archive(listing, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_reads_back_with_every_class_and_member() {
        let classes = parse_listing(LISTING);
        let object = classes
            .iter()
            .find(|c| c.name == "java/lang/Object")
            .expect("Object is in the stub");
        assert_eq!(object.superclass, None);
        assert!(object.methods.iter().any(|m| m.1 == "equals"));
        let list = classes.iter().find(|c| c.name == "java/util/List").unwrap();
        assert!(list.signature.is_some_and(|s| s.starts_with("<E:")));
        // Every supertype of a listed class is listed.
        let names: Vec<&str> = classes.iter().map(|c| c.name).collect();
        for class in &classes {
            for supertype in class.superclass.iter().chain(&class.interfaces) {
                assert!(
                    names.contains(supertype),
                    "{} extends {supertype}",
                    class.name
                );
            }
        }
    }

    #[test]
    fn the_stub_home_holds_a_jmod_of_the_listed_classes() {
        let jmod = std::fs::read(jdk_stub_home().join("jmods/java.base.jmod")).unwrap();
        assert_eq!(&jmod[..4], b"JM\x01\x00");
        let archive = zip::ZipArchive::new(std::io::Cursor::new(&jmod[4..])).unwrap();
        assert_eq!(archive.len(), parse_listing(LISTING).len());
        let first = class_file(&parse_listing(LISTING)[0]);
        assert_eq!(&first[..4], &[0xca, 0xfe, 0xba, 0xbe]);
    }
}
