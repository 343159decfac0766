//! Extraction: tree-sitter-java → [`FileFacts`].
//!
//! Extraction is a pure function of a file's bytes. It never fails: a file
//! with syntax errors yields whatever tree-sitter recovered plus the number
//! of error nodes, and bytes that are not UTF-8 are decoded lossily and
//! counted. It knows nothing of paths, revisions, the store or other files.
//!
//! The named nodes of the tree are walked once, without recursion (so
//! deeply nested expressions cannot overflow the stack; see [`children`]
//! for how each node's children are fetched), keeping a stack of enclosing
//! elements and a stack of local-variable scopes.

mod children;
mod kinds;
mod lines;
mod syntax;

use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use crate::facts::{
    Diagnostics, Element, ElementKind, Expr, ExprKind, ExprShape, FileFacts, Import, LocalVar,
    Modifiers, NO_ELEMENT, NO_EXPR, Param, Position, RefKind, RefSite, Span, TypeParam,
};
use children::{Levels, named_children, named_children_in};
use kinds::{FieldId, Grammar, grammar};
use syntax::{
    SourceText, child_of_kind, erased_type, expr_shape, has_child_of_kind, receiver_text,
    text_without_comments, type_texts, with_dimensions,
};

/// Extracts the facts of one Java file.
///
/// ```
/// let facts = refscope_syntax::extract(b"package p; class A { void m() {} }");
/// assert_eq!(facts.package.as_deref(), Some("p"));
/// assert_eq!(facts.elements[1].name, "m");
/// ```
pub fn extract(bytes: &[u8]) -> FileFacts {
    // Valid UTF-8 is the rule: check it in one pass, and count invalid
    // bytes only when there are some.
    let (mut text, n_invalid_utf8_bytes) = match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), 0),
        Err(_) => (
            String::from_utf8_lossy(bytes),
            bytes.utf8_chunks().map(|c| c.invalid().len()).sum(),
        ),
    };
    if text.contains('\0') {
        // tree-sitter's lexer reads NUL as the end of input, while javac
        // accepts it (in literals, say). A space has the same length, so
        // offsets, lines and columns stay those of the original bytes.
        text = std::borrow::Cow::Owned(text.replace('\0', " "));
    }
    let tree = PARSER.with(|parser| parser.borrow_mut().parse(text.as_bytes(), None));
    let source = SourceText::new(&text);
    let maps = NODE_MAPS.with(|maps| std::mem::take(&mut *maps.borrow_mut()));
    let mut walker = Walker::new(grammar(), &source, maps);
    if let Some(tree) = &tree {
        walker.count_errors = tree.root_node().has_error();
        walker.walk(tree.root_node());
    }
    let Walker {
        mut facts,
        mut maps,
        ..
    } = walker;
    maps.clear();
    NODE_MAPS.with(|kept| *kept.borrow_mut() = maps);
    facts.n_lines = source.n_lines();
    facts.diagnostics.n_invalid_utf8_bytes = n_invalid_utf8_bytes as u32;
    if tree.is_none() {
        facts.diagnostics.n_syntax_errors += 1;
    }
    lines::build_line_table(&mut facts);
    facts
}

/// Sends tree-sitter's allocations to mimalloc instead of the C library's
/// `malloc`. Every subtree of a parse is a small allocation of its own,
/// made and freed on the parsing threads: with mimalloc, `raw-parse` of the
/// JDK took 5.35 s instead of 5.75 s (three alternating runs; user time
/// 9.9 s instead of 10.8 s). `refscope` does this first thing in `main`,
/// and `raw-parse --mimalloc` does too.
///
/// # Safety
///
/// Call it before any tree-sitter object exists (a parser, a tree, a
/// query), in a process with no other thread using tree-sitter: a block
/// allocated by one allocator must not be freed by the other.
pub unsafe fn tree_sitter_on_mimalloc() {
    // SAFETY: the caller guarantees no tree-sitter block exists yet. The
    // four functions have the C signatures tree-sitter expects
    // (`mi_realloc(NULL, n)` allocates, like `realloc`) and are
    // thread-safe.
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(libmimalloc_sys::mi_calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
}

/// Parses a file and returns only its tree, for benchmarks that need raw
/// tree-sitter parsing as a baseline.
pub fn parse_only(bytes: &[u8]) -> Option<tree_sitter::Tree> {
    PARSER.with(|parser| parser.borrow_mut().parse(bytes, None))
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut parser = Parser::new();
        parser
            .set_language(&grammar().language)
            .expect("tree-sitter-java is compatible with the linked tree-sitter");
        parser
    });
}

/// What the walk does at a node of one kind, looked up once per node
/// instead of comparing its kind with every kind of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Enter {
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
struct Role {
    enter: Enter,
    /// [`Walker::link_expressions`] has work at such a node.
    links: bool,
    /// Its subtree holds nothing extraction records: its nodes are not
    /// visited at all. Errors inside are not counted either, which is
    /// fine: tree-sitter keeps literals and type arguments intact or turns
    /// the enclosing node into an error.
    opaque: bool,
}

/// [`Role`]s by node kind id.
fn roles() -> &'static [Role] {
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

/// An element whose node is being walked.
struct ElementFrame {
    node_id: usize,
    element: u32,
}

/// The elements of one field declaration, handed out to its declarators.
struct FieldGroup {
    node_id: usize,
    elements: Vec<u32>,
    next: usize,
}

/// A region where local variables are visible.
struct Scope {
    node_id: usize,
    end_byte: u32,
    /// Names declared so far, with their index in [`FileFacts::locals`].
    names: Vec<(String, u32)>,
}

/// Deepest expression nesting kept in [`FileFacts::exprs`]; deeper
/// operands become [`ExprKind::Other`] (the expression builder recurses).
const MAX_EXPR_DEPTH: u32 = 128;

/// Naming counters of one type: anonymous classes and local classes are
/// numbered per directly enclosing type, as javac does.
#[derive(Default)]
struct TypeCounters {
    n_anonymous: u32,
    n_local_by_name: HashMap<String, u32>,
}

/// The walk's maps from node ids. A thread keeps them from file to file,
/// emptied but with their room: grown afresh for every file, their
/// rehashing was 4 % of extraction's samples outside tree-sitter's parse
/// (perf, JDK).
#[derive(Default)]
struct NodeMaps {
    /// `new` sites with a class body, by the node id of the creation
    /// expression, so the anonymous class can be linked back.
    new_sites_with_body: HashMap<usize, u32>,
    /// Reference sites by the node id of their expression (or name).
    site_of_node: HashMap<usize, u32>,
    /// Identifiers that name a local variable, by node id.
    local_of_node: HashMap<usize, u32>,
    /// Expressions built so far, by node id.
    expr_of_node: HashMap<usize, u32>,
    /// Lambda elements by the node id of the lambda expression.
    lambda_of_node: HashMap<usize, u32>,
    /// Declarators (and enhanced `for` statements) waiting for their
    /// initializer: node id → local index, or field element index.
    local_of_declarator: HashMap<usize, u32>,
    field_of_declarator: HashMap<usize, u32>,
}

impl NodeMaps {
    fn clear(&mut self) {
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
    static NODE_MAPS: RefCell<NodeMaps> = RefCell::new(NodeMaps::default());
}

struct Walker<'s, 't> {
    g: &'static Grammar,
    src: &'s SourceText<'t>,
    facts: FileFacts,
    frames: Vec<ElementFrame>,
    field_groups: Vec<FieldGroup>,
    scopes: Vec<Scope>,
    counters: HashMap<u32, TypeCounters>,
    /// Maps from node ids, filled as the walk goes.
    maps: NodeMaps,
    /// Whether the tree has error or missing nodes to count (most trees
    /// have none, and asking every node costs).
    count_errors: bool,
    /// Per level of the walk (the children of one node), the lines of the
    /// javadoc comment that documents the next named node there: the
    /// nearest `/** */` comment among the comments right before it.
    /// Tracked as the walk goes, since asking tree-sitter for a node's
    /// previous sibling scans its parent's children from the start.
    docs: Vec<Option<(u32, u32)>>,
}

impl<'s, 't> Walker<'s, 't> {
    fn new(g: &'static Grammar, src: &'s SourceText<'t>, maps: NodeMaps) -> Self {
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
        }
    }

    /// Visits the named nodes under `root` in document order: [`Role`]
    /// work on the way down, [`Self::leave`] on the way up.
    fn walk(&mut self, root: Node<'t>) {
        let roles = roles();
        let role_of = |kind: u16| roles.get(usize::from(kind)).copied();
        // Ancestors of the current node with their kinds, root first, and
        // the named children of each ancestor still to visit.
        let mut stack: Vec<(Node<'t>, u16)> = Vec::new();
        let mut levels = Levels::new();
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
    fn count_syntax_errors(&mut self, root: Node<'t>) {
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

    fn current_element(&self) -> u32 {
        self.frames.last().map_or(NO_ELEMENT, |f| f.element)
    }

    /// The work of a named node whose kind has an [`Enter`] role; `parent`
    /// is its parent with the parent's kind.
    fn enter(
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
    fn leave(&mut self, node: Node<'t>, links: bool) {
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

    // ---- declarations ---------------------------------------------------

    fn enter_package(&mut self, node: Node<'t>) {
        let k = &self.g.kinds;
        let name = named_children(node)
            .find(|c| c.kind_id() == k.scoped_identifier || c.kind_id() == k.identifier);
        if let Some(name) = name {
            self.facts.package = Some(strip_whitespace(self.src.node_text(name)));
        }
    }

    fn enter_import(&mut self, node: Node<'t>) {
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
    fn new_element(&self, node: Node<'t>, kind: ElementKind, name: String) -> Element {
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
        }
    }

    fn span_of(&self, node: Node<'t>) -> Span {
        Span {
            start_line: self.src.start_line(node),
            end_line: self.src.end_line(node),
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
        }
    }

    fn add_element(&mut self, element: Element) -> u32 {
        let index = self.facts.elements.len() as u32;
        self.facts.elements.push(element);
        index
    }

    fn push_frame(&mut self, node: Node<'t>, element: u32) {
        self.frames.push(ElementFrame {
            node_id: node.id(),
            element,
        });
    }

    /// The binary name of the innermost enclosing type.
    fn enclosing_type_binary(&self) -> Option<(u32, String)> {
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

    fn push_type(&mut self, node: Node<'t>, kind: ElementKind, parent_kind: u16) {
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

    fn add_record_components(&mut self, record: u32, params: Node<'t>) {
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
    fn supertypes(&self, node: Node<'t>, kind: ElementKind) -> (Vec<String>, Vec<String>) {
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

    fn push_anonymous(&mut self, body: Node<'t>, creator: Node<'t>) {
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

    fn push_executable(&mut self, node: Node<'t>, kind: ElementKind) {
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

    fn enter_field_declaration(&mut self, node: Node<'t>) {
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

    fn push_enum_constant(&mut self, node: Node<'t>) {
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

    fn push_initializer(&mut self, node: Node<'t>, kind: ElementKind) {
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

    fn push_lambda(&mut self, node: Node<'t>) {
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

    fn read_modifiers(&self, node: Node<'t>, element: &mut Element) {
        let k = &self.g.kinds;
        for child in named_children(node) {
            if child.kind_id() == k.modifiers {
                // Keywords are anonymous children: all children, by index
                // (a list of modifiers is short).
                for m in (0..child.child_count()).filter_map(|i| child.child(i)) {
                    let kind = m.kind_id();
                    if kind == k.annotation || kind == k.marker_annotation {
                        element
                            .annotations
                            .push(text_without_comments(self.src, m, 200));
                    } else if let Some(&bit) = self.g.modifier_bits.get(usize::from(kind)) {
                        element.modifiers.0 |= bit;
                    }
                }
            } else if child.kind_id() == k.annotation || child.kind_id() == k.marker_annotation {
                element
                    .annotations
                    .push(text_without_comments(self.src, child, 200));
            }
        }
    }

    /// The javadoc of the declaration being entered: the nearest `/** */`
    /// comment among the comments right before it, looking past other
    /// comments as javac does (see [`Self::note_doc`]).
    fn read_javadoc(&self, element: &mut Element) {
        element.javadoc = self.docs.last().copied().flatten();
    }

    /// Notes a walked node for the javadoc of its next named sibling: a
    /// javadoc comment becomes the one pending, other comments leave it,
    /// and any other named node takes it away.
    fn note_doc(&mut self, node: Node<'t>, kind: u16) {
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

    fn type_params(&self, node: Option<Node<'t>>) -> Vec<TypeParam> {
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

    fn params(&self, node: Node<'t>) -> Vec<Param> {
        let k = &self.g.kinds;
        named_children(node)
            .filter(|c| c.kind_id() == k.formal_parameter || c.kind_id() == k.spread_parameter)
            .filter_map(|c| self.param(c))
            .collect()
    }

    fn param_name_node(&self, node: Node<'t>) -> Option<Node<'t>> {
        let k = &self.g.kinds;
        if node.kind_id() == k.spread_parameter {
            child_of_kind(node, k.variable_declarator)
                .and_then(|d| d.child_by_field_id(self.g.fields.name))
        } else {
            node.child_by_field_id(self.g.fields.name)
        }
    }

    fn param(&self, node: Node<'t>) -> Option<Param> {
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

    // ---- scopes and locals -----------------------------------------------

    fn push_scope(&mut self, node: Node<'t>) {
        self.scopes.push(Scope {
            node_id: node.id(),
            end_byte: node.end_byte() as u32,
            names: Vec::new(),
        });
    }

    fn declare_params(&mut self, node: Node<'t>, element: u32, params: &[Param]) {
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

    fn declare_from(&mut self, node: Node<'t>, name: Option<Node<'t>>) -> Option<u32> {
        let type_node = node.child_by_field_id(self.g.fields.r#type);
        let dims = node.child_by_field_id(self.g.fields.dimensions);
        self.declare_local(name, type_node, dims)
    }

    fn declare_local(
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

    fn record_local(
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
    fn local_named(&self, name: &str) -> Option<u32> {
        self.scopes.iter().rev().find_map(|s| {
            s.names
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, i)| *i)
        })
    }

    // ---- reference sites ------------------------------------------------

    fn add_site(&mut self, site: RefSite) -> u32 {
        let index = self.facts.ref_sites.len() as u32;
        self.facts.ref_sites.push(site);
        index
    }

    fn new_site(&self, kind: RefKind, name: String, pos: Position) -> RefSite {
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

    fn set_arguments(&self, site: &mut RefSite, arguments: Option<Node<'t>>) {
        let Some(arguments) = arguments else { return };
        site.arg_shapes = named_children(arguments)
            .filter(|a| !a.is_extra())
            .map(|a| expr_shape(self.g, self.src, a))
            .collect();
        site.n_args = site.arg_shapes.len() as u32;
    }

    /// A site whose name is the text of `name_node`, positioned there.
    fn site_named_by(&self, kind: RefKind, name_node: Node<'t>) -> RefSite {
        self.new_site(
            kind,
            self.src.node_text(name_node).to_string(),
            self.src.start(name_node),
        )
    }

    /// The receiver of `a.m()`, `a.f` or `a.super(...)`: the node's `object`
    /// field, `X.super` when a `super` follows a qualifier.
    fn set_object_receiver(&self, site: &mut RefSite, node: Node<'t>) {
        let Some(object) = node.child_by_field_id(self.g.fields.object) else {
            return;
        };
        self.set_receiver(site, object);
        let super_ = self.g.kinds.super_;
        if object.kind_id() != super_ && has_child_of_kind(node, super_) {
            site.receiver = ExprShape::QualifiedSuper;
        }
    }

    fn set_receiver(&self, site: &mut RefSite, receiver: Node<'t>) {
        site.receiver = expr_shape(self.g, self.src, receiver);
        site.receiver_text = receiver_text(self.src, receiver);
    }

    fn site_method_invocation(&mut self, node: Node<'t>) {
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

    fn site_new(&mut self, node: Node<'t>) {
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

    fn site_method_reference(&mut self, node: Node<'t>) {
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

    fn site_constructor_call(&mut self, node: Node<'t>) {
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

    fn site_field_access(&mut self, node: Node<'t>, parent: Option<Node<'t>>, field: FieldId) {
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

    fn is_qualifier_position(&self, parent: Option<Node<'t>>, field: FieldId) -> bool {
        let k = &self.g.kinds;
        let Some(parent) = parent else { return false };
        let pk = parent.kind_id();
        (pk == k.field_access || pk == k.method_invocation) && field == self.g.fields.object
    }

    fn enter_identifier(&mut self, node: Node<'t>, parent: Option<Node<'t>>, field: FieldId) {
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

    // ---- expressions ----------------------------------------------------

    /// Links a node that was just walked to the expressions it holds: a
    /// site's receiver and arguments, a variable's initializer.
    fn link_expressions(&mut self, node: Node<'t>) {
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

    fn push_expr(&mut self, kind: ExprKind, a: u32, b: u32, text: String) -> u32 {
        let index = self.facts.exprs.len() as u32;
        self.facts.exprs.push(Expr { kind, a, b, text });
        index
    }

    /// The expression of an already walked node, built on first use.
    fn expr(&mut self, node: Node<'t>) -> u32 {
        self.expr_at(node, 0)
    }

    fn expr_at(&mut self, node: Node<'t>, depth: u32) -> u32 {
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
    fn innermost_switch(&self, label: Node<'t>) -> Option<Node<'t>> {
        let mut current = label.parent();
        while let Some(node) = current {
            if node.kind_id() == self.g.kinds.switch_expression {
                return Some(node);
            }
            current = node.parent();
        }
        None
    }

    // ---- small readers --------------------------------------------------

    fn field_text(&self, node: Node<'t>, field: FieldId) -> String {
        node.child_by_field_id(field)
            .map(|n| self.src.node_text(n).to_string())
            .unwrap_or_default()
    }

    /// Position of the simple type name in a type: `B` in `a.B<T>`.
    fn type_name_position(&self, type_node: Node<'t>) -> Position {
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
fn first_named_non_extra(node: Node<'_>) -> Option<Node<'_>> {
    named_children(node).find(|c| !c.is_extra())
}

fn strip_whitespace(text: &str) -> String {
    // Comments inside a dotted name are legal but vanishingly rare; only
    // whitespace is removed.
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests;
