/*
 * The named children of a tree-sitter node with their fields, in one pass.
 *
 * tree-sitter's API hands out the i-th named child (`ts_node_named_child`)
 * and its field (`ts_node_field_name_for_named_child`) by stepping over the
 * i children before it, every time; a cursor steps linearly but rebuilds
 * its view of the parent on every step. The extraction walk wants every
 * named child of almost every node, so this walks a node's children once,
 * reading the tree's own structures, and gives what those two functions
 * would give for each index: the same nodes (hidden nodes looked through,
 * aliases applied) and the same fields (inherited from a hidden node's
 * field where the child has none of its own, none for extras).
 *
 * It reads tree-sitter's internal headers, so it is built against the
 * exact tree-sitter version the workspace pins (see engine/build.rs).
 */

#include "tree_sitter/api.h"
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

/* One named child: the node and the id of its field in the parent, 0 for
 * none. Mirrored by `RawChild` in children.rs. */
typedef struct {
  TSNode node;
  TSFieldId field;
} RefscopeChild;

/* The field of `parent`'s structural child `index`, 0 for none. */
static TSFieldId field_of(const TSLanguage *language, Subtree parent, uint32_t index) {
  const TSFieldMapEntry *entry, *end;
  ts_language_field_map(language, parent.ptr->production_id, &entry, &end);
  for (; entry != end; entry++) {
    if (!entry->inherited && entry->child_index == index) return entry->field_id;
  }
  return 0;
}

static uint32_t collect(
  TSNode parent,
  TSFieldId inherited,
  RefscopeChild *out,
  uint32_t at,
  uint32_t capacity
) {
  Subtree subtree = *(const Subtree *)parent.id;
  uint32_t count = ts_subtree_child_count(subtree);
  if (count == 0) return at;
  const TSTree *tree = parent.tree;
  const TSLanguage *language = tree->language;
  const TSSymbol *aliases = ts_language_alias_sequence(language, subtree.ptr->production_id);
  const Subtree *children = ts_subtree_children(subtree);
  Length position = {parent.context[0], {parent.context[1], parent.context[2]}};
  uint32_t structural = 0;
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &children[i];
    bool extra = ts_subtree_extra(*child);
    TSSymbol alias = 0;
    if (!extra) {
      if (aliases) alias = aliases[structural];
      structural++;
    }
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    TSNode node = {
      {position.bytes, position.extent.row, position.extent.column, alias},
      child,
      tree,
    };
    position = length_add(position, ts_subtree_size(*child));
    bool named = alias ? ts_language_symbol_metadata(language, alias).named
                       : ts_subtree_visible(*child) && ts_subtree_named(*child);
    if (named) {
      if (at < capacity) {
        TSFieldId field = 0;
        if (!extra) {
          field = field_of(language, subtree, structural - 1);
          if (!field) field = inherited;
        }
        out[at].node = node;
        out[at].field = field;
      }
      at++;
    } else if (ts_subtree_child_count(*child) > 0 && child->ptr->named_child_count > 0) {
      /* A hidden node: its named children are the parent's. */
      TSFieldId field = field_of(language, subtree, structural - 1);
      at = collect(node, field ? field : inherited, out, at, capacity);
    }
  }
  return at;
}

/* Writes the named children of `parent` to `out`, at most `capacity` of
 * them, and returns how many there are (`ts_node_named_child_count`). */
uint32_t refscope_named_children(TSNode parent, RefscopeChild *out, uint32_t capacity) {
  return collect(parent, 0, out, 0, capacity);
}
