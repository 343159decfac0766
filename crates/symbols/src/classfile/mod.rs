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

mod names;
mod parse;
mod path;
mod reader;
mod signature;

pub use names::canonical_name_of_binary;
pub use parse::parse_class;
pub use path::ClassPath;
pub use reader::ClassFileError;
