//! One class file into a [`ClassSig`]: the class header, its members with
//! their access flags, and the attributes that carry generic signatures
//! and nesting.

use super::names::NameTable;
use super::reader::{ClassFileError, ConstantPool, Cursor};
use super::signature::{ClassHeader, SignatureParser};
use crate::signatures::{ClassKind, ClassSig, FieldSig, MethodSig, Prim, TypeSig, flags};
use std::sync::Arc;

pub(super) const CLASS_FILE_MAGIC: [u8; 4] = [0xca, 0xfe, 0xba, 0xbe];

// JVM access flags that are not source modifiers (JVMS tables 4.1-B, 4.6-A).
pub(super) const ACC_BRIDGE: u16 = 0x0040;
pub(super) const ACC_INTERFACE: u16 = 0x0200;
pub(super) const ACC_SYNTHETIC: u16 = 0x1000;
pub(super) const ACC_ANNOTATION: u16 = 0x2000;
pub(super) const ACC_ENUM: u16 = 0x4000;

pub(super) const ACCESS_FLAGS: u16 = flags::PUBLIC | flags::PRIVATE | flags::PROTECTED;
pub(super) const CLASS_FLAGS: u16 = ACCESS_FLAGS | flags::STATIC | flags::FINAL | flags::ABSTRACT;
pub(super) const METHOD_FLAGS: u16 = CLASS_FLAGS | flags::VARARGS;
// 0x0080 is ACC_TRANSIENT on a field, not varargs.
pub(super) const FIELD_FLAGS: u16 = ACCESS_FLAGS | flags::STATIC | flags::FINAL;

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

/// A field or method as stored, before its types are read.
pub(super) struct RawMember {
    pub(super) flags: u16,
    pub(super) name: u16,
    pub(super) descriptor: u16,
    pub(super) signature: Option<u16>,
}

pub(super) fn read_members<'a>(
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
pub(super) fn read_attributes<'a>(
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
pub(super) fn signature_index(body: &[u8]) -> Option<u16> {
    match body {
        [hi, lo] => Some(u16::from_be_bytes([*hi, *lo])),
        _ => None,
    }
}

/// The signature of a method, `None` for the static initializer.
pub(super) fn read_method(
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

pub(super) fn read_field(
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
