//! Reference sites: method calls, `new`, method references,
//! `this(...)`/`super(...)`, field accesses and simple names, with their
//! receivers and arguments.

use super::children::named_children;
use super::kinds::FieldId;
use super::syntax::{erased_type, expr_shape, has_child_of_kind, receiver_text, type_texts};
use super::walker::{Walker, strip_whitespace};
use crate::facts::{ExprShape, NO_ELEMENT, NO_EXPR, Position, RefKind, RefSite};
use tree_sitter::Node;

impl<'t> Walker<'_, 't> {
    pub(super) fn add_site(&mut self, site: RefSite) -> u32 {
        let index = self.facts.ref_sites.len() as u32;
        self.facts.ref_sites.push(site);
        index
    }

    pub(super) fn new_site(&self, kind: RefKind, name: String, pos: Position) -> RefSite {
        RefSite {
            kind,
            name,
            pos,
            receiver: ExprShape::Implicit,
            receiver_text: String::new(),
            n_args: u32::MAX,
            arg_shapes: Vec::new(),
            enclosing: self.current_element(),
            anonymous_class: NO_ELEMENT,
            is_qualifier: false,
            receiver_expr: NO_EXPR,
            args: Vec::new(),
            type_text: String::new(),
        }
    }

    pub(super) fn set_arguments(&self, site: &mut RefSite, arguments: Option<Node<'t>>) {
        let Some(arguments) = arguments else { return };
        site.arg_shapes = named_children(arguments)
            .filter(|a| !a.is_extra())
            .map(|a| expr_shape(self.g, self.src, a))
            .collect();
        site.n_args = site.arg_shapes.len() as u32;
    }

    /// A site whose name is the text of `name_node`, positioned there.
    pub(super) fn site_named_by(&self, kind: RefKind, name_node: Node<'t>) -> RefSite {
        self.new_site(
            kind,
            self.src.node_text(name_node).to_string(),
            self.src.start(name_node),
        )
    }

    /// The receiver of `a.m()`, `a.f` or `a.super(...)`: the node's `object`
    /// field, `X.super` when a `super` follows a qualifier.
    pub(super) fn set_object_receiver(&self, site: &mut RefSite, node: Node<'t>) {
        let Some(object) = node.child_by_field_id(self.g.fields.object) else {
            return;
        };
        self.set_receiver(site, object);
        let super_ = self.g.kinds.super_;
        if object.kind_id() != super_ && has_child_of_kind(node, super_) {
            site.receiver = ExprShape::QualifiedSuper;
        }
    }

    pub(super) fn set_receiver(&self, site: &mut RefSite, receiver: Node<'t>) {
        site.receiver = expr_shape(self.g, self.src, receiver);
        site.receiver_text = receiver_text(self.src, receiver);
    }

    pub(super) fn site_method_invocation(&mut self, node: Node<'t>) {
        let f = &self.g.fields;
        let Some(name) = node.child_by_field_id(f.name) else {
            return;
        };
        let mut site = self.site_named_by(RefKind::Call, name);
        self.set_object_receiver(&mut site, node);
        self.set_arguments(&mut site, node.child_by_field_id(f.arguments));
        if let Some(args) = node.child_by_field_id(f.type_arguments) {
            site.type_text = strip_whitespace(self.src.node_text(args));
        }
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
    }

    pub(super) fn site_new(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let Some(type_node) = node.child_by_field_id(f.r#type) else {
            return;
        };
        let mut site = self.new_site(
            RefKind::New,
            erased_type(self.g, self.src, type_node),
            self.type_name_position(type_node),
        );
        // `outer.new Inner()`: the qualifying instance comes before `new`.
        if let Some(first) = node.named_child(0)
            && first.end_byte() <= type_node.start_byte()
            && first.kind_id() != k.type_arguments
            && first.kind_id() != k.annotation
            && first.kind_id() != k.marker_annotation
            && !first.is_extra()
        {
            self.set_receiver(&mut site, first);
        }
        self.set_arguments(&mut site, node.child_by_field_id(f.arguments));
        site.type_text = type_texts(self.g, self.src, type_node).0;
        let has_body = has_child_of_kind(node, k.class_body);
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
        if has_body {
            self.maps.new_sites_with_body.insert(node.id(), index);
        }
    }

    pub(super) fn site_method_reference(&mut self, node: Node<'t>) {
        let count = node.child_count();
        let (Some(first), Some(last)) = (node.child(0), node.child(count.saturating_sub(1))) else {
            return;
        };
        if first.id() == last.id() {
            return;
        }
        let mut site = self.new_site(
            RefKind::MethodRef,
            self.src.node_text(last).to_string(),
            self.src.start(last),
        );
        self.set_receiver(&mut site, first);
        if site.receiver == ExprShape::Other {
            // A type such as `List<String>` or `int[]` as the qualifier.
            site.receiver = ExprShape::Name;
        }
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
    }

    pub(super) fn site_constructor_call(&mut self, node: Node<'t>) {
        let f = &self.g.fields;
        let Some(keyword) = node.child_by_field_id(f.constructor) else {
            return;
        };
        let mut site = self.site_named_by(RefKind::CtorCall, keyword);
        // `outer.super(...)`: the receiver is the outer instance.
        if let Some(object) = node.child_by_field_id(f.object) {
            self.set_receiver(&mut site, object);
        }
        self.set_arguments(&mut site, node.child_by_field_id(f.arguments));
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
    }

    pub(super) fn site_field_access(
        &mut self,
        node: Node<'t>,
        parent: Option<Node<'t>>,
        field: FieldId,
    ) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let Some(name) = node.child_by_field_id(f.field) else {
            return;
        };
        if name.kind_id() != k.identifier {
            return; // `Outer.this`
        }
        let mut site = self.site_named_by(RefKind::FieldAccess, name);
        self.set_object_receiver(&mut site, node);
        site.is_qualifier = self.is_qualifier_position(parent, field);
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
    }

    pub(super) fn is_qualifier_position(&self, parent: Option<Node<'t>>, field: FieldId) -> bool {
        let k = &self.g.kinds;
        let Some(parent) = parent else { return false };
        let pk = parent.kind_id();
        (pk == k.field_access || pk == k.method_invocation) && field == self.g.fields.object
    }

    pub(super) fn enter_identifier(
        &mut self,
        node: Node<'t>,
        parent: Option<Node<'t>>,
        field: FieldId,
    ) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let Some(parent) = parent else { return };
        let pk = parent.kind_id();
        if field == f.name || field == f.field || field == f.key || field == f.parameters {
            return;
        }
        let excluded_parent = pk == k.package_declaration
            || pk == k.import_declaration
            || pk == k.scoped_identifier
            || pk == k.marker_annotation
            || pk == k.annotation
            || pk == k.inferred_parameters
            || pk == k.labeled_statement
            || pk == k.break_statement
            || pk == k.continue_statement
            || pk == k.module_declaration
            || pk == k.catch_formal_parameter
            || pk == k.type_pattern
            || pk == k.record_pattern_component
            || pk == k.record_pattern
            || pk == k.formal_parameter
            || pk == k.spread_parameter;
        if excluded_parent {
            return;
        }
        let mut is_qualifier = self.is_qualifier_position(Some(parent), field);
        if pk == k.method_reference {
            // Only the qualifier of `a::m`; `m` is the reference's name.
            if parent.start_byte() != node.start_byte() {
                return;
            }
            is_qualifier = true;
        }
        let name = self.src.node_text(node);
        if let Some(local) = self.local_named(name) {
            self.maps.local_of_node.insert(node.id(), local);
            return;
        }
        let mut site = self.new_site(RefKind::Name, name.to_string(), self.src.start(node));
        site.is_qualifier = is_qualifier;
        if pk == k.switch_label {
            // `case RED`: an enum constant of the selector's type, when it
            // is an enum; the selector stands as the name's receiver.
            let selector = self.innermost_switch(parent);
            if let Some(condition) = selector.and_then(|s| s.child_by_field_id(f.condition)) {
                site.receiver_expr = self.expr(condition);
            }
        }
        let index = self.add_site(site);
        self.maps.site_of_node.insert(node.id(), index);
    }
}
