//! `@Builder`: on a type (building through its all-args constructor), a
//! constructor or a static method. The builder is a nested static class
//! with a field and a setter per parameter, `build()` and `toString()`;
//! the type gets `builder()` and, asked for, `toBuilder()`.

use super::args::Value;
use super::members::{TypeInfo, all_args, capitalize, written_type};
use super::{Ann, Annotations, Generated, Kind, Member, children, modifiers};
use crate::facts::{Element, ElementKind, FileFacts, Param, TypeParam};

/// What one `@Builder` builds.
struct Recipe {
    ann: Ann,
    /// Parameters, with whether each is a `@Builder.Default` field.
    params: Vec<(Param, bool)>,
    /// The built type, written and erased.
    target: (String, String),
    type_params: Vec<TypeParam>,
    /// Whether `toBuilder()` can be made (type-level and constructor
    /// builders: the parameters are fields).
    from_fields: bool,
}

/// Generates the builders of the type `info` describes.
pub(super) fn builders(
    facts: &FileFacts,
    info: &mut TypeInfo,
    members: &[u32],
    anns: &Annotations,
    out: &mut Generated,
) {
    let ty = &facts.elements[info.index as usize];
    let mut recipes = Vec::new();
    if let Some(ann) = info.ann(Kind::Builder) {
        let fields: Vec<u32> = members
            .iter()
            .copied()
            .filter(|&m| {
                matches!(
                    facts.elements[m as usize].kind,
                    ElementKind::Field | ElementKind::RecordComponent
                )
            })
            .collect();
        let params = if ty.kind == ElementKind::Record {
            fields
                .iter()
                .copied()
                .filter(|&f| facts.elements[f as usize].kind == ElementKind::RecordComponent)
                .collect()
        } else {
            all_args(facts, &fields, anns)
        };
        recipes.push(Recipe {
            ann: ann.clone(),
            params: params
                .into_iter()
                .filter(|&f| anns.find(facts, f, Kind::Unmodelled).is_none())
                .map(|f| {
                    let field = &facts.elements[f as usize];
                    (
                        super::param_of(field),
                        anns.find(facts, f, Kind::BuilderDefault).is_some(),
                    )
                })
                .collect(),
            target: (info.written.clone(), info.erased.clone()),
            type_params: ty.type_params.clone(),
            from_fields: true,
        });
    }
    for &m in members {
        let member = &facts.elements[m as usize];
        let is_ctor = member.kind == ElementKind::Constructor;
        if !(is_ctor || member.kind == ElementKind::Method) {
            continue;
        }
        let Some(ann) = anns.find(facts, m, Kind::Builder) else {
            continue;
        };
        let (target, type_params) = if is_ctor {
            let mut params = ty.type_params.clone();
            params.extend(member.type_params.iter().cloned());
            ((info.written.clone(), info.erased.clone()), params)
        } else {
            (
                (member.type_text.clone(), member.type_erased.clone()),
                member.type_params.clone(),
            )
        };
        recipes.push(Recipe {
            ann: ann.clone(),
            params: member.params.iter().map(|p| (p.clone(), false)).collect(),
            target,
            type_params,
            from_fields: is_ctor,
        });
    }
    for recipe in recipes {
        build(facts, info, recipe, out);
    }
}

/// The simple name of an erased type as written: `Map` in `java.util.Map`.
fn simple_name(erased: &str) -> &str {
    let erased = erased.split('<').next().unwrap_or(erased);
    erased.rsplit('.').next().unwrap_or(erased)
}

fn build(facts: &FileFacts, info: &mut TypeInfo, recipe: Recipe, out: &mut Generated) {
    let Recipe {
        ann,
        params,
        target,
        type_params,
        from_fields,
    } = recipe;
    let args = &ann.args;
    let name = match args.string("builderClassName") {
        Some(name) => name.to_string(),
        None => match simple_name(&target.1) {
            "void" => "VoidBuilder".to_string(),
            simple => format!("{}Builder", capitalize(simple)),
        },
    };
    let level: &[&str] = match args.get("access") {
        Some(Value::Name(level)) => match level.as_str() {
            "PROTECTED" => &["protected"],
            "PRIVATE" => &["private"],
            "PACKAGE" | "MODULE" => &[],
            _ => &["public"],
        },
        _ => &["public"],
    };
    let shape = Element {
        name: name.clone(),
        type_params: type_params.clone(),
        ..facts.elements[info.index as usize].clone()
    };
    let builder_written = written_type(&shape);
    let builder_type = (builder_written.as_str(), name.as_str());
    let at = out.at_annotation(&ann);

    // A builder class written by hand is filled in, not made again.
    let existing = children(facts, info.index)
        .find(|(_, e)| e.kind == ElementKind::Class && e.name == name)
        .map(|(i, _)| i);
    let mut inner = TypeInfo {
        index: 0,
        binary_name: format!("{}${}", info.binary_name, name),
        written: builder_written.clone(),
        erased: name.clone(),
        anns: Vec::new(),
        methods: Vec::new(),
        n_constructors: 0,
    };
    let mut fields_there: Vec<String> = Vec::new();
    match existing {
        Some(index) => {
            inner.index = index;
            for (_, e) in children(facts, index) {
                match e.kind {
                    ElementKind::Method => inner.methods.push((e.name.clone(), e.params.len())),
                    ElementKind::Constructor => inner.n_constructors += 1,
                    ElementKind::Field => fields_there.push(e.name.clone()),
                    _ => {}
                }
            }
        }
        None => {
            let mut keywords = level.to_vec();
            keywords.push("static");
            let class = Member {
                kind: ElementKind::Class,
                name: name.clone(),
                modifiers: modifiers(&keywords),
                type_text: String::new(),
                type_erased: String::new(),
                params: Vec::new(),
                type_params: type_params.clone(),
            };
            inner.index = out.add(class, info.index, &inner.binary_name, at);
        }
    }
    if inner.n_constructors == 0 {
        inner.add(out, Member::constructor(modifiers(&[]), Vec::new()), at);
    }
    let setter_prefix = args.string("setterPrefix");
    for (param, default) in &params {
        let field_names: Vec<(String, (&str, &str))> = if *default {
            vec![
                (
                    format!("{}$value", param.name),
                    (&param.type_text, &param.erased),
                ),
                (format!("{}$set", param.name), ("boolean", "boolean")),
            ]
        } else {
            vec![(param.name.clone(), (&param.type_text, &param.erased))]
        };
        for (field, ty) in field_names {
            if !fields_there.contains(&field) {
                inner.add(out, Member::field(field, modifiers(&["private"]), ty), at);
            }
        }
        let setter = match setter_prefix {
            Some(prefix) => format!("{prefix}{}", capitalize(&param.name)),
            None => param.name.clone(),
        };
        if !inner.has_method(&setter, 1) {
            let member = Member::method(setter, modifiers(&["public"]), builder_type)
                .with_params(vec![param.clone()]);
            inner.add(out, member, at);
        }
    }
    let build_name = args.string("buildMethodName").unwrap_or("build");
    if !inner.has_method(build_name, 0) {
        let member = Member::method(build_name, modifiers(&["public"]), (&target.0, &target.1));
        inner.add(out, member, at);
    }
    if !inner.has_method("toString", 0) {
        inner.add(
            out,
            Member::method("toString", modifiers(&["public"]), ("String", "String")),
            at,
        );
    }

    for (param, default) in &params {
        let name = format!("$default${}", param.name);
        if *default && !info.has_method(&name, 0) {
            let member = Member::method(
                name,
                modifiers(&["private", "static"]),
                (&param.type_text, &param.erased),
            );
            info.add(out, member, at);
        }
    }
    // `builderMethodName = ""` asks for no such method.
    let builder_method = match args.get("builderMethodName") {
        Some(Value::Str(name)) => name.as_str(),
        _ => "builder",
    };
    if !builder_method.is_empty() && !info.has_method(builder_method, 0) {
        let mut keywords = level.to_vec();
        keywords.push("static");
        let mut member = Member::method(builder_method, modifiers(&keywords), builder_type);
        member.type_params = type_params.clone();
        info.add(out, member, at);
    }
    if from_fields && args.flag("toBuilder", false) && !info.has_method("toBuilder", 0) {
        let at = out.at_word_in(&ann, "toBuilder");
        info.add(
            out,
            Member::method("toBuilder", modifiers(&["public"]), builder_type),
            at,
        );
    }
}
