//! Local scopes: parameters and local variables declared as the walk
//! enters blocks, and the nearest declaration of a simple name.

use super::children::named_children;
use super::syntax::{type_texts, with_dimensions};
use super::walker::{Scope, Walker};
use crate::facts::{LocalVar, NO_EXPR, Param};
use tree_sitter::Node;

impl<'t> Walker<'_, 't> {
    pub(super) fn push_scope(&mut self, node: Node<'t>) {
        self.scopes.push(Scope {
            node_id: node.id(),
            end_byte: node.end_byte() as u32,
            names: Vec::new(),
        });
    }

    pub(super) fn declare_params(&mut self, node: Node<'t>, element: u32, params: &[Param]) {
        let k = &self.g.kinds;
        let Some(list) = node.child_by_field_id(self.g.fields.parameters) else {
            if node.kind_id() == k.compact_constructor_declaration {
                // A compact constructor's parameters are implicit: named
                // and typed like the record's components.
                for param in params {
                    // Varargs types are written `T...`: already an array.
                    let type_text = param.type_text.clone();
                    self.record_local(
                        param.name.clone(),
                        type_text,
                        param.erased.clone(),
                        node,
                        element,
                    );
                    // `node` stands for no identifier: forget the link.
                    self.maps.local_of_node.remove(&node.id());
                }
            }
            return;
        };
        let mut name_nodes = Vec::new();
        if list.kind_id() == k.identifier {
            name_nodes.push(list);
        } else {
            for child in named_children(list) {
                if child.kind_id() == k.identifier {
                    name_nodes.push(child);
                } else if let Some(name) = self.param_name_node(child) {
                    name_nodes.push(name);
                }
            }
        }
        for (param, name) in params.iter().zip(name_nodes) {
            // Varargs types are written `T...`: already an array.
            let type_text = param.type_text.clone();
            self.record_local(
                param.name.clone(),
                type_text,
                param.erased.clone(),
                name,
                element,
            );
        }
    }

    pub(super) fn declare_from(&mut self, node: Node<'t>, name: Option<Node<'t>>) -> Option<u32> {
        let type_node = node.child_by_field_id(self.g.fields.r#type);
        let dims = node.child_by_field_id(self.g.fields.dimensions);
        self.declare_local(name, type_node, dims)
    }

    pub(super) fn declare_local(
        &mut self,
        name: Option<Node<'t>>,
        type_node: Option<Node<'t>>,
        dims: Option<Node<'t>>,
    ) -> Option<u32> {
        let name = name?;
        if name.kind_id() != self.g.kinds.identifier {
            return None;
        }
        let (written, erased) = type_node
            .map(|t| type_texts(self.g, self.src, t))
            .unwrap_or_default();
        let written = with_dimensions(self.src, written, dims);
        let erased = with_dimensions(self.src, erased, dims);
        let element = self.current_element();
        Some(self.record_local(
            self.src.node_text(name).to_string(),
            written,
            erased,
            name,
            element,
        ))
    }

    pub(super) fn record_local(
        &mut self,
        name: String,
        type_text: String,
        type_erased: String,
        name_node: Node<'t>,
        element: u32,
    ) -> u32 {
        let index = self.facts.locals.len() as u32;
        let scope_end_byte = self.scopes.last().map_or(u32::MAX, |s| s.end_byte);
        if let Some(scope) = self.scopes.last_mut() {
            scope.names.push((name.clone(), index));
        }
        self.maps.local_of_node.insert(name_node.id(), index);
        self.facts.locals.push(LocalVar {
            name,
            type_text,
            type_erased,
            pos: self.src.start(name_node),
            enclosing: element,
            scope_end_byte,
            init: NO_EXPR,
            foreach: false,
        });
        index
    }

    /// The local variable `name` visible here, innermost first.
    pub(super) fn local_named(&self, name: &str) -> Option<u32> {
        self.scopes.iter().rev().find_map(|s| {
            s.names
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, i)| *i)
        })
    }
}
