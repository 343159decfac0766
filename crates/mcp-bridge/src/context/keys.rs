//! The answer's field names in both key styles. English names are this
//! project's; the Chinese ones are the original design document's, kept
//! verbatim for prompts written against it. Fields that document does not
//! name (extensions such as `qualified_id` or `truncated`) keep their
//! English names in both styles.

use super::settings::KeyStyle;

/// A field of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    ElementRelations,
    OwningElements,
    ElementId,
    ReferenceLocations,
    File,
    Line,
    Caller,
    /// A call through a Spring injection point: the point and how many
    /// beans it can take.
    Injection,
    InjectionPoint,
    Candidates,
    Depth,
    ReferencedElements,
    ElementName,
    ElementKind,
    ElementInfo,
    Change,
    /// The commit that last changed an owning element (`include_history`).
    LastChange,
    ChangeStatus,
    SignatureChanged,
    BodyChanged,
    CallersAdded,
    CallersRemoved,
}

/// A field of one element's info; methods and fields have different
/// names for some of them in the original document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InfoKey {
    QualifiedId,
    Kind,
    Class,
    Name,
    Type,
    Modifiers,
    Annotations,
    Parameters,
    Exceptions,
    StartLine,
    EndLine,
    FieldsUsed,
    SourceFile,
    Implementations,
    Calls,
    Source,
}

/// Whether an element is described with the field names of a field or of
/// a method (everything that is not a field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Method,
    Field,
}

pub(crate) fn key(style: KeyStyle, key: Key) -> &'static str {
    let (en, zh) = match key {
        Key::ElementRelations => ("element_relations", "元素关系"),
        Key::OwningElements => ("owning_elements", "所属元素"),
        Key::ElementId => ("element_id", "元素ID"),
        Key::ReferenceLocations => ("reference_locations", "引用位置"),
        Key::File => ("file", "文件地址"),
        Key::Line => ("line", "行号"),
        Key::Caller => ("caller", "caller"),
        Key::Injection => ("injection", "injection"),
        Key::InjectionPoint => ("point", "point"),
        Key::Candidates => ("candidates", "candidates"),
        Key::Depth => ("depth", "depth"),
        Key::ReferencedElements => ("referenced_elements", "引用元素"),
        Key::ElementName => ("name", "元素名称"),
        Key::ElementKind => ("kind", "元素类型"),
        Key::ElementInfo => ("element_info", "元素信息"),
        Key::Change => ("change", "change"),
        Key::LastChange => ("last_change", "last_change"),
        Key::ChangeStatus => ("status", "status"),
        Key::SignatureChanged => ("signature_changed", "signature_changed"),
        Key::BodyChanged => ("body_changed", "body_changed"),
        Key::CallersAdded => ("callers_added", "callers_added"),
        Key::CallersRemoved => ("callers_removed", "callers_removed"),
    };
    pick(style, en, zh)
}

pub(crate) fn info_key(style: KeyStyle, family: Family, key: InfoKey) -> &'static str {
    use Family::{Field, Method};
    let (en, zh) = match (key, family) {
        (InfoKey::QualifiedId, _) => ("qualified_id", "qualified_id"),
        (InfoKey::Kind, _) => ("kind", "元素类型"),
        (InfoKey::Class, Method) => ("class", "方法所在类全路径名"),
        (InfoKey::Class, Field) => ("class", "字段所在类全路径名"),
        (InfoKey::Name, Method) => ("name", "方法名"),
        (InfoKey::Name, Field) => ("name", "字段名"),
        (InfoKey::Type, Method) => ("return_type", "方法返回类型"),
        (InfoKey::Type, Field) => ("field_type", "字段类型"),
        (InfoKey::Modifiers, Method) => ("modifiers", "方法修饰符列表"),
        (InfoKey::Modifiers, Field) => ("modifiers", "修饰符列表"),
        (InfoKey::Annotations, Method) => ("annotations", "注解列表"),
        (InfoKey::Annotations, Field) => ("annotations", "字段注解列表"),
        (InfoKey::Parameters, _) => ("parameters", "方法入参列表"),
        (InfoKey::Exceptions, _) => ("exceptions", "方法异常列表"),
        (InfoKey::StartLine, Method) => ("start_line", "方法在源码中的起始行号"),
        (InfoKey::StartLine, Field) => ("start_line", "字段在源码中的起始行号"),
        (InfoKey::EndLine, Method) => ("end_line", "方法在源码中的结束行号"),
        (InfoKey::EndLine, Field) => ("end_line", "字段在源码中的结束行号"),
        (InfoKey::FieldsUsed, _) => ("fields_used", "方法中引用的全局变量列表"),
        (InfoKey::SourceFile, Method) => ("source_file", "源文件路径"),
        (InfoKey::SourceFile, Field) => ("source_file", "字段源码所在源文件路径"),
        (InfoKey::Implementations, _) => (
            "implementations",
            "该方法是接口时其所有实现类对应的方法列表",
        ),
        (InfoKey::Calls, _) => ("calls", "calls"),
        (InfoKey::Source, _) => ("source", "元素源代码"),
    };
    pick(style, en, zh)
}

fn pick(style: KeyStyle, en: &'static str, zh: &'static str) -> &'static str {
    match style {
        KeyStyle::En => en,
        KeyStyle::Zh => zh,
    }
}
