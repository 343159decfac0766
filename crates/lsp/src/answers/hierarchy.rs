//! The call hierarchy: `textDocument/prepareCallHierarchy` names the
//! method or constructor at a position, `callHierarchy/incomingCalls`
//! lists its callers as `refscope callers` does (polymorphic callers too),
//! grouped by the calling element with the call sites as `fromRanges`,
//! and `callHierarchy/outgoingCalls` what it calls (`refscope callees`,
//! calls only), grouped by the called element.

use std::collections::HashMap;

use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyIncomingCallsParams, CallHierarchyItem,
    CallHierarchyOutgoingCall, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams, Range,
    Uri,
};
use refscope_engine::{CallersConfig, Element, ElementRecord, ElementView, RefHit, RefTargetKind};
use serde_json::Value;

use super::describe::{display_name, symbol_kind, symbol_tags};
use super::navigate::target_of;
use crate::locate::{Context, Target, declaration_of};
use crate::ranges::{declaration_range, hit_range, name_range};

/// The item of the method, constructor or field at the position; none for
/// other elements and for library elements.
pub fn prepare(
    context: &Context<'_>,
    params: CallHierarchyPrepareParams,
) -> Result<Option<Vec<CallHierarchyItem>>, refscope_engine::Error> {
    Ok(
        match target_of(context, &params.text_document_position_params)? {
            Some(Target::Declared(view))
                if view.record.kind.is_executable()
                    || view.record.kind == refscope_engine::ElementKind::Field =>
            {
                Some(vec![item_of(context, &view)])
            }
            _ => None,
        },
    )
}

/// The callers of an item, by calling element, each with its call sites.
pub fn incoming(
    context: &Context<'_>,
    params: CallHierarchyIncomingCallsParams,
) -> Result<Option<Vec<CallHierarchyIncomingCall>>, refscope_engine::Error> {
    let Some(id) = id_of_item(context, &params.item)? else {
        return Ok(None);
    };
    let hits = context
        .snapshot
        .callers_shared(&id, &CallersConfig::default())?;
    let snapshot = context.snapshot;
    // Callers come sorted by file: each file is looked up once, and a
    // caller's sites (all in its file) come together.
    let mut calls: Vec<CallHierarchyIncomingCall> = Vec::new();
    let mut index_of_caller: HashMap<(&str, &str), usize> = HashMap::new();
    let mut file: Option<(&str, std::sync::Arc<refscope_engine::FileData>, Uri)> = None;
    for hit in hits.iter() {
        let Some(caller) = hit.enclosing_named.as_deref().or(hit.enclosing.as_deref()) else {
            continue;
        };
        let key = (hit.path.as_str(), caller);
        if let Some(&at) = index_of_caller.get(&key) {
            calls[at].from_ranges.push(hit_range(hit));
            continue;
        }
        if file.as_ref().is_none_or(|(path, ..)| *path != hit.path) {
            let Some(entry) = context.files.get(snapshot, &hit.path)? else {
                continue;
            };
            let uri = context.documents.uri(&hit.path);
            file = Some((hit.path.as_str(), snapshot.file_data(&entry)?, uri));
        }
        let (_, data, uri) = file.as_ref().expect("read above");
        let Some(index) = data.index_of(caller).map(|index| index as usize) else {
            continue;
        };
        let (Some(record), Some(element)) =
            (data.records.get(index), data.facts.elements.get(index))
        else {
            continue;
        };
        index_of_caller.insert(key, calls.len());
        calls.push(CallHierarchyIncomingCall {
            from: item_at(record, element, uri.clone()),
            from_ranges: vec![hit_range(hit)],
        });
    }
    Ok(Some(calls))
}

/// What an item calls (calls, `new`, `this(...)`, method references; not
/// field accesses), by called element, each with the call sites in the
/// item. Elements the revision does not declare (a library's) are left
/// out: the protocol's items need a place.
pub fn outgoing(
    context: &Context<'_>,
    params: CallHierarchyOutgoingCallsParams,
) -> Result<Option<Vec<CallHierarchyOutgoingCall>>, refscope_engine::Error> {
    let Some(id) = id_of_item(context, &params.item)? else {
        return Ok(None);
    };
    let Some(view) = declaration_of(context.snapshot, &id)? else {
        return Ok(None);
    };
    let hits: Vec<RefHit> = context.snapshot.callees(&view)?;
    let mut calls: Vec<CallHierarchyOutgoingCall> = Vec::new();
    let mut index_of_callee: HashMap<String, Option<usize>> = HashMap::new();
    for hit in hits.iter().filter(|hit| hit.kind != RefTargetKind::Field) {
        let Some(target) = hit.target.as_deref() else {
            continue;
        };
        let at = match index_of_callee.get(target) {
            Some(at) => *at,
            None => {
                let at = match declaration_of(context.snapshot, target)? {
                    Some(callee) => {
                        calls.push(CallHierarchyOutgoingCall {
                            to: item_of(context, &callee),
                            from_ranges: Vec::new(),
                        });
                        Some(calls.len() - 1)
                    }
                    None => None,
                };
                index_of_callee.insert(target.to_string(), at);
                at
            }
        };
        if let Some(at) = at {
            calls[at].from_ranges.push(hit_range(hit));
        }
    }
    Ok(Some(calls))
}

/// The item of an element: its declaration's lines as the range, its
/// name as the selection, its id kept as the item's data.
pub fn item_of(context: &Context<'_>, view: &ElementView) -> CallHierarchyItem {
    item_at(
        &view.record,
        &view.element,
        context.documents.uri(&view.path),
    )
}

/// [`item_of`] the element with `record` and `element`, in the file at
/// `uri`.
fn item_at(record: &ElementRecord, element: &Element, uri: Uri) -> CallHierarchyItem {
    CallHierarchyItem {
        name: display_name(element),
        kind: symbol_kind(record.kind),
        tags: symbol_tags(element),
        detail: record.owner.clone(),
        uri,
        range: declaration_range(element, None),
        selection_range: name_range(element),
        data: Some(Value::String(record.element_id.clone())),
    }
}

/// The element id an item stands for: the one kept in its data (a string,
/// or an object with an `id`), else the element at its selection.
fn id_of_item(
    context: &Context<'_>,
    item: &CallHierarchyItem,
) -> Result<Option<String>, refscope_engine::Error> {
    let kept = item
        .data
        .as_ref()
        .and_then(|data| data.as_str().or_else(|| data.get("id")?.as_str()));
    if let Some(id) = kept {
        return Ok(Some(id.to_string()));
    }
    let Some(rel) = context.documents.relative(&item.uri) else {
        return Ok(None);
    };
    let Range { start, .. } = item.selection_range;
    Ok(crate::locate::target_at(context, &rel, start)?.map(|target| target.id().to_string()))
}
