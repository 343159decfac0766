//! The symbol model of refscope: what a class looks like to resolution,
//! whether it comes from the repository's sources or from a library.
//!
//! * [`signatures`]: classes with their members and generic signatures
//!   ([`ClassSig`], [`MethodSig`], [`FieldSig`], [`TypeSig`]).
//! * [`classfile`]: library classes (the JDK's `jmods`, jar files) parsed
//!   from their class files on first use ([`ClassPath`]).
//! * [`jdk`]: the installed JDK's type names ([`JdkTypes`]).
//! * [`names`]: a revision's type universe and the qualification of the
//!   type names a file writes ([`TypeUniverse`], [`Qualifier`]).
//! * [`lookups`]: the names a file's qualification and resolution looked
//!   up, recorded so that a later revision can tell whether they still
//!   lead to the same things.
//!
//! It knows the per-file facts of `refscope-syntax` and nothing above them:
//! no resolution of reference sites, no store.
//!
//! ```
//! use refscope_symbols::{Qualifier, TypeUniverse};
//!
//! let facts = refscope_syntax::extract(b"package p; import java.util.List; class A { List<String> xs; }");
//! let mut universe = TypeUniverse::with_jdk(&["java.util.List".to_string()]);
//! universe.add_sources([&facts]);
//! let qualifier = Qualifier::new(&universe, &facts);
//! assert_eq!(qualifier.qualify(1, "List"), "java.util.List");
//! ```

#![forbid(unsafe_code)]

mod archive;
mod canonical;
pub mod classfile;
mod error;
pub mod jdk;
pub mod lookups;
pub mod names;
pub mod signatures;

pub use classfile::ClassPath;
pub use error::Error;
pub use jdk::{JdkOrigin, JdkTypes};
pub use names::{LibraryTypes, Qualifier, TypeUniverse};
pub use signatures::{
    ClassKind, ClassSig, FieldSig, MethodSig, Prim, SourceDecl, TypeArg, TypeParamSig, TypeSig,
    flags,
};
