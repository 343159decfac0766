//! The walk over a file's named nodes: the state it keeps (enclosing
//! elements, field groups, local scopes, maps from nodes to what was
//! made of them) and the dispatch of each node to what it declares,
//! references or computes. Each kind of fact is made in a module of its
//! own: [`super::declarations`], [`super::scopes`], [`super::sites`],
//! [`super::expressions`].

use super::children::{Levels, named_children, named_children_in};
use super::kinds::{FieldId, Grammar};
use super::roles::{Enter, roles};
use super::syntax::{SourceText, child_of_kind};
use crate::facts::{Diagnostics, ElementKind, FileFacts, NO_ELEMENT, Position};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use tree_sitter::Node;

/// An element whose node is being walked.
pub(super) struct ElementFrame {
    pub(super) node_id: usize,
    pub(super) element: u32,
}

/// The elements of one field declaration, handed out to its declarators.
pub(super) struct FieldGroup {
    pub(super) node_id: usize,
    pub(super) elements: Vec<u32>,
    pub(super) next: usize,
}

/// A region where local variables are visible.
pub(super) struct Scope {
    pub(super) node_id: usize,
    pub(super) end_byte: u32,
    /// Names declared so far, with their index in [`FileFacts::locals`].
    pub(super) names: Vec<(String, u32)>,
}

/// Deepest expression nesting kept in [`FileFacts::exprs`]; deeper
/// operands become [`ExprKind::Other`] (the expression builder recurses).
pub(super) const MAX_EXPR_DEPTH: u32 = 128;

/// Naming counters of one type: anonymous classes and local classes are
/// numbered per directly enclosing type, as javac does.
#[derive(Default)]
pub(super) struct TypeCounters {
    pub(super) n_anonymous: u32,
    pub(super) n_local_by_name: HashMap<String, u32>,
}

/// The walk's maps from node ids. A thread keeps them from file to file,
/// emptied but with their room: grown afresh for every file, their
/// rehashing was 4 % of extraction's samples outside tree-sitter's parse
/// (perf, JDK).
#[derive(Default)]
pub(super) struct NodeMaps {
    /// `new` sites with a class body, by the node id of the creation
    /// expression, so the anonymous class can be linked back.
    pub(super) new_sites_with_body: HashMap<usize, u32>,
    /// Reference sites by the node id of their expression (or name).
    pub(super) site_of_node: HashMap<usize, u32>,
    /// Identifiers that name a local variable, by node id.
    pub(super) local_of_node: HashMap<usize, u32>,
    /// Expressions built so far, by node id.
    pub(super) expr_of_node: HashMap<usize, u32>,
    /// Lambda elements by the node id of the lambda expression.
    pub(super) lambda_of_node: HashMap<usize, u32>,
    /// Declarators (and enhanced `for` statements) waiting for their
    /// initializer: node id → local index, or field element index.
    pub(super) local_of_declarator: HashMap<usize, u32>,
    pub(super) field_of_declarator: HashMap<usize, u32>,
}

impl NodeMaps {
    pub(super) fn clear(&mut self) {
        let Self {
            new_sites_with_body,
            site_of_node,
            local_of_node,
            expr_of_node,
            lambda_of_node,
            local_of_declarator,
            field_of_declarator,
        } = self;
        new_sites_with_body.clear();
        site_of_node.clear();
        local_of_node.clear();
        expr_of_node.clear();
        lambda_of_node.clear();
        local_of_declarator.clear();
        field_of_declarator.clear();
    }
}

thread_local! {
    /// This thread's [`NodeMaps`] between files.
    pub(super) static NODE_MAPS: RefCell<NodeMaps> = RefCell::new(NodeMaps::default());
}

pub(super) struct Walker<'s, 't> {
    pub(super) g: &'static Grammar,
    pub(super) src: &'s SourceText<'t>,
    pub(super) facts: FileFacts,
    pub(super) frames: Vec<ElementFrame>,
    pub(super) field_groups: Vec<FieldGroup>,
    pub(super) scopes: Vec<Scope>,
    pub(super) counters: HashMap<u32, TypeCounters>,
    /// Maps from node ids, filled as the walk goes.
    pub(super) maps: NodeMaps,
    /// Whether the tree has error or missing nodes to count (most trees
    /// have none, and asking every node costs).
    pub(super) count_errors: bool,
    /// Per level of the walk (the children of one node), the lines of the
    /// javadoc comment that documents the next named node there: the
    /// nearest `/** */` comment among the comments right before it.
    /// Tracked as the walk goes, since asking tree-sitter for a node's
    /// previous sibling scans its parent's children from the start.
    pub(super) docs: Vec<Option<(u32, u32)>>,
    /// The annotations that may be Lombok's, with their places.
    pub(super) lombok_marks: Vec<super::lombok::Mark>,
}

impl<'s, 't> Walker<'s, 't> {
    pub(super) fn new(g: &'static Grammar, src: &'s SourceText<'t>, maps: NodeMaps) -> Self {
        Self {
            g,
            src,
            facts: FileFacts {
                diagnostics: Diagnostics::default(),
                ..FileFacts::default()
            },
            frames: Vec::new(),
            field_groups: Vec::new(),
            scopes: Vec::new(),
            counters: HashMap::default(),
            maps,
            count_errors: true,
            docs: Vec::new(),
            lombok_marks: Vec::new(),
        }
    }

    /// Visits the named nodes under `root` in document order: [`Role`]
    /// work on the way down, [`Self::leave`] on the way up.
    pub(super) fn walk(&mut self, root: Node<'t>) {
        let roles = roles();
        let role_of = |kind: u16| roles.get(usize::from(kind)).copied();
        // Ancestors of the current node with their kinds, root first, and
        // the named children of each ancestor still to visit.
        let mut stack: Vec<(Node<'t>, u16)> = Vec::new();
        // Only identifiers and field accesses care which field of their
        // parent they are.
        let fielded: Vec<bool> = roles
            .iter()
            .map(|r| matches!(r.enter, Enter::Identifier | Enter::FieldAccess))
            .collect();
        let mut levels = Levels::new(&fielded);
        if self.count_errors {
            self.count_syntax_errors(root);
        }
        self.docs.push(None);
        let mut next = Some(root);
        loop {
            if let Some(node) = next {
                let kind = node.kind_id();
                let role = role_of(kind);
                if let Some(role) = role
                    && role.enter != Enter::Nothing
                {
                    // Only identifiers and field accesses care which field
                    // of their parent they are.
                    let field = match role.enter {
                        Enter::Identifier | Enter::FieldAccess => levels.field(),
                        _ => 0,
                    };
                    self.enter(node, role.enter, stack.last().copied(), field);
                }
                self.note_doc(node, kind);
                stack.push((node, kind));
                if !role.is_some_and(|r| r.opaque) && levels.open(node) {
                    self.docs.push(None);
                    next = levels.next();
                    continue;
                }
                let (done, kind) = stack.pop().expect("walk stack holds the current node");
                self.leave(done, role_of(kind).is_some_and(|r| r.links));
            }
            // The current node's subtree is done: on to its next sibling,
            // or up.
            loop {
                if levels.is_empty() {
                    return;
                }
                next = levels.next();
                if next.is_some() {
                    break;
                }
                levels.close();
                self.docs.pop();
                let (done, kind) = stack.pop().expect("walk stack holds the parent");
                self.leave(done, role_of(kind).is_some_and(|r| r.links));
            }
        }
    }

    /// Counts error and missing nodes outside opaque subtrees (the walk
    /// sees named nodes only; a missing token is anonymous).
    pub(super) fn count_syntax_errors(&mut self, root: Node<'t>) {
        let roles = roles();
        let mut cursor = root.walk();
        loop {
            let node = cursor.node();
            if node.is_error() || node.is_missing() {
                self.facts.diagnostics.n_syntax_errors += 1;
            }
            let opaque = roles
                .get(usize::from(node.kind_id()))
                .is_some_and(|r| r.opaque);
            if !opaque && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    pub(super) fn current_element(&self) -> u32 {
        self.frames.last().map_or(NO_ELEMENT, |f| f.element)
    }

    /// The work of a named node whose kind has an [`Enter`] role; `parent`
    /// is its parent with the parent's kind.
    pub(super) fn enter(
        &mut self,
        node: Node<'t>,
        enter: Enter,
        parent: Option<(Node<'t>, u16)>,
        field: FieldId,
    ) {
        let k = &self.g.kinds;
        let parent_kind = parent.map_or(0, |(_, kind)| kind);
        let parent = parent.map(|(node, _)| node);
        match enter {
            Enter::Nothing => {}
            Enter::Identifier => self.enter_identifier(node, parent, field),
            Enter::Package => self.enter_package(node),
            Enter::Import => self.enter_import(node),
            Enter::Type(kind) => self.push_type(node, kind, parent_kind),
            Enter::ClassBody => {
                if parent_kind == k.object_creation_expression || parent_kind == k.enum_constant {
                    self.push_anonymous(node, parent.expect("class body has a parent"));
                }
            }
            Enter::Executable(kind) => self.push_executable(node, kind),
            Enter::FieldDeclaration => self.enter_field_declaration(node),
            Enter::Declarator => {
                if (parent_kind == k.field_declaration || parent_kind == k.constant_declaration)
                    && let Some(group) = self.field_groups.last_mut()
                    && let Some(&element) = group.elements.get(group.next)
                {
                    group.next += 1;
                    self.maps.field_of_declarator.insert(node.id(), element);
                    self.frames.push(ElementFrame {
                        node_id: node.id(),
                        element,
                    });
                }
            }
            Enter::EnumConstant => self.push_enum_constant(node),
            Enter::StaticInitializer => {
                self.push_initializer(node, ElementKind::StaticInitializer);
            }
            Enter::Block => {
                if parent_kind == k.class_body || parent_kind == k.enum_body_declarations {
                    self.push_initializer(node, ElementKind::InstanceInitializer);
                }
                self.push_scope(node);
            }
            Enter::Lambda => self.push_lambda(node),
            Enter::Scope => {
                self.push_scope(node);
                if node.kind_id() == k.enhanced_for_statement
                    && let Some(local) =
                        self.declare_from(node, node.child_by_field_id(self.g.fields.name))
                {
                    self.maps.local_of_declarator.insert(node.id(), local);
                }
            }
            Enter::LocalVariables => {
                let type_node = node.child_by_field_id(self.g.fields.r#type);
                for declarator in named_children_in(node, self.g.fields.declarator) {
                    let name = declarator.child_by_field_id(self.g.fields.name);
                    let dims = declarator.child_by_field_id(self.g.fields.dimensions);
                    if let Some(local) = self.declare_local(name, type_node, dims) {
                        self.maps.local_of_declarator.insert(declarator.id(), local);
                    }
                }
            }
            Enter::CatchParameter => {
                let type_node = child_of_kind(node, k.catch_type);
                self.declare_local(node.child_by_field_id(self.g.fields.name), type_node, None);
            }
            Enter::Resource => {
                self.declare_from(node, node.child_by_field_id(self.g.fields.name));
            }
            Enter::Instanceof => {
                // `x instanceof T t`: the pattern's type is the `right` field.
                let type_node = node.child_by_field_id(self.g.fields.right);
                self.declare_local(node.child_by_field_id(self.g.fields.name), type_node, None);
            }
            Enter::Pattern => {
                let name = child_of_kind(node, k.identifier);
                let type_node = node.named_child(0).filter(|c| c.kind_id() != k.identifier);
                self.declare_local(name, type_node, None);
            }
            Enter::Invocation => self.site_method_invocation(node),
            Enter::New => self.site_new(node),
            Enter::MethodReference => self.site_method_reference(node),
            Enter::ConstructorCall => self.site_constructor_call(node),
            Enter::FieldAccess => self.site_field_access(node, parent, field),
        }
    }

    /// Leaves `node`; `links` when [`Self::link_expressions`] has work there.
    pub(super) fn leave(&mut self, node: Node<'t>, links: bool) {
        let id = node.id();
        if links {
            self.link_expressions(node);
        }
        while self.frames.last().is_some_and(|f| f.node_id == id) {
            self.frames.pop();
        }
        while self.scopes.last().is_some_and(|s| s.node_id == id) {
            self.scopes.pop();
        }
        if self.field_groups.last().is_some_and(|g| g.node_id == id) {
            self.field_groups.pop();
        }
    }

    // ---- small readers --------------------------------------------------

    pub(super) fn field_text(&self, node: Node<'t>, field: FieldId) -> String {
        node.child_by_field_id(field)
            .map(|n| self.src.node_text(n).to_string())
            .unwrap_or_default()
    }

    /// Position of the simple type name in a type: `B` in `a.B<T>`.
    pub(super) fn type_name_position(&self, type_node: Node<'t>) -> Position {
        let k = &self.g.kinds;
        let mut cursor = type_node.walk();
        let mut best = type_node;
        loop {
            let current = cursor.node();
            let kind = current.kind_id();
            if kind == k.type_identifier {
                best = current;
            }
            let descend = kind != k.type_arguments
                && kind != k.annotation
                && kind != k.marker_annotation
                && cursor.goto_first_child();
            if descend {
                continue;
            }
            loop {
                if cursor.node().id() == type_node.id() {
                    return self.src.start(best);
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return self.src.start(best);
                }
            }
        }
    }
}

/// The first named child that is not a comment.
pub(super) fn first_named_non_extra(node: Node<'_>) -> Option<Node<'_>> {
    named_children(node).find(|c| !c.is_extra())
}

pub(super) fn strip_whitespace(text: &str) -> String {
    // Comments inside a dotted name are legal but vanishingly rare; only
    // whitespace is removed.
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
