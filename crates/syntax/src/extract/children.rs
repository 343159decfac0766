//! The named children of a node, for the extraction walk.
//!
//! tree-sitter's public API hands out a node's i-th named child, and the
//! field it is in, by searching from its first child every time, so
//! listing all of a node's children that way costs quadratic in their
//! number. A [`TreeCursor`] steps over each child once (anonymous ones
//! too), looking through hidden nodes and naming each child's field
//! (inherited from a hidden node's where the child has none of its own),
//! but a step costs several times a step of that search. Over
//! `java/util`, listing every node with a cursor took three times the
//! instructions of listing the nodes with a few named children (most of
//! them) by index and larger ones with a cursor, which is what is done
//! here. The walk keeps one cursor and resets it to each large node it
//! opens: walking the whole tree with one cursor cost more still, its
//! steps up and across being dearer than a reset.

use tree_sitter::{Node, TreeCursor, ffi};

use super::kinds::{FieldId, grammar};

/// One named child and the field of its parent it is in (0 for none, or
/// when not asked for).
type Child<'t> = (Node<'t>, FieldId);

/// Up to this many named children, a node's children are listed by index
/// (each a search over the children before it), past it with a cursor:
/// 6 or 24 instead cost as much or more over `java/util`.
const BY_INDEX: usize = 12;

/// The field of `parent` that its named child `index` is in, 0 for none.
fn field_of_named_child(parent: Node<'_>, index: usize) -> FieldId {
    let index = u32::try_from(index).expect("a node has fewer than 2^32 children");
    // SAFETY: a plain query of a live node; the returned pointer is only
    // compared, never read.
    let name = unsafe { ffi::ts_node_field_name_for_named_child(parent.into_raw(), index) };
    grammar().field_named_at(name)
}

/// Appends the named children of `parent` to `out`, each with its field
/// when `fielded` says its kind needs one (naming a child's field is much
/// of what listing it costs), else 0; a large node is listed with `cursor`
/// (reset to `parent`, made if there is none yet).
fn append_named_children<'t>(
    parent: Node<'t>,
    cursor: &mut Option<TreeCursor<'t>>,
    fielded: impl Fn(u16) -> bool,
    out: &mut Vec<Child<'t>>,
) {
    let count = parent.named_child_count();
    if count == 0 {
        return;
    }
    if count <= BY_INDEX {
        out.extend((0..count).map_while(|index| {
            let child = parent.named_child(index)?;
            let field = match fielded(child.kind_id()) {
                true => field_of_named_child(parent, index),
                false => 0,
            };
            Some((child, field))
        }));
        return;
    }
    let cursor = cursor.get_or_insert_with(|| parent.walk());
    cursor.reset(parent);
    if !cursor.goto_first_child() {
        return;
    }
    loop {
        let node = cursor.node();
        if node.is_named() {
            let field = match fielded(node.kind_id()) {
                true => cursor.field_id().map_or(0, |id| id.get()),
                false => 0,
            };
            out.push((node, field));
        }
        if !cursor.goto_next_sibling() {
            return;
        }
    }
}

/// The named children of the nodes whose children the walk is visiting,
/// innermost last: a stack of levels over one buffer.
pub(super) struct Levels<'t, 'k> {
    children: Vec<Child<'t>>,
    /// Per level, where its children start in `children` and the index of
    /// the next one to hand out. A level's children run to the end of the
    /// buffer: the levels above it were closed before it goes on.
    levels: Vec<(usize, usize)>,
    /// The cursor large nodes are listed with, once one is.
    cursor: Option<TreeCursor<'t>>,
    /// By node kind id: whether [`Self::field`] is asked about children
    /// of that kind.
    fielded: &'k [bool],
}

impl<'t, 'k> Levels<'t, 'k> {
    /// Levels for a walk that asks [`Self::field`] only about children
    /// whose kinds `fielded` marks.
    pub(super) fn new(fielded: &'k [bool]) -> Self {
        Self {
            children: Vec::new(),
            levels: Vec::new(),
            cursor: None,
            fielded,
        }
    }

    /// Opens a level for the named children of `parent`; `false`, and no
    /// level, when it has none.
    pub(super) fn open(&mut self, parent: Node<'t>) -> bool {
        let start = self.children.len();
        let fielded = self.fielded;
        let wants = |kind: u16| fielded.get(usize::from(kind)).copied().unwrap_or(false);
        append_named_children(parent, &mut self.cursor, wants, &mut self.children);
        if self.children.len() == start {
            return false;
        }
        self.levels.push((start, start));
        true
    }

    /// The next child of the innermost level, `None` when it has no more
    /// (or there is no level).
    pub(super) fn next(&mut self) -> Option<Node<'t>> {
        let (_, next) = self.levels.last_mut()?;
        let &(child, _) = self.children.get(*next)?;
        *next += 1;
        Some(child)
    }

    /// The field of the innermost level's node that the child [`Self::next`]
    /// handed out last is in, 0 for none (or before any, or when its kind
    /// is not one the levels were made to name fields for).
    pub(super) fn field(&self) -> FieldId {
        match self.levels.last() {
            Some(&(start, next)) if next > start => self.children[next - 1].1,
            _ => 0,
        }
    }

    /// Closes the innermost level.
    pub(super) fn close(&mut self) {
        if let Some((start, _)) = self.levels.pop() {
            self.children.truncate(start);
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }
}

/// The named children of `parent`, in order, comments included (like
/// [`Node::named_children`]).
pub(crate) fn named_children(parent: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    listed(parent, false).into_iter().map(|(child, _)| child)
}

/// The named children of `parent` in its field `field`, in order (like
/// [`Node::children_by_field_id`] for a field that holds named nodes).
pub(crate) fn named_children_in(
    parent: Node<'_>,
    field: FieldId,
) -> impl Iterator<Item = Node<'_>> {
    listed(parent, true)
        .into_iter()
        .filter(move |&(_, in_field)| in_field == field)
        .map(|(child, _)| child)
}

/// The named children of `parent`, with their fields when `fields` asks
/// for them, in a buffer of their own.
fn listed(parent: Node<'_>, fields: bool) -> Vec<Child<'_>> {
    let mut children = Vec::new();
    append_named_children(parent, &mut None, |_| fields, &mut children);
    children
}

/// The first named child of `parent` of kind `kind`.
pub(crate) fn named_child_of_kind(parent: Node<'_>, kind: u16) -> Option<Node<'_>> {
    let count = parent.named_child_count();
    if count <= BY_INDEX {
        return (0..count)
            .filter_map(|index| parent.named_child(index))
            .find(|child| child.kind_id() == kind);
    }
    let mut cursor = parent.walk();
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        let node = cursor.node();
        if node.kind_id() == kind && node.is_named() {
            return Some(node);
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node's named children and their fields, as the walk's levels
    /// list them and as tree-sitter's own functions give them by index.
    fn check_every_node(source: &[u8]) -> usize {
        let tree = super::super::parse_only(source).expect("the parser has a language");
        let language = tree.language();
        let mut checked = 0;
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let every = vec![true; usize::from(language.node_kind_count() as u16)];
            let mut levels = Levels::new(&every);
            let opened = levels.open(node);
            assert_eq!(opened, node.named_child_count() > 0);
            for i in 0..node.named_child_count() {
                let expected = node.named_child(i).expect("i < named_child_count");
                let got = levels
                    .next()
                    .expect("as many children as tree-sitter counts");
                assert_eq!(got, expected, "child {i} of {node:?}");
                // Same subtree, alias and position.
                assert_eq!(got.kind_id(), expected.kind_id());
                assert_eq!(got.byte_range(), expected.byte_range());
                assert_eq!(got.start_position(), expected.start_position());
                assert_eq!(got.end_position(), expected.end_position());
                let field = node
                    .field_name_for_named_child(i as u32)
                    .and_then(|name| language.field_id_for_name(name))
                    .map_or(0, |id| id.get());
                assert_eq!(levels.field(), field, "field of child {i} of {node:?}");
                checked += 1;
            }
            assert_eq!(levels.next(), None);
            let listed: Vec<_> = named_children(node).collect();
            let expected: Vec<_> = (0..node.named_child_count())
                .filter_map(|i| node.named_child(i))
                .collect();
            assert_eq!(listed, expected);
            for child in &expected {
                let first = expected.iter().find(|c| c.kind_id() == child.kind_id());
                assert_eq!(named_child_of_kind(node, child.kind_id()), first.copied());
            }
            // No node has a kind past the grammar's last.
            let no_kind = language.node_kind_count() as u16;
            assert_eq!(named_child_of_kind(node, no_kind), None);
            for field in 1..=language.field_count() as u16 {
                let in_field: Vec<_> = named_children_in(node, field).collect();
                let mut field_cursor = node.walk();
                let expected: Vec<_> = node
                    .children_by_field_id(std::num::NonZero::new(field).unwrap(), &mut field_cursor)
                    .filter(|c| c.is_named())
                    .collect();
                assert_eq!(in_field, expected, "field {field} of {node:?}");
            }
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return checked;
                }
            }
        }
    }

    #[test]
    fn a_large_node_is_listed_as_a_small_one_is() {
        let elements: Vec<String> = (0..3 * BY_INDEX)
            .map(|i| format!("/* {i} */ f({i})"))
            .collect();
        let source = format!(
            "class A {{ int[] a = {{ {} }}; void m() {{ g({}); }} }}",
            elements.join(", "),
            elements.join(", ")
        );
        // The initializer and the argument list hold each element and
        // comment: past what is listed by index.
        let tree = super::super::parse_only(source.as_bytes()).expect("a language");
        let mut cursor = tree.walk();
        let mut large = 0;
        loop {
            large += usize::from(cursor.node().named_child_count() > BY_INDEX);
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() && cursor.goto_parent() {}
            if cursor.node() == tree.root_node() {
                break;
            }
        }
        assert_eq!(large, 2);
        let checked = check_every_node(source.as_bytes());
        assert!(checked > 6 * BY_INDEX, "{checked} children checked");
    }

    #[test]
    fn children_and_fields_are_tree_sitters() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpora/fixtures");
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(fixtures)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("fixtures are readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "java") {
                    files.push(path);
                }
            }
        }
        assert!(files.len() > 20, "the fixtures are there: {}", files.len());
        let mut checked = 0;
        for path in &files {
            checked += check_every_node(&std::fs::read(path).expect("a fixture is readable"));
        }
        // Comments between children (extras), hidden nodes with fields,
        // and a file tree-sitter recovers from errors in.
        checked += check_every_node(
            br#"
            @interface A { int v() default 1; }
            class B<T extends Comparable<? super T>> extends C implements D, /* c */ E {
                int[] a = {1, /* x */ 2}, b[];
                B(T t) { this.<T>m(t)::n; super(); }
                void m() { for (var x : xs) switch (x) { case 1 -> f(); default -> { g(); } }
                    Object o = (Runnable & java.io.Serializable) () -> {}; int y = o instanceof String s ? 1 : 2; }
                record R(int x) { R { } }
                void broken( { int = ; }
            }
            "#,
        );
        assert!(checked > 5_000, "{checked} children checked");
    }
}
