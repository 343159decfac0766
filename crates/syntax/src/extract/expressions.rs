//! The expression tree resolution types sites with: what a receiver or an
//! argument is, linked to the sites and variables that hold it.

use super::children::named_children;
use super::syntax::{erased_type, has_child_of_kind, type_texts};
use super::walker::{MAX_EXPR_DEPTH, Walker, first_named_non_extra, strip_whitespace};
use crate::facts::{Expr, ExprKind, NO_ELEMENT, NO_EXPR};
use tree_sitter::Node;

impl<'t> Walker<'_, 't> {
    /// Links a node that was just walked to the expressions it holds: a
    /// site's receiver and arguments, a variable's initializer.
    pub(super) fn link_expressions(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let kind = node.kind_id();
        let id = node.id();
        if kind == k.method_invocation
            || kind == k.object_creation_expression
            || kind == k.explicit_constructor_invocation
            || kind == k.field_access
            || kind == k.method_reference
        {
            let Some(&site) = self.maps.site_of_node.get(&id) else {
                return;
            };
            let receiver = if kind == k.method_reference {
                node.named_child(0)
                    .filter(|r| r.kind_id() != k.type_arguments)
            } else if kind == k.object_creation_expression {
                let type_start = node
                    .child_by_field_id(f.r#type)
                    .map_or(0, |t| t.start_byte());
                node.named_child(0).filter(|r| {
                    r.end_byte() <= type_start
                        && r.kind_id() != k.type_arguments
                        && r.kind_id() != k.annotation
                        && r.kind_id() != k.marker_annotation
                        && !r.is_extra()
                })
            } else {
                node.child_by_field_id(f.object)
            };
            let receiver = receiver.map_or(NO_EXPR, |r| {
                if kind != k.explicit_constructor_invocation
                    && r.kind_id() != k.super_
                    && has_child_of_kind(node, k.super_)
                {
                    let text = strip_whitespace(self.src.node_text(r));
                    self.push_expr(ExprKind::QualifiedSuper, NO_EXPR, NO_EXPR, text)
                } else {
                    self.expr(r)
                }
            });
            let args: Vec<u32> = match node.child_by_field_id(f.arguments) {
                Some(list) => {
                    let nodes: Vec<Node<'t>> =
                        named_children(list).filter(|a| !a.is_extra()).collect();
                    nodes.into_iter().map(|a| self.expr(a)).collect()
                }
                None => Vec::new(),
            };
            let site = &mut self.facts.ref_sites[site as usize];
            site.receiver_expr = receiver;
            site.args = args;
        } else if kind == k.variable_declarator {
            let value = node.child_by_field_id(f.value);
            if let Some(&local) = self.maps.local_of_declarator.get(&id) {
                let init = value.map_or(NO_EXPR, |v| self.expr(v));
                self.facts.locals[local as usize].init = init;
            } else if let Some(&field) = self.maps.field_of_declarator.get(&id) {
                let init = value.map_or(NO_EXPR, |v| self.expr(v));
                self.facts.elements[field as usize].init = init;
            }
        } else if kind == k.enhanced_for_statement {
            if let Some(&local) = self.maps.local_of_declarator.get(&id)
                && let Some(value) = node.child_by_field_id(f.value)
            {
                let init = self.expr(value);
                let local = &mut self.facts.locals[local as usize];
                local.init = init;
                local.foreach = true;
            }
        } else if kind == k.return_statement {
            // Only returns whose value needs a target type: lambdas,
            // method references and calls (generic inference).
            if let Some(value) = first_named_non_extra(node) {
                let value_kind = value.kind_id();
                if value_kind == k.lambda_expression
                    || value_kind == k.method_reference
                    || value_kind == k.method_invocation
                {
                    let e = self.expr(value);
                    let element = self.current_element();
                    self.facts.returns.push((e, element));
                }
            }
        } else if kind == k.lambda_expression
            && let Some(&lambda) = self.maps.lambda_of_node.get(&id)
            && let Some(body) = node.child_by_field_id(f.body)
            && body.kind_id() != k.block
        {
            let body = self.expr(body);
            self.facts.elements[lambda as usize].init = body;
        }
    }

    pub(super) fn push_expr(&mut self, kind: ExprKind, a: u32, b: u32, text: String) -> u32 {
        let index = self.facts.exprs.len() as u32;
        self.facts.exprs.push(Expr { kind, a, b, text });
        index
    }

    /// The expression of an already walked node, built on first use.
    pub(super) fn expr(&mut self, node: Node<'t>) -> u32 {
        self.expr_at(node, 0)
    }

    pub(super) fn expr_at(&mut self, node: Node<'t>, depth: u32) -> u32 {
        let id = node.id();
        if let Some(&e) = self.maps.expr_of_node.get(&id) {
            return e;
        }
        let k = &self.g.kinds;
        let f = &self.g.fields;
        let kind = node.kind_id();
        let text_of = |n: Node<'t>| self.src.node_text(n);
        let mut a = NO_EXPR;
        let mut b = NO_EXPR;
        let mut text = String::new();
        let expr_kind = if depth > MAX_EXPR_DEPTH {
            ExprKind::Other
        } else if let Some(&local) = self.maps.local_of_node.get(&id) {
            a = local;
            ExprKind::Local
        } else if let Some(&site) = self.maps.site_of_node.get(&id) {
            a = site;
            ExprKind::Site
        } else if kind == k.field_access {
            // `Outer.this` (a field access that is not a site).
            match node.child_by_field_id(f.object) {
                Some(object)
                    if node
                        .child_by_field_id(f.field)
                        .is_some_and(|x| x.kind_id() == k.this) =>
                {
                    text = strip_whitespace(text_of(object));
                    ExprKind::QualifiedThis
                }
                _ => ExprKind::Other,
            }
        } else if kind == k.this {
            ExprKind::This
        } else if kind == k.super_ {
            ExprKind::Super
        } else if kind == k.string_literal {
            ExprKind::StringLit
        } else if kind == k.character_literal {
            ExprKind::CharLit
        } else if kind == k.decimal_integer_literal
            || kind == k.hex_integer_literal
            || kind == k.octal_integer_literal
            || kind == k.binary_integer_literal
        {
            if text_of(node).ends_with(['l', 'L']) {
                ExprKind::LongLit
            } else {
                ExprKind::IntLit
            }
        } else if kind == k.decimal_floating_point_literal || kind == k.hex_floating_point_literal {
            if text_of(node).ends_with(['f', 'F']) {
                ExprKind::FloatLit
            } else {
                ExprKind::DoubleLit
            }
        } else if kind == k.true_ || kind == k.false_ {
            ExprKind::BoolLit
        } else if kind == k.null_literal {
            ExprKind::NullLit
        } else if kind == k.class_literal {
            if let Some(t) = node.named_child(0) {
                text = erased_type(self.g, self.src, t);
            }
            ExprKind::ClassLit
        } else if kind == k.cast_expression {
            if let Some(t) = node.child_by_field_id(f.r#type) {
                text = type_texts(self.g, self.src, t).0;
            }
            if let Some(v) = node.child_by_field_id(f.value) {
                a = self.expr_at(v, depth + 1);
            }
            ExprKind::Cast
        } else if kind == k.parenthesized_expression {
            if let Some(inner) = first_named_non_extra(node) {
                a = self.expr_at(inner, depth + 1);
            }
            ExprKind::Paren
        } else if kind == k.ternary_expression {
            if let Some(c) = node.child_by_field_id(f.consequence) {
                a = self.expr_at(c, depth + 1);
            }
            if let Some(c) = node.child_by_field_id(f.alternative) {
                b = self.expr_at(c, depth + 1);
            }
            ExprKind::Conditional
        } else if kind == k.array_access {
            if let Some(array) = node.child_by_field_id(f.array) {
                a = self.expr_at(array, depth + 1);
            }
            ExprKind::ArrayAccess
        } else if kind == k.array_creation_expression {
            if let Some(t) = node.child_by_field_id(f.r#type) {
                text = type_texts(self.g, self.src, t).0;
            }
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if child.kind_id() == k.dimensions_expr {
                    text.push_str("[]");
                } else if child.kind_id() == k.dimensions {
                    for _ in 0..text_of(child).matches('[').count() {
                        text.push_str("[]");
                    }
                }
            }
            ExprKind::NewArray
        } else if kind == k.array_initializer {
            ExprKind::ArrayInit
        } else if kind == k.lambda_expression {
            a = self
                .maps
                .lambda_of_node
                .get(&id)
                .copied()
                .unwrap_or(NO_ELEMENT);
            if a != NO_ELEMENT {
                b = self.facts.elements[a as usize].init;
            }
            ExprKind::Lambda
        } else if kind == k.binary_expression || kind == k.assignment_expression {
            // `a op b` and `a op= b`: the operator, then both operands.
            text = node
                .child_by_field_id(f.operator)
                .map(|o| text_of(o).to_string())
                .unwrap_or_default();
            if let Some(l) = node.child_by_field_id(f.left) {
                a = self.expr_at(l, depth + 1);
            }
            if let Some(r) = node.child_by_field_id(f.right) {
                b = self.expr_at(r, depth + 1);
            }
            if kind == k.binary_expression {
                ExprKind::Binary
            } else {
                ExprKind::Assign
            }
        } else if kind == k.unary_expression {
            text = node
                .child_by_field_id(f.operator)
                .map(|o| text_of(o).to_string())
                .unwrap_or_default();
            if let Some(o) = node.child_by_field_id(f.operand) {
                a = self.expr_at(o, depth + 1);
            }
            ExprKind::Unary
        } else if kind == k.update_expression {
            text = "++".into();
            if let Some(o) = first_named_non_extra(node) {
                a = self.expr_at(o, depth + 1);
            }
            ExprKind::Unary
        } else if kind == k.instanceof_expression {
            ExprKind::InstanceOf
        } else if kind == k.switch_expression {
            ExprKind::Switch
        } else {
            ExprKind::Other
        };
        let index = self.push_expr(expr_kind, a, b, text);
        self.maps.expr_of_node.insert(id, index);
        index
    }

    /// The `switch` a label belongs to.
    pub(super) fn innermost_switch(&self, label: Node<'t>) -> Option<Node<'t>> {
        let mut current = label.parent();
        while let Some(node) = current {
            if node.kind_id() == self.g.kinds.switch_expression {
                return Some(node);
            }
            current = node.parent();
        }
        None
    }
}
