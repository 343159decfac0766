//! Per-file facts: what extraction knows about one Java file, as a pure
//! function of its bytes.
//!
//! Facts are stored content-addressed by git blob id in the blob pack, so
//! everything here is position-independent of the path the file lives at and
//! of every other file. Names are kept as written in the source; qualifying
//! them against the rest of the revision is the job of [`crate::names`].

use rkyv::{Archive, Deserialize, Serialize};

/// Sentinel for "no element" in [`Element::parent`] and [`RefSite::enclosing`].
pub const NO_ELEMENT: u32 = u32::MAX;

/// Sentinel for "not a signature element" in
/// [`FileFacts::signature_ordinals`].
pub const NO_ORDINAL: u32 = u32::MAX;

/// Sentinel for "no expression" in [`RefSite::receiver_expr`] and elsewhere.
pub const NO_EXPR: u32 = u32::MAX;

/// Everything extraction learned about one file.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct FileFacts {
    /// The declared package, dotted; `None` for the default package.
    pub package: Option<String>,
    /// Import declarations in source order.
    pub imports: Vec<Import>,
    /// Declarations, lambdas, initializers and anonymous classes in
    /// pre-order: a parent always comes before its children.
    pub elements: Vec<Element>,
    /// Reference sites in source order, unresolved.
    pub ref_sites: Vec<RefSite>,
    /// Local variables and parameters with their declared types.
    pub locals: Vec<LocalVar>,
    /// Expressions that resolution needs to type: receivers and arguments
    /// of reference sites, initializers, lambda bodies; children first.
    pub exprs: Vec<Expr>,
    /// `return e;` statements: the returned expression and the element
    /// (method or lambda) it returns from, so a returned lambda gets the
    /// method's return type as its target.
    pub returns: Vec<(u32, u32)>,
    /// Line → innermost element(s), as runs of lines sharing the same owners.
    pub line_runs: Vec<LineRun>,
    /// Element indices referenced by [`LineRun::first_owner`].
    pub line_owners: Vec<u32>,
    /// Number of lines in the file.
    pub n_lines: u32,
    /// Problems met while extracting; extraction itself never fails.
    pub diagnostics: Diagnostics,
    /// What a reader of an element should know that its facts do not say:
    /// an annotation whose generated members are not modelled, say.
    pub notes: Vec<Note>,
}

/// A remark about one element (see [`FileFacts::notes`]).
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The element it is about.
    pub element: u32,
    /// The remark, one sentence.
    pub text: String,
}

/// Recoverable problems found while extracting a file.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics {
    /// `ERROR` and missing nodes in the tree-sitter tree.
    pub n_syntax_errors: u32,
    /// Bytes that were not valid UTF-8 and were replaced while decoding.
    pub n_invalid_utf8_bytes: u32,
}

/// An `import` declaration.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The imported name without `.*`, e.g. `java.util.Map.Entry`.
    pub path: String,
    /// `import static ...`.
    pub is_static: bool,
    /// `import a.b.*`.
    pub on_demand: bool,
    /// 1-based line of the declaration.
    pub line: u32,
}

/// What kind of element an [`Element`] is.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum ElementKind {
    /// A class, local classes included.
    Class,
    /// An interface.
    Interface,
    /// An enum type.
    Enum,
    /// A record type.
    Record,
    /// An annotation type (`@interface`).
    AnnotationType,
    /// The body of an anonymous class (also an enum constant's body).
    AnonymousClass,
    /// A method.
    Method,
    /// An element of an annotation type, e.g. `int value() default 1;`.
    AnnotationElement,
    /// A constructor, compact record constructors included.
    Constructor,
    /// One variable of a field declaration.
    Field,
    /// A record component (the record's implicit field).
    RecordComponent,
    /// An enum constant.
    EnumConstant,
    /// An instance initializer block.
    InstanceInitializer,
    /// A `static { }` block.
    StaticInitializer,
    /// A lambda expression.
    Lambda,
}

impl ElementKind {
    /// Whether the element declares a type (and so owns members).
    pub fn is_type(self) -> bool {
        matches!(
            self,
            Self::Class
                | Self::Interface
                | Self::Enum
                | Self::Record
                | Self::AnnotationType
                | Self::AnonymousClass
        )
    }

    /// Whether the element can be called: methods, constructors and
    /// annotation elements.
    pub fn is_executable(self) -> bool {
        matches!(
            self,
            Self::Method | Self::AnnotationElement | Self::Constructor
        )
    }

    /// Every kind.
    pub const ALL: [Self; 15] = [
        Self::Class,
        Self::Interface,
        Self::Enum,
        Self::Record,
        Self::AnnotationType,
        Self::AnonymousClass,
        Self::Method,
        Self::AnnotationElement,
        Self::Constructor,
        Self::Field,
        Self::RecordComponent,
        Self::EnumConstant,
        Self::InstanceInitializer,
        Self::StaticInitializer,
        Self::Lambda,
    ];

    /// The kind named by [`Self::as_str`].
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// A lower-case name for display and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Class => "class",
            Self::Interface => "interface",
            Self::Enum => "enum",
            Self::Record => "record",
            Self::AnnotationType => "annotation",
            Self::AnonymousClass => "anonymous_class",
            Self::Method => "method",
            Self::AnnotationElement => "annotation_element",
            Self::Constructor => "constructor",
            Self::Field => "field",
            Self::RecordComponent => "record_component",
            Self::EnumConstant => "enum_constant",
            Self::InstanceInitializer => "initializer",
            Self::StaticInitializer => "static_initializer",
            Self::Lambda => "lambda",
        }
    }
}

/// Java modifiers as a bit set, in javac's canonical order.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[rkyv(derive(Debug, Clone, Copy))]
pub struct Modifiers(pub u32);

impl Modifiers {
    /// Every modifier keyword, in the order javac prints them.
    pub const KEYWORDS: [&'static str; 14] = [
        "public",
        "protected",
        "private",
        "abstract",
        "static",
        "final",
        "transient",
        "volatile",
        "synchronized",
        "native",
        "strictfp",
        "default",
        "sealed",
        "non-sealed",
    ];

    /// The bit of one modifier keyword, if it is one.
    pub fn bit_of(keyword: &str) -> Option<u32> {
        Self::KEYWORDS
            .iter()
            .position(|k| *k == keyword)
            .map(|i| 1 << i)
    }

    /// Whether `keyword` is set.
    pub fn has(self, keyword: &str) -> bool {
        Self::bit_of(keyword).is_some_and(|bit| self.0 & bit != 0)
    }

    /// The set keywords in canonical order.
    pub fn keywords(self) -> impl Iterator<Item = &'static str> {
        Self::KEYWORDS
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, k)| *k)
    }
}

/// A 1-based line span with the byte offsets of the same text.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, Clone, Copy))]
pub struct Span {
    /// First line: the first annotation or modifier for declarations.
    pub start_line: u32,
    /// Last line: the closing `}` or `;`.
    pub end_line: u32,
    /// Byte offset of the first byte.
    pub start_byte: u32,
    /// Byte offset one past the last byte.
    pub end_byte: u32,
}

/// A 1-based position; `col` counts UTF-16 code units like javac does.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, Clone, Copy))]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column in UTF-16 code units.
    pub col: u32,
}

/// A formal parameter (or a record component).
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The type as written, whitespace collapsed, e.g. `Map<String, T>`.
    pub type_text: String,
    /// The type without type arguments or annotations, as written, with
    /// `[]` per dimension; varargs count as one dimension.
    pub erased: String,
    /// The parameter name.
    pub name: String,
    /// `T... xs`.
    pub varargs: bool,
}

/// A type parameter with its bounds as written and erased.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TypeParam {
    /// The type variable's name.
    pub name: String,
    /// The erased text of each bound, e.g. `Comparable` for
    /// `T extends Comparable<? super T>`.
    pub bounds: Vec<String>,
}

/// A declaration, lambda, initializer or anonymous class body.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Element {
    /// What the element is.
    pub kind: ElementKind,
    /// Simple name; `<init>` for constructors, `<clinit>` for static
    /// initializers, `<lambda>` and `<anonymous>` for those.
    pub name: String,
    /// Index of the enclosing element, or [`NO_ELEMENT`].
    pub parent: u32,
    /// For types: the binary name (`p.Outer$Inner`, `p.A$1`, `p.A$1Local`).
    /// For members: the binary name of the declaring type.
    pub binary_name: String,
    /// Written modifiers.
    pub modifiers: Modifiers,
    /// Annotations as written, e.g. `@SuppressWarnings("unchecked")`.
    pub annotations: Vec<String>,
    /// Declared type: the return type of a method, the type of a field, the
    /// supertype of an anonymous class. Empty when there is none.
    pub type_text: String,
    /// The declared type erased as written (see [`Param::erased`]).
    pub type_erased: String,
    /// Formal parameters (record components for records and compact
    /// constructors, lambda parameters for lambdas).
    pub params: Vec<Param>,
    /// `throws` clause, erased as written.
    pub throws: Vec<String>,
    /// Declared type parameters.
    pub type_params: Vec<TypeParam>,
    /// For types: `extends` and `implements` types, erased as written,
    /// superclass first (empty string when there is no `extends` clause on a
    /// class).
    pub supertypes: Vec<String>,
    /// Where the element is, from its first annotation or modifier.
    pub span: Span,
    /// The name token (the class name for constructors, `->` for lambdas,
    /// `{` for initializers and anonymous bodies).
    pub name_pos: Position,
    /// Lines of the javadoc comment in front of the element, if any.
    pub javadoc: Option<(u32, u32)>,
    /// Local classes: declared inside a method body.
    pub is_local: bool,
    /// For types: the supertypes as written with their type arguments,
    /// parallel to [`Self::supertypes`].
    pub supertypes_written: Vec<String>,
    /// For fields: the initializer expression, or [`NO_EXPR`]. For
    /// lambdas: the body when it is an expression, or [`NO_EXPR`].
    pub init: u32,
    /// Whether it is written in the source or generated from an
    /// annotation (its span is then the annotation's, or the field's).
    pub origin: Origin,
}

/// Where an [`Element`] comes from.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum Origin {
    /// Written in the source.
    #[default]
    Source,
    /// Generated by a Lombok annotation, as Lombok's annotation processor
    /// would add it (see `extract/lombok`).
    Lombok,
}

impl Origin {
    /// A lower-case name for display and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Lombok => "lombok",
        }
    }
}

/// What kind of reference a [`RefSite`] is.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum RefKind {
    /// `m()`, `a.m()`, `super.m()`.
    Call,
    /// `new T(...)`, with or without a class body.
    New,
    /// `T::m`, `expr::m`, `T::new`.
    MethodRef,
    /// `this(...)` or `super(...)`.
    CtorCall,
    /// `a.f`, `this.f`, `super.f`.
    FieldAccess,
    /// A bare identifier in expression position that is not a local
    /// variable in scope: a field, an enum constant, or a type or package
    /// qualifier.
    Name,
}

impl RefKind {
    /// A lower-case name for display and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::New => "new",
            Self::MethodRef => "method_ref",
            Self::CtorCall => "ctor_call",
            Self::FieldAccess => "field_access",
            Self::Name => "name",
        }
    }
}

/// The syntactic shape of an expression, enough to type it later.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum ExprShape {
    /// No expression: an unqualified call or name.
    Implicit,
    /// `this`.
    This,
    /// `super`.
    Super,
    /// `Outer.this`.
    QualifiedThis,
    /// `Outer.super` (or `Iface.super`).
    QualifiedSuper,
    /// A simple name.
    Name,
    /// A dotted name or field access, `a.b.c`.
    FieldAccess,
    /// A method invocation.
    Call,
    /// `new T(...)`.
    New,
    /// `new T[...]` or an array initializer.
    NewArray,
    /// A string literal or text block.
    StringLiteral,
    /// A character literal.
    CharLiteral,
    /// An integer literal.
    IntLiteral,
    /// A floating-point literal.
    FloatLiteral,
    /// `true` or `false`.
    BooleanLiteral,
    /// `null`.
    NullLiteral,
    /// `T.class`.
    ClassLiteral,
    /// `(T) e`.
    Cast,
    /// `a[i]`.
    ArrayAccess,
    /// `c ? a : b`.
    Conditional,
    /// A lambda expression.
    Lambda,
    /// A method reference.
    MethodRef,
    /// `(e)`.
    Parenthesized,
    /// A binary, unary, assignment, `instanceof` or `switch` expression.
    Operator,
    /// Anything else, or an error node.
    Other,
}

/// A reference site, unresolved.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RefSite {
    /// What kind of reference it is.
    pub kind: RefKind,
    /// The referenced simple name: method or field name, `new` for
    /// constructor references, `this`/`super` for constructor calls; for
    /// `new`, the created type erased as written.
    pub name: String,
    /// Position of the name token (`new` for `T::new`, the keyword for
    /// `this(...)`, the type name for `new a.B()`).
    pub pos: Position,
    /// Shape of the receiver (qualifier) expression.
    pub receiver: ExprShape,
    /// Source text of the receiver, whitespace collapsed and capped in
    /// length; empty for implicit receivers.
    pub receiver_text: String,
    /// Number of arguments, `u32::MAX` where there is no argument list
    /// (field accesses, names, method references).
    pub n_args: u32,
    /// Shape of each argument.
    pub arg_shapes: Vec<ExprShape>,
    /// Index of the innermost element containing the site.
    pub enclosing: u32,
    /// For `new` with a class body: the anonymous class element.
    pub anonymous_class: u32,
    /// For [`RefKind::Name`] and [`RefKind::FieldAccess`]: the name is the
    /// qualifier of a longer access (`a` in `a.b` or `a.m()`).
    pub is_qualifier: bool,
    /// The receiver expression, or [`NO_EXPR`] when implicit or not typed.
    pub receiver_expr: u32,
    /// The argument expressions (index into [`FileFacts::exprs`]).
    pub args: Vec<u32>,
    /// For `new`: the created type as written with type arguments
    /// (`ArrayList<>` for a diamond). For calls: explicit type arguments
    /// as written (`<String>` in `A.<String>m()`), or empty.
    pub type_text: String,
}

/// A local variable or parameter with its declared type.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct LocalVar {
    /// The variable name.
    pub name: String,
    /// The declared type as written, `var` when inferred, empty for lambda
    /// parameters without types.
    pub type_text: String,
    /// The declared type erased as written.
    pub type_erased: String,
    /// Position of the name.
    pub pos: Position,
    /// Index of the innermost element containing the declaration.
    pub enclosing: u32,
    /// Byte offset where the variable stops being visible.
    pub scope_end_byte: u32,
    /// The initializer expression, the iterated expression of an enhanced
    /// `for`, or [`NO_EXPR`].
    pub init: u32,
    /// `init` is the iterated expression of an enhanced `for`.
    pub foreach: bool,
}

/// An expression, reduced to what typing it needs.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// What it is; the meaning of `a`, `b` and `text` depends on it.
    pub kind: ExprKind,
    /// First operand (see [`ExprKind`]), or [`NO_EXPR`].
    pub a: u32,
    /// Second operand, or [`NO_EXPR`].
    pub b: u32,
    /// A type or operator as written, where the kind has one.
    pub text: String,
}

/// The kinds of [`Expr`].
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rkyv(compare(PartialEq), derive(Debug, Clone, Copy, PartialEq, Eq))]
pub enum ExprKind {
    /// A local variable or parameter: `a` = index in [`FileFacts::locals`].
    Local,
    /// A reference site (call, `new`, field access, name, method
    /// reference): `a` = index in [`FileFacts::ref_sites`].
    Site,
    /// `this`.
    This,
    /// `super` (as a receiver).
    Super,
    /// `Outer.this`: `text` = the qualifying type name.
    QualifiedThis,
    /// `Iface.super` or `Outer.super`: `text` = the qualifying type name.
    QualifiedSuper,
    /// A string literal or text block.
    StringLit,
    /// A character literal.
    CharLit,
    /// An `int` literal.
    IntLit,
    /// A `long` literal.
    LongLit,
    /// A `float` literal.
    FloatLit,
    /// A `double` literal.
    DoubleLit,
    /// `true` or `false`.
    BoolLit,
    /// `null`.
    NullLit,
    /// `T.class`: `text` = `T` erased as written.
    ClassLit,
    /// `(T) a`: `text` = `T` as written.
    Cast,
    /// `a[b]`.
    ArrayAccess,
    /// `new T[n]...` or `new T[]{...}`: `text` = the array type as written.
    NewArray,
    /// `{...}` without a type: typed by its context.
    ArrayInit,
    /// `c ? a : b`.
    Conditional,
    /// A lambda: `a` = its element, `b` = its body when an expression.
    Lambda,
    /// `(a)`.
    Paren,
    /// `a op b`: `text` = the operator.
    Binary,
    /// `op a`, `a++`: `text` = the operator (`++`/`--` for updates).
    Unary,
    /// `a = b`, `a += b`: typed as `a`.
    Assign,
    /// `a instanceof T`.
    InstanceOf,
    /// A `switch` expression.
    Switch,
    /// Anything else, or too deeply nested to keep.
    Other,
}

/// A run of consecutive lines owned by the same innermost element(s).
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, Clone, Copy))]
pub struct LineRun {
    /// First line of the run.
    pub first_line: u32,
    /// Last line of the run.
    pub last_line: u32,
    /// Start of the run's owners in [`FileFacts::line_owners`].
    pub first_owner: u32,
    /// How many owners the run has.
    pub n_owners: u32,
}

impl FileFacts {
    /// The qualified names a type name written in this file (an
    /// annotation's, say) may stand for, by Java's rules, the likelier
    /// first: a simple name imported by name (which hides the rest), else
    /// in the file's package, else in each package imported on demand. A
    /// dotted name is first a type nested in what its first segment names
    /// (`Builder.Default` with `lombok.Builder` imported), then taken as
    /// written. Which of them exists is for the caller to know.
    pub fn qualified_candidates(&self, written: &str) -> Vec<String> {
        if let Some((first, rest)) = written.split_once('.') {
            let mut out: Vec<String> = self
                .qualified_candidates(first)
                .into_iter()
                .map(|outer| format!("{outer}.{rest}"))
                .collect();
            out.push(written.to_string());
            return out;
        }
        let plain = self.imports.iter().filter(|i| !i.is_static);
        if let Some(import) = plain
            .clone()
            .find(|i| !i.on_demand && i.path.rsplit('.').next() == Some(written))
        {
            return vec![import.path.clone()];
        }
        let local = match self.package.as_deref() {
            None | Some("") => written.to_string(),
            Some(package) => format!("{package}.{written}"),
        };
        std::iter::once(local)
            .chain(
                plain
                    .filter(|i| i.on_demand)
                    .map(|i| format!("{}.{written}", i.path)),
            )
            .collect()
    }

    /// The innermost element(s) of a 1-based line: one element, or several
    /// when the line holds several (e.g. `int a, b;`); empty outside any type.
    pub fn owners_of_line(&self, line: u32) -> &[u32] {
        let i = self.line_runs.partition_point(|run| run.last_line < line);
        match self.line_runs.get(i) {
            Some(run) if run.first_line <= line => {
                let start = run.first_owner as usize;
                &self.line_owners[start..start + run.n_owners as usize]
            }
            _ => &[],
        }
    }

    /// For each element, its ordinal among the file's *signature
    /// elements* — those other files can see: types, members and enum
    /// constants outside any method body, initializer, lambda, anonymous
    /// or local class — or [`NO_ORDINAL`] for an element inside a body.
    ///
    /// An edit inside a body changes neither the ordinals nor the elements
    /// they number, so other files may point at a declaration by ordinal
    /// and stay valid through it (its line may move; the ordinal does not).
    pub fn signature_ordinals(&self) -> Vec<u32> {
        let mut ordinals = vec![NO_ORDINAL; self.elements.len()];
        let mut next = 0;
        for (index, element) in self.elements.iter().enumerate() {
            let parent_visible =
                element.parent == NO_ELEMENT || ordinals[element.parent as usize] != NO_ORDINAL;
            let in_body = element.is_local
                || matches!(
                    element.kind,
                    ElementKind::AnonymousClass
                        | ElementKind::Lambda
                        | ElementKind::InstanceInitializer
                        | ElementKind::StaticInitializer
                );
            if parent_visible && !in_body {
                ordinals[index] = next;
                next += 1;
            }
        }
        ordinals
    }

    /// A digest of everything in the file that the resolution of *other*
    /// files can depend on: package, imports and the signature elements
    /// (see [`Self::signature_ordinals`]) with their names, modifiers,
    /// annotations, types, parameter types, `throws`, type parameters and
    /// supertypes — and nothing of their positions or bodies. Two versions
    /// of a file with equal digests resolve every other file the same way.
    pub fn signature_digest(&self) -> [u8; 16] {
        let mut digest = crate::digest::Digest128::new(b"signature");
        digest.write_str(self.package.as_deref().unwrap_or(""));
        for import in &self.imports {
            digest.write_str(&import.path);
            digest.write_u32(u32::from(import.is_static) | u32::from(import.on_demand) << 1);
        }
        let ordinals = self.signature_ordinals();
        for (element, &ordinal) in self.elements.iter().zip(&ordinals) {
            if ordinal == NO_ORDINAL {
                continue;
            }
            let parent = match element.parent {
                NO_ELEMENT => NO_ORDINAL,
                parent => ordinals[parent as usize],
            };
            digest.write_u32(element.kind as u32);
            digest.write_u32(parent);
            digest.write_str(&element.name);
            digest.write_str(&element.binary_name);
            digest.write_u32(element.modifiers.0);
            digest.write_strs(&element.annotations);
            digest.write_str(&element.type_text);
            digest.write_str(&element.type_erased);
            for param in &element.params {
                digest.write_str(&param.type_text);
                digest.write_str(&param.erased);
                digest.write_u32(u32::from(param.varargs));
            }
            digest.write_u32(element.params.len() as u32);
            digest.write_strs(&element.throws);
            for type_param in &element.type_params {
                digest.write_str(&type_param.name);
                digest.write_strs(&type_param.bounds);
            }
            digest.write_u32(element.type_params.len() as u32);
            digest.write_strs(&element.supertypes);
            digest.write_strs(&element.supertypes_written);
        }
        digest.finish()
    }

    /// The chain of enclosing elements of `index`, innermost first,
    /// `index` itself included.
    pub fn ancestry(&self, index: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(index), move |&i| {
            let parent = self.elements[i as usize].parent;
            (parent != NO_ELEMENT).then_some(parent)
        })
    }

    /// Whether element `outer` encloses element `inner` as far as line
    /// ownership goes: it is an ancestor, or it is an anonymous class whose
    /// creation expression contains `inner` (an element in the arguments of
    /// `new T(...) { }` belongs to the enclosing method, yet sits inside the
    /// anonymous class's span).
    pub fn encloses(&self, outer: u32, inner: u32) -> bool {
        if outer == inner {
            return false;
        }
        if self.ancestry(inner).skip(1).any(|a| a == outer) {
            return true;
        }
        let (o, i) = (
            &self.elements[outer as usize],
            &self.elements[inner as usize],
        );
        o.kind == ElementKind::AnonymousClass
            && o.span.start_byte <= i.span.start_byte
            && i.span.end_byte <= o.span.end_byte
            && !self.ancestry(outer).any(|a| a == inner)
    }

    /// Sorts element indices by where their names appear.
    pub fn sort_by_appearance(&self, indices: &mut [u32]) {
        indices.sort_by_key(|&i| {
            let pos = self.elements[i as usize].name_pos;
            (pos.line, pos.col, i)
        });
    }

    /// The nearest enclosing type of element `index` (itself if it is one).
    pub fn enclosing_type(&self, index: u32) -> Option<u32> {
        self.ancestry(index)
            .find(|&i| self.elements[i as usize].kind.is_type())
    }
}
