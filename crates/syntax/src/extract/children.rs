//! The named children of a node, for the extraction walk.
//!
//! tree-sitter's API hands out a node's i-th named child, and the field it
//! is in, by stepping over the i children before it every time, so visiting
//! all of a node's children costs quadratic in their number (about 400
//! instructions per child over the JDK, a twentieth of a whole index); a
//! [`tree_sitter::TreeCursor`] steps linearly but costs as much per step.
//! `children.c` walks a node's children once and writes every named child
//! with its field, as those functions would give them.

use std::marker::PhantomData;

use tree_sitter::{Node, ffi};

use super::kinds::FieldId;

/// One named child as `children.c` writes it.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawChild {
    node: ffi::TSNode,
    field: ffi::TSFieldId,
}

unsafe extern "C" {
    /// Writes at most `capacity` named children of `parent` to `out` and
    /// returns how many it has.
    fn refscope_named_children(parent: ffi::TSNode, out: *mut RawChild, capacity: u32) -> u32;

    /// Writes the first named child of `parent` of kind `kind` to `out`;
    /// whether there is one.
    fn refscope_named_child_of_kind(
        parent: ffi::TSNode,
        kind: ffi::TSSymbol,
        out: *mut RawChild,
    ) -> bool;

    /// The size of the C struct [`RawChild`] mirrors and the offset of its
    /// `field`.
    #[cfg(test)]
    fn refscope_child_layout(layout: *mut [usize; 2]);
}

/// Appends the named children of `parent` to `out`.
fn append_named_children(parent: Node<'_>, out: &mut Vec<RawChild>) {
    let count = parent.named_child_count();
    if count == 0 {
        return;
    }
    out.reserve(count);
    let start = out.len();
    let capacity = u32::try_from(count).expect("a node has fewer than 2^32 children");
    // SAFETY: `out` has room for `count` children past `start`; the
    // function writes at most that many, fully initialized, and returns how
    // many the node has, of which only those written are kept.
    unsafe {
        let total =
            refscope_named_children(parent.into_raw(), out.as_mut_ptr().add(start), capacity);
        debug_assert_eq!(total, capacity, "children.c counts as tree-sitter does");
        out.set_len(start + total.min(capacity) as usize);
    }
}

/// A child written for a node of the tree `'t`.
fn node<'t>(child: &RawChild) -> Node<'t> {
    // SAFETY: the raw node was written for a child of a node of the tree
    // borrowed for `'t` (the only way a `RawChild` is made), so it points
    // into that tree, which outlives `'t`.
    unsafe { Node::from_raw(child.node) }
}

/// The named children of the nodes whose children the walk is visiting,
/// innermost last: a stack of levels over one buffer.
pub(super) struct Levels<'t> {
    children: Vec<RawChild>,
    /// Per level, where its children start in `children` and the index of
    /// the next one to hand out. A level's children run to the end of the
    /// buffer: the levels above it were closed before it goes on.
    levels: Vec<(usize, usize)>,
    tree: PhantomData<Node<'t>>,
}

impl<'t> Levels<'t> {
    pub(super) fn new() -> Self {
        Self {
            children: Vec::new(),
            levels: Vec::new(),
            tree: PhantomData,
        }
    }

    /// Opens a level for the named children of `parent`; `false`, and no
    /// level, when it has none.
    pub(super) fn open(&mut self, parent: Node<'t>) -> bool {
        let start = self.children.len();
        append_named_children(parent, &mut self.children);
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
        let child = self.children.get(*next)?;
        *next += 1;
        Some(node(child))
    }

    /// The field of the innermost level's node that the child [`Self::next`]
    /// handed out last is in, 0 for none (or before any).
    pub(super) fn field(&self) -> FieldId {
        match self.levels.last() {
            Some(&(start, next)) if next > start => self.children[next - 1].field,
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
/// [`Node::named_children`], without a cursor).
pub(crate) fn named_children(parent: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    listed(parent).map(|child| node(&child))
}

/// The named children of `parent` in its field `field`, in order (like
/// [`Node::children_by_field_id`] for a field that holds named nodes).
pub(crate) fn named_children_in(
    parent: Node<'_>,
    field: FieldId,
) -> impl Iterator<Item = Node<'_>> {
    listed(parent)
        .filter(move |child| child.field == field)
        .map(|child| node(&child))
}

/// The named children of `parent` with their fields, in a buffer of their own.
fn listed(parent: Node<'_>) -> std::vec::IntoIter<RawChild> {
    let mut children = Vec::new();
    append_named_children(parent, &mut children);
    children.into_iter()
}

/// The first named child of `parent` of kind `kind`.
pub(crate) fn named_child_of_kind(parent: Node<'_>, kind: u16) -> Option<Node<'_>> {
    let mut child = std::mem::MaybeUninit::<RawChild>::uninit();
    // SAFETY: the function writes one child to `child` when it returns
    // true, and nothing is read from it otherwise.
    unsafe {
        refscope_named_child_of_kind(parent.into_raw(), kind, child.as_mut_ptr())
            .then(|| node(child.assume_init_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node's named children and their fields, as `children.c` gives
    /// them and as tree-sitter's own functions give them by index.
    fn check_every_node(source: &[u8]) -> usize {
        let tree = super::super::parse_only(source).expect("the parser has a language");
        let language = tree.language();
        let mut checked = 0;
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let mut levels = Levels::new();
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
    fn raw_child_is_the_c_struct() {
        let mut layout = [0; 2];
        // SAFETY: the function writes two numbers to the array.
        unsafe { refscope_child_layout(&mut layout) };
        let rust = [
            std::mem::size_of::<RawChild>(),
            std::mem::offset_of!(RawChild, field),
        ];
        assert_eq!(rust, layout);
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
