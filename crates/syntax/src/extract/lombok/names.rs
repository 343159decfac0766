//! Which annotations are Lombok's: by the name written and the file's
//! imports, as javac would resolve the name.

use crate::facts::FileFacts;

/// The Lombok annotations this module reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Getter,
    Setter,
    Data,
    Value,
    Builder,
    BuilderDefault,
    With,
    NoArgsConstructor,
    RequiredArgsConstructor,
    AllArgsConstructor,
    EqualsAndHashCode,
    ToString,
    NonNull,
    Accessors,
    FieldDefaults,
    NonFinal,
    PackagePrivate,
    UtilityClass,
    /// A logger field: `@Log`, `@Slf4j` and the others; the type of the
    /// field is [`Kind::logger_type`].
    Log(&'static str),
    /// One that generates members this module does not model.
    Unmodelled,
    /// One that generates no member (`@SneakyThrows`, `@Cleanup`, ...).
    NoMembers,
}

/// Every annotation by simple name: the package it is in and what it is.
/// Nested ones (`@Builder.Default`) are named with their outer type.
const ANNOTATIONS: &[(&str, &str, Kind)] = &[
    ("Getter", "lombok", Kind::Getter),
    ("Setter", "lombok", Kind::Setter),
    ("Data", "lombok", Kind::Data),
    ("Value", "lombok", Kind::Value),
    ("Builder", "lombok", Kind::Builder),
    ("Builder.Default", "lombok", Kind::BuilderDefault),
    ("Builder.ObtainVia", "lombok", Kind::NoMembers),
    ("With", "lombok", Kind::With),
    ("Wither", "lombok.experimental", Kind::With),
    ("NoArgsConstructor", "lombok", Kind::NoArgsConstructor),
    (
        "RequiredArgsConstructor",
        "lombok",
        Kind::RequiredArgsConstructor,
    ),
    ("AllArgsConstructor", "lombok", Kind::AllArgsConstructor),
    ("EqualsAndHashCode", "lombok", Kind::EqualsAndHashCode),
    ("EqualsAndHashCode.Exclude", "lombok", Kind::NoMembers),
    ("EqualsAndHashCode.Include", "lombok", Kind::NoMembers),
    ("ToString", "lombok", Kind::ToString),
    ("ToString.Exclude", "lombok", Kind::NoMembers),
    ("ToString.Include", "lombok", Kind::NoMembers),
    ("NonNull", "lombok", Kind::NonNull),
    ("SneakyThrows", "lombok", Kind::NoMembers),
    ("Synchronized", "lombok", Kind::NoMembers),
    ("Locked", "lombok", Kind::NoMembers),
    ("Cleanup", "lombok", Kind::NoMembers),
    ("Generated", "lombok", Kind::NoMembers),
    ("Singular", "lombok", Kind::Unmodelled),
    ("CustomLog", "lombok", Kind::Unmodelled),
    ("Accessors", "lombok.experimental", Kind::Accessors),
    ("FieldDefaults", "lombok.experimental", Kind::FieldDefaults),
    ("NonFinal", "lombok.experimental", Kind::NonFinal),
    (
        "PackagePrivate",
        "lombok.experimental",
        Kind::PackagePrivate,
    ),
    ("UtilityClass", "lombok.experimental", Kind::UtilityClass),
    ("Tolerate", "lombok.experimental", Kind::NoMembers),
    ("SuperBuilder", "lombok.experimental", Kind::Unmodelled),
    ("Delegate", "lombok.experimental", Kind::Unmodelled),
    ("Delegate", "lombok", Kind::Unmodelled),
    (
        "FieldNameConstants",
        "lombok.experimental",
        Kind::Unmodelled,
    ),
    ("ExtensionMethod", "lombok.experimental", Kind::Unmodelled),
    ("StandardException", "lombok.experimental", Kind::Unmodelled),
    ("Helper", "lombok.experimental", Kind::Unmodelled),
    ("Jacksonized", "lombok.extern.jackson", Kind::Unmodelled),
    (
        "Log",
        "lombok.extern.java",
        Kind::Log("java.util.logging.Logger"),
    ),
    (
        "Slf4j",
        "lombok.extern.slf4j",
        Kind::Log("org.slf4j.Logger"),
    ),
    (
        "XSlf4j",
        "lombok.extern.slf4j",
        Kind::Log("org.slf4j.ext.XLogger"),
    ),
    (
        "Log4j",
        "lombok.extern.log4j",
        Kind::Log("org.apache.log4j.Logger"),
    ),
    (
        "Log4j2",
        "lombok.extern.log4j",
        Kind::Log("org.apache.logging.log4j.Logger"),
    ),
    (
        "CommonsLog",
        "lombok.extern.apachecommons",
        Kind::Log("org.apache.commons.logging.Log"),
    ),
    (
        "JBossLog",
        "lombok.extern.jbosslog",
        Kind::Log("org.jboss.logging.Logger"),
    ),
    (
        "Flogger",
        "lombok.extern.flogger",
        Kind::Log("com.google.common.flogger.FluentLogger"),
    ),
];

/// The annotation's name as written: `Getter` in `@Getter(...)`,
/// `lombok.Builder.Default` in `@lombok.Builder.Default`.
fn written_name(annotation: &str) -> &str {
    let name = annotation.strip_prefix('@').unwrap_or(annotation);
    let end = name
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(name.len());
    &name[..end]
}

/// Whether an annotation's text names one of Lombok's annotations by its
/// simple name or under Lombok's packages: what the walk keeps the place
/// of, before imports are looked at.
pub(crate) fn might_be_lombok(annotation: &str) -> bool {
    let name = written_name(annotation);
    if name.starts_with("lombok.") {
        return true;
    }
    ANNOTATIONS.iter().any(|(simple, _, _)| *simple == name)
}

/// The file's view of Lombok: which of its annotations are Lombok's, as
/// its imports and package name them.
pub(super) struct Lombok<'f> {
    facts: &'f FileFacts,
}

impl<'f> Lombok<'f> {
    pub(super) fn new(facts: &'f FileFacts) -> Self {
        Self { facts }
    }

    /// Whether `val` (and `var`, which Java has anyway) is Lombok's.
    pub(super) fn imports_val(&self) -> bool {
        self.facts.imports.iter().any(|i| {
            !i.is_static
                && ((i.on_demand && i.path == "lombok") || (!i.on_demand && i.path == "lombok.val"))
        })
    }

    /// What an annotation is, if it is Lombok's.
    pub(super) fn kind_of(&self, annotation: &str) -> Option<Kind> {
        self.facts
            .qualified_candidates(written_name(annotation))
            .iter()
            .find_map(|name| {
                ANNOTATIONS.iter().find_map(|&(simple, package, kind)| {
                    let rest = name.strip_prefix(package)?.strip_prefix('.')?;
                    (rest == simple).then_some(kind)
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, Lombok, might_be_lombok};
    use crate::facts::{FileFacts, Import};

    fn import(path: &str, on_demand: bool) -> Import {
        Import {
            path: path.into(),
            is_static: false,
            on_demand,
            line: 1,
        }
    }

    #[test]
    fn an_annotation_is_lombok_s_by_import_or_qualified_name() {
        let imports = [
            import("lombok.Getter", false),
            import("lombok.experimental", true),
            import("com.acme.Setter", false),
            import("lombok", true),
        ];
        let facts = FileFacts {
            imports: imports.to_vec(),
            ..FileFacts::default()
        };
        let lombok = Lombok::new(&facts);
        assert_eq!(lombok.kind_of("@Getter"), Some(Kind::Getter));
        assert_eq!(
            lombok.kind_of("@Getter(AccessLevel.NONE)"),
            Some(Kind::Getter)
        );
        assert_eq!(
            lombok.kind_of("@Accessors(fluent = true)"),
            Some(Kind::Accessors)
        );
        assert_eq!(lombok.kind_of("@Data"), Some(Kind::Data), "lombok.*");
        assert_eq!(lombok.kind_of("@Setter"), None, "com.acme.Setter");
        assert_eq!(lombok.kind_of("@lombok.Setter"), Some(Kind::Setter));
        assert_eq!(
            lombok.kind_of("@Builder.Default"),
            Some(Kind::BuilderDefault)
        );
        assert_eq!(
            lombok.kind_of("@lombok.extern.slf4j.Slf4j"),
            Some(Kind::Log("org.slf4j.Logger"))
        );
        assert_eq!(lombok.kind_of("@Slf4j"), None, "not imported");
        assert_eq!(lombok.kind_of("@Override"), None);
        assert!(might_be_lombok("@Getter"));
        assert!(might_be_lombok("@lombok.Anything"));
        assert!(!might_be_lombok("@Override"));
        assert!(!Lombok::new(&FileFacts::default()).imports_val());
        let val = FileFacts {
            imports: vec![import("lombok.val", false)],
            ..FileFacts::default()
        };
        assert!(Lombok::new(&val).imports_val());
    }
}
