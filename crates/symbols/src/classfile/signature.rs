//! The `Signature` attribute's grammar (JVMS §4.7.9.1): class, method
//! and field signatures into [`TypeSig`]s.

use super::names::NameTable;
use crate::signatures::{Prim, TypeArg, TypeParamSig, TypeSig};
use std::borrow::Cow;

/// Nesting of type arguments followed before a signature is called
/// malformed; javac's never come near it, and it bounds the recursion.
pub(super) const MAX_SIGNATURE_DEPTH: u32 = 64;
/// JVMS §4.3.2: at most 255 array dimensions.
pub(super) const MAX_ARRAY_DIMENSIONS: usize = 255;

/// A parser of JVMS §4.7.9.1 signatures, which also reads descriptors
/// (their grammar is a subset).
pub(super) struct SignatureParser<'t, 'n, 'p> {
    pub(super) text: &'t str,
    pub(super) at: usize,
    pub(super) depth: u32,
    pub(super) names: &'n mut NameTable<'p>,
}

/// Thrown away by callers, which fall back or report the whole text.
pub(super) struct Malformed;

/// What a class signature says.
pub(super) struct ClassHeader {
    pub(super) type_params: Vec<TypeParamSig>,
    pub(super) superclass: Option<TypeSig>,
    pub(super) interfaces: Vec<TypeSig>,
}

/// What a method signature or descriptor says.
pub(super) struct MethodHeader {
    pub(super) type_params: Vec<TypeParamSig>,
    pub(super) params: Vec<TypeSig>,
    pub(super) ret: TypeSig,
}

impl<'t, 'n, 'p> SignatureParser<'t, 'n, 'p> {
    pub(super) fn new(text: &'t str, names: &'n mut NameTable<'p>) -> Self {
        Self {
            text,
            at: 0,
            depth: 0,
            names,
        }
    }

    /// `<T:...>Superclass;Interface;...`
    pub(super) fn class_signature(mut self) -> Result<ClassHeader, Malformed> {
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
    pub(super) fn method_signature(mut self) -> Result<MethodHeader, Malformed> {
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
    pub(super) fn field_type(mut self) -> Result<TypeSig, Malformed> {
        let ty = self.java_type()?;
        if !self.at_end() {
            return Err(Malformed);
        }
        Ok(ty)
    }

    pub(super) fn type_params(&mut self) -> Result<Vec<TypeParamSig>, Malformed> {
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

    pub(super) fn java_type(&mut self) -> Result<TypeSig, Malformed> {
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

    pub(super) fn reference_type(&mut self) -> Result<TypeSig, Malformed> {
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
    pub(super) fn class_type(&mut self) -> Result<TypeSig, Malformed> {
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

    pub(super) fn type_args(&mut self) -> Result<Vec<TypeArg>, Malformed> {
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
    pub(super) fn identifier(&mut self, stops: &[u8]) -> Result<&'t str, Malformed> {
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

    pub(super) fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    pub(super) fn at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.at += 1;
        }
        found
    }

    pub(super) fn expect(&mut self, c: u8) -> Result<(), Malformed> {
        if self.eat(c) { Ok(()) } else { Err(Malformed) }
    }
}
