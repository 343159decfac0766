//! A unit's symbols (`units.symbols`): what the file contributes to its
//! revision's symbol table, as resolution of *other* files sees it — the
//! named types it declares with their binary names and supertypes (the
//! type universe's entries), and its classes' signatures without
//! positions. A process that resolves a few files on top of an indexed
//! revision reads the signatures it needs from here instead of deriving
//! every file's.
//!
//! Encoding: a table of the distinct strings (varint count, then each as
//! varint length and UTF-8), then the package, the types and the classes,
//! every string as a varint index into the table; see [`encode`]. The
//! declaring file of a [`SourceDecl`] is not stored (a reader gives it the
//! number it uses for the unit's path).

use std::sync::Arc;

use refscope_resolve::ClassEntry;
use refscope_symbols::{
    ClassKind, ClassSig, FieldSig, MethodSig, Prim, SourceDecl, TypeArg, TypeParamSig, TypeSig,
};

use crate::codec::{Damaged, Reader, write_str, write_varint};

/// A named type a unit declares: an entry of the type universe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeEntry {
    /// Canonical name, `p.Outer.Inner`.
    pub canonical: String,
    /// Binary name, `p.Outer$Inner`.
    pub binary: String,
    /// Canonical names of its direct supertypes, as the universe
    /// qualifies them.
    pub supertypes: Vec<String>,
}

/// What one unit contributes to its revision's symbol table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitSymbols {
    /// The file's package.
    pub package: Option<String>,
    /// Its named types, in declaration order.
    pub types: Vec<TypeEntry>,
    /// Its classes (local and anonymous ones included) as other files see
    /// them: declarations known by signature ordinal, not by line.
    pub classes: Vec<Arc<ClassEntry>>,
}

impl UnitSymbols {
    /// Every key the unit declares: its types' canonical names and its
    /// classes' keys, sorted, each once.
    pub fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self
            .types
            .iter()
            .map(|t| t.canonical.as_str())
            .chain(self.classes.iter().map(|c| &*c.sig.name))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// The file number a decoded [`SourceDecl`] carries until the reader sets
/// its own.
pub const NO_FILE: u32 = u32::MAX;

/// `symbols` encoded.
pub fn encode(symbols: &UnitSymbols) -> Vec<u8> {
    let mut strings = Strings::default();
    let mut body = Vec::with_capacity(256);
    match &symbols.package {
        Some(package) => write_varint(&mut body, u64::from(strings.index(package)) + 1),
        None => write_varint(&mut body, 0),
    }
    write_varint(&mut body, symbols.types.len() as u64);
    for t in &symbols.types {
        strings.write(&mut body, &t.canonical);
        strings.write(&mut body, &t.binary);
        write_varint(&mut body, t.supertypes.len() as u64);
        for s in &t.supertypes {
            strings.write(&mut body, s);
        }
    }
    write_varint(&mut body, symbols.classes.len() as u64);
    for entry in &symbols.classes {
        write_class(&mut strings, &mut body, entry);
    }
    let mut out = Vec::with_capacity(body.len() + strings.bytes.len() + 8);
    write_varint(&mut out, strings.count as u64);
    out.extend_from_slice(&strings.bytes);
    out.extend_from_slice(&body);
    out
}

/// The symbols of an [`encode`]d unit.
pub fn decode(bytes: &[u8]) -> Result<UnitSymbols, Damaged> {
    let mut reader = Reader::new(bytes);
    let count = reader.len()?;
    let mut table: Vec<Arc<str>> = Vec::with_capacity(count);
    for _ in 0..count {
        table.push(Arc::from(reader.str()?));
    }
    let mut d = Decoder { reader, table };
    let package = match d.reader.varint()? {
        0 => None,
        n => Some(d.string_at(n - 1)?.to_string()),
    };
    let n_types = d.reader.len()?;
    let mut types = Vec::with_capacity(n_types);
    for _ in 0..n_types {
        let canonical = d.string()?.to_string();
        let binary = d.string()?.to_string();
        let n = d.reader.len()?;
        let supertypes = (0..n)
            .map(|_| d.string().map(|s| s.to_string()))
            .collect::<Result<_, _>>()?;
        types.push(TypeEntry {
            canonical,
            binary,
            supertypes,
        });
    }
    let n_classes = d.reader.len()?;
    let mut classes = Vec::with_capacity(n_classes);
    for _ in 0..n_classes {
        classes.push(Arc::new(d.class()?));
    }
    if !d.reader.is_empty() {
        return Err(Damaged);
    }
    Ok(UnitSymbols {
        package,
        types,
        classes,
    })
}

/// The string table being built, and its encoding so far.
#[derive(Default)]
struct Strings<'s> {
    index: rustc_hash::FxHashMap<&'s str, u32>,
    count: u32,
    bytes: Vec<u8>,
}

impl<'s> Strings<'s> {
    fn index(&mut self, s: &'s str) -> u32 {
        match self.index.entry(s) {
            std::collections::hash_map::Entry::Occupied(held) => *held.get(),
            std::collections::hash_map::Entry::Vacant(new) => {
                let at = self.count;
                self.count += 1;
                write_str(&mut self.bytes, s);
                *new.insert(at)
            }
        }
    }

    fn write(&mut self, out: &mut Vec<u8>, s: &'s str) {
        let at = self.index(s);
        write_varint(out, u64::from(at));
    }
}

fn write_class<'s>(strings: &mut Strings<'s>, out: &mut Vec<u8>, entry: &'s ClassEntry) {
    let sig = &entry.sig;
    strings.write(out, &sig.name);
    strings.write(out, &sig.binary_name);
    out.push(class_kind_code(sig.kind));
    write_varint(out, u64::from(sig.flags));
    write_type_params(strings, out, &sig.type_params);
    write_type_params(strings, out, &sig.outer_type_params);
    match &sig.superclass {
        Some(superclass) => {
            out.push(1);
            write_type(strings, out, superclass);
        }
        None => out.push(0),
    }
    write_types(strings, out, &sig.interfaces);
    write_varint(out, sig.methods.len() as u64);
    for m in &sig.methods {
        strings.write(out, &m.name);
        write_varint(out, u64::from(m.flags));
        write_type_params(strings, out, &m.type_params);
        write_types(strings, out, &m.params);
        write_type(strings, out, &m.ret);
        write_decl(out, &m.decl);
    }
    write_varint(out, sig.fields.len() as u64);
    for f in &sig.fields {
        strings.write(out, &f.name);
        write_varint(out, u64::from(f.flags));
        write_type(strings, out, &f.ty);
        write_decl(out, &f.decl);
    }
    write_decl(out, &sig.decl);
    write_varint(out, entry.erased_params.len() as u64);
    for params in &entry.erased_params {
        write_varint(out, params.len() as u64);
        for p in params {
            strings.write(out, p);
        }
    }
}

fn write_type_params<'s>(strings: &mut Strings<'s>, out: &mut Vec<u8>, params: &'s [TypeParamSig]) {
    write_varint(out, params.len() as u64);
    for p in params {
        strings.write(out, &p.name);
        write_types(strings, out, &p.bounds);
    }
}

fn write_types<'s>(strings: &mut Strings<'s>, out: &mut Vec<u8>, types: &'s [TypeSig]) {
    write_varint(out, types.len() as u64);
    for t in types {
        write_type(strings, out, t);
    }
}

fn write_type<'s>(strings: &mut Strings<'s>, out: &mut Vec<u8>, ty: &'s TypeSig) {
    match ty {
        TypeSig::Prim(p) => {
            out.push(0);
            out.push(
                Prim::ALL
                    .iter()
                    .position(|q| q == p)
                    .expect("every primitive is listed") as u8,
            );
        }
        TypeSig::Class { name, args } => {
            out.push(1);
            strings.write(out, name);
            write_varint(out, args.len() as u64);
            for arg in args {
                match arg {
                    TypeArg::Type(t) => {
                        out.push(0);
                        write_type(strings, out, t);
                    }
                    TypeArg::Extends(t) => {
                        out.push(1);
                        write_type(strings, out, t);
                    }
                    TypeArg::Super(t) => {
                        out.push(2);
                        write_type(strings, out, t);
                    }
                    TypeArg::Any => out.push(3),
                }
            }
        }
        TypeSig::Var(name) => {
            out.push(2);
            strings.write(out, name);
        }
        TypeSig::Array(element) => {
            out.push(3);
            write_type(strings, out, element);
        }
        TypeSig::Unknown(name) => {
            out.push(4);
            strings.write(out, name);
        }
    }
}

fn write_decl(out: &mut Vec<u8>, decl: &Option<SourceDecl>) {
    match decl {
        None => out.push(0),
        Some(d) => {
            out.push(1);
            write_varint(out, u64::from(d.element));
            write_varint(out, u64::from(d.line));
            write_varint(out, u64::from(d.ordinal));
        }
    }
}

const CLASS_KINDS: [ClassKind; 5] = [
    ClassKind::Class,
    ClassKind::Interface,
    ClassKind::Enum,
    ClassKind::Record,
    ClassKind::Annotation,
];

fn class_kind_code(kind: ClassKind) -> u8 {
    CLASS_KINDS
        .iter()
        .position(|k| *k == kind)
        .expect("every class kind is listed") as u8
}

struct Decoder<'b> {
    reader: Reader<'b>,
    table: Vec<Arc<str>>,
}

/// Deep enough for any type written in source; deeper is damage.
const MAX_TYPE_DEPTH: u32 = 256;

impl Decoder<'_> {
    fn string_at(&self, at: u64) -> Result<&Arc<str>, Damaged> {
        usize::try_from(at)
            .ok()
            .and_then(|at| self.table.get(at))
            .ok_or(Damaged)
    }

    fn string(&mut self) -> Result<Arc<str>, Damaged> {
        let at = self.reader.varint()?;
        self.string_at(at).cloned()
    }

    fn flags(&mut self) -> Result<u16, Damaged> {
        u16::try_from(self.reader.varint()?).map_err(|_| Damaged)
    }

    fn class(&mut self) -> Result<ClassEntry, Damaged> {
        let name = self.string()?;
        let binary_name = self.string()?;
        let kind = *CLASS_KINDS
            .get(usize::from(self.reader.byte()?))
            .ok_or(Damaged)?;
        let flags = self.flags()?;
        let type_params = self.type_params()?;
        let outer_type_params = self.type_params()?;
        let superclass = match self.reader.byte()? {
            0 => None,
            1 => Some(self.ty(0)?),
            _ => return Err(Damaged),
        };
        let interfaces = self.types()?;
        let n_methods = self.reader.len()?;
        let mut methods = Vec::with_capacity(n_methods);
        for _ in 0..n_methods {
            methods.push(MethodSig {
                name: self.string()?,
                flags: self.flags()?,
                type_params: self.type_params()?,
                params: self.types()?,
                ret: self.ty(0)?,
                decl: self.decl()?,
            });
        }
        let n_fields = self.reader.len()?;
        let mut fields = Vec::with_capacity(n_fields);
        for _ in 0..n_fields {
            fields.push(FieldSig {
                name: self.string()?,
                flags: self.flags()?,
                ty: self.ty(0)?,
                decl: self.decl()?,
            });
        }
        let decl = self.decl()?;
        let n_erased = self.reader.len()?;
        let mut erased_params = Vec::with_capacity(n_erased);
        for _ in 0..n_erased {
            let n = self.reader.len()?;
            erased_params.push((0..n).map(|_| self.string()).collect::<Result<_, _>>()?);
        }
        Ok(ClassEntry {
            sig: Arc::new(ClassSig {
                name,
                binary_name,
                kind,
                flags,
                type_params,
                outer_type_params,
                superclass,
                interfaces,
                methods,
                fields,
                decl,
            }),
            erased_params,
        })
    }

    fn type_params(&mut self) -> Result<Vec<TypeParamSig>, Damaged> {
        let n = self.reader.len()?;
        (0..n)
            .map(|_| {
                Ok(TypeParamSig {
                    name: self.string()?,
                    bounds: self.types()?,
                })
            })
            .collect()
    }

    fn types(&mut self) -> Result<Vec<TypeSig>, Damaged> {
        let n = self.reader.len()?;
        (0..n).map(|_| self.ty(0)).collect()
    }

    fn ty(&mut self, depth: u32) -> Result<TypeSig, Damaged> {
        if depth > MAX_TYPE_DEPTH {
            return Err(Damaged);
        }
        Ok(match self.reader.byte()? {
            0 => TypeSig::Prim(
                *Prim::ALL
                    .get(usize::from(self.reader.byte()?))
                    .ok_or(Damaged)?,
            ),
            1 => {
                let name = self.string()?;
                let n = self.reader.len()?;
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(match self.reader.byte()? {
                        0 => TypeArg::Type(self.ty(depth + 1)?),
                        1 => TypeArg::Extends(self.ty(depth + 1)?),
                        2 => TypeArg::Super(self.ty(depth + 1)?),
                        3 => TypeArg::Any,
                        _ => return Err(Damaged),
                    });
                }
                TypeSig::Class { name, args }
            }
            2 => TypeSig::Var(self.string()?),
            3 => TypeSig::Array(Box::new(self.ty(depth + 1)?)),
            4 => TypeSig::Unknown(self.string()?),
            _ => return Err(Damaged),
        })
    }

    fn decl(&mut self) -> Result<Option<SourceDecl>, Damaged> {
        Ok(match self.reader.byte()? {
            0 => None,
            1 => Some(SourceDecl {
                file: NO_FILE,
                element: self.reader.u32()?,
                line: self.reader.u32()?,
                ordinal: self.reader.u32()?,
            }),
            _ => return Err(Damaged),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_type(name: &str, args: Vec<TypeArg>) -> TypeSig {
        TypeSig::Class {
            name: name.into(),
            args,
        }
    }

    fn sample() -> UnitSymbols {
        let decl = |element, ordinal| {
            Some(SourceDecl {
                file: NO_FILE,
                element,
                line: 0,
                ordinal,
            })
        };
        let list = class_type(
            "java.util.List",
            vec![TypeArg::Extends(TypeSig::Var("T".into()))],
        );
        let sig = ClassSig {
            name: "p.A".into(),
            binary_name: "p.A".into(),
            kind: ClassKind::Record,
            flags: 0x8001,
            type_params: vec![TypeParamSig {
                name: "T".into(),
                bounds: vec![class_type(
                    "java.lang.Comparable",
                    vec![TypeArg::Super(TypeSig::Var("T".into()))],
                )],
            }],
            outer_type_params: vec![],
            superclass: Some(class_type("p.Base", vec![TypeArg::Any])),
            interfaces: vec![list.clone()],
            methods: vec![MethodSig {
                name: "<init>".into(),
                flags: 1,
                type_params: vec![],
                params: vec![
                    TypeSig::Array(Box::new(TypeSig::Prim(Prim::Int))),
                    TypeSig::Unknown("Missing".into()),
                    list,
                ],
                ret: TypeSig::Prim(Prim::Void),
                decl: decl(3, 1),
            }],
            fields: vec![FieldSig {
                name: "x".into(),
                flags: 0x18,
                ty: TypeSig::Prim(Prim::Double),
                decl: None,
            }],
            decl: decl(1, 0),
        };
        let local = ClassSig {
            name: "p.A$1Local".into(),
            binary_name: "p.A$1Local".into(),
            kind: ClassKind::Class,
            flags: 0,
            type_params: vec![],
            outer_type_params: vec![TypeParamSig {
                name: "T".into(),
                bounds: vec![],
            }],
            superclass: None,
            interfaces: vec![],
            methods: vec![],
            fields: vec![],
            decl: Some(SourceDecl {
                file: NO_FILE,
                element: 9,
                line: 12,
                ordinal: u32::MAX,
            }),
        };
        UnitSymbols {
            package: Some("p".into()),
            types: vec![
                TypeEntry {
                    canonical: "p.A".into(),
                    binary: "p.A".into(),
                    supertypes: vec!["p.Base".into(), "java.util.List".into()],
                },
                TypeEntry {
                    canonical: "p.A.In".into(),
                    binary: "p.A$In".into(),
                    supertypes: vec![],
                },
            ],
            classes: vec![
                Arc::new(ClassEntry {
                    sig: Arc::new(sig),
                    erased_params: vec![vec![
                        "int[]".into(),
                        "Missing".into(),
                        "java.util.List".into(),
                    ]],
                }),
                Arc::new(ClassEntry {
                    sig: Arc::new(local),
                    erased_params: vec![],
                }),
            ],
        }
    }

    #[test]
    fn symbols_come_back_as_they_went_in() {
        for symbols in [sample(), UnitSymbols::default()] {
            let bytes = encode(&symbols);
            assert_eq!(decode(&bytes), Ok(symbols));
        }
        assert_eq!(sample().keys(), ["p.A", "p.A$1Local", "p.A.In"]);
    }

    #[test]
    fn damaged_symbols_are_errors() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
        // An array nested past any real type: one string, no package, no
        // types, one class whose superclass is `int` in 1,000 arrays.
        let nested = |depth: usize| {
            let mut bytes = vec![1u8, 1, b'a', 0, 0, 1, 0, 0, 0, 0, 0, 0, 1];
            bytes.extend(std::iter::repeat_n(3u8, depth));
            bytes.extend([0, 4, 0, 0, 0, 0, 0]);
            bytes
        };
        assert!(decode(&nested(100)).is_ok());
        assert_eq!(decode(&nested(1000)), Err(Damaged));
    }
}
