//! Library classes (the JDK's `jmods`, jar files) read from their class
//! files into [`ClassSig`]s with their generic signatures.
//!
//! [`parse_class`] turns the bytes of one class file into a [`ClassSig`].
//! [`ClassPath`] knows which classes the JDK and the jars hold, by canonical
//! name, and parses a class file the first time it is asked for; what it
//! parsed is shared by every thread after that.
//!
//! Class names come out canonical (`java.util.Map.Entry`). A class file
//! spells them as binary names (`java/util/Map$Entry`), and only its
//! `InnerClasses` attribute says which `$` separate a member class from its
//! outer class; JVMS §4.7.6 requires that attribute to list every nested
//! class the file mentions, so it is the first source. A name it does not
//! list takes the rule of [`canonical_name_of_binary`]: every `$` inside a
//! name separates, unless a `$` followed by a digit marks an anonymous or
//! local class, whose name stays binary.
//!
//! ```no_run
//! use refscope_symbols::JdkTypes;
//! use refscope_symbols::ClassPath;
//!
//! let jdk = JdkTypes::discover()?;
//! let class_path = ClassPath::new(&jdk, &[])?;
//! let entry = class_path.load("java.util.Map.Entry").expect("a JDK with jmods");
//! assert_eq!(&*entry.binary_name, "java.util.Map$Entry");
//! # Ok::<(), refscope_symbols::Error>(())
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::error::Error;
use crate::jdk::JdkTypes;
use crate::signatures::{
    ClassKind, ClassSig, FieldSig, MethodSig, Prim, TypeArg, TypeParamSig, TypeSig, flags,
};

/// Why a class file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassFileError {
    /// The bytes do not start with the class file magic number.
    #[error("not a class file: it does not start with 0xCAFEBABE")]
    NotAClassFile,

    /// The bytes end in the middle of a structure.
    #[error("class file is truncated: a structure at byte {offset} runs past its end")]
    Truncated {
        /// Where the structure that does not fit starts.
        offset: usize,
    },

    /// The constant pool has an entry of a tag this reader does not know.
    #[error("class file constant pool entry #{index} has unknown tag {tag}")]
    UnknownConstant {
        /// The entry's index.
        index: u16,
        /// Its tag.
        tag: u8,
    },

    /// A structure refers to a constant that is missing or of the wrong kind.
    #[error("class file refers to constant #{index}, which is not a {expected}")]
    BadConstantRef {
        /// The index referred to.
        index: u16,
        /// What the reference should point at.
        expected: &'static str,
    },

    /// A descriptor does not follow the JVMS grammar.
    #[error("class file has a malformed descriptor '{text}'")]
    BadDescriptor {
        /// The descriptor.
        text: String,
    },
}

/// Reads one class file.
///
/// Generic types come from the `Signature` attributes where present and
/// from the descriptors otherwise; a `Signature` attribute that does not
/// parse is ignored in favour of the descriptor, the way javac treats one.
/// Synthetic and bridge members and the static initializer are left out;
/// constructors are methods named `<init>` returning `void`, without the
/// outer instance of an inner class or the name and ordinal of an enum.
/// Malformed input is an error, never a panic.
pub fn parse_class(bytes: &[u8]) -> Result<ClassSig, ClassFileError> {
    let mut cursor = Cursor { bytes, at: 0 };
    if cursor.take(4).ok() != Some(&CLASS_FILE_MAGIC[..]) {
        return Err(ClassFileError::NotAClassFile);
    }
    cursor.skip(4)?; // minor and major version
    let pool = ConstantPool::read(&mut cursor)?;
    let access_flags = cursor.u2()?;
    let this_class = cursor.u2()?;
    let super_class = cursor.u2()?;
    let n_interfaces = cursor.u2()?;
    let interface_indices = cursor.take(2 * usize::from(n_interfaces))?;
    // Members are read to the end before their types: names need the
    // InnerClasses attribute, which comes after them.
    let fields = read_members(&mut cursor, &pool)?;
    let methods = read_members(&mut cursor, &pool)?;
    let mut class_signature = None;
    let mut inner_classes: &[u8] = &[];
    let mut is_record = false;
    read_attributes(&mut cursor, &pool, |name, body| {
        match name {
            b"Signature" => class_signature = signature_index(body),
            b"InnerClasses" => inner_classes = body,
            b"Record" => is_record = true,
            _ => {}
        }
        Ok(())
    })?;

    let this_binary = pool.class_name(this_class)?;
    let super_binary = match super_class {
        0 => None,
        index => Some(pool.class_name(index)?),
    };
    let mut names = NameTable::new(&pool, inner_classes);
    let own_entry = names.nested.get(&*this_binary).copied();
    let kind = if access_flags & ACC_ANNOTATION != 0 {
        ClassKind::Annotation
    } else if access_flags & ACC_INTERFACE != 0 {
        ClassKind::Interface
    } else if access_flags & ACC_ENUM != 0 && super_binary.as_deref() == Some("java/lang/Enum") {
        // Bodies of enum constants carry ACC_ENUM too, but they are
        // anonymous classes extending the enum.
        ClassKind::Enum
    } else if is_record {
        ClassKind::Record
    } else {
        ClassKind::Class
    };
    let is_interface = matches!(kind, ClassKind::Interface | ClassKind::Annotation);
    // Constructors of a class whose descriptor has parameters javac added
    // in front of the declared ones: the outer instance of an inner member
    // class (anonymous and local classes keep theirs, they cannot be named
    // in a call), the name and ordinal of an enum constant.
    let is_inner_member = kind == ClassKind::Class
        && own_entry.is_some_and(|entry| {
            entry.outer.is_some() && entry.simple_name.is_some() && entry.flags & flags::STATIC == 0
        });
    let n_added_constructor_params = match kind {
        ClassKind::Class if is_inner_member => 1,
        ClassKind::Enum => 2,
        _ => 0,
    };

    let generic_header = class_signature
        .and_then(|index| pool.utf8(index).ok())
        .and_then(|text| {
            SignatureParser::new(&text, &mut names)
                .class_signature()
                .ok()
        });
    let header = match generic_header {
        Some(header) => header,
        None => {
            let mut interfaces = Vec::with_capacity(usize::from(n_interfaces));
            for pair in interface_indices.chunks_exact(2) {
                let binary = pool.class_name(u16::from_be_bytes([pair[0], pair[1]]))?;
                interfaces.push(names.raw_class_type(&binary));
            }
            ClassHeader {
                type_params: Vec::new(),
                superclass: super_binary
                    .as_deref()
                    .map(|binary| names.raw_class_type(binary)),
                interfaces,
            }
        }
    };

    let mut method_sigs = Vec::with_capacity(methods.len());
    for method in &methods {
        if method.flags & (ACC_SYNTHETIC | ACC_BRIDGE) == 0
            && let Some(sig) = read_method(
                method,
                &pool,
                &mut names,
                is_interface,
                n_added_constructor_params,
            )?
        {
            method_sigs.push(sig);
        }
    }
    let mut field_sigs = Vec::with_capacity(fields.len());
    for field in &fields {
        if field.flags & ACC_SYNTHETIC == 0 {
            field_sigs.push(read_field(field, &pool, &mut names)?);
        }
    }

    // A nested class's own modifiers (`private`, `static`) live in its
    // InnerClasses entry; its access flags only say public or not.
    let source_flags = own_entry.map_or(access_flags, |entry| entry.flags);
    Ok(ClassSig {
        name: names.canonical(&this_binary),
        binary_name: Arc::from(this_binary.replace('/', ".")),
        kind,
        flags: source_flags & CLASS_FLAGS,
        type_params: header.type_params,
        outer_type_params: Vec::new(),
        superclass: if is_interface || super_class == 0 {
            None
        } else {
            header.superclass
        },
        interfaces: header.interfaces,
        methods: method_sigs,
        fields: field_sigs,
        decl: None,
    })
}

/// The canonical name of a class known only by its binary name, dotted
/// (`java.util.Map$Entry`) or slashed (`java/util/Map$Entry`), by the
/// naming rule alone: `java.util.Map.Entry`. A `$` followed by a digit
/// marks an anonymous or local class, which has no canonical name: such a
/// name comes back as the dotted binary name. A `$` that begins a simple
/// name (`$Proxy1`) is part of it.
pub fn canonical_name_of_binary(binary: &str) -> Cow<'_, str> {
    let (name, _) = canonical_by_rule(binary);
    name
}

/// The library classes a revision can refer to: the JDK's (from its
/// `jmods`) and those of jar files, found by canonical name and parsed on
/// first use. Shared by reference between threads.
pub struct ClassPath {
    archives: Vec<ClassArchive>,
    /// JDK classes first, then jar classes; no two with the same canonical
    /// name.
    classes: Vec<LibraryClass>,
    n_jdk_classes: usize,
    by_canonical: rustc_hash::FxHashMap<Box<str>, u32>,
    /// What each class parsed to, once asked for; `None` for a class file
    /// that could not be read.
    loaded: Vec<OnceLock<Option<Arc<ClassSig>>>>,
}

impl ClassPath {
    /// The JDK's classes (when its type names came from `jmods`; none for a
    /// `src.zip` or a missing JDK) and the classes of `jars`, in that
    /// order of precedence: a class in the JDK and in a jar is the JDK's,
    /// and a class in two jars is the first jar's.
    ///
    /// Only the jars' central directories are read here; the jmods were
    /// listed by [`JdkTypes`] already and are opened on first use. A jar
    /// that cannot be opened or is not a zip archive is an error naming it.
    pub fn new(jdk: &JdkTypes, jars: &[PathBuf]) -> Result<Self, Error> {
        let mut class_path = Self {
            archives: Vec::new(),
            classes: Vec::new(),
            n_jdk_classes: 0,
            by_canonical: Default::default(),
            loaded: Vec::new(),
        };
        if let Some((archive_of, jmods)) = jdk.class_file_archives() {
            class_path.by_canonical.reserve(jdk.binary_names.len());
            class_path.classes.reserve(jdk.binary_names.len());
            class_path
                .archives
                .extend(jmods.iter().map(|path| ClassArchive {
                    path: path.clone(),
                    header_len: JMOD_HEADER_LEN,
                    entry_prefix: JMOD_CLASSES_PREFIX,
                    zip: OnceLock::new(),
                }));
            for (binary, &archive) in jdk.binary_names.iter().zip(archive_of) {
                class_path.add(binary, u32::from(archive), None);
            }
        }
        class_path.n_jdk_classes = class_path.classes.len();
        for jar in jars {
            let zip = open_zip(jar, 0).map_err(|e| Error::io(jar, e))?;
            let archive = class_path.archives.len() as u32;
            for index in 0..zip.len() {
                let Some(binary) = zip.name_for_index(index).and_then(jar_entry_binary_name) else {
                    continue;
                };
                class_path.add(&binary, archive, Some(index as u32));
            }
            class_path.archives.push(ClassArchive {
                path: jar.clone(),
                header_len: 0,
                entry_prefix: "",
                zip: OnceLock::from(Some(zip)),
            });
        }
        class_path.loaded = class_path.classes.iter().map(|_| OnceLock::new()).collect();
        Ok(class_path)
    }

    /// The binary names (`com.acme.Outer$Inner`) of the jar classes, in
    /// jar order, without those the JDK or an earlier jar already has. The
    /// JDK's are [`JdkTypes::binary_names`].
    pub fn class_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.classes[self.n_jdk_classes..]
            .iter()
            .map(|class| &*class.binary_name)
    }

    /// Whether a class of that canonical (or binary) name is on the class
    /// path, without reading it.
    pub fn contains(&self, canonical_or_binary: &str) -> bool {
        self.find(canonical_or_binary).is_some()
    }

    /// The class of that canonical name (`java.util.Map.Entry`; a binary
    /// name such as `java.util.Map$Entry` is understood too), parsed on the
    /// first request and shared afterwards. `None` for a class that is not
    /// on the class path or whose class file cannot be read.
    pub fn load(&self, canonical_or_binary: &str) -> Option<Arc<ClassSig>> {
        let index = self.find(canonical_or_binary)?;
        self.loaded[index]
            .get_or_init(|| self.read_class(&self.classes[index]).map(Arc::new))
            .clone()
    }

    fn add(&mut self, binary: &str, archive: u32, zip_index: Option<u32>) {
        let canonical = canonical_name_of_binary(binary);
        if let Entry::Vacant(slot) = self.by_canonical.entry(Box::from(&*canonical)) {
            slot.insert(self.classes.len() as u32);
            self.classes.push(LibraryClass {
                binary_name: Box::from(binary),
                archive,
                zip_index,
            });
        }
    }

    fn find(&self, name: &str) -> Option<usize> {
        if let Some(&index) = self.by_canonical.get(name) {
            return Some(index as usize);
        }
        match canonical_name_of_binary(name) {
            Cow::Owned(canonical) => self.by_canonical.get(&*canonical).map(|&i| i as usize),
            Cow::Borrowed(_) => None,
        }
    }

    fn read_class(&self, class: &LibraryClass) -> Option<ClassSig> {
        let archive = &self.archives[class.archive as usize];
        let bytes = match archive.read_class_file(class) {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::debug!(archive = %archive.path.display(), class = %class.binary_name, %error, "cannot read class file");
                return None;
            }
        };
        match parse_class(&bytes) {
            Ok(sig) => Some(sig),
            Err(error) => {
                tracing::debug!(archive = %archive.path.display(), class = %class.binary_name, %error, "cannot parse class file");
                None
            }
        }
    }
}

impl fmt::Debug for ClassPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassPath")
            .field(
                "archives",
                &self.archives.iter().map(|a| &a.path).collect::<Vec<_>>(),
            )
            .field("n_jdk_classes", &self.n_jdk_classes)
            .field("n_jar_classes", &(self.classes.len() - self.n_jdk_classes))
            .finish()
    }
}

const CLASS_FILE_MAGIC: [u8; 4] = [0xca, 0xfe, 0xba, 0xbe];

// JVM access flags that are not source modifiers (JVMS tables 4.1-B, 4.6-A).
const ACC_BRIDGE: u16 = 0x0040;
const ACC_INTERFACE: u16 = 0x0200;
const ACC_SYNTHETIC: u16 = 0x1000;
const ACC_ANNOTATION: u16 = 0x2000;
const ACC_ENUM: u16 = 0x4000;

const ACCESS_FLAGS: u16 = flags::PUBLIC | flags::PRIVATE | flags::PROTECTED;
const CLASS_FLAGS: u16 = ACCESS_FLAGS | flags::STATIC | flags::FINAL | flags::ABSTRACT;
const METHOD_FLAGS: u16 = CLASS_FLAGS | flags::VARARGS;
// 0x0080 is ACC_TRANSIENT on a field, not varargs.
const FIELD_FLAGS: u16 = ACCESS_FLAGS | flags::STATIC | flags::FINAL;

/// Nesting of type arguments followed before a signature is called
/// malformed; javac's never come near it, and it bounds the recursion.
const MAX_SIGNATURE_DEPTH: u32 = 64;
/// JVMS §4.3.2: at most 255 array dimensions.
const MAX_ARRAY_DIMENSIONS: usize = 255;
/// Outer classes followed through InnerClasses (cycles in broken files).
const MAX_NESTING_DEPTH: u32 = 32;

/// A jmod file is a zip archive after a 4-byte header (`JM`, version).
const JMOD_HEADER_LEN: u64 = 4;
const JMOD_CLASSES_PREFIX: &str = "classes/";
/// Larger class files are taken for corrupt entries.
const MAX_CLASS_FILE_LEN: u64 = 64 << 20;
/// How much an archive reader reads at once: most class files fit whole.
const ARCHIVE_READ_AHEAD: usize = 16 << 10;

/// A bounds-checked reader of big-endian class file structures.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], ClassFileError> {
        let taken = self
            .at
            .checked_add(len)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or(ClassFileError::Truncated { offset: self.at })?;
        self.at += len;
        Ok(taken)
    }

    fn skip(&mut self, len: usize) -> Result<(), ClassFileError> {
        self.take(len).map(|_| ())
    }

    fn u1(&mut self) -> Result<u8, ClassFileError> {
        Ok(self.take(1)?[0])
    }

    fn u2(&mut self) -> Result<u16, ClassFileError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u4(&mut self) -> Result<u32, ClassFileError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// The constant pool as the offsets of its entries; texts are decoded only
/// when asked for.
struct ConstantPool<'a> {
    bytes: &'a [u8],
    /// Byte offset of each entry's tag; 0 for index 0 and the unusable
    /// slot after a long or double (no entry can start at byte 0).
    offsets: Vec<u32>,
}

const TAG_UTF8: u8 = 1;
const TAG_CLASS: u8 = 7;

impl<'a> ConstantPool<'a> {
    fn read(cursor: &mut Cursor<'a>) -> Result<Self, ClassFileError> {
        let count = cursor.u2()?;
        let mut offsets = vec![0u32; usize::from(count).max(1)];
        let mut index = 1u16;
        while index < count {
            let offset = u32::try_from(cursor.at)
                .map_err(|_| ClassFileError::Truncated { offset: cursor.at })?;
            offsets[usize::from(index)] = offset;
            let tag = cursor.u1()?;
            match tag {
                TAG_UTF8 => {
                    let len = cursor.u2()?;
                    cursor.skip(usize::from(len))?;
                }
                // Class, String, MethodType, Module, Package.
                TAG_CLASS | 8 | 16 | 19 | 20 => cursor.skip(2)?,
                // MethodHandle.
                15 => cursor.skip(3)?,
                // Integer, Float, the refs, NameAndType, Dynamic, InvokeDynamic.
                3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => cursor.skip(4)?,
                // Long and Double take two slots.
                5 | 6 => {
                    cursor.skip(8)?;
                    index = index.saturating_add(1);
                }
                _ => return Err(ClassFileError::UnknownConstant { index, tag }),
            }
            index = index.saturating_add(1);
        }
        Ok(Self {
            bytes: cursor.bytes,
            offsets,
        })
    }

    /// The bytes after the tag of entry `index`, which must have `tag`.
    fn entry(
        &self,
        index: u16,
        tag: u8,
        expected: &'static str,
    ) -> Result<&'a [u8], ClassFileError> {
        let bad = ClassFileError::BadConstantRef { index, expected };
        let offset = match self.offsets.get(usize::from(index)) {
            Some(&offset) if offset != 0 => offset as usize,
            _ => return Err(bad),
        };
        match self.bytes.get(offset..) {
            Some([found, rest @ ..]) if *found == tag => Ok(rest),
            _ => Err(bad),
        }
    }

    fn utf8_bytes(&self, index: u16) -> Result<&'a [u8], ClassFileError> {
        let bad = ClassFileError::BadConstantRef {
            index,
            expected: "Utf8 constant",
        };
        match self.entry(index, TAG_UTF8, "Utf8 constant")? {
            [hi, lo, text @ ..] => text
                .get(..usize::from(u16::from_be_bytes([*hi, *lo])))
                .ok_or(bad),
            _ => Err(bad),
        }
    }

    fn utf8(&self, index: u16) -> Result<Cow<'a, str>, ClassFileError> {
        Ok(decode_modified_utf8(self.utf8_bytes(index)?))
    }

    /// The internal binary name (`java/util/Map$Entry`) of a Class entry.
    fn class_name(&self, index: u16) -> Result<Cow<'a, str>, ClassFileError> {
        match self.entry(index, TAG_CLASS, "Class constant")? {
            [hi, lo, ..] => self.utf8(u16::from_be_bytes([*hi, *lo])),
            _ => Err(ClassFileError::BadConstantRef {
                index,
                expected: "Class constant",
            }),
        }
    }
}

/// Class file texts are "modified UTF-8" (JVMS §4.4.7): NUL as two bytes
/// and supplementary characters as surrogate pairs. Nearly every text is
/// plain UTF-8 as well, and is borrowed; the others are decoded, with
/// U+FFFD for what does not decode.
fn decode_modified_utf8(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let b0 = bytes[at];
        let continuation = |i: usize| {
            bytes
                .get(at + i)
                .filter(|b| *b & 0xc0 == 0x80)
                .map(|b| u16::from(b & 0x3f))
        };
        if b0 < 0x80 {
            units.push(u16::from(b0));
            at += 1;
        } else if b0 & 0xe0 == 0xc0
            && let Some(b1) = continuation(1)
        {
            units.push((u16::from(b0 & 0x1f) << 6) | b1);
            at += 2;
        } else if b0 & 0xf0 == 0xe0
            && let (Some(b1), Some(b2)) = (continuation(1), continuation(2))
        {
            units.push((u16::from(b0 & 0x0f) << 12) | (b1 << 6) | b2);
            at += 3;
        } else {
            units.push(0xfffd);
            at += 1;
        }
    }
    Cow::Owned(String::from_utf16_lossy(&units))
}

/// A field or method as stored, before its types are read.
struct RawMember {
    flags: u16,
    name: u16,
    descriptor: u16,
    signature: Option<u16>,
}

fn read_members<'a>(
    cursor: &mut Cursor<'a>,
    pool: &ConstantPool<'a>,
) -> Result<Vec<RawMember>, ClassFileError> {
    let count = cursor.u2()?;
    let mut members = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let flags = cursor.u2()?;
        let name = cursor.u2()?;
        let descriptor = cursor.u2()?;
        let mut signature = None;
        read_attributes(cursor, pool, |attribute, body| {
            if attribute == b"Signature" {
                signature = signature_index(body);
            }
            Ok(())
        })?;
        members.push(RawMember {
            flags,
            name,
            descriptor,
            signature,
        });
    }
    Ok(members)
}

/// Calls `visit` with the name and body of each attribute of a table.
fn read_attributes<'a>(
    cursor: &mut Cursor<'a>,
    pool: &ConstantPool<'a>,
    mut visit: impl FnMut(&[u8], &'a [u8]) -> Result<(), ClassFileError>,
) -> Result<(), ClassFileError> {
    let count = cursor.u2()?;
    for _ in 0..count {
        let name = cursor.u2()?;
        let len = cursor.u4()?;
        let body = cursor.take(len as usize)?;
        visit(pool.utf8_bytes(name)?, body)?;
    }
    Ok(())
}

/// The constant index a `Signature` attribute holds.
fn signature_index(body: &[u8]) -> Option<u16> {
    match body {
        [hi, lo] => Some(u16::from_be_bytes([*hi, *lo])),
        _ => None,
    }
}

/// The signature of a method, `None` for the static initializer.
fn read_method(
    method: &RawMember,
    pool: &ConstantPool<'_>,
    names: &mut NameTable<'_>,
    is_interface: bool,
    n_added_constructor_params: usize,
) -> Result<Option<MethodSig>, ClassFileError> {
    let name = pool.utf8(method.name)?;
    if name == "<clinit>" {
        return Ok(None);
    }
    let is_constructor = name == "<init>";
    let generic = method
        .signature
        .and_then(|index| pool.utf8(index).ok())
        .and_then(|text| SignatureParser::new(&text, names).method_signature().ok());
    let header = match generic {
        Some(header) => header,
        None => {
            let descriptor = pool.utf8(method.descriptor)?;
            let mut header = SignatureParser::new(&descriptor, names)
                .method_signature()
                .map_err(|_| ClassFileError::BadDescriptor {
                    text: descriptor.to_string(),
                })?;
            // A Signature attribute lists the declared parameters only, the
            // descriptor those javac adds too.
            if is_constructor {
                let n_added = n_added_constructor_params.min(header.params.len());
                header.params.drain(..n_added);
            }
            header
        }
    };
    let mut method_flags = method.flags & METHOD_FLAGS;
    if is_interface
        && !is_constructor
        && method.flags & (flags::ABSTRACT | flags::STATIC | flags::PRIVATE) == 0
    {
        method_flags |= flags::DEFAULT;
    }
    Ok(Some(MethodSig {
        name: Arc::from(&*name),
        flags: method_flags,
        type_params: header.type_params,
        params: header.params,
        ret: if is_constructor {
            TypeSig::Prim(Prim::Void)
        } else {
            header.ret
        },
        decl: None,
    }))
}

fn read_field(
    field: &RawMember,
    pool: &ConstantPool<'_>,
    names: &mut NameTable<'_>,
) -> Result<FieldSig, ClassFileError> {
    let generic = field
        .signature
        .and_then(|index| pool.utf8(index).ok())
        .and_then(|text| SignatureParser::new(&text, names).field_type().ok());
    let ty = match generic {
        Some(ty) => ty,
        None => {
            let descriptor = pool.utf8(field.descriptor)?;
            SignatureParser::new(&descriptor, names)
                .field_type()
                .map_err(|_| ClassFileError::BadDescriptor {
                    text: descriptor.to_string(),
                })?
        }
    };
    Ok(FieldSig {
        name: Arc::from(&*pool.utf8(field.name)?),
        flags: field.flags & FIELD_FLAGS,
        ty,
        decl: None,
    })
}

/// One class of an InnerClasses attribute.
#[derive(Clone, Copy)]
struct NestedClass<'p> {
    /// The enclosing class's binary name, for a member class.
    outer: Option<&'p str>,
    /// The simple name; `None` for an anonymous class.
    simple_name: Option<&'p str>,
    /// The modifiers as declared in source.
    flags: u16,
}

/// Turns the binary names of one class file into canonical names, with
/// the help of its InnerClasses attribute, and shares each name's text.
struct NameTable<'p> {
    nested: HashMap<&'p str, NestedClass<'p>>,
    canonical: HashMap<Box<str>, Arc<str>>,
    type_variables: HashMap<Box<str>, Arc<str>>,
}

impl<'p> NameTable<'p> {
    /// Entries of the attribute that do not read are skipped: they only
    /// refine names.
    fn new(pool: &ConstantPool<'p>, inner_classes: &'p [u8]) -> Self {
        let mut nested = HashMap::new();
        let mut cursor = Cursor {
            bytes: inner_classes,
            at: 0,
        };
        let count = cursor.u2().unwrap_or(0);
        let borrowed = |text: Cow<'p, str>| match text {
            Cow::Borrowed(text) => Some(text),
            // Names that need decoding are not worth keeping alive for.
            Cow::Owned(_) => None,
        };
        for _ in 0..count {
            let Ok(entry) = cursor.take(8) else {
                break;
            };
            let field = |i: usize| u16::from_be_bytes([entry[i], entry[i + 1]]);
            let (inner, outer, simple_name, flags) = (field(0), field(2), field(4), field(6));
            let Some(inner) = pool.class_name(inner).ok().and_then(borrowed) else {
                continue;
            };
            let outer = match outer {
                0 => None,
                index => pool.class_name(index).ok().and_then(borrowed),
            };
            let simple_name = match simple_name {
                0 => None,
                index => pool.utf8(index).ok().and_then(borrowed),
            };
            nested.entry(inner).or_insert(NestedClass {
                outer,
                simple_name,
                flags,
            });
        }
        Self {
            nested,
            canonical: HashMap::new(),
            type_variables: HashMap::new(),
        }
    }

    /// The canonical name of the class of internal binary name `binary`.
    fn canonical(&mut self, binary: &str) -> Arc<str> {
        if let Some(name) = self.canonical.get(binary) {
            return name.clone();
        }
        let (name, _) = self.resolve(binary, 0);
        let name: Arc<str> = Arc::from(name.as_ref());
        self.canonical.insert(Box::from(binary), name.clone());
        name
    }

    /// The canonical name and whether it is one (a local or anonymous
    /// class, or one nested in such, keeps its binary name).
    fn resolve<'b>(&self, binary: &'b str, depth: u32) -> (Cow<'b, str>, bool) {
        if depth < MAX_NESTING_DEPTH
            && let Some(entry) = self.nested.get(binary)
        {
            if let (Some(outer), Some(simple_name)) = (entry.outer, entry.simple_name) {
                let (outer_name, is_canonical) = self.resolve(outer, depth + 1);
                if is_canonical {
                    return (Cow::Owned(format!("{outer_name}.{simple_name}")), true);
                }
            }
            return (Cow::Owned(binary.replace('/', ".")), false);
        }
        canonical_by_rule(binary)
    }

    /// A class type without type arguments, from a binary name.
    fn raw_class_type(&mut self, binary: &str) -> TypeSig {
        TypeSig::Class {
            name: self.canonical(binary),
            args: Vec::new(),
        }
    }

    fn type_variable(&mut self, name: &str) -> Arc<str> {
        if let Some(shared) = self.type_variables.get(name) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(name);
        self.type_variables.insert(Box::from(name), shared.clone());
        shared
    }
}

/// [`canonical_name_of_binary`], and whether the result is canonical.
fn canonical_by_rule(binary: &str) -> (Cow<'_, str>, bool) {
    let bytes = binary.as_bytes();
    // A `$` that begins a simple name (`$Proxy1`) is part of that name.
    let is_separator =
        |at: usize| bytes[at] == b'$' && at > 0 && !matches!(bytes[at - 1], b'.' | b'/');
    let mut has_separator = false;
    let mut is_canonical = true;
    for at in 0..bytes.len() {
        if is_separator(at) {
            has_separator = true;
            let starts_member_name = bytes
                .get(at + 1)
                .is_some_and(|next| !next.is_ascii_digit() && *next != b'$');
            is_canonical &= starts_member_name;
        }
    }
    let replace_separators = has_separator && is_canonical;
    if !replace_separators && !bytes.contains(&b'/') {
        return (Cow::Borrowed(binary), is_canonical);
    }
    let mut name = bytes.to_vec();
    for (at, b) in name.iter_mut().enumerate() {
        if *b == b'/' || (replace_separators && is_separator(at)) {
            *b = b'.';
        }
    }
    // ASCII replaced by ASCII: still UTF-8 (bytes of multi-byte characters
    // are all 0x80 or above).
    match String::from_utf8(name) {
        Ok(name) => (Cow::Owned(name), is_canonical),
        Err(_) => (Cow::Borrowed(binary), is_canonical),
    }
}

/// A parser of JVMS §4.7.9.1 signatures, which also reads descriptors
/// (their grammar is a subset).
struct SignatureParser<'t, 'n, 'p> {
    text: &'t str,
    at: usize,
    depth: u32,
    names: &'n mut NameTable<'p>,
}

/// Thrown away by callers, which fall back or report the whole text.
struct Malformed;

/// What a class signature says.
struct ClassHeader {
    type_params: Vec<TypeParamSig>,
    superclass: Option<TypeSig>,
    interfaces: Vec<TypeSig>,
}

/// What a method signature or descriptor says.
struct MethodHeader {
    type_params: Vec<TypeParamSig>,
    params: Vec<TypeSig>,
    ret: TypeSig,
}

impl<'t, 'n, 'p> SignatureParser<'t, 'n, 'p> {
    fn new(text: &'t str, names: &'n mut NameTable<'p>) -> Self {
        Self {
            text,
            at: 0,
            depth: 0,
            names,
        }
    }

    /// `<T:...>Superclass;Interface;...`
    fn class_signature(mut self) -> Result<ClassHeader, Malformed> {
        let type_params = self.type_params()?;
        let superclass = self.class_type()?;
        let mut interfaces = Vec::new();
        while !self.at_end() {
            interfaces.push(self.class_type()?);
        }
        Ok(ClassHeader {
            type_params,
            superclass: Some(superclass),
            interfaces,
        })
    }

    /// `<T:...>(params)return^throws`, the throws ignored.
    fn method_signature(mut self) -> Result<MethodHeader, Malformed> {
        let type_params = self.type_params()?;
        self.expect(b'(')?;
        let mut params = Vec::new();
        while !self.eat(b')') {
            params.push(self.java_type()?);
        }
        let ret = if self.eat(b'V') {
            TypeSig::Prim(Prim::Void)
        } else {
            self.java_type()?
        };
        if !self.at_end() && self.peek() != Some(b'^') {
            return Err(Malformed);
        }
        Ok(MethodHeader {
            type_params,
            params,
            ret,
        })
    }

    /// A whole field type.
    fn field_type(mut self) -> Result<TypeSig, Malformed> {
        let ty = self.java_type()?;
        if !self.at_end() {
            return Err(Malformed);
        }
        Ok(ty)
    }

    fn type_params(&mut self) -> Result<Vec<TypeParamSig>, Malformed> {
        let mut params = Vec::new();
        if !self.eat(b'<') {
            return Ok(params);
        }
        loop {
            let name = self.identifier(b":;<>./[")?;
            let name = self.names.type_variable(name);
            self.expect(b':')?;
            let mut bounds = Vec::new();
            // The class bound may be empty (`T::Ljava/lang/Comparable;`).
            if matches!(self.peek(), Some(b'L' | b'T' | b'[')) {
                bounds.push(self.reference_type()?);
            }
            while self.eat(b':') {
                bounds.push(self.reference_type()?);
            }
            if let [TypeSig::Class { name, args }] = bounds.as_slice()
                && &**name == "java.lang.Object"
                && args.is_empty()
            {
                bounds.clear();
            }
            params.push(TypeParamSig { name, bounds });
            if self.eat(b'>') {
                return Ok(params);
            }
        }
    }

    fn java_type(&mut self) -> Result<TypeSig, Malformed> {
        match self.peek() {
            Some(b'V') | None => Err(Malformed),
            Some(c) => match Prim::from_descriptor(c) {
                Some(prim) => {
                    self.at += 1;
                    Ok(TypeSig::Prim(prim))
                }
                None => self.reference_type(),
            },
        }
    }

    fn reference_type(&mut self) -> Result<TypeSig, Malformed> {
        match self.peek() {
            Some(b'L') => self.class_type(),
            Some(b'T') => {
                self.at += 1;
                let name = self.identifier(b";<>.:/[")?;
                let var = self.names.type_variable(name);
                self.expect(b';')?;
                Ok(TypeSig::Var(var))
            }
            Some(b'[') => {
                let mut dimensions = 0;
                while self.eat(b'[') {
                    dimensions += 1;
                    if dimensions > MAX_ARRAY_DIMENSIONS {
                        return Err(Malformed);
                    }
                }
                let mut ty = self.java_type()?;
                for _ in 0..dimensions {
                    ty = TypeSig::Array(Box::new(ty));
                }
                Ok(ty)
            }
            _ => Err(Malformed),
        }
    }

    /// `Lp/Outer<TT;>.Inner<TU;>;`: the name of the innermost class, with
    /// its own type arguments.
    fn class_type(&mut self) -> Result<TypeSig, Malformed> {
        self.expect(b'L')?;
        self.depth += 1;
        if self.depth > MAX_SIGNATURE_DEPTH {
            return Err(Malformed);
        }
        let mut binary = Cow::Borrowed(self.identifier(b";<>.:[")?);
        let mut args = Vec::new();
        loop {
            if self.peek() == Some(b'<') {
                args = self.type_args()?;
            }
            if self.eat(b';') {
                break;
            }
            self.expect(b'.')?;
            let member = self.identifier(b";<>.:/[")?;
            binary = Cow::Owned(format!("{binary}${member}"));
            args.clear();
        }
        self.depth -= 1;
        Ok(TypeSig::Class {
            name: self.names.canonical(&binary),
            args,
        })
    }

    fn type_args(&mut self) -> Result<Vec<TypeArg>, Malformed> {
        self.expect(b'<')?;
        let mut args = Vec::new();
        loop {
            args.push(match self.peek() {
                Some(b'*') => {
                    self.at += 1;
                    TypeArg::Any
                }
                Some(b'+') => {
                    self.at += 1;
                    TypeArg::Extends(self.reference_type()?)
                }
                Some(b'-') => {
                    self.at += 1;
                    TypeArg::Super(self.reference_type()?)
                }
                _ => TypeArg::Type(self.reference_type()?),
            });
            if self.eat(b'>') {
                return Ok(args);
            }
        }
    }

    /// A non-empty run of characters up to (not including) one of `stops`.
    fn identifier(&mut self, stops: &[u8]) -> Result<&'t str, Malformed> {
        let rest = &self.text.as_bytes()[self.at..];
        let len = rest
            .iter()
            .position(|b| stops.contains(b))
            .ok_or(Malformed)?;
        if len == 0 {
            return Err(Malformed);
        }
        // Every stop is ASCII, so `at + len` is a character boundary.
        let identifier = self.text.get(self.at..self.at + len).ok_or(Malformed)?;
        self.at += len;
        Ok(identifier)
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    fn eat(&mut self, c: u8) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, c: u8) -> Result<(), Malformed> {
        if self.eat(c) { Ok(()) } else { Err(Malformed) }
    }
}

/// A class the class path knows, not yet read.
struct LibraryClass {
    binary_name: Box<str>,
    archive: u32,
    /// The entry's index in a jar; jmod entries are found by name.
    zip_index: Option<u32>,
}

/// A jmod or jar, opened on first use and shared by all readers.
struct ClassArchive {
    path: PathBuf,
    /// Bytes before the zip data.
    header_len: u64,
    /// What entry names start with before the binary name's path.
    entry_prefix: &'static str,
    /// `None` once opening it failed.
    zip: OnceLock<Option<zip::ZipArchive<ArchiveReader>>>,
}

impl ClassArchive {
    fn read_class_file(&self, class: &LibraryClass) -> io::Result<Vec<u8>> {
        let opened = self.zip.get_or_init(|| match open_zip(&self.path, self.header_len) {
            Ok(zip) => Some(zip),
            Err(error) => {
                tracing::debug!(archive = %self.path.display(), %error, "cannot open class archive");
                None
            }
        });
        let Some(opened) = opened else {
            return Err(io::Error::other("the archive could not be opened"));
        };
        // A clone shares the central directory and the open file, and
        // reads on its own: loads on several threads do not wait for
        // each other.
        let mut zip = opened.clone();
        let index = match class.zip_index {
            Some(index) => index as usize,
            None => {
                let entry_name = format!(
                    "{}{}.class",
                    self.entry_prefix,
                    class.binary_name.replace('.', "/")
                );
                zip.index_for_name(&entry_name).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::NotFound, format!("no entry {entry_name}"))
                })?
            }
        };
        let entry = zip.by_index(index).map_err(io::Error::other)?;
        if entry.size() > MAX_CLASS_FILE_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "class file entry is too large",
            ));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.take(MAX_CLASS_FILE_LEN).read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

fn open_zip(path: &Path, header_len: u64) -> io::Result<zip::ZipArchive<ArchiveReader>> {
    let file = File::open(path)?;
    let file_len = file.metadata()?.len();
    let len = file_len.checked_sub(header_len).ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidData, "not a zip archive: too short")
    })?;
    let reader = ArchiveReader {
        file: Arc::new(file),
        start: header_len,
        len,
        position: 0,
        buffer: Vec::new(),
        buffer_at: 0,
    };
    zip::ZipArchive::new(reader).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The dotted binary name of a jar entry that is a class file of the
/// jar's own classes: not a multi-release variant (`META-INF/versions/`),
/// not `module-info` or `package-info`.
fn jar_entry_binary_name(entry: &str) -> Option<String> {
    let stem = entry.strip_suffix(".class")?;
    if stem.starts_with("META-INF/")
        || stem.ends_with("module-info")
        || stem.ends_with("package-info")
    {
        return None;
    }
    Some(stem.replace('/', "."))
}

/// Reads a region of a file with positional reads, so clones share one
/// open file and read at the same time without a lock. It reads ahead into
/// a buffer of its own; a clone starts with an empty one.
struct ArchiveReader {
    file: Arc<File>,
    /// Where the region starts in the file.
    start: u64,
    /// The region's length.
    len: u64,
    /// The read position, relative to `start`.
    position: u64,
    buffer: Vec<u8>,
    /// The position of `buffer[0]`.
    buffer_at: u64,
}

impl Clone for ArchiveReader {
    fn clone(&self) -> Self {
        Self {
            file: Arc::clone(&self.file),
            start: self.start,
            len: self.len,
            position: self.position,
            buffer: Vec::new(),
            buffer_at: 0,
        }
    }
}

impl Read for ArchiveReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.position >= self.len {
            return Ok(0);
        }
        let remaining = self.len - self.position;
        let is_buffered = self
            .position
            .checked_sub(self.buffer_at)
            .is_some_and(|offset| offset < self.buffer.len() as u64);
        if !is_buffered {
            if out.len() >= ARCHIVE_READ_AHEAD {
                let want = remaining.min(out.len() as u64) as usize;
                let n = read_at(&self.file, &mut out[..want], self.start + self.position)?;
                self.position += n as u64;
                return Ok(n);
            }
            let want = remaining.min(ARCHIVE_READ_AHEAD as u64) as usize;
            self.buffer.resize(want, 0);
            let n = read_at(&self.file, &mut self.buffer, self.start + self.position)?;
            self.buffer.truncate(n);
            self.buffer_at = self.position;
            if n == 0 {
                return Ok(0);
            }
        }
        let offset = (self.position - self.buffer_at) as usize;
        let available = &self.buffer[offset..];
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for ArchiveReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(delta) => self.len.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the archive",
            )
        })?;
        Ok(self.position)
    }
}

#[cfg(unix)]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, out, offset)
}

#[cfg(windows)]
fn read_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<usize> {
    // Moves the file's cursor, which no reader relies on.
    std::os::windows::fs::FileExt::seek_read(file, out, offset)
}

#[cfg(not(any(unix, windows)))]
fn read_at(_file: &File, _out: &mut [u8], _offset: u64) -> io::Result<usize> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "positional reads are not supported on this platform",
    ))
}
