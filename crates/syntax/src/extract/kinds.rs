//! Tree-sitter node kinds and field names of the Java grammar, resolved to
//! numeric ids once, so the walk compares integers instead of strings.

use std::sync::OnceLock;

use tree_sitter::Language;

/// A grammar field id; 0 means "no field".
pub(crate) type FieldId = u16;

macro_rules! node_kinds {
    (@name $field:ident $name:literal) => { $name };
    (@name $field:ident) => { stringify!($field) };
    ($($field:ident $(= $name:literal)?),* $(,)?) => {
        /// Numeric ids of the named node kinds the extractor looks at.
        #[derive(Debug)]
        pub(crate) struct Kinds {
            $(pub(crate) $field: u16,)*
        }

        impl Kinds {
            fn resolve(language: &Language) -> Self {
                Self {
                    $($field: {
                        let kind = node_kinds!(@name $field $($name)?);
                        let id = language.id_for_node_kind(kind, true);
                        assert_ne!(id, 0, "grammar has no node kind {kind}");
                        id
                    },)*
                }
            }
        }
    };
}

node_kinds! {
    package_declaration, import_declaration, asterisk, scoped_identifier, identifier,
    class_declaration, interface_declaration, enum_declaration, record_declaration,
    annotation_type_declaration, class_body, interface_body, enum_body, enum_body_declarations,
    annotation_type_body, enum_constant, method_declaration, constructor_declaration,
    compact_constructor_declaration, field_declaration, constant_declaration,
    annotation_type_element_declaration, static_initializer, block, constructor_body,
    lambda_expression, inferred_parameters, object_creation_expression, method_invocation,
    method_reference, explicit_constructor_invocation, field_access, modifiers, annotation,
    marker_annotation, formal_parameters, formal_parameter, spread_parameter,
    variable_declarator, local_variable_declaration, throws, type_parameter,
    type_bound, extends_interfaces, type_list, block_comment, line_comment, string_literal, type_identifier,
    integral_type, floating_point_type, boolean_type, void_type, dimensions, type_arguments,
    catch_formal_parameter, catch_clause, catch_type, enhanced_for_statement, for_statement,
    resource, try_with_resources_statement, instanceof_expression, type_pattern, record_pattern,
    record_pattern_component, switch_block_statement_group, switch_rule, labeled_statement,
    break_statement, continue_statement, module_declaration, this, super_ = "super",
    character_literal, decimal_integer_literal, hex_integer_literal, octal_integer_literal,
    binary_integer_literal, decimal_floating_point_literal, hex_floating_point_literal,
    true_ = "true", false_ = "false", null_literal, class_literal, cast_expression, array_access,
    array_creation_expression, array_initializer, ternary_expression, parenthesized_expression,
    binary_expression, unary_expression, update_expression, assignment_expression,
    switch_expression, dimensions_expr, switch_label, return_statement,
}

/// Numeric ids of the field names the extractor looks at.
#[derive(Debug)]
pub(crate) struct Fields {
    pub(crate) name: FieldId,
    pub(crate) r#type: FieldId,
    pub(crate) parameters: FieldId,
    pub(crate) dimensions: FieldId,
    pub(crate) object: FieldId,
    pub(crate) field: FieldId,
    pub(crate) arguments: FieldId,
    pub(crate) constructor: FieldId,
    pub(crate) key: FieldId,
    pub(crate) superclass: FieldId,
    pub(crate) interfaces: FieldId,
    pub(crate) type_parameters: FieldId,
    pub(crate) value: FieldId,
    pub(crate) body: FieldId,
    pub(crate) operator: FieldId,
    pub(crate) left: FieldId,
    pub(crate) right: FieldId,
    pub(crate) operand: FieldId,
    pub(crate) consequence: FieldId,
    pub(crate) alternative: FieldId,
    pub(crate) array: FieldId,
    pub(crate) type_arguments: FieldId,
    pub(crate) condition: FieldId,
    pub(crate) declarator: FieldId,
}

impl Fields {
    fn resolve(language: &Language) -> Self {
        let id = |name: &str| {
            language
                .field_id_for_name(name)
                .unwrap_or_else(|| panic!("grammar has no field {name}"))
                .get()
        };
        Self {
            name: id("name"),
            r#type: id("type"),
            parameters: id("parameters"),
            dimensions: id("dimensions"),
            object: id("object"),
            field: id("field"),
            arguments: id("arguments"),
            constructor: id("constructor"),
            key: id("key"),
            superclass: id("superclass"),
            interfaces: id("interfaces"),
            type_parameters: id("type_parameters"),
            value: id("value"),
            body: id("body"),
            operator: id("operator"),
            left: id("left"),
            right: id("right"),
            operand: id("operand"),
            consequence: id("consequence"),
            alternative: id("alternative"),
            array: id("array"),
            type_arguments: id("type_arguments"),
            condition: id("condition"),
            declarator: id("declarator"),
        }
    }
}

/// The Java language with its resolved kind and field ids.
pub(crate) struct Grammar {
    pub(crate) language: Language,
    pub(crate) kinds: Kinds,
    pub(crate) fields: Fields,
    /// By kind id: the [`crate::facts::Modifiers`] bit of a modifier
    /// keyword (an anonymous node), 0 for any other kind.
    pub(crate) modifier_bits: Vec<u32>,
    /// The address of each field's name in the grammar, with the field's
    /// id: tree-sitter names a child's field by handing out the grammar's
    /// own string, which is known by its address without reading it.
    field_names: Vec<(usize, FieldId)>,
}

impl Grammar {
    /// The id of the field named by the grammar's string at `name`, 0 for
    /// none (a null pointer, or a string that is not a field name). Only
    /// the address is compared: tree-sitter hands out the very strings
    /// `field_name_for_id` does.
    pub(crate) fn field_named_at(&self, name: *const std::ffi::c_char) -> FieldId {
        let address = name as usize;
        self.field_names
            .iter()
            .find(|&&(at, _)| at == address)
            .map_or(0, |&(_, id)| id)
    }
}

/// The process-wide grammar, resolved on first use.
pub(crate) fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        let language: Language = tree_sitter_java::LANGUAGE.into();
        let modifier_bits = (0..language.node_kind_count() as u16)
            .map(|id| {
                let keyword = language
                    .node_kind_for_id(id)
                    .filter(|_| !language.node_kind_is_named(id));
                keyword
                    .and_then(crate::facts::Modifiers::bit_of)
                    .unwrap_or(0)
            })
            .collect();
        let field_names = (1..=language.field_count() as FieldId)
            .filter_map(|id| Some((language.field_name_for_id(id)?.as_ptr() as usize, id)))
            .collect();
        Grammar {
            field_names,
            kinds: Kinds::resolve(&language),
            fields: Fields::resolve(&language),
            modifier_bits,
            language,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grammar tree-sitter-java gives still has every kind and field
    /// the extraction names (resolving them panics, naming the one gone),
    /// and every field is known by the address of its name.
    #[test]
    fn the_grammar_has_every_kind_and_field_the_extraction_names() {
        let g = grammar();
        for id in 1..=g.language.field_count() as FieldId {
            let name = g
                .language
                .field_name_for_id(id)
                .expect("a field has a name");
            assert_eq!(g.field_named_at(name.as_ptr().cast()), id, "{name}");
        }
        assert_eq!(g.field_named_at(std::ptr::null()), 0);
    }

    /// The fields the extraction reads of each kind are where it reads
    /// them: a grammar that moved one fails here, by name, rather than
    /// leaving references unresolved.
    #[test]
    fn each_kind_has_the_fields_the_extraction_reads() {
        let source = br#"
            @A(key = 1)
            class C<T> extends B implements I {
                int[] f = {1}, g[];
                C(int x) { super(); }
                <U> List<U> m(int a, String... b) throws E {
                    int y = a > 0 ? a : -a;
                    o.f = x[0];
                    r.run(() -> {});
                    new D<>(y);
                    for (var e : es) { }
                    if (o instanceof String s) { }
                    return p.q(1);
                }
            }
        "#;
        let tree = super::super::parse_only(source).expect("a language");
        let g = grammar();
        let (k, f) = (&g.kinds, &g.fields);
        let expected: &[(u16, &[FieldId])] = &[
            (
                k.class_declaration,
                &[
                    f.name,
                    f.type_parameters,
                    f.superclass,
                    f.interfaces,
                    f.body,
                ],
            ),
            (
                k.method_declaration,
                &[f.type_parameters, f.r#type, f.name, f.parameters, f.body],
            ),
            (k.constructor_declaration, &[f.name, f.parameters, f.body]),
            (k.formal_parameter, &[f.r#type, f.name]),
            (k.field_declaration, &[f.r#type, f.declarator]),
            (k.local_variable_declaration, &[f.r#type, f.declarator]),
            (k.variable_declarator, &[f.name, f.value]),
            (
                k.ternary_expression,
                &[f.condition, f.consequence, f.alternative],
            ),
            (k.binary_expression, &[f.left, f.operator, f.right]),
            (k.unary_expression, &[f.operator, f.operand]),
            (k.assignment_expression, &[f.left, f.operator, f.right]),
            (k.field_access, &[f.object, f.field]),
            (k.array_access, &[f.array]),
            (k.method_invocation, &[f.object, f.name, f.arguments]),
            (k.lambda_expression, &[f.parameters, f.body]),
            (k.object_creation_expression, &[f.r#type, f.arguments]),
            (
                k.enhanced_for_statement,
                &[f.r#type, f.name, f.value, f.body],
            ),
            (k.instanceof_expression, &[f.left, f.right, f.name]),
            (k.annotation, &[f.name, f.arguments]),
        ];
        let mut cursor = tree.walk();
        let mut seen = std::collections::HashMap::new();
        loop {
            let node = cursor.node();
            seen.entry(node.kind_id())
                .or_insert_with(Vec::new)
                .push(node);
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() && cursor.goto_parent() {}
            if cursor.node() == tree.root_node() {
                break;
            }
        }
        for &(kind, fields) in expected {
            let name = g.language.node_kind_for_id(kind).unwrap_or("?");
            let nodes = seen
                .get(&kind)
                .unwrap_or_else(|| panic!("no {name} parsed"));
            for &field in fields {
                let field_name = g.language.field_name_for_id(field).unwrap_or("?");
                assert!(
                    nodes.iter().any(|n| n.child_by_field_id(field).is_some()),
                    "no {name} has a field {field_name}"
                );
            }
        }
        // Element-value pairs name their key.
        let pair = g.language.id_for_node_kind("element_value_pair", true);
        let pairs = seen.get(&pair).expect("an element-value pair parsed");
        assert!(pairs[0].child_by_field_id(f.key).is_some());
    }
}
