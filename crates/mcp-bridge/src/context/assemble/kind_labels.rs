//! The labels the answer gives element kinds (`METHOD`, `FIELD`,
//! `CLASS`, ...), from a declaration or, for library elements, from how
//! they are referenced.

use refscope_engine::ElementKind;
use refscope_engine::RefTargetKind;

/// `METHOD`, `FIELD`, `CLASS`, ...
pub(super) fn kind_label(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Class => "CLASS",
        ElementKind::Interface => "INTERFACE",
        ElementKind::Enum => "ENUM",
        ElementKind::Record => "RECORD",
        ElementKind::AnnotationType => "ANNOTATION_TYPE",
        ElementKind::AnonymousClass => "ANONYMOUS_CLASS",
        ElementKind::Method => "METHOD",
        ElementKind::AnnotationElement => "ANNOTATION_ELEMENT",
        ElementKind::Constructor => "CONSTRUCTOR",
        ElementKind::Field => "FIELD",
        ElementKind::RecordComponent => "RECORD_COMPONENT",
        ElementKind::EnumConstant => "ENUM_CONSTANT",
        ElementKind::InstanceInitializer => "INITIALIZER",
        ElementKind::StaticInitializer => "STATIC_INITIALIZER",
        ElementKind::Lambda => "LAMBDA",
    }
}

/// The kind of a library element, known only from how it is referenced.
pub(super) fn ref_kind_label(kind: RefTargetKind) -> &'static str {
    match kind {
        RefTargetKind::Call | RefTargetKind::MethodRef => "METHOD",
        RefTargetKind::New | RefTargetKind::CtorCall => "CONSTRUCTOR",
        RefTargetKind::Field => "FIELD",
    }
}
