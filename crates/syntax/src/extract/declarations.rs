//! Declarations: the package, imports, types (named, anonymous, local,
//! records and their components), methods and constructors, fields, enum
//! constants, initializers and lambdas, with their modifiers, annotations,
//! javadoc, type parameters and parameters.

use super::children::{named_children, named_children_in};
use super::lombok;
use super::syntax::{
    child_of_kind, erased_type, text_without_comments, type_texts, with_dimensions,
};
use super::walker::{ElementFrame, FieldGroup, Walker, strip_whitespace};
use crate::facts::{
    Element, ElementKind, Import, Modifiers, NO_ELEMENT, NO_EXPR, Origin, Param, Span, TypeParam,
};
use tree_sitter::Node;

impl<'t> Walker<'_, 't> {
    pub(super) fn enter_package(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let name = named_children(node)
            .find(|c| c.kind_id() == k.scoped_identifier || c.kind_id() == k.identifier);
        if let Some(name) = name {
            self.facts.package = Some(strip_whitespace(self.src.node_text(name)));
        }
    }

    pub(super) fn enter_import(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let mut path = None;
        let mut is_static = false;
        let mut on_demand = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind_id() == k.scoped_identifier || child.kind_id() == k.identifier {
                path = Some(strip_whitespace(self.src.node_text(child)));
            } else if child.kind_id() == k.asterisk {
                on_demand = true;
            } else if !child.is_named() && child.kind() == "static" {
                is_static = true;
            }
        }
        if let Some(path) = path {
            self.facts.imports.push(Import {
                path,
                is_static,
                on_demand,
                line: self.src.start_line(node),
            });
        }
    }

    /// Builds the parts every declaration shares.
    pub(super) fn new_element(&self, node: Node<'t>, kind: ElementKind, name: String) -> Element {
        Element {
            kind,
            name,
            parent: self.current_element(),
            binary_name: String::new(),
            modifiers: Modifiers::default(),
            annotations: Vec::new(),
            type_text: String::new(),
            type_erased: String::new(),
            params: Vec::new(),
            throws: Vec::new(),
            type_params: Vec::new(),
            supertypes: Vec::new(),
            span: self.span_of(node),
            name_pos: self.src.start(node),
            javadoc: None,
            is_local: false,
            supertypes_written: Vec::new(),
            init: NO_EXPR,
            origin: Origin::Source,
        }
    }

    pub(super) fn span_of(&self, node: Node<'t>) -> Span {
        Span {
            start_line: self.src.start_line(node),
            end_line: self.src.end_line(node),
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
        }
    }

    pub(super) fn add_element(&mut self, element: Element) -> u32 {
        let index = self.facts.elements.len() as u32;
        self.facts.elements.push(element);
        index
    }

    pub(super) fn push_frame(&mut self, node: Node<'t>, element: u32) {
        self.frames.push(ElementFrame {
            node_id: node.id(),
            element,
        });
    }

    /// The binary name of the innermost enclosing type.
    pub(super) fn enclosing_type_binary(&self) -> Option<(u32, String)> {
        let current = self.current_element();
        if current == NO_ELEMENT {
            return None;
        }
        let index = self.facts.enclosing_type(current)?;
        Some((
            index,
            self.facts.elements[index as usize].binary_name.clone(),
        ))
    }

    pub(super) fn push_type(&mut self, node: Node<'t>, kind: ElementKind, parent_kind: u16) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let name = self.field_text(node, f.name);
        let mut element = self.new_element(node, kind, name.clone());
        let is_member = parent_kind == k.class_body
            || parent_kind == k.interface_body
            || parent_kind == k.enum_body_declarations
            || parent_kind == k.annotation_type_body
            || parent_kind == k.enum_body;
        element.binary_name = match self.enclosing_type_binary() {
            None => match &self.facts.package {
                Some(package) => format!("{package}.{name}"),
                None => name.clone(),
            },
            Some((_, outer)) if is_member => format!("{outer}${name}"),
            Some((outer_index, outer)) => {
                element.is_local = true;
                let counters = self.counters.entry(outer_index).or_default();
                let n = counters.n_local_by_name.entry(name.clone()).or_insert(0);
                *n += 1;
                format!("{outer}${n}{name}")
            }
        };
        self.read_modifiers(node, &mut element);
        self.read_javadoc(&mut element);
        if let Some(name_node) = node.child_by_field_id(f.name) {
            element.name_pos = self.src.start(name_node);
        }
        element.type_params = self.type_params(node.child_by_field_id(f.type_parameters));
        (element.supertypes, element.supertypes_written) = self.supertypes(node, kind);
        let components = node.child_by_field_id(f.parameters);
        if let Some(params) = components {
            element.params = self.params(params);
        }
        let index = self.add_element(element);
        self.push_frame(node, index);
        if let Some(params) = components {
            self.add_record_components(index, params);
        }
    }

    pub(super) fn add_record_components(&mut self, record: u32, params: Node<'t>) {
        let k = &self.g.kinds;
        let binary = self.facts.elements[record as usize].binary_name.clone();
        let components: Vec<Node<'t>> = named_children(params)
            .filter(|c| c.kind_id() == k.formal_parameter || c.kind_id() == k.spread_parameter)
            .collect();
        for component in components {
            let Some(param) = self.param(component) else {
                continue;
            };
            let mut element =
                self.new_element(component, ElementKind::RecordComponent, param.name.clone());
            element.parent = record;
            element.binary_name = binary.clone();
            self.read_modifiers(component, &mut element);
            element.type_text = param.type_text.clone();
            element.type_erased = param.erased.clone();
            if let Some(name) = self.param_name_node(component) {
                element.name_pos = self.src.start(name);
            }
            self.add_element(element);
        }
    }

    /// The `extends` and `implements` types, erased and as written.
    pub(super) fn supertypes(
        &self,
        node: Node<'t>,
        kind: ElementKind,
    ) -> (Vec<String>, Vec<String>) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let mut out = Vec::new();
        let mut written = Vec::new();
        if kind == ElementKind::Class {
            let superclass = node
                .child_by_field_id(f.superclass)
                .and_then(|s| s.named_child(0))
                .map(|t| type_texts(self.g, self.src, t));
            let (w, e) = superclass.unwrap_or_default();
            out.push(e);
            written.push(w);
        }
        let lists = [
            node.child_by_field_id(f.interfaces),
            child_of_kind(node, k.extends_interfaces),
        ];
        for list in lists.into_iter().flatten() {
            if let Some(type_list) = child_of_kind(list, k.type_list) {
                for t in named_children(type_list) {
                    if !t.is_extra() {
                        let (w, e) = type_texts(self.g, self.src, t);
                        out.push(e);
                        written.push(w);
                    }
                }
            }
        }
        (out, written)
    }

    pub(super) fn push_anonymous(&mut self, body: Node<'t>, creator: Node<'t>) {
        let k = &self.g.kinds;
        let (outer_index, outer) = self
            .enclosing_type_binary()
            .unwrap_or((NO_ELEMENT, String::new()));
        let n = if outer_index == NO_ELEMENT {
            1
        } else {
            let counters = self.counters.entry(outer_index).or_default();
            counters.n_anonymous += 1;
            counters.n_anonymous
        };
        let start_node = if creator.kind_id() == k.object_creation_expression {
            creator
        } else {
            body
        };
        let mut element = self.new_element(
            start_node,
            ElementKind::AnonymousClass,
            "<anonymous>".into(),
        );
        element.span.end_line = self.src.end_line(body);
        element.span.end_byte = body.end_byte() as u32;
        element.binary_name = format!("{outer}${n}");
        if creator.kind_id() == k.object_creation_expression {
            if let Some(t) = creator.child_by_field_id(self.g.fields.r#type) {
                let (written, erased) = type_texts(self.g, self.src, t);
                element.supertypes_written = vec![written.clone()];
                element.type_text = written;
                element.supertypes = vec![erased.clone()];
                element.type_erased = erased;
                element.name_pos = self.type_name_position(t);
            }
        } else {
            // An enum constant body extends its enum.
            if let Some((enum_index, _)) = self.enclosing_type_binary() {
                // Named as the enum is named in its own body.
                let name = self.facts.elements[enum_index as usize].name.clone();
                element.supertypes = vec![name.clone()];
                element.supertypes_written = vec![name];
            }
            element.name_pos = self.src.start(body);
        }
        let index = self.add_element(element);
        if let Some(&site) = self.maps.new_sites_with_body.get(&creator.id()) {
            self.facts.ref_sites[site as usize].anonymous_class = index;
        }
        self.push_frame(body, index);
    }

    pub(super) fn push_executable(&mut self, node: Node<'t>, kind: ElementKind) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let name = if kind == ElementKind::Constructor {
            "<init>".to_string()
        } else {
            self.field_text(node, f.name)
        };
        let mut element = self.new_element(node, kind, name);
        element.binary_name = self
            .enclosing_type_binary()
            .map(|(_, b)| b)
            .unwrap_or_default();
        self.read_modifiers(node, &mut element);
        self.read_javadoc(&mut element);
        if let Some(name_node) = node.child_by_field_id(f.name) {
            element.name_pos = self.src.start(name_node);
        }
        if let Some(t) = node.child_by_field_id(f.r#type) {
            let (written, erased) = type_texts(self.g, self.src, t);
            let dims = node.child_by_field_id(f.dimensions);
            element.type_text = with_dimensions(self.src, written, dims);
            element.type_erased = with_dimensions(self.src, erased, dims);
        }
        element.type_params = self.type_params(node.child_by_field_id(f.type_parameters));
        if node.kind_id() == k.compact_constructor_declaration {
            // A compact constructor takes the record's components.
            let record = self.current_element();
            if record != NO_ELEMENT {
                element.params = self.facts.elements[record as usize].params.clone();
            }
        } else if let Some(params) = node.child_by_field_id(f.parameters) {
            element.params = self.params(params);
        }
        if let Some(throws) = child_of_kind(node, k.throws) {
            element.throws = named_children(throws)
                .filter(|t| !t.is_extra())
                .map(|t| erased_type(self.g, self.src, t))
                .collect();
        }
        let params = element.params.clone();
        let index = self.add_element(element);
        self.push_frame(node, index);
        self.push_scope(node);
        self.declare_params(node, index, &params);
    }

    pub(super) fn enter_field_declaration(&mut self, node: Node<'t>) {
        let f = &self.g.fields;
        let owner = self
            .enclosing_type_binary()
            .map(|(_, b)| b)
            .unwrap_or_default();
        let type_node = node.child_by_field_id(f.r#type);
        let (written, erased) = type_node
            .map(|t| type_texts(self.g, self.src, t))
            .unwrap_or_default();
        let mut template = self.new_element(node, ElementKind::Field, String::new());
        template.binary_name = owner;
        self.read_modifiers(node, &mut template);
        self.read_javadoc(&mut template);
        let declarators: Vec<Node<'t>> = named_children_in(node, f.declarator).collect();
        let mut elements = Vec::with_capacity(declarators.len());
        let n = declarators.len();
        for (i, declarator) in declarators.into_iter().enumerate() {
            let mut element = template.clone();
            element.name = self.field_text(declarator, f.name);
            if let Some(name) = declarator.child_by_field_id(f.name) {
                element.name_pos = self.src.start(name);
            }
            let dims = declarator.child_by_field_id(f.dimensions);
            element.type_text = with_dimensions(self.src, written.clone(), dims);
            element.type_erased = with_dimensions(self.src, erased.clone(), dims);
            if i + 1 < n {
                // javac ends all but the last variable at its declarator.
                element.span.end_line = self.src.end_line(declarator);
                element.span.end_byte = declarator.end_byte() as u32;
            }
            elements.push(self.add_element(element));
        }
        self.field_groups.push(FieldGroup {
            node_id: node.id(),
            elements,
            next: 0,
        });
    }

    pub(super) fn push_enum_constant(&mut self, node: Node<'t>) {
        let f = &self.g.fields;
        let name = self.field_text(node, f.name);
        let mut element = self.new_element(node, ElementKind::EnumConstant, name);
        element.binary_name = self
            .enclosing_type_binary()
            .map(|(_, b)| b)
            .unwrap_or_default();
        self.read_modifiers(node, &mut element);
        self.read_javadoc(&mut element);
        if let Some(name_node) = node.child_by_field_id(f.name) {
            element.name_pos = self.src.start(name_node);
        }
        let index = self.add_element(element);
        self.push_frame(node, index);
    }

    pub(super) fn push_initializer(&mut self, node: Node<'t>, kind: ElementKind) {
        let name = match kind {
            ElementKind::StaticInitializer => "<clinit>",
            _ => "<instinit>",
        };
        let mut element = self.new_element(node, kind, name.into());
        element.binary_name = self
            .enclosing_type_binary()
            .map(|(_, b)| b)
            .unwrap_or_default();
        if kind == ElementKind::StaticInitializer {
            element.modifiers.0 |= Modifiers::bit_of("static").unwrap_or(0);
        }
        self.read_javadoc(&mut element);
        let index = self.add_element(element);
        self.push_frame(node, index);
    }

    pub(super) fn push_lambda(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let mut element = self.new_element(node, ElementKind::Lambda, "<lambda>".into());
        element.binary_name = self
            .enclosing_type_binary()
            .map(|(_, b)| b)
            .unwrap_or_default();
        let params = node.child_by_field_id(self.g.fields.parameters);
        if let Some(params) = params {
            if params.kind_id() == k.formal_parameters {
                element.params = self.params(params);
            } else {
                let names: Vec<Node<'t>> = if params.kind_id() == k.identifier {
                    vec![params]
                } else {
                    named_children(params)
                        .filter(|c| c.kind_id() == k.identifier)
                        .collect()
                };
                element.params = names
                    .into_iter()
                    .map(|n| Param {
                        type_text: String::new(),
                        erased: String::new(),
                        name: self.src.node_text(n).to_string(),
                        varargs: false,
                    })
                    .collect();
            }
        }
        let declared = element.params.clone();
        let index = self.add_element(element);
        self.maps.lambda_of_node.insert(node.id(), index);
        self.push_frame(node, index);
        self.push_scope(node);
        self.declare_params(node, index, &declared);
    }

    pub(super) fn read_modifiers(&mut self, node: Node<'t>, element: &mut Element) {
        let k = &self.g.kinds;
        for child in named_children(node) {
            if child.kind_id() == k.modifiers {
                // Keywords are anonymous children: all children, by index
                // (a list of modifiers is short).
                for m in (0..child.child_count()).filter_map(|i| child.child(i)) {
                    let kind = m.kind_id();
                    if kind == k.annotation || kind == k.marker_annotation {
                        self.read_annotation(m, element);
                    } else if let Some(&bit) = self.g.modifier_bits.get(usize::from(kind)) {
                        element.modifiers.0 |= bit;
                    }
                }
            } else if child.kind_id() == k.annotation || child.kind_id() == k.marker_annotation {
                self.read_annotation(child, element);
            }
        }
    }

    /// Adds an annotation to the element about to be added, keeping the
    /// place of one that may be Lombok's.
    fn read_annotation(&mut self, node: Node<'t>, element: &mut Element) {
        let text = text_without_comments(self.src, node, 200);
        if lombok::might_be_lombok(&text) {
            self.lombok_marks.push(lombok::Mark {
                element: self.facts.elements.len() as u32,
                annotation: element.annotations.len() as u32,
                start_byte: node.start_byte() as u32,
                end_byte: node.end_byte() as u32,
            });
        }
        element.annotations.push(text);
    }

    /// The javadoc of the declaration being entered: the nearest `/** */`
    /// comment among the comments right before it, looking past other
    /// comments as javac does (see [`Self::note_doc`]).
    pub(super) fn read_javadoc(&self, element: &mut Element) {
        element.javadoc = self.docs.last().copied().flatten();
    }

    /// Notes a walked node for the javadoc of its next named sibling: a
    /// javadoc comment becomes the one pending, other comments leave it,
    /// and any other named node takes it away.
    pub(super) fn note_doc(&mut self, node: Node<'t>, kind: u16) {
        let k = &self.g.kinds;
        // The walk visits named nodes only.
        if kind == k.line_comment {
            return;
        }
        let doc = if kind == k.block_comment {
            let text = self.src.node_text(node);
            if !text.starts_with("/**") || text == "/**/" {
                return;
            }
            Some((self.src.start_line(node), self.src.end_line(node)))
        } else {
            None
        };
        if let Some(pending) = self.docs.last_mut() {
            *pending = doc;
        }
    }

    pub(super) fn type_params(&self, node: Option<Node<'t>>) -> Vec<TypeParam> {
        let Some(node) = node else {
            return Vec::new();
        };
        let k = &self.g.kinds;
        let mut out = Vec::new();
        for param in named_children(node) {
            if param.kind_id() != k.type_parameter {
                continue;
            }
            let name = child_of_kind(param, k.type_identifier)
                .map(|n| self.src.node_text(n).to_string())
                .unwrap_or_default();
            let bounds = match child_of_kind(param, k.type_bound) {
                Some(bound) => named_children(bound)
                    .filter(|t| !t.is_extra())
                    .map(|t| erased_type(self.g, self.src, t))
                    .collect(),
                None => Vec::new(),
            };
            out.push(TypeParam { name, bounds });
        }
        out
    }

    pub(super) fn params(&self, node: Node<'t>) -> Vec<Param> {
        let k = &self.g.kinds;
        named_children(node)
            .filter(|c| c.kind_id() == k.formal_parameter || c.kind_id() == k.spread_parameter)
            .filter_map(|c| self.param(c))
            .collect()
    }

    pub(super) fn param_name_node(&self, node: Node<'t>) -> Option<Node<'t>> {
        let k = &self.g.kinds;
        if node.kind_id() == k.spread_parameter {
            child_of_kind(node, k.variable_declarator)
                .and_then(|d| d.child_by_field_id(self.g.fields.name))
        } else {
            node.child_by_field_id(self.g.fields.name)
        }
    }

    pub(super) fn param(&self, node: Node<'t>) -> Option<Param> {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        if node.kind_id() == k.spread_parameter {
            let type_node = named_children(node).find(|c| {
                c.kind_id() != k.modifiers
                    && c.kind_id() != k.variable_declarator
                    && c.kind_id() != k.annotation
                    && c.kind_id() != k.marker_annotation
                    && !c.is_extra()
            })?;
            let declarator = child_of_kind(node, k.variable_declarator);
            let name = declarator
                .and_then(|d| d.child_by_field_id(f.name))
                .map(|n| self.src.node_text(n).to_string())
                .unwrap_or_default();
            let (written, erased) = type_texts(self.g, self.src, type_node);
            let dims = declarator.and_then(|d| d.child_by_field_id(f.dimensions));
            Some(Param {
                type_text: format!("{written}..."),
                erased: with_dimensions(self.src, erased, dims) + "[]",
                name,
                varargs: true,
            })
        } else {
            let type_node = node.child_by_field_id(f.r#type)?;
            let (written, erased) = type_texts(self.g, self.src, type_node);
            let dims = node.child_by_field_id(f.dimensions);
            Some(Param {
                type_text: with_dimensions(self.src, written, dims),
                erased: with_dimensions(self.src, erased, dims),
                name: self.field_text(node, f.name),
                varargs: false,
            })
        }
    }
}
