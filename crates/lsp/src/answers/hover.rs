//! `textDocument/hover`: the element at a position as Markdown — its
//! signature, where it is declared and its doc comment.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use super::describe::signature;
use super::navigate::target_of;
use crate::locate::{Context, Target};
use crate::text::javadoc_markdown;

/// The signature and doc comment of the element at the position; for a
/// library element whose sources are not indexed, its id.
pub fn hover(
    context: &Context<'_>,
    params: HoverParams,
) -> Result<Option<Hover>, refscope_engine::Error> {
    let Some(target) = target_of(context, &params.text_document_position_params)? else {
        return Ok(None);
    };
    let markdown = match &target {
        Target::Declared(view) => {
            let mut text = format!(
                "```java\n{}\n```\n\n`{}` in `{}`",
                signature(view),
                view.record.element_id,
                view.path
            );
            if let Some(doc) = doc_comment(context, view) {
                text.push_str("\n\n---\n\n");
                text.push_str(&doc);
            }
            text
        }
        Target::Library(id) => {
            format!("`{id}`\n\n(a library element; its sources are not indexed)")
        }
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: None,
    }))
}

/// The doc comment in front of an element, from the file's text as the
/// revision indexed it.
fn doc_comment(context: &Context<'_>, view: &refscope_engine::ElementView) -> Option<String> {
    let (first, last) = view.element.javadoc?;
    let file = context.snapshot.file(&view.path).ok()?;
    let text = context.documents.indexed_text(&file)?;
    let lines: Vec<&str> = text
        .lines()
        .skip(first.saturating_sub(1) as usize)
        .take((last + 1).saturating_sub(first) as usize)
        .collect();
    let doc = javadoc_markdown(&lines.join("\n"));
    (!doc.is_empty()).then_some(doc)
}
