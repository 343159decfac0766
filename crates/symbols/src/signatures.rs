//! The symbol table's vocabulary: classes with their members and generic
//! signatures, whether they come from the repository's sources or from
//! library class files (the JDK, jars).
//!
//! Class names inside signatures are *canonical* names (`java.util.Map.Entry`)
//! for every nameable class, and binary names (`p.A$1Local`) for local and
//! anonymous classes, which have no canonical name. That is the key of
//! [`crate::names::TypeUniverse`] too, so a name found in a signature can be
//! looked up directly.

use std::sync::Arc;

/// A primitive type, `void` included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Prim {
    /// `boolean`
    Boolean,
    /// `byte`
    Byte,
    /// `short`
    Short,
    /// `char`
    Char,
    /// `int`
    Int,
    /// `long`
    Long,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `void`
    Void,
}

impl Prim {
    /// Every primitive, `void` last.
    pub const ALL: [Self; 9] = [
        Self::Boolean,
        Self::Byte,
        Self::Short,
        Self::Char,
        Self::Int,
        Self::Long,
        Self::Float,
        Self::Double,
        Self::Void,
    ];

    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Boolean => "boolean",
            Self::Byte => "byte",
            Self::Short => "short",
            Self::Char => "char",
            Self::Int => "int",
            Self::Long => "long",
            Self::Float => "float",
            Self::Double => "double",
            Self::Void => "void",
        }
    }

    /// The primitive named by a keyword.
    pub fn parse(keyword: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == keyword)
    }

    /// The primitive of a JVM descriptor character (`I`, `Z`, `V`, ...).
    pub fn from_descriptor(c: u8) -> Option<Self> {
        Some(match c {
            b'Z' => Self::Boolean,
            b'B' => Self::Byte,
            b'S' => Self::Short,
            b'C' => Self::Char,
            b'I' => Self::Int,
            b'J' => Self::Long,
            b'F' => Self::Float,
            b'D' => Self::Double,
            b'V' => Self::Void,
            _ => return None,
        })
    }

    /// The canonical name of the box class (`java.lang.Integer`).
    pub fn boxed(self) -> &'static str {
        match self {
            Self::Boolean => "java.lang.Boolean",
            Self::Byte => "java.lang.Byte",
            Self::Short => "java.lang.Short",
            Self::Char => "java.lang.Character",
            Self::Int => "java.lang.Integer",
            Self::Long => "java.lang.Long",
            Self::Float => "java.lang.Float",
            Self::Double => "java.lang.Double",
            Self::Void => "java.lang.Void",
        }
    }

    /// The primitive a box class unboxes to.
    pub fn unboxed(canonical: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.boxed() == canonical)
    }
}

/// A type as it appears in a member signature, before substitution.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeSig {
    /// A primitive type or `void`.
    Prim(Prim),
    /// A class or interface type with its type arguments (empty for a raw
    /// or non-generic use).
    Class {
        /// Canonical name (binary name for local and anonymous classes).
        name: Arc<str>,
        /// Type arguments, outermost class's arguments are not kept.
        args: Vec<TypeArg>,
    },
    /// A type variable, by name; the declaring class or method knows its
    /// bounds.
    Var(Arc<str>),
    /// An array.
    Array(Box<TypeSig>),
    /// A type that could not be resolved, as written (erased).
    Unknown(Arc<str>),
}

/// A type argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeArg {
    /// `T`
    Type(TypeSig),
    /// `? extends T`
    Extends(TypeSig),
    /// `? super T`
    Super(TypeSig),
    /// `?`
    Any,
}

/// A type parameter of a class or method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeParamSig {
    /// Its name.
    pub name: Arc<str>,
    /// Its bounds; empty means `java.lang.Object`.
    pub bounds: Vec<TypeSig>,
}

/// What kind of class a [`ClassSig`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassKind {
    /// A class (anonymous and local classes included).
    Class,
    /// An interface.
    Interface,
    /// An enum.
    Enum,
    /// A record.
    Record,
    /// An annotation type.
    Annotation,
}

/// Access and other flags of classes and members, as bits.
pub mod flags {
    /// `public`
    pub const PUBLIC: u16 = 0x0001;
    /// `private`
    pub const PRIVATE: u16 = 0x0002;
    /// `protected`
    pub const PROTECTED: u16 = 0x0004;
    /// `static`
    pub const STATIC: u16 = 0x0008;
    /// `final`
    pub const FINAL: u16 = 0x0010;
    /// A varargs method (`T...` last parameter).
    pub const VARARGS: u16 = 0x0080;
    /// `abstract`
    pub const ABSTRACT: u16 = 0x0400;
    /// A member the compiler declares (default constructor, record
    /// accessor, enum `values`/`valueOf`); set by the source reader.
    pub const IMPLICIT: u16 = 0x2000;
    /// A `default` interface method (not a JVM flag: set by readers).
    pub const DEFAULT: u16 = 0x8000;
}

/// A method or constructor (`<init>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSig {
    /// Simple name; `<init>` for constructors.
    pub name: Arc<str>,
    /// [`flags`] bits.
    pub flags: u16,
    /// The method's own type parameters.
    pub type_params: Vec<TypeParamSig>,
    /// Parameter types, generic; a varargs parameter is an array.
    pub params: Vec<TypeSig>,
    /// Return type (`void` for constructors).
    pub ret: TypeSig,
    /// Where it is declared in source, if it is.
    pub decl: Option<SourceDecl>,
}

/// A field or enum constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSig {
    /// Its name.
    pub name: Arc<str>,
    /// [`flags`] bits.
    pub flags: u16,
    /// Its type, generic.
    pub ty: TypeSig,
    /// Where it is declared in source, if it is.
    pub decl: Option<SourceDecl>,
}

/// Where a source declaration is: enough to report `decl_file`/`decl_line`
/// and to link it to its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceDecl {
    /// Index of the file in the revision's file list.
    pub file: u32,
    /// Index of the element in that file's facts.
    pub element: u32,
    /// Line of the name token.
    pub line: u32,
    /// The element's signature ordinal in its file
    /// ([`refscope_syntax::facts::FileFacts::signature_ordinals`]), which an edit
    /// inside a body does not change; [`refscope_syntax::facts::NO_ORDINAL`] for an
    /// element inside a body.
    pub ordinal: u32,
}

/// A class with its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassSig {
    /// Canonical name (binary name for local and anonymous classes).
    pub name: Arc<str>,
    /// Binary name (`java.util.Map$Entry`).
    pub binary_name: Arc<str>,
    /// What kind of class it is.
    pub kind: ClassKind,
    /// [`flags`] bits.
    pub flags: u16,
    /// Type parameters.
    pub type_params: Vec<TypeParamSig>,
    /// Type parameters of enclosing classes and methods that the class's
    /// members may name (inner, local and anonymous classes), innermost
    /// first; empty for library classes.
    pub outer_type_params: Vec<TypeParamSig>,
    /// The superclass, generic; `None` for `java.lang.Object` and
    /// interfaces.
    pub superclass: Option<TypeSig>,
    /// Direct superinterfaces, generic.
    pub interfaces: Vec<TypeSig>,
    /// Methods and constructors, declared (not inherited), without
    /// synthetic and bridge methods.
    pub methods: Vec<MethodSig>,
    /// Fields and enum constants, declared, without synthetic fields.
    pub fields: Vec<FieldSig>,
    /// Where it is declared in source, if it is.
    pub decl: Option<SourceDecl>,
}
