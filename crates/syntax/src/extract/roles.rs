//! What the walk does at each kind of node, decided once per kind: the
//! role table the walker looks a node's kind up in.

use super::kinds::grammar;
use crate::facts::ElementKind;

/// What the walk does at a node of one kind, looked up once per node
/// instead of comparing its kind with every kind of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Enter {
    Nothing,
    Identifier,
    Package,
    Import,
    Type(ElementKind),
    /// A class body, anonymous when under `new` or an enum constant.
    ClassBody,
    Executable(ElementKind),
    FieldDeclaration,
    /// A variable declarator: a field's when under a field declaration.
    Declarator,
    EnumConstant,
    StaticInitializer,
    /// A block: an instance initializer directly in a class body, else a
    /// scope.
    Block,
    Lambda,
    Scope,
    LocalVariables,
    CatchParameter,
    Resource,
    Instanceof,
    Pattern,
    Invocation,
    New,
    MethodReference,
    ConstructorCall,
    FieldAccess,
}

/// The walk's view of one node kind.
#[derive(Debug, Clone, Copy)]
pub(super) struct Role {
    pub(super) enter: Enter,
    /// [`Walker::link_expressions`] has work at such a node.
    pub(super) links: bool,
    /// Its subtree holds nothing extraction records: its nodes are not
    /// visited at all. Errors inside are not counted either, which is
    /// fine: tree-sitter keeps literals and type arguments intact or turns
    /// the enclosing node into an error.
    pub(super) opaque: bool,
}

/// [`Role`]s by node kind id.
pub(super) fn roles() -> &'static [Role] {
    static ROLES: std::sync::OnceLock<Vec<Role>> = std::sync::OnceLock::new();
    ROLES.get_or_init(|| {
        let g = grammar();
        let k = &g.kinds;
        let nothing = Role {
            enter: Enter::Nothing,
            links: false,
            opaque: false,
        };
        let mut roles = vec![nothing; usize::from(g.language.node_kind_count() as u16)];
        let entered = [
            (k.identifier, Enter::Identifier),
            (k.package_declaration, Enter::Package),
            (k.import_declaration, Enter::Import),
            (k.class_declaration, Enter::Type(ElementKind::Class)),
            (k.interface_declaration, Enter::Type(ElementKind::Interface)),
            (k.enum_declaration, Enter::Type(ElementKind::Enum)),
            (k.record_declaration, Enter::Type(ElementKind::Record)),
            (
                k.annotation_type_declaration,
                Enter::Type(ElementKind::AnnotationType),
            ),
            (k.class_body, Enter::ClassBody),
            (k.method_declaration, Enter::Executable(ElementKind::Method)),
            (
                k.constructor_declaration,
                Enter::Executable(ElementKind::Constructor),
            ),
            (
                k.compact_constructor_declaration,
                Enter::Executable(ElementKind::Constructor),
            ),
            (
                k.annotation_type_element_declaration,
                Enter::Executable(ElementKind::AnnotationElement),
            ),
            (k.field_declaration, Enter::FieldDeclaration),
            (k.constant_declaration, Enter::FieldDeclaration),
            (k.variable_declarator, Enter::Declarator),
            (k.enum_constant, Enter::EnumConstant),
            (k.static_initializer, Enter::StaticInitializer),
            (k.block, Enter::Block),
            (k.lambda_expression, Enter::Lambda),
            (k.constructor_body, Enter::Scope),
            (k.for_statement, Enter::Scope),
            (k.enhanced_for_statement, Enter::Scope),
            (k.catch_clause, Enter::Scope),
            (k.try_with_resources_statement, Enter::Scope),
            (k.switch_block_statement_group, Enter::Scope),
            (k.switch_rule, Enter::Scope),
            (k.local_variable_declaration, Enter::LocalVariables),
            (k.catch_formal_parameter, Enter::CatchParameter),
            (k.resource, Enter::Resource),
            (k.instanceof_expression, Enter::Instanceof),
            (k.type_pattern, Enter::Pattern),
            (k.record_pattern_component, Enter::Pattern),
            (k.method_invocation, Enter::Invocation),
            (k.object_creation_expression, Enter::New),
            (k.method_reference, Enter::MethodReference),
            (k.explicit_constructor_invocation, Enter::ConstructorCall),
            (k.field_access, Enter::FieldAccess),
        ];
        for (kind, enter) in entered {
            roles[usize::from(kind)].enter = enter;
        }
        for kind in [
            k.method_invocation,
            k.object_creation_expression,
            k.explicit_constructor_invocation,
            k.field_access,
            k.method_reference,
            k.variable_declarator,
            k.enhanced_for_statement,
            k.return_statement,
            k.lambda_expression,
        ] {
            roles[usize::from(kind)].links = true;
        }
        for kind in [
            k.string_literal,
            k.block_comment,
            k.line_comment,
            k.type_arguments,
            k.dimensions,
            k.package_declaration,
            k.import_declaration,
        ] {
            roles[usize::from(kind)].opaque = true;
        }
        roles
    })
}
