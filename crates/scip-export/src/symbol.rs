//! SCIP symbols spelled as scip-java spells Java's: the `semanticdb`
//! scheme, a Maven package, and SemanticDB descriptors (`java/util/`,
//! `Map#Entry#`, `add(+1).`, `size.`).
//!
//! The grammar is scip.proto's: a name of other characters than ASCII
//! letters, digits, `_`, `+`, `-` and `$` is written between backticks, and
//! a method disambiguator is always a simple identifier.

use std::fmt::Write as _;

/// The symbol scheme, as scip-java writes it.
pub const SCHEME: &str = "semanticdb";

/// The package manager of every symbol, as scip-java writes it (the JDK
/// too is `maven jdk VERSION`).
pub const MANAGER: &str = "maven";

/// A SCIP package: where a symbol comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScipPackage {
    /// `maven/GROUP/ARTIFACT`, `jdk`, or empty (unknown).
    pub name: String,
    /// The version, or empty (unknown).
    pub version: String,
}

impl ScipPackage {
    /// A Maven artifact's package: `maven/GROUP/ARTIFACT VERSION`.
    pub fn maven(group_id: &str, artifact_id: &str, version: &str) -> Self {
        Self {
            name: format!("maven/{group_id}/{artifact_id}"),
            version: version.to_string(),
        }
    }

    /// The JDK's package: `jdk MAJOR`.
    pub fn jdk(major_version: &str) -> Self {
        Self {
            name: "jdk".into(),
            version: major_version.to_string(),
        }
    }

    /// A package whose coordinates nothing tells: `. .`, as scip-java
    /// writes sources built without Maven coordinates.
    pub fn unknown() -> Self {
        Self {
            name: String::new(),
            version: String::new(),
        }
    }

    /// The symbol prefix up to the descriptors, with its trailing space:
    /// `semanticdb maven maven/org.acme/shop 1.0 `.
    pub fn prefix(&self) -> String {
        format!(
            "{SCHEME} {MANAGER} {} {} ",
            package_field(&self.name),
            package_field(&self.version)
        )
    }
}

/// A package field: `.` when empty, spaces doubled.
fn package_field(value: &str) -> String {
    if value.is_empty() {
        ".".into()
    } else {
        value.replace(' ', "  ")
    }
}

/// A local symbol: `local N`.
pub fn local_symbol(n: u32) -> String {
    format!("local {n}")
}

/// A descriptor name: as is when it is a simple identifier, else between
/// backticks (a backtick doubled).
pub fn escape_name(name: &str) -> String {
    if !name.is_empty() && name.chars().all(is_identifier_character) {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

fn is_identifier_character(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-' | '$')
}

/// The descriptors of a dotted package name: `com/acme/shop/`; empty for
/// the default package.
pub fn package_descriptors(package: Option<&str>) -> String {
    let mut out = String::new();
    for segment in package.into_iter().flat_map(|p| p.split('.')) {
        if !segment.is_empty() {
            out.push_str(&escape_name(segment));
            out.push('/');
        }
    }
    out
}

/// A type descriptor: `Name#`.
pub fn type_descriptor(name: &str) -> String {
    format!("{}#", escape_name(name))
}

/// A term descriptor (a field, an enum constant): `name.`.
pub fn term_descriptor(name: &str) -> String {
    format!("{}.", escape_name(name))
}

/// A method descriptor: `name(DISAMBIGUATOR).`; constructors are
/// `` `<init>`(). `` as in scip-java.
pub fn method_descriptor(name: &str, disambiguator: &str) -> String {
    format!("{}({disambiguator}).", escape_name(name))
}

/// scip-java's overload disambiguator: the first method of a name in
/// declaration order has none, the next ones `+1`, `+2`, ...
pub fn overload_disambiguator(position: usize) -> String {
    match position {
        0 => String::new(),
        n => format!("+{n}"),
    }
}

/// The disambiguator of a library method, whose overloads and their order
/// the index does not hold: none without parameters, else the erased
/// parameter types joined by `-`, each with `.` as `_`, `[]` as `$` and any
/// character that a simple identifier cannot hold as `_`
/// (`(int-java_lang_Object)`, `(java_lang_String$)`).
pub fn library_disambiguator(params: &[String]) -> String {
    let mut out = String::new();
    for (i, param) in params.iter().enumerate() {
        if i > 0 {
            out.push('-');
        }
        let mut rest = param.as_str();
        let mut dimensions = 0;
        while let Some(element) = rest.strip_suffix("[]") {
            rest = element;
            dimensions += 1;
        }
        // Varargs are one dimension too.
        if let Some(element) = rest.strip_suffix("...") {
            rest = element;
            dimensions += 1;
        }
        out.extend(rest.chars().map(|c| {
            if c.is_ascii_alphanumeric() || c == '$' {
                c
            } else {
                '_'
            }
        }));
        out.extend(std::iter::repeat_n('$', dimensions));
    }
    out
}

/// The type descriptors of a library class by its binary name, split into
/// package and nested types at `.` and `$` (javac's convention):
/// `java.util.Map$Entry` → `java/util/Map#Entry#`.
pub fn binary_name_descriptors(binary_name: &str) -> String {
    let (package, types) = match binary_name.rsplit_once('.') {
        Some((package, types)) => (Some(package), types),
        None => (None, binary_name),
    };
    let mut out = package_descriptors(package);
    for name in types.split('$').filter(|n| !n.is_empty()) {
        out.push_str(&type_descriptor(name));
    }
    out
}

/// An element id of a member, taken apart: `owner#name(p1,p2)` or
/// `owner#name` (a field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberId<'a> {
    /// The declaring type's binary name.
    pub owner: &'a str,
    /// The member's simple name (`<init>` for constructors).
    pub name: &'a str,
    /// The erased parameter types of a method or constructor; `None` for
    /// a field.
    pub params: Option<Vec<String>>,
}

impl<'a> MemberId<'a> {
    /// Parses a member id; `None` for a type's id (no `#`).
    pub fn parse(id: &'a str) -> Option<Self> {
        let (owner, member) = id.split_once('#')?;
        Some(match member.split_once('(') {
            Some((name, params)) => {
                let params = params.strip_suffix(')').unwrap_or(params);
                Self {
                    owner,
                    name,
                    params: Some(
                        params
                            .split(',')
                            .filter(|p| !p.is_empty())
                            .map(str::to_string)
                            .collect(),
                    ),
                }
            }
            None => Self {
                owner,
                name: member,
                params: None,
            },
        })
    }
}

/// The symbol of a library member, from its package, declaring class and
/// name (and parameters for methods and constructors).
pub fn library_member_symbol(
    package: &ScipPackage,
    owner: &str,
    name: &str,
    params: Option<&[String]>,
) -> String {
    let mut symbol = package.prefix();
    symbol.push_str(&binary_name_descriptors(owner));
    match params {
        Some(params) => symbol.push_str(&method_descriptor(name, &library_disambiguator(params))),
        None => symbol.push_str(&term_descriptor(name)),
    }
    symbol
}

/// The symbol of a library type by its binary name.
pub fn library_type_symbol(package: &ScipPackage, binary_name: &str) -> String {
    let mut symbol = package.prefix();
    let _ = write!(symbol, "{}", binary_name_descriptors(binary_name));
    symbol
}

/// The simple name of a type by its binary or canonical name
/// (`java.util.Map$Entry` → `Entry`).
pub fn simple_name(type_name: &str) -> &str {
    type_name
        .rsplit(['.', '$'])
        .find(|s| !s.is_empty())
        .unwrap_or(type_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_simple_identifiers_are_quoted() {
        assert_eq!(escape_name("size"), "size");
        assert_eq!(escape_name("a$b_c"), "a$b_c");
        assert_eq!(escape_name("<init>"), "`<init>`");
        assert_eq!(escape_name("Maßband"), "`Maßband`");
        assert_eq!(escape_name("a`b"), "`a``b`");
    }

    #[test]
    fn packages_print_dots_for_what_is_unknown() {
        assert_eq!(ScipPackage::unknown().prefix(), "semanticdb maven . . ");
        assert_eq!(ScipPackage::jdk("17").prefix(), "semanticdb maven jdk 17 ");
        assert_eq!(
            ScipPackage::maven("org.acme", "shop", "1.0").prefix(),
            "semanticdb maven maven/org.acme/shop 1.0 "
        );
    }

    #[test]
    fn library_symbols_split_binary_names_and_spell_parameters() {
        let jdk = ScipPackage::jdk("17");
        assert_eq!(
            library_member_symbol(
                &jdk,
                "java.util.Map$Entry",
                "getKey",
                Some(&[] as &[String])
            ),
            "semanticdb maven jdk 17 java/util/Map#Entry#getKey()."
        );
        assert_eq!(
            library_member_symbol(
                &jdk,
                "java.util.ArrayList",
                "<init>",
                Some(&["int".to_string()])
            ),
            "semanticdb maven jdk 17 java/util/ArrayList#`<init>`(int)."
        );
        assert_eq!(
            library_disambiguator(&["int".into(), "java.lang.String[][]".into()]),
            "int-java_lang_String$$"
        );
        assert_eq!(
            library_member_symbol(&jdk, "java.lang.System", "out", None),
            "semanticdb maven jdk 17 java/lang/System#out."
        );
        assert_eq!(
            library_type_symbol(&jdk, "Top"),
            "semanticdb maven jdk 17 Top#"
        );
    }

    #[test]
    fn member_ids_come_apart() {
        assert_eq!(
            MemberId::parse("p.A$B#m(int,java.lang.String)"),
            Some(MemberId {
                owner: "p.A$B",
                name: "m",
                params: Some(vec!["int".into(), "java.lang.String".into()])
            })
        );
        assert_eq!(
            MemberId::parse("p.A#<init>()").unwrap().params,
            Some(vec![])
        );
        assert_eq!(MemberId::parse("p.A#f").unwrap().params, None);
        assert_eq!(MemberId::parse("p.A"), None);
        assert_eq!(simple_name("java.util.Map$Entry"), "Entry");
        assert_eq!(simple_name("Top"), "Top");
    }
}
