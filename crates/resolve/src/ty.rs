//! Types during resolution: signatures instantiated with type arguments
//! ([`Ty`]), substitutions of type variables ([`Subst`]) and the methods
//! lookups find ([`Found`]). The hierarchy questions asked of them are in
//! [`crate::hierarchy`].

use std::sync::Arc;

use refscope_symbols::{MethodSig, Prim};

use crate::class::ClassEntry;

/// An instantiated type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    /// Not known: compatible with anything, has no members.
    Unknown,
    /// The type of `null`.
    Null,
    /// A primitive (or `void`).
    Prim(Prim),
    /// A class type: key and type arguments (empty when raw or not generic).
    Class(Arc<str>, TyArgs),
    /// An array.
    Array(Arc<Ty>),
    /// An argument that is a lambda with this many parameters (element
    /// index of the lambda).
    Lambda(u32, u32),
    /// An argument that is a method reference (site index).
    MethodRef(u32),
}

pub(crate) const OBJECT: &str = "java.lang.Object";
pub(crate) const STRING: &str = "java.lang.String";

/// The type arguments of a class type: no allocation when there are
/// none, which is most of them (an empty `Arc<[Ty]>` is an allocation of
/// its own).
#[derive(Debug, Clone, Default)]
pub(crate) struct TyArgs(Option<Arc<[Ty]>>);

impl TyArgs {
    /// No type arguments.
    pub(crate) const NONE: Self = Self(None);
}

impl std::ops::Deref for TyArgs {
    type Target = [Ty];

    fn deref(&self) -> &[Ty] {
        self.0.as_deref().unwrap_or(&[])
    }
}

impl FromIterator<Ty> for TyArgs {
    fn from_iter<I: IntoIterator<Item = Ty>>(iter: I) -> Self {
        let args: Arc<[Ty]> = iter.into_iter().collect();
        if args.is_empty() {
            Self::NONE
        } else {
            Self(Some(args))
        }
    }
}

impl<const N: usize> From<[Ty; N]> for TyArgs {
    fn from(args: [Ty; N]) -> Self {
        args.into_iter().collect()
    }
}

impl PartialEq for TyArgs {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for TyArgs {}

impl std::hash::Hash for TyArgs {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl Ty {
    pub(crate) fn class(name: &str) -> Self {
        Ty::Class(name.into(), TyArgs::NONE)
    }

    pub(crate) fn class_name(&self) -> Option<&Arc<str>> {
        match self {
            Ty::Class(name, _) => Some(name),
            _ => None,
        }
    }

    pub(crate) fn is_reference(&self) -> bool {
        matches!(self, Ty::Class(..) | Ty::Array(_) | Ty::Null)
    }

    /// The erased name as parameter lists spell it.
    pub(crate) fn erased_name(&self) -> String {
        match self {
            Ty::Prim(p) => p.as_str().to_string(),
            Ty::Class(name, _) => String::from(&**name),
            Ty::Array(inner) => format!("{}[]", inner.erased_name()),
            _ => OBJECT.to_string(),
        }
    }
}

/// Type variables bound to types.
#[derive(Debug, Clone, Default)]
pub(crate) struct Subst(pub(crate) Vec<(Arc<str>, Ty)>);

impl Subst {
    pub(crate) fn get(&self, name: &str) -> Option<&Ty> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, t)| t)
    }

    pub(crate) fn bind(&mut self, name: Arc<str>, ty: Ty) {
        self.0.push((name, ty));
    }
}

/// A method found by lookup, with the substitution of its declaring
/// class's type variables.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) class: Arc<ClassEntry>,
    pub(crate) index: usize,
    pub(crate) subst: Subst,
}

impl Found {
    pub(crate) fn method(&self) -> &MethodSig {
        &self.class.sig.methods[self.index]
    }
}
