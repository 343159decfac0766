//! Binary names (`java/util/Map$Entry`) to canonical ones
//! (`java.util.Map.Entry`): from a class file's `InnerClasses` attribute
//! first, by rule otherwise.

use super::reader::{ConstantPool, Cursor};
use crate::signatures::TypeSig;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// Outer classes followed through InnerClasses (cycles in broken files).
pub(super) const MAX_NESTING_DEPTH: u32 = 32;

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

/// One class of an InnerClasses attribute.
#[derive(Clone, Copy)]
pub(super) struct NestedClass<'p> {
    /// The enclosing class's binary name, for a member class.
    pub(super) outer: Option<&'p str>,
    /// The simple name; `None` for an anonymous class.
    pub(super) simple_name: Option<&'p str>,
    /// The modifiers as declared in source.
    pub(super) flags: u16,
}

/// Turns the binary names of one class file into canonical names, with
/// the help of its InnerClasses attribute, and shares each name's text.
pub(super) struct NameTable<'p> {
    pub(super) nested: HashMap<&'p str, NestedClass<'p>>,
    pub(super) canonical: HashMap<Box<str>, Arc<str>>,
    pub(super) type_variables: HashMap<Box<str>, Arc<str>>,
}

impl<'p> NameTable<'p> {
    /// Entries of the attribute that do not read are skipped: they only
    /// refine names.
    pub(super) fn new(pool: &ConstantPool<'p>, inner_classes: &'p [u8]) -> Self {
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
    pub(super) fn canonical(&mut self, binary: &str) -> Arc<str> {
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
    pub(super) fn resolve<'b>(&self, binary: &'b str, depth: u32) -> (Cow<'b, str>, bool) {
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
    pub(super) fn raw_class_type(&mut self, binary: &str) -> TypeSig {
        TypeSig::Class {
            name: self.canonical(binary),
            args: Vec::new(),
        }
    }

    pub(super) fn type_variable(&mut self, name: &str) -> Arc<str> {
        if let Some(shared) = self.type_variables.get(name) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(name);
        self.type_variables.insert(Box::from(name), shared.clone());
        shared
    }
}

/// [`canonical_name_of_binary`], and whether the result is canonical.
pub(super) fn canonical_by_rule(binary: &str) -> (Cow<'_, str>, bool) {
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
