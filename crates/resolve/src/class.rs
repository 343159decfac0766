//! Classes as the symbol table holds them, and the facts about them that
//! do not depend on a table: anonymous classes, source roots.

use std::sync::Arc;

use refscope_symbols::{ClassKind, ClassSig, TypeSig};

/// A class known to the table, with what resolution derives from it.
#[derive(Debug, PartialEq, Eq)]
pub struct ClassEntry {
    /// The signature.
    pub sig: Arc<ClassSig>,
    /// For source classes: the erased parameter types of each method, as
    /// element ids spell them. Empty for library classes.
    pub erased_params: Vec<Vec<Arc<str>>>,
}

impl ClassEntry {
    /// Whether the class comes from the repository's sources.
    pub fn is_source(&self) -> bool {
        self.sig.decl.is_some()
    }
}

/// Every source copy of one class, first copy first, shared.
pub type ClassCopies = Arc<[Arc<ClassEntry>]>;

/// Whether `sig` is an anonymous class (`p.A$1`).
pub fn is_anonymous(sig: &ClassSig) -> bool {
    sig.kind == ClassKind::Class
        && sig
            .binary_name
            .rsplit('$')
            .next()
            .is_some_and(|last| last.bytes().all(|b| b.is_ascii_digit()))
}

/// An anonymous class names one supertype, extracted as its superclass:
/// when `get` finds it to be an interface, the class implements it and
/// extends `Object`.
pub fn implement_if_interface(
    sig: &mut ClassSig,
    get: impl FnOnce(&str) -> Option<Arc<ClassEntry>>,
) {
    if let Some(TypeSig::Class { name, .. }) = &sig.superclass
        && get(name).is_some_and(|e| e.sig.kind == ClassKind::Interface)
    {
        let interface = sig.superclass.take().expect("checked above");
        sig.interfaces.push(interface);
        sig.superclass = Some(TypeSig::Class {
            name: "java.lang.Object".into(),
            args: Vec::new(),
        });
    }
}

/// The source root of a file: its directory with the package's folders
/// taken off the end (`guava/src/` for `guava/src/com/google/X.java` in
/// package `com.google`), or its directory when they do not match.
pub fn source_root<'p>(path: &'p str, package: Option<&str>) -> &'p str {
    let dir = path.rfind('/').map_or("", |i| &path[..=i]);
    let Some(package) = package else { return dir };
    let suffix: String = package.split('.').map(|p| format!("{p}/")).collect();
    dir.strip_suffix(suffix.as_str()).unwrap_or(dir)
}
