//! Source signatures: type texts as written (`Map<String, List<T>>[]`)
//! parsed into [`TypeSig`]s with their names qualified, and the
//! [`ClassSig`]s of a file's types built from its declarations alone.

use std::sync::Arc;

use refscope_symbols::names::{Qualifier, canonical_name};
use refscope_symbols::{
    ClassKind, ClassSig, FieldSig, MethodSig, Prim, SourceDecl, TypeArg, TypeParamSig, TypeSig,
    flags,
};
use refscope_syntax::facts::{Element, ElementKind, FileFacts, Modifiers, NO_ELEMENT};

/// Parses a type as written, qualifying names in element `scope`.
pub(crate) fn parse_type(qualifier: &Qualifier, scope: u32, text: &str) -> TypeSig {
    let tokens = tokenize(text);
    let mut parser = Parser {
        tokens: &tokens,
        at: 0,
        qualifier,
        scope,
    };
    parser.ty().unwrap_or_else(|| TypeSig::Unknown(text.into()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    Ident(&'a str),
    Punct(char),
    Ellipsis,
}

fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("...") {
            out.push(Token::Ellipsis);
            i += 3;
        } else if c == b'_' || c == b'$' || c.is_ascii_alphanumeric() || c >= 0x80 {
            let start = i;
            while i < bytes.len() {
                let d = bytes[i];
                if d == b'_' || d == b'$' || d.is_ascii_alphanumeric() || d >= 0x80 {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token::Ident(&text[start..i]));
        } else {
            out.push(Token::Punct(c as char));
            i += 1;
        }
    }
    out
}

struct Parser<'t, 'q> {
    tokens: &'t [Token<'t>],
    at: usize,
    qualifier: &'q Qualifier<'q>,
    scope: u32,
}

impl<'t> Parser<'t, '_> {
    fn peek(&self) -> Option<Token<'t>> {
        self.tokens.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(Token::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ty(&mut self) -> Option<TypeSig> {
        let base = match self.peek()? {
            Token::Ident(word) => {
                if let Some(prim) = Prim::parse(word) {
                    self.at += 1;
                    TypeSig::Prim(prim)
                } else {
                    self.class_type()?
                }
            }
            _ => return None,
        };
        Some(self.dims(base))
    }

    fn dims(&mut self, mut ty: TypeSig) -> TypeSig {
        loop {
            if self.peek() == Some(Token::Punct('[')) {
                self.at += 1;
                self.eat(']');
                ty = TypeSig::Array(Box::new(ty));
            } else if self.peek() == Some(Token::Ellipsis) {
                self.at += 1;
                ty = TypeSig::Array(Box::new(ty));
            } else {
                return ty;
            }
        }
    }

    fn class_type(&mut self) -> Option<TypeSig> {
        let mut name = String::new();
        let mut args = Vec::new();
        while let Some(Token::Ident(word)) = self.peek() {
            self.at += 1;
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(word);
            if self.eat('<') {
                args = self.type_args();
            }
            if self.peek() == Some(Token::Punct('.'))
                && matches!(self.tokens.get(self.at + 1), Some(Token::Ident(_)))
            {
                self.at += 1;
                continue;
            }
            break;
        }
        if name.is_empty() {
            return None;
        }
        if !name.contains('.') && self.qualifier.type_variable(self.scope, &name).is_some() {
            return Some(TypeSig::Var(name.into()));
        }
        Some(match self.qualifier.resolve_type_name(self.scope, &name) {
            Some(canonical) => TypeSig::Class {
                name: canonical.into(),
                args,
            },
            None => TypeSig::Unknown(name.into()),
        })
    }

    fn type_args(&mut self) -> Vec<TypeArg> {
        let mut args = Vec::new();
        loop {
            if self.eat('>') {
                return args;
            }
            if self.eat('?') {
                let arg = match self.peek() {
                    Some(Token::Ident("extends")) => {
                        self.at += 1;
                        self.ty().map_or(TypeArg::Any, TypeArg::Extends)
                    }
                    Some(Token::Ident("super")) => {
                        self.at += 1;
                        self.ty().map_or(TypeArg::Any, TypeArg::Super)
                    }
                    _ => TypeArg::Any,
                };
                args.push(arg);
            } else if let Some(ty) = self.ty() {
                args.push(TypeArg::Type(ty));
            } else if self.peek().is_none() {
                return args;
            } else {
                self.at += 1;
                continue;
            }
            // Intersection bounds inside arguments are not expected; skip
            // to the separator.
            while let Some(token) = self.peek() {
                match token {
                    Token::Punct(',') => {
                        self.at += 1;
                        break;
                    }
                    Token::Punct('>') => break,
                    _ => self.at += 1,
                }
            }
        }
    }
}

/// The class signatures of every type declared in a file (local and
/// anonymous classes included), with the erased parameter types of each
/// method as the element records spell them.
pub(crate) fn file_classes(
    qualifier: &Qualifier,
    facts: &FileFacts,
    file: u32,
) -> Vec<(ClassSig, Vec<Vec<Arc<str>>>)> {
    let mut out: Vec<(ClassSig, Vec<Vec<Arc<str>>>)> = Vec::new();
    let mut slot_of: Vec<u32> = vec![u32::MAX; facts.elements.len()];
    let ordinals = facts.signature_ordinals();
    for (index, element) in facts.elements.iter().enumerate() {
        let idx = index as u32;
        if element.kind.is_type() {
            slot_of[index] = out.len() as u32;
            let decl = SourceDecl {
                file,
                element: idx,
                line: element.name_pos.line,
                ordinal: ordinals[index],
            };
            out.push((class_sig(qualifier, facts, decl), Vec::new()));
            continue;
        }
        let parent = element.parent;
        if parent == NO_ELEMENT || slot_of[parent as usize] == u32::MAX {
            continue;
        }
        let slot = &mut out[slot_of[parent as usize] as usize];
        let decl = Some(SourceDecl {
            file,
            element: idx,
            line: element.name_pos.line,
            ordinal: ordinals[index],
        });
        match element.kind {
            ElementKind::Method | ElementKind::AnnotationElement | ElementKind::Constructor => {
                let params: Vec<TypeSig> = element
                    .params
                    .iter()
                    // Varargs types are written `T...`: already an array.
                    .map(|p| parse_type(qualifier, idx, &p.type_text))
                    .collect();
                let erased = element
                    .params
                    .iter()
                    .map(|p| Arc::from(qualifier.qualify(idx, &p.erased)))
                    .collect();
                let ret = if element.kind == ElementKind::Constructor {
                    TypeSig::Prim(Prim::Void)
                } else {
                    parse_type(qualifier, idx, &element.type_text)
                };
                let mut bits = member_flags(element.modifiers);
                if element.params.last().is_some_and(|p| p.varargs) {
                    bits |= flags::VARARGS;
                }
                let owner_kind = slot.0.kind;
                if owner_kind == ClassKind::Interface || owner_kind == ClassKind::Annotation {
                    if bits & (flags::PRIVATE | flags::PROTECTED) == 0 {
                        bits |= flags::PUBLIC;
                    }
                    let has_body = element.modifiers.has("default")
                        || element.modifiers.has("static")
                        || element.modifiers.has("private");
                    if !has_body {
                        bits |= flags::ABSTRACT;
                    } else if element.modifiers.has("default") {
                        bits |= flags::DEFAULT;
                    }
                }
                slot.0.methods.push(MethodSig {
                    name: element.name.as_str().into(),
                    flags: bits,
                    type_params: type_params(qualifier, idx, element),
                    params,
                    ret,
                    decl,
                });
                slot.1.push(erased);
            }
            ElementKind::Field | ElementKind::RecordComponent | ElementKind::EnumConstant => {
                let mut bits = member_flags(element.modifiers);
                let owner_kind = slot.0.kind;
                if element.kind == ElementKind::EnumConstant
                    || owner_kind == ClassKind::Interface
                    || owner_kind == ClassKind::Annotation
                {
                    bits |= flags::STATIC | flags::FINAL | flags::PUBLIC;
                }
                if element.kind == ElementKind::RecordComponent {
                    bits |= flags::PRIVATE | flags::FINAL;
                }
                let ty = if element.kind == ElementKind::EnumConstant {
                    TypeSig::Class {
                        name: slot.0.name.clone(),
                        args: Vec::new(),
                    }
                } else {
                    parse_type(qualifier, idx, &element.type_text)
                };
                slot.0.fields.push(FieldSig {
                    name: element.name.as_str().into(),
                    flags: bits,
                    ty,
                    decl,
                });
            }
            _ => {}
        }
    }
    for (class, erased) in &mut out {
        add_implicit_members(qualifier, facts, class, erased);
    }
    out
}

/// Members the compiler declares: a default constructor, a record's
/// canonical constructor and accessors, an enum's `values` and `valueOf`.
fn add_implicit_members(
    qualifier: &Qualifier,
    facts: &FileFacts,
    class: &mut ClassSig,
    erased: &mut Vec<Vec<Arc<str>>>,
) {
    let Some(decl) = class.decl else { return };
    let element = &facts.elements[decl.element as usize];
    let has_ctor = class.methods.iter().any(|m| &*m.name == "<init>");
    let implicit = |name: &str, flags: u16, params: Vec<TypeSig>, ret: TypeSig, decl| MethodSig {
        name: name.into(),
        flags: flags | flags::IMPLICIT,
        type_params: Vec::new(),
        params,
        ret,
        decl: Some(decl),
    };
    let this_type = TypeSig::Class {
        name: class.name.clone(),
        args: Vec::new(),
    };
    match class.kind {
        ClassKind::Class if element.kind != ElementKind::AnonymousClass && !has_ctor => {
            let bits = class.flags & (flags::PUBLIC | flags::PROTECTED | flags::PRIVATE);
            class.methods.push(implicit(
                "<init>",
                bits,
                Vec::new(),
                TypeSig::Prim(Prim::Void),
                decl,
            ));
            erased.push(Vec::new());
        }
        ClassKind::Record => {
            let components: Vec<(FieldSig, Arc<str>)> = class
                .fields
                .iter()
                .filter(|f| {
                    f.decl.is_some_and(|d| {
                        facts.elements[d.element as usize].kind == ElementKind::RecordComponent
                    })
                })
                .map(|f| {
                    let d = f.decl.expect("filtered");
                    let e = &facts.elements[d.element as usize];
                    (f.clone(), Arc::from(e.type_erased.as_str()))
                })
                .collect();
            let n = components.len();
            if !class
                .methods
                .iter()
                .any(|m| &*m.name == "<init>" && m.params.len() == n)
            {
                let params = components.iter().map(|(f, _)| f.ty.clone()).collect();
                class.methods.push(implicit(
                    "<init>",
                    flags::PUBLIC,
                    params,
                    TypeSig::Prim(Prim::Void),
                    decl,
                ));
                // The erased names of the components, as the record's
                // own parameters spell them.
                erased.push(
                    element
                        .params
                        .iter()
                        .map(|p| Arc::from(qualifier.qualify(decl.element, &p.erased)))
                        .collect(),
                );
            }
            for (field, _) in components {
                let declared = class
                    .methods
                    .iter()
                    .any(|m| m.name == field.name && m.params.is_empty());
                if !declared && let Some(d) = field.decl {
                    class.methods.push(implicit(
                        &field.name,
                        flags::PUBLIC,
                        Vec::new(),
                        field.ty.clone(),
                        d,
                    ));
                    erased.push(Vec::new());
                }
            }
        }
        ClassKind::Enum => {
            let string = TypeSig::Class {
                name: "java.lang.String".into(),
                args: Vec::new(),
            };
            class.methods.push(implicit(
                "values",
                flags::PUBLIC | flags::STATIC,
                Vec::new(),
                TypeSig::Array(Box::new(this_type.clone())),
                decl,
            ));
            erased.push(Vec::new());
            class.methods.push(implicit(
                "valueOf",
                flags::PUBLIC | flags::STATIC,
                vec![string],
                this_type,
                decl,
            ));
            erased.push(vec!["java.lang.String".into()]);
        }
        _ => {}
    }
}

fn member_flags(modifiers: Modifiers) -> u16 {
    let mut bits = 0;
    for (keyword, bit) in [
        ("public", flags::PUBLIC),
        ("private", flags::PRIVATE),
        ("protected", flags::PROTECTED),
        ("static", flags::STATIC),
        ("final", flags::FINAL),
        ("abstract", flags::ABSTRACT),
        ("default", flags::DEFAULT),
    ] {
        if modifiers.has(keyword) {
            bits |= bit;
        }
    }
    bits
}

fn type_params(qualifier: &Qualifier, scope: u32, element: &Element) -> Vec<TypeParamSig> {
    element
        .type_params
        .iter()
        .map(|p| TypeParamSig {
            name: p.name.as_str().into(),
            bounds: p
                .bounds
                .iter()
                .map(|b| parse_type(qualifier, scope, b))
                .collect(),
        })
        .collect()
}

/// The key of a type element in the symbol table: its canonical name, or
/// its binary name when it has none.
pub(crate) fn class_key(facts: &FileFacts, index: u32) -> String {
    canonical_name(facts, index)
        .unwrap_or_else(|| facts.elements[index as usize].binary_name.clone())
}

fn class_sig(qualifier: &Qualifier, facts: &FileFacts, decl: SourceDecl) -> ClassSig {
    let index = decl.element;
    let element = &facts.elements[index as usize];
    let kind = match element.kind {
        ElementKind::Interface => ClassKind::Interface,
        ElementKind::Enum => ClassKind::Enum,
        ElementKind::Record => ClassKind::Record,
        ElementKind::AnnotationType => ClassKind::Annotation,
        _ => ClassKind::Class,
    };
    // Supertypes are named in the scope around the type (its own type
    // parameters are visible too, which `index` as scope gives).
    let scope = if element.kind == ElementKind::AnonymousClass {
        element.parent
    } else {
        index
    };
    let written: Vec<TypeSig> = element
        .supertypes_written
        .iter()
        .map(|s| {
            if s.is_empty() {
                TypeSig::Unknown("".into())
            } else {
                parse_type(qualifier, scope, s)
            }
        })
        .collect();
    let object = || TypeSig::Class {
        name: "java.lang.Object".into(),
        args: Vec::new(),
    };
    let (superclass, interfaces) = match element.kind {
        ElementKind::Class => {
            let mut iter = written.into_iter();
            let superclass = match iter.next() {
                Some(TypeSig::Unknown(text)) if text.is_empty() => object(),
                Some(other) => other,
                None => object(),
            };
            (Some(superclass), iter.collect())
        }
        ElementKind::Interface | ElementKind::AnnotationType => (None, written),
        ElementKind::Enum => (
            Some(TypeSig::Class {
                name: "java.lang.Enum".into(),
                args: vec![TypeArg::Type(TypeSig::Class {
                    name: class_key(facts, index).into(),
                    args: Vec::new(),
                })],
            }),
            written,
        ),
        ElementKind::Record => (
            Some(TypeSig::Class {
                name: "java.lang.Record".into(),
                args: Vec::new(),
            }),
            written,
        ),
        _ => {
            // Anonymous: its one supertype is a class or an interface;
            // which one is known only once the symbol table is complete.
            (written.into_iter().next(), Vec::new())
        }
    };
    let mut bits = member_flags(element.modifiers);
    if matches!(kind, ClassKind::Interface | ClassKind::Annotation) {
        bits |= flags::ABSTRACT;
    }
    ClassSig {
        name: class_key(facts, index).into(),
        binary_name: element.binary_name.as_str().into(),
        kind,
        flags: bits,
        type_params: type_params(qualifier, index, element),
        outer_type_params: facts
            .ancestry(index)
            .skip(1)
            .flat_map(|outer| type_params(qualifier, outer, &facts.elements[outer as usize]))
            .collect(),
        superclass,
        interfaces,
        methods: Vec::new(),
        fields: Vec::new(),
        decl: Some(decl),
    }
}
