//! The rows of an answer: each element with how the last relation reached
//! it (the relation, the element it came from, the depth and the reference
//! site) and, for `changed`, how it changed. The names and kinds of rows
//! that only have an id (library elements) are read from the id.

use refscope_engine::{ChangeKind, ElementView};

use super::super::ast::Relation;

/// One element of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its element id.
    pub id: String,
    /// Its declaration, when the revision's sources hold it (library
    /// elements and default constructors have none).
    pub view: Option<ElementView>,
    /// How the last relation reached it.
    pub edge: Option<Edge>,
    /// How it changed, for rows of `changed`.
    pub change: Option<ChangeKind>,
    /// The file declaring it, while its declaration is not read yet: the
    /// rows a relation reaches are read only when a later stage or the
    /// page shown needs them, so rows cut off are counted, never decoded.
    pub(crate) declared_in: Option<String>,
}

/// How a relation reached an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The relation followed.
    pub relation: Relation,
    /// The element it was followed from.
    pub from: String,
    /// 1 for a direct relation, 2 for one step further, ...
    pub depth: u32,
    /// For callers, callees and refs: the reference site.
    pub site: Option<Site>,
}

/// A reference site that connects two elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Repository-relative file.
    pub file: String,
    /// Line of the referenced name.
    pub line: u32,
    /// UTF-16 column of the referenced name.
    pub col: u32,
    /// `call`, `new`, `method_ref`, `ctor_call` or `field`.
    pub kind: &'static str,
    /// `exact`, `external`, `ambiguous` or `unresolved`.
    pub confidence: &'static str,
    /// For polymorphic callers: the overridden method the call targets.
    pub via: Option<String>,
    /// For a call through a Spring injection point: the point and its beans.
    pub injection: Option<refscope_engine::Injection>,
}

impl Row {
    pub(super) fn declared(view: ElementView) -> Self {
        Self {
            id: view.record.element_id.clone(),
            view: Some(view),
            edge: None,
            change: None,
            declared_in: None,
        }
    }

    /// A row whose declaration in `path` is read when it is needed
    /// ([`super::Evaluator::read_declarations`]).
    pub(super) fn unread(id: String, path: String, edge: Edge) -> Self {
        Self {
            id,
            view: None,
            edge: Some(edge),
            change: None,
            declared_in: Some(path),
        }
    }

    /// A row of an element with no declaration to read, or with it read.
    pub(super) fn reached(id: String, view: Option<ElementView>, edge: Edge) -> Self {
        Self {
            id,
            view,
            edge: Some(edge),
            change: None,
            declared_in: None,
        }
    }

    /// The element kind: declared, or guessed from the id of a library
    /// element (`None` for a library type, whose kind the id does not say).
    pub fn kind(&self) -> Option<&'static str> {
        match &self.view {
            Some(view) => Some(view.record.kind.as_str()),
            None if self.id.contains("#<init>(") => Some("constructor"),
            None if self.id.contains('(') => Some("method"),
            None if self.id.contains('#') => Some("field"),
            None => None,
        }
    }

    /// The simple name.
    pub fn name(&self) -> &str {
        match &self.view {
            Some(view) => &view.record.name,
            None => {
                let before_params = self.id.split('(').next().unwrap_or(&self.id);
                before_params
                    .rsplit(['#', '.', '$'])
                    .next()
                    .unwrap_or(before_params)
            }
        }
    }
}
