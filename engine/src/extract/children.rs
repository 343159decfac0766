//! The named children of a node, one at a time, for the extraction walk.
//!
//! A [`tree_sitter::TreeCursor`] visits every child, anonymous tokens
//! (`(`, `;`, `.`) included, and each step to a sibling costs several
//! hundred instructions: it rebuilds its view of the parent every time.
//! The walk needs named nodes only. A node with few children hands them out
//! by index (`ts_node_named_child`, which counts from the first child each
//! time: cheap while there are few); a node with many (a class body, a
//! large array initializer) through a cursor, skipping anonymous ones.

use tree_sitter::{Language, Node, TreeCursor};

use super::kinds::FieldId;

/// Up to this many children (anonymous ones included), named children
/// are fetched by index: fetching child `i` steps over the `i` before
/// it, so a node's children cost quadratic in their number, below a
/// cursor's steps up to about here. Measured in instructions for a whole
/// index (callgrind): over java/util, 0 (always a cursor), 20, 32, 64,
/// 256 and 1000 gave 9.275, 8.736, 8.678, 8.680, 8.687 and 8.691 G; over
/// javax/swing/text, 20 and 32 gave 3.979 and 3.933 G.
const MAX_INDEXED_CHILDREN: usize = 32;

/// The named children of one node, in order.
pub(super) struct NamedChildren<'t> {
    parent: Node<'t>,
    how: How<'t>,
}

enum How<'t> {
    /// The index of the next named child, and how many there are.
    Indexed { next: u32, count: u32 },
    /// A cursor on the child handed out last, if any yet.
    Cursor {
        cursor: TreeCursor<'t>,
        started: bool,
    },
}

impl<'t> NamedChildren<'t> {
    /// The named children of `parent`, or `None` if it has none. A node
    /// with many children borrows a cursor from `spare` (or makes one);
    /// [`Self::recycle`] returns it.
    pub(super) fn of(parent: Node<'t>, spare: &mut Vec<TreeCursor<'t>>) -> Option<Self> {
        let count = parent.named_child_count();
        if count == 0 {
            return None;
        }
        let how = if parent.child_count() <= MAX_INDEXED_CHILDREN {
            How::Indexed {
                next: 0,
                count: count as u32,
            }
        } else {
            let cursor = match spare.pop() {
                Some(mut cursor) => {
                    cursor.reset(parent);
                    cursor
                }
                None => parent.walk(),
            };
            How::Cursor {
                cursor,
                started: false,
            }
        };
        Some(Self { parent, how })
    }

    /// The next named child.
    pub(super) fn next(&mut self) -> Option<Node<'t>> {
        match &mut self.how {
            How::Indexed { next, count } => {
                if *next == *count {
                    return None;
                }
                *next += 1;
                self.parent.named_child(*next as usize - 1)
            }
            How::Cursor { cursor, started } => {
                let mut moved = if *started {
                    cursor.goto_next_sibling()
                } else {
                    *started = true;
                    cursor.goto_first_child()
                };
                while moved {
                    let node = cursor.node();
                    if node.is_named() {
                        return Some(node);
                    }
                    moved = cursor.goto_next_sibling();
                }
                None
            }
        }
    }

    /// The field of its parent that the child [`Self::next`] handed out
    /// last is in, 0 for none.
    pub(super) fn field(&self, fields: &FieldNames) -> FieldId {
        match &self.how {
            How::Indexed { next, .. } => self
                .parent
                .field_name_for_named_child(*next - 1)
                .map_or(0, |name| fields.id(name)),
            How::Cursor { cursor, .. } => cursor.field_id().map_or(0, |f| f.get()),
        }
    }

    /// Gives a borrowed cursor back to `spare`.
    pub(super) fn recycle(self, spare: &mut Vec<TreeCursor<'t>>) {
        if let How::Cursor { cursor, .. } = self.how {
            spare.push(cursor);
        }
    }
}

/// The named children of `parent`, in order, comments included (like
/// [`Node::named_children`], without a cursor for a node with few
/// children).
pub(crate) fn named_children(parent: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut children = NamedChildren::of(parent, &mut Vec::new());
    std::iter::from_fn(move || children.as_mut()?.next())
}

/// The Java grammar's [`FieldNames`].
pub(super) fn field_names() -> &'static FieldNames {
    static NAMES: std::sync::OnceLock<FieldNames> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| FieldNames::new(&super::kinds::grammar().language))
}

/// Field ids by field name. The names tree-sitter returns for a node's
/// fields are the language's own strings, so the address of one finds its
/// id without comparing text.
pub(super) struct FieldNames {
    by_address: rustc_hash::FxHashMap<usize, FieldId>,
    language: Language,
}

impl FieldNames {
    fn new(language: &Language) -> Self {
        let by_address = (1..=language.field_count() as FieldId)
            .filter_map(|id| {
                let name = language.field_name_for_id(id)?;
                Some((name.as_ptr() as usize, id))
            })
            .collect();
        Self {
            by_address,
            language: language.clone(),
        }
    }

    fn id(&self, name: &str) -> FieldId {
        match self.by_address.get(&(name.as_ptr() as usize)) {
            Some(&id) => id,
            None => self.language.field_id_for_name(name).map_or(0, |f| f.get()),
        }
    }
}
