//! `textDocument/definition`, `textDocument/references` and
//! `textDocument/implementation`: from the element at a position to where
//! it is declared, referenced and overridden, as `refscope refs` and
//! `refscope impls` answer.

use std::collections::HashSet;

use lsp_types::{
    GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams,
    TextDocumentPositionParams, request::GotoImplementationParams,
};

use crate::locate::{Context, Target, target_at};
use crate::ranges::{hit_range, name_range};

/// The element at a request's position.
pub fn target_of(
    context: &Context<'_>,
    position: &TextDocumentPositionParams,
) -> Result<Option<Target>, refscope_engine::Error> {
    let Some(rel) = context.documents.relative(&position.text_document.uri) else {
        return Ok(None);
    };
    target_at(context, &rel, position.position)
}

/// The declaration of the element at the position: its name. A library
/// element whose sources the revision does not hold has none.
pub fn definition(
    context: &Context<'_>,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, refscope_engine::Error> {
    Ok(
        match target_of(context, &params.text_document_position_params)? {
            Some(Target::Declared(view)) => Some(GotoDefinitionResponse::Scalar(Location::new(
                context.documents.uri(&view.path),
                name_range(&view.element),
            ))),
            _ => None,
        },
    )
}

/// The sites referencing the element at the position (a field's reads
/// and writes, a method's calls, a type's members' uses), with its
/// declaration first when the client asks for it.
pub fn references(
    context: &Context<'_>,
    params: ReferenceParams,
) -> Result<Vec<Location>, refscope_engine::Error> {
    let Some(target) = target_of(context, &params.text_document_position)? else {
        return Ok(Vec::new());
    };
    let mut locations = Vec::new();
    if params.context.include_declaration
        && let Target::Declared(view) = &target
    {
        locations.push(Location::new(
            context.documents.uri(&view.path),
            name_range(&view.element),
        ));
    }
    let mut seen = HashSet::new();
    for hit in context.snapshot.references(target.id())? {
        if seen.insert((hit.path.clone(), hit.line, hit.col)) {
            locations.push(Location::new(
                context.documents.uri(&hit.path),
                hit_range(&hit),
            ));
        }
    }
    Ok(locations)
}

/// What overrides the method at the position, or extends or implements
/// the type there, transitively.
pub fn implementation(
    context: &Context<'_>,
    params: GotoImplementationParams,
) -> Result<Option<GotoDefinitionResponse>, refscope_engine::Error> {
    let Some(target) = target_of(context, &params.text_document_position_params)? else {
        return Ok(None);
    };
    let locations: Vec<Location> = context
        .snapshot
        .implementations(target.id())?
        .iter()
        .map(|found| {
            Location::new(
                context.documents.uri(&found.view.path),
                name_range(&found.view.element),
            )
        })
        .collect();
    Ok(Some(GotoDefinitionResponse::Array(locations)))
}
