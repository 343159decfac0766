//! `textDocument/documentSymbol` (a file's declarations as a tree) and
//! `workspace/symbol` (declarations of the work tree found by name, a
//! bounded list, best matches first).

use std::collections::HashMap;

use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, Location, SymbolInformation,
    WorkspaceSymbolParams,
};
use refscope_engine::ElementKind;

use super::describe::{detail, display_name, symbol_kind, symbol_tags};
use crate::locate::{Context, is_named, view_in};
use crate::ranges::{declaration_range, name_range};
use crate::text::LineIndex;

/// The declarations of a document, nested as in the source: types, their
/// members, local and anonymous classes inside methods. Lambdas and
/// initializers are left out (what they hold goes to the element around
/// them).
pub fn document_symbols(
    context: &Context<'_>,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, refscope_engine::Error> {
    let Some(rel) = context.documents.relative(&params.text_document.uri) else {
        return Ok(None);
    };
    let Ok(file) = context.snapshot.file(&rel) else {
        return Ok(None);
    };
    let data = context.snapshot.file_data(&file)?;
    let text = context.documents.indexed_text(&file);
    let lines = text.as_deref().map(LineIndex::new);
    let elements = &data.facts.elements;
    let shown = |index: usize| {
        let kind = elements[index].kind;
        is_named(kind) || kind == ElementKind::AnonymousClass
    };
    // The nearest shown element around each shown one.
    let parent_of = |index: usize| {
        let mut parent = elements[index].parent as usize;
        while parent < index && !shown(parent) {
            parent = elements[parent].parent as usize;
        }
        (parent < index).then_some(parent)
    };
    // Children have higher indices than their parents (elements are
    // numbered in source order): built from the last, each node's
    // children are complete when it is.
    let mut built: HashMap<usize, DocumentSymbol> = HashMap::new();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for index in (0..elements.len()).filter(|&i| shown(i)) {
        match parent_of(index) {
            Some(parent) => children.entry(parent).or_default().push(index),
            None => roots.push(index),
        }
    }
    for index in (0..elements.len()).rev().filter(|&i| shown(i)) {
        let Some(view) = view_in(&data, &rel, index) else {
            continue;
        };
        let kids: Vec<DocumentSymbol> = children
            .remove(&index)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|child| built.remove(&child))
            .collect();
        #[allow(deprecated)]
        let symbol = DocumentSymbol {
            name: display_name(&view.element),
            detail: detail(&view.element),
            kind: symbol_kind(view.record.kind),
            tags: symbol_tags(&view.element),
            deprecated: None,
            range: declaration_range(&view.element, lines.as_ref()),
            selection_range: name_range(&view.element),
            children: (!kids.is_empty()).then_some(kids),
        };
        built.insert(index, symbol);
    }
    let symbols = roots
        .into_iter()
        .filter_map(|root| built.remove(&root))
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}

/// How well a name matches a query: lower is better; `None` for no match.
fn match_rank(name: &str, id: &str, query: &str) -> Option<u8> {
    if query.contains(['.', '#', '$']) {
        let id = id.to_lowercase();
        return if id.starts_with(query) {
            Some(0)
        } else {
            id.contains(query).then_some(1)
        };
    }
    let name = name.to_lowercase();
    if name == query {
        Some(0)
    } else if name.starts_with(query) {
        Some(1)
    } else if name.contains(query) {
        Some(2)
    } else {
        is_subsequence(query, &name).then_some(3)
    }
}

/// Whether the characters of `short` appear in `long` in order.
fn is_subsequence(short: &str, long: &str) -> bool {
    let mut long = long.chars();
    short.chars().all(|c| long.any(|l| l == c))
}

/// The declarations of the work tree whose simple name matches the query
/// (case ignored: exact, then prefix, then substring, then the letters in
/// order), or whose id starts with the query when it holds a `.`, `#` or
/// `$`; types
/// first, at most `limit`. An empty query lists types.
pub fn workspace_symbols(
    context: &Context<'_>,
    params: WorkspaceSymbolParams,
    limit: usize,
) -> Result<Vec<SymbolInformation>, refscope_engine::Error> {
    let written = params.query.trim();
    let query = written.to_lowercase();
    let snapshot = context.snapshot;
    // An id as written narrows the scan to the ids it starts; a name is
    // looked for among all of them.
    let by_id = query.contains(['.', '#', '$']);
    let (low, high) = match by_id {
        true => (written.to_string(), format!("{written}\u{10FFFF}")),
        false => (String::new(), "\u{10FFFF}".to_string()),
    };
    let mut matches = Vec::new();
    for key in context.store.elements_in_id_range(&low, &high)? {
        let Some(kind) = key.kind.filter(|&kind| is_named(kind)) else {
            continue;
        };
        let rank = if query.is_empty() {
            kind.is_type().then_some(0)
        } else {
            match_rank(&key.name, &key.element_id, &query)
        };
        let Some(rank) = rank else {
            continue;
        };
        let type_first = u8::from(!kind.is_type());
        matches.push(((rank, type_first, key.name.len()), key));
    }
    matches.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.element_id.cmp(&b.1.element_id))
    });
    let mut out = Vec::new();
    for (_, key) in matches {
        if out.len() >= limit {
            break;
        }
        // Units are shared between revisions: only this revision's count.
        for file in snapshot.files_of_unit(key.unit_id)?.to_vec() {
            let data = snapshot.file_data(&file)?;
            let Some(view) = view_in(&data, &file.path, key.idx as usize) else {
                continue;
            };
            #[allow(deprecated)]
            out.push(SymbolInformation {
                name: display_name(&view.element),
                kind: symbol_kind(view.record.kind),
                tags: symbol_tags(&view.element),
                deprecated: None,
                location: Location::new(
                    context.documents.uri(&view.path),
                    name_range(&view.element),
                ),
                container_name: view.record.owner.clone(),
            });
        }
    }
    out.truncate(limit);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_rank_exact_then_prefix_then_substring_then_letters() {
        let rank = |name: &str| match_rank(name, "p.X", "feed");
        assert_eq!(rank("feed"), Some(0));
        assert_eq!(rank("feedAll"), Some(1));
        assert_eq!(rank("overfeed"), Some(2));
        assert_eq!(rank("fixEveryDay"), Some(3));
        assert_eq!(rank("eat"), None);
        assert_eq!(
            match_rank("eat", "com.zoo.Animal#eat(com.zoo.Food)", "com.zoo.animal#"),
            Some(0)
        );
    }
}
