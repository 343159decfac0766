//! The members Lombok generates in one type: accessors, `@With`,
//! constructors, `equals`/`hashCode`/`toString`, logger fields; and what
//! `@Value`, `@FieldDefaults` and `@UtilityClass` change in written
//! declarations. Builders are [`super::builder`]'s.

use super::args::Value;
use super::{Ann, Annotations, At, Generated, Kind, Member, children, modifiers, param_of};
use crate::facts::{Element, ElementKind, FileFacts, NO_ELEMENT, NO_EXPR, Param};

/// What one type's generation knows of the type.
pub(super) struct TypeInfo {
    pub(super) index: u32,
    pub(super) binary_name: String,
    /// The type as a return type: `Box<T>` and `Box`.
    pub(super) written: String,
    pub(super) erased: String,
    pub(super) anns: Vec<Ann>,
    /// Names and parameter counts of the methods it declares, written or
    /// generated so far (Lombok generates nothing that is already there).
    pub(super) methods: Vec<(String, usize)>,
    pub(super) n_constructors: usize,
}

impl TypeInfo {
    pub(super) fn ann(&self, kind: Kind) -> Option<&Ann> {
        self.anns.iter().find(|a| a.kind == kind)
    }

    fn has(&self, kind: Kind) -> bool {
        self.ann(kind).is_some()
    }

    /// Whether a method of that name (in any case, as Lombok compares) and
    /// parameter count exists.
    pub(super) fn has_method(&self, name: &str, n_params: usize) -> bool {
        self.methods
            .iter()
            .any(|(m, n)| *n == n_params && m.eq_ignore_ascii_case(name))
    }

    /// Whether a method of that name exists, with any parameters.
    fn has_method_named(&self, name: &str) -> bool {
        self.methods.iter().any(|(m, _)| m == name)
    }

    /// Adds a member to the type, noting the method.
    pub(super) fn add(&mut self, out: &mut Generated, member: Member, at: At) -> u32 {
        if member.kind == ElementKind::Method {
            self.methods
                .push((member.name.clone(), member.params.len()));
        }
        out.add(member, self.index, &self.binary_name, at)
    }
}

/// Generates the members of type `index` (all but builders) and applies
/// its annotations; what the builders need to know of the type and its
/// members, when Lombok has something to do there.
pub(super) fn expand_type(
    facts: &mut FileFacts,
    index: u32,
    anns: &Annotations,
    out: &mut Generated,
) -> Option<(TypeInfo, Vec<u32>)> {
    let element = &facts.elements[index as usize];
    let mut info = TypeInfo {
        index,
        binary_name: element.binary_name.clone(),
        written: written_type(element),
        erased: element.name.clone(),
        anns: anns.of(facts, index).cloned().collect(),
        methods: Vec::new(),
        n_constructors: 0,
    };
    let members: Vec<u32> = children(facts, index).map(|(i, _)| i).collect();
    for &m in &members {
        let e = &facts.elements[m as usize];
        match e.kind {
            ElementKind::Method => info.methods.push((e.name.clone(), e.params.len())),
            ElementKind::Constructor => info.n_constructors += 1,
            _ => {}
        }
    }
    let fields: Vec<u32> = members
        .iter()
        .copied()
        .filter(|&m| facts.elements[m as usize].kind == ElementKind::Field)
        .collect();
    let annotated_members = members.iter().any(|&m| anns.of(facts, m).next().is_some());
    if info.anns.is_empty() && !annotated_members {
        return None;
    }
    apply_field_defaults(facts, &info, &fields, anns);
    if info.has(Kind::UtilityClass) {
        utility_class(facts, &mut info, &members, out);
    }
    let is_record = facts.elements[index as usize].kind == ElementKind::Record;
    if !is_record {
        accessors(facts, &mut info, &fields, anns, out);
    }
    with_methods(facts, &mut info, &fields, anns, out);
    let builds = builds_with_all_args(&info);
    if !is_record {
        constructors(facts, &mut info, &fields, anns, builds, out);
        object_methods(facts, &mut info, out);
    }
    loggers(facts, &mut info, &fields, out);
    Some((info, members))
}

/// `Name<A, B>` for a type with type parameters.
pub(super) fn written_type(element: &Element) -> String {
    if element.type_params.is_empty() {
        return element.name.clone();
    }
    let names: Vec<&str> = element
        .type_params
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    format!("{}<{}>", element.name, names.join(", "))
}

const ACCESS: [&str; 3] = ["public", "protected", "private"];

/// The modifier an `AccessLevel` argument asks for: `None` for `NONE`,
/// no keyword for `PACKAGE` and `MODULE`.
fn access(ann: Option<&Ann>, argument: &str) -> Option<&'static [&'static str]> {
    let level = ann.and_then(|a| match a.args.get(argument) {
        Some(Value::Name(level)) => Some(level.as_str()),
        _ => None,
    });
    match level {
        Some("NONE") => None,
        Some("PROTECTED") => Some(&["protected"]),
        Some("PRIVATE") => Some(&["private"]),
        Some("PACKAGE" | "MODULE") => Some(&[]),
        _ => Some(&["public"]),
    }
}

fn is_static(e: &Element) -> bool {
    e.modifiers.has("static")
}

fn is_final(e: &Element) -> bool {
    e.modifiers.has("final")
}

/// `@Value` and `@FieldDefaults`: fields made private and final.
fn apply_field_defaults(
    facts: &mut FileFacts,
    info: &TypeInfo,
    fields: &[u32],
    anns: &Annotations,
) {
    let value = info.has(Kind::Value);
    let defaults = info.ann(Kind::FieldDefaults);
    let level = match defaults.and_then(|d| d.args.get("level")) {
        Some(Value::Name(level)) => match level.as_str() {
            "PUBLIC" => Some("public"),
            "PROTECTED" => Some("protected"),
            "PRIVATE" => Some("private"),
            _ => None,
        },
        _ => None,
    }
    .or(value.then_some("private"));
    let make_final = value || defaults.is_some_and(|d| d.args.flag("makeFinal", false));
    if value && info.ann(Kind::NonFinal).is_none() {
        let class = &mut facts.elements[info.index as usize];
        class.modifiers.0 |= modifiers(&["final"]).0;
    }
    if level.is_none() && !make_final {
        return;
    }
    for &f in fields {
        let field = &facts.elements[f as usize];
        // `@Value` leaves static fields alone; `@FieldDefaults` does not.
        if field.name.starts_with('$') || (value && defaults.is_none() && is_static(field)) {
            continue;
        }
        let own: Vec<Kind> = anns.of(facts, f).map(|a| a.kind).collect();
        let mut bits = 0;
        if let Some(level) = level
            && !ACCESS.iter().any(|k| field.modifiers.has(k))
            && !own.contains(&Kind::PackagePrivate)
        {
            bits |= modifiers(&[level]).0;
        }
        if make_final && !own.contains(&Kind::NonFinal) {
            bits |= modifiers(&["final"]).0;
        }
        facts.elements[f as usize].modifiers.0 |= bits;
    }
}

/// `@UtilityClass`: a final class of static members with a private
/// constructor.
fn utility_class(facts: &mut FileFacts, info: &mut TypeInfo, members: &[u32], out: &mut Generated) {
    facts.elements[info.index as usize].modifiers.0 |= modifiers(&["final"]).0;
    for &m in members {
        let e = &mut facts.elements[m as usize];
        if matches!(
            e.kind,
            ElementKind::Method | ElementKind::Field | ElementKind::Class
        ) {
            e.modifiers.0 |= modifiers(&["static"]).0;
        }
    }
    if info.n_constructors == 0 {
        // Placed over the class from its name on.
        let at = out.at_from_name_of(&facts.elements[info.index as usize]);
        info.add(
            out,
            Member::constructor(modifiers(&["private"]), Vec::new()),
            at,
        );
        info.n_constructors += 1;
    }
}

/// How accessors are named: `@Accessors` on the field, else on the
/// nearest enclosing type that has one.
struct Naming {
    fluent: bool,
    chain: bool,
    prefixes: Vec<String>,
}

impl Naming {
    fn of(facts: &FileFacts, field: u32, anns: &Annotations) -> Self {
        let found = std::iter::successors(Some(field), |&i| {
            let parent = facts.elements[i as usize].parent;
            (parent != NO_ELEMENT).then_some(parent)
        })
        .find_map(|i| anns.find(facts, i, Kind::Accessors));
        match found {
            Some(a) => {
                let fluent = a.args.flag("fluent", false);
                Self {
                    fluent,
                    chain: a.args.flag("chain", fluent),
                    prefixes: a.args.get("prefix").map(Value::strings).unwrap_or_default(),
                }
            }
            None => Self {
                fluent: false,
                chain: false,
                prefixes: Vec::new(),
            },
        }
    }

    /// The field's name without its prefix, first letter lowered; `None`
    /// when prefixes are given and none fits (Lombok then generates no
    /// accessor).
    fn base(&self, name: &str) -> Option<String> {
        if self.prefixes.is_empty() {
            return Some(name.to_string());
        }
        self.prefixes.iter().find_map(|prefix| {
            if prefix.is_empty() {
                return Some(name.to_string());
            }
            let rest = name.strip_prefix(prefix.as_str())?;
            let next = rest.chars().next()?;
            let ends_in_letter = prefix
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            if ends_in_letter && next.is_lowercase() {
                return None;
            }
            let mut chars = rest.chars();
            let first = chars.next()?;
            Some(first.to_lowercase().chain(chars).collect())
        })
    }
}

pub(super) fn capitalize(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `isFoo` → `Foo` for a boolean field named with `is`, else `None`.
fn without_is(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("is")?;
    rest.chars()
        .next()
        .filter(|c| c.is_uppercase())
        .map(|_| rest)
}

fn is_boolean(field: &Element) -> bool {
    field.type_text == "boolean"
}

/// The names a getter of the field may have, the one Lombok picks first.
fn getter_names(field: &Element, base: &str, naming: &Naming) -> Vec<String> {
    if naming.fluent {
        return vec![base.to_string()];
    }
    if is_boolean(field) {
        let stem = without_is(base).unwrap_or(base);
        vec![
            format!("is{}", capitalize(stem)),
            format!("get{}", capitalize(stem)),
        ]
    } else {
        vec![format!("get{}", capitalize(base))]
    }
}

fn setter_names(field: &Element, base: &str, naming: &Naming) -> Vec<String> {
    if naming.fluent {
        return vec![base.to_string()];
    }
    match without_is(base).filter(|_| is_boolean(field)) {
        Some(stem) => vec![format!("set{stem}"), format!("set{}", capitalize(base))],
        None => vec![format!("set{}", capitalize(base))],
    }
}

/// Getters and setters.
fn accessors(
    facts: &FileFacts,
    info: &mut TypeInfo,
    fields: &[u32],
    anns: &Annotations,
    out: &mut Generated,
) {
    let type_getter = info
        .ann(Kind::Getter)
        .or(info.ann(Kind::Data))
        .or(info.ann(Kind::Value))
        .cloned();
    let type_setter = info.ann(Kind::Setter).or(info.ann(Kind::Data)).cloned();
    for &f in fields {
        let field = &facts.elements[f as usize];
        if field.name.starts_with('$') {
            continue;
        }
        let naming = Naming::of(facts, f, anns);
        let Some(base) = naming.base(&field.name) else {
            continue;
        };
        let own_getter = anns.find(facts, f, Kind::Getter);
        let getter = match (own_getter, &type_getter) {
            (Some(own), _) => Some((access(Some(own), "value"), out.at_annotation(own))),
            (None, Some(t)) if !is_static(field) => {
                let level = access((t.kind == Kind::Getter).then_some(t), "value");
                Some((level, out.at_name_of(field)))
            }
            _ => None,
        };
        if let Some((Some(level), at)) = getter {
            let names = getter_names(field, &base, &naming);
            if !names.iter().any(|n| info.has_method(n, 0)) {
                let mut keywords = level.to_vec();
                if is_static(field) {
                    keywords.push("static");
                }
                let member = Member::method(
                    names[0].clone(),
                    modifiers(&keywords),
                    (&field.type_text, &field.type_erased),
                );
                info.add(out, member, at);
            }
        }
        let own_setter = anns.find(facts, f, Kind::Setter);
        let setter = match (own_setter, &type_setter) {
            (Some(own), _) => Some((access(Some(own), "value"), own.clone())),
            (None, Some(t)) if !is_static(field) => {
                let level = access((t.kind == Kind::Setter).then_some(t), "value");
                Some((level, t.clone()))
            }
            _ => None,
        };
        if let Some((Some(level), ann)) = setter
            && !is_final(field)
        {
            let names = setter_names(field, &base, &naming);
            if !names.iter().any(|n| info.has_method(n, 1)) {
                let mut keywords = level.to_vec();
                if is_static(field) {
                    keywords.push("static");
                }
                let returns = if naming.chain && !is_static(field) {
                    (info.written.clone(), info.erased.clone())
                } else {
                    ("void".to_string(), "void".to_string())
                };
                let member = Member::method(
                    names[0].clone(),
                    modifiers(&keywords),
                    (&returns.0, &returns.1),
                )
                .with_params(vec![param_of(field)]);
                let at = out.at_annotation(&ann);
                info.add(out, member, at);
            }
        }
    }
}

/// `@With`: a copy with one field changed.
fn with_methods(
    facts: &FileFacts,
    info: &mut TypeInfo,
    fields: &[u32],
    anns: &Annotations,
    out: &mut Generated,
) {
    let type_with = info.ann(Kind::With).cloned();
    for &f in fields {
        let field = &facts.elements[f as usize];
        let is_component = field.kind == ElementKind::RecordComponent;
        // Placed at the annotation on the field, or at the field's name.
        let (ann, at) = match anns.find(facts, f, Kind::With) {
            Some(own) => (own.clone(), out.at_annotation(own)),
            None => match &type_with {
                Some(t) => (t.clone(), out.at_name_of(field)),
                None => continue,
            },
        };
        let skipped = field.name.starts_with('$')
            || (is_static(field) && !is_component)
            || (is_final(field) && field.init != NO_EXPR);
        let Some(level) = access(Some(&ann), "value") else {
            continue;
        };
        if skipped {
            continue;
        }
        let naming = Naming::of(facts, f, anns);
        let Some(base) = naming.base(&field.name) else {
            continue;
        };
        let stem = without_is(&base)
            .filter(|_| is_boolean(field))
            .unwrap_or(&base);
        let name = format!("with{}", capitalize(stem));
        if info.has_method(&name, 1) {
            continue;
        }
        let member = Member::method(name, modifiers(level), (&info.written, &info.erased))
            .with_params(vec![param_of(field)]);
        info.add(out, member, at);
    }
}

/// Whether a type-level `@Builder` makes the all-args constructor it
/// builds with (no constructor written, none asked for).
fn builds_with_all_args(info: &TypeInfo) -> bool {
    info.has(Kind::Builder)
        && info.n_constructors == 0
        && !info.has(Kind::NoArgsConstructor)
        && !info.has(Kind::RequiredArgsConstructor)
        && !info.has(Kind::AllArgsConstructor)
}

/// The fields an all-args constructor takes: every non-static field but
/// the final ones initialized where declared (unless `@Builder.Default`).
pub(super) fn all_args(facts: &FileFacts, fields: &[u32], anns: &Annotations) -> Vec<u32> {
    fields
        .iter()
        .copied()
        .filter(|&f| {
            let field = &facts.elements[f as usize];
            let set_where_declared = is_final(field)
                && field.init != NO_EXPR
                && anns.find(facts, f, Kind::BuilderDefault).is_none();
            !field.name.starts_with('$') && !is_static(field) && !set_where_declared
        })
        .collect()
}

/// The fields a required-args constructor takes: the final ones and the
/// `@NonNull` ones, not initialized where declared.
fn required_args(facts: &FileFacts, fields: &[u32], anns: &Annotations) -> Vec<u32> {
    fields
        .iter()
        .copied()
        .filter(|&f| {
            let field = &facts.elements[f as usize];
            !field.name.starts_with('$')
                && !is_static(field)
                && field.init == NO_EXPR
                && (is_final(field) || anns.find(facts, f, Kind::NonNull).is_some())
        })
        .collect()
}

/// `@NoArgsConstructor`, `@RequiredArgsConstructor`, `@AllArgsConstructor`
/// and the constructors `@Data`, `@Value` and `@Builder` imply.
fn constructors(
    facts: &FileFacts,
    info: &mut TypeInfo,
    fields: &[u32],
    anns: &Annotations,
    builds: bool,
    out: &mut Generated,
) {
    let params = |of: Vec<u32>| -> Vec<Param> {
        of.into_iter()
            .map(|f| param_of(&facts.elements[f as usize]))
            .collect()
    };
    /// A constructor asked for: by which annotation, its parameters, the
    /// name of the static factory that calls it, its access.
    struct Asked {
        ann: Ann,
        params: Vec<Param>,
        static_name: Option<String>,
        level: &'static [&'static str],
    }
    let mut asked: Vec<Asked> = Vec::new();
    let explicit = [
        (Kind::NoArgsConstructor, Vec::new()),
        (
            Kind::RequiredArgsConstructor,
            required_args(facts, fields, anns),
        ),
        (Kind::AllArgsConstructor, all_args(facts, fields, anns)),
    ];
    let any_explicit = explicit.iter().any(|(kind, _)| info.has(*kind));
    for (kind, of) in explicit {
        if let Some(ann) = info.ann(kind) {
            let Some(level) = access(Some(ann), "access") else {
                continue;
            };
            let name = ann.args.string("staticName").map(str::to_string);
            asked.push(Asked {
                ann: ann.clone(),
                params: params(of),
                static_name: name,
                level,
            });
        }
    }
    if !any_explicit && info.n_constructors == 0 {
        if builds {
            let ann = info.ann(Kind::Builder).expect("builds").clone();
            asked.push(Asked {
                ann,
                params: params(all_args(facts, fields, anns)),
                static_name: None,
                level: &[],
            });
        } else if let Some(ann) = info.ann(Kind::Value).cloned() {
            let name = ann.args.string("staticConstructor").map(str::to_string);
            asked.push(Asked {
                ann,
                params: params(all_args(facts, fields, anns)),
                static_name: name,
                level: &["public"],
            });
        } else if let Some(ann) = info.ann(Kind::Data).cloned() {
            let name = ann.args.string("staticConstructor").map(str::to_string);
            asked.push(Asked {
                ann,
                params: params(required_args(facts, fields, anns)),
                static_name: name,
                level: &["public"],
            });
        }
    }
    for Asked {
        ann,
        params,
        static_name,
        level,
    } in asked
    {
        let at = out.at_annotation(&ann);
        let keywords: &[&str] = if static_name.is_some() {
            &["private"]
        } else {
            level
        };
        info.add(
            out,
            Member::constructor(modifiers(keywords), params.clone()),
            at,
        );
        info.n_constructors += 1;
        if let Some(name) = static_name {
            let mut keywords = level.to_vec();
            keywords.push("static");
            let mut member =
                Member::method(name, modifiers(&keywords), (&info.written, &info.erased))
                    .with_params(params);
            member.type_params = facts.elements[info.index as usize].type_params.clone();
            info.add(out, member, at);
        }
    }
}

/// `equals`, `hashCode`, `canEqual` and `toString`.
fn object_methods(facts: &FileFacts, info: &mut TypeInfo, out: &mut Generated) {
    let implied = info.ann(Kind::Data).or(info.ann(Kind::Value)).cloned();
    let equality = info
        .ann(Kind::EqualsAndHashCode)
        .cloned()
        .or(implied.clone());
    // `canEqual` is left out only where no subclass can exist and the
    // superclass is Object's.
    let class = &facts.elements[info.index as usize];
    let needs_can_equal =
        !class.modifiers.has("final") || class.supertypes.first().is_some_and(|s| !s.is_empty());
    if let Some(ann) = equality
        && !info.has_method_named("equals")
        && !info.has_method_named("hashCode")
    {
        let at = out.at_annotation(&ann);
        let object = Param {
            type_text: "Object".into(),
            erased: "Object".into(),
            name: "o".into(),
            varargs: false,
        };
        let public = modifiers(&["public"]);
        info.add(
            out,
            Member::method("equals", public, ("boolean", "boolean"))
                .with_params(vec![object.clone()]),
            at,
        );
        info.add(out, Member::method("hashCode", public, ("int", "int")), at);
        if needs_can_equal && !info.has_method("canEqual", 1) {
            let member = Member::method(
                "canEqual",
                modifiers(&["protected"]),
                ("boolean", "boolean"),
            )
            .with_params(vec![Param {
                name: "other".into(),
                ..object
            }]);
            info.add(out, member, at);
        }
    }
    if let Some(ann) = info.ann(Kind::ToString).cloned().or(implied)
        && !info.has_method("toString", 0)
    {
        let at = out.at_annotation(&ann);
        info.add(
            out,
            Member::method("toString", modifiers(&["public"]), ("String", "String")),
            at,
        );
    }
}

/// `@Log`, `@Slf4j` and the others: `private static final T log`.
fn loggers(facts: &FileFacts, info: &mut TypeInfo, fields: &[u32], out: &mut Generated) {
    let Some(ann) = info
        .anns
        .iter()
        .find(|a| matches!(a.kind, Kind::Log(_)))
        .cloned()
    else {
        return;
    };
    let Kind::Log(logger) = ann.kind else {
        unreachable!("found a logger")
    };
    if fields
        .iter()
        .any(|&f| facts.elements[f as usize].name == "log")
    {
        return;
    }
    let at = out.at_annotation(&ann);
    let member = Member::field(
        "log",
        modifiers(&["private", "static", "final"]),
        (logger, logger),
    );
    info.add(out, member, at);
}
