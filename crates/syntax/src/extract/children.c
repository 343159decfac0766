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

#include <stddef.h>

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

/* Where the children go: every named child, or only the first of one kind. */
typedef struct {
  RefscopeChild *out;
  uint32_t capacity;
  /* How many were found (written or not, past `capacity`). */
  uint32_t found;
  /* 0 for every named child; else the kind (public symbol) of the one
   * child wanted, and the search ends at it. */
  TSSymbol only;
} Sink;

/* Whether the search is over. */
static bool take(Sink *sink, TSNode node, TSFieldId field) {
  if (sink->only) {
    if (ts_node_symbol(node) != sink->only) return false;
    if (sink->capacity > 0) sink->out[0] = (RefscopeChild){node, field};
    sink->found = 1;
    return true;
  }
  if (sink->found < sink->capacity) sink->out[sink->found] = (RefscopeChild){node, field};
  sink->found++;
  return false;
}

/* Visits the named children of `parent`; whether the search is over. */
static bool collect(TSNode parent, TSFieldId inherited, Sink *sink) {
  Subtree subtree = *(const Subtree *)parent.id;
  uint32_t count = ts_subtree_child_count(subtree);
  if (count == 0) return false;
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
      TSFieldId field = 0;
      if (!extra) {
        field = field_of(language, subtree, structural - 1);
        if (!field) field = inherited;
      }
      if (take(sink, node, field)) return true;
    } else if (ts_subtree_child_count(*child) > 0 && child->ptr->named_child_count > 0) {
      /* A hidden node: its named children are the parent's. */
      TSFieldId field = field_of(language, subtree, structural - 1);
      if (collect(node, field ? field : inherited, sink)) return true;
    }
  }
  return false;
}

/* Writes the named children of `parent` to `out`, at most `capacity` of
 * them, and returns how many there are (`ts_node_named_child_count`). */
uint32_t refscope_named_children(TSNode parent, RefscopeChild *out, uint32_t capacity) {
  Sink sink = {out, capacity, 0, 0};
  collect(parent, 0, &sink);
  return sink.found;
}

/* Writes the first named child of `parent` of kind `kind` (a public
 * symbol, as `ts_node_symbol` gives) to `out`; whether there is one. */
bool refscope_named_child_of_kind(TSNode parent, TSSymbol kind, RefscopeChild *out) {
  Sink sink = {out, 1, 0, kind};
  collect(parent, 0, &sink);
  return sink.found > 0;
}

/* The layout of `RefscopeChild`, for a test that `RawChild` matches it:
 * its size and the offset of `field`. */
void refscope_child_layout(size_t layout[2]) {
  layout[0] = sizeof(RefscopeChild);
  layout[1] = offsetof(RefscopeChild, field);
}
