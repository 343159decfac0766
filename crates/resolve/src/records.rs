//! Element records: a file's elements with their names qualified in the
//! context of a revision, and their stable ids.
//!
//! An element id names the element, not where it is: the binary name of
//! its type, `#`, the member name, and for executables the erased, fully
//! qualified parameter types — `com.acme.Shop#order(java.lang.String,int)`.
//! Types are named by their binary name. Elements without a name of their
//! own (lambdas, initializers) extend the id of their enclosing element.

use rustc_hash::FxHashMap as HashMap;

use refscope_symbols::names::Qualifier;
use refscope_syntax::facts::{ElementKind, FileFacts, NO_ELEMENT};

/// One element of a file, qualified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementRecord {
    /// Index of the element in its file's facts.
    pub idx: u32,
    /// The stable element id.
    pub element_id: String,
    /// What the element is.
    pub kind: ElementKind,
    /// Simple name (`<init>` for constructors).
    pub name: String,
    /// Binary name of the declaring (for members) or enclosing (for types)
    /// type; `None` for top-level types.
    pub owner: Option<String>,
    /// Erased, fully qualified parameter types.
    pub params: Vec<String>,
    /// Erased, fully qualified declared type (return or field type).
    pub type_name: String,
    /// Index of the enclosing element.
    pub parent_idx: Option<u32>,
    /// First line (first annotation or modifier).
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Line of the name token.
    pub name_line: u32,
    /// UTF-16 column of the name token.
    pub name_col: u32,
}

impl ElementRecord {
    /// The declaration kind used by the javac oracle's decl records, or
    /// `None` for elements javac does not report as declarations
    /// (anonymous classes, lambdas, initializers).
    pub fn decl_kind(&self) -> Option<&'static str> {
        Some(match self.kind {
            ElementKind::Class => "class",
            ElementKind::Interface => "interface",
            ElementKind::Enum => "enum",
            ElementKind::Record => "record",
            ElementKind::AnnotationType => "annotation",
            ElementKind::Method | ElementKind::AnnotationElement => "method",
            ElementKind::Constructor => "constructor",
            ElementKind::Field | ElementKind::RecordComponent => "field",
            ElementKind::EnumConstant => "enum_constant",
            ElementKind::AnonymousClass
            | ElementKind::InstanceInitializer
            | ElementKind::StaticInitializer
            | ElementKind::Lambda => return None,
        })
    }
}

/// Qualifies every element of a file and gives each its id.
pub fn element_records(facts: &FileFacts, qualifier: &Qualifier) -> Vec<ElementRecord> {
    let mut ids: Vec<String> = Vec::with_capacity(facts.elements.len());
    let mut out = Vec::with_capacity(facts.elements.len());
    // Counters for elements numbered within their parent (lambdas,
    // initializers), by (parent, kind).
    let mut ordinals: HashMap<(u32, ElementKind), u32> = HashMap::default();
    for (index, element) in facts.elements.iter().enumerate() {
        let idx = index as u32;
        let params: Vec<String> = element
            .params
            .iter()
            .map(|p| {
                if p.erased.is_empty() {
                    String::new()
                } else {
                    qualifier.qualify(idx, &p.erased)
                }
            })
            .collect();
        let type_name = if element.type_erased.is_empty() {
            String::new()
        } else if element.kind == ElementKind::AnonymousClass {
            qualifier.qualify(element.parent, &element.type_erased)
        } else {
            qualifier.qualify(idx, &element.type_erased)
        };
        let binary = &element.binary_name;
        let mut ordinal = || {
            let n = ordinals.entry((element.parent, element.kind)).or_insert(0);
            *n += 1;
            *n
        };
        let element_id = match element.kind {
            kind if kind.is_type() => binary.clone(),
            ElementKind::Method | ElementKind::AnnotationElement | ElementKind::Constructor => {
                member_id(binary, &element.name, Some(&params))
            }
            ElementKind::Field | ElementKind::RecordComponent | ElementKind::EnumConstant => {
                member_id(binary, &element.name, None)
            }
            ElementKind::StaticInitializer | ElementKind::InstanceInitializer => match ordinal() {
                1 => format!("{binary}#{}", element.name),
                n => format!("{binary}#{}@{n}", element.name),
            },
            ElementKind::Lambda => {
                let n = ordinal();
                match element.parent {
                    NO_ELEMENT => format!("{binary}$lambda{n}"),
                    parent => format!("{}$lambda{n}", ids[parent as usize]),
                }
            }
            _ => binary.clone(),
        };
        let owner = if element.kind.is_type() {
            facts
                .ancestry(idx)
                .skip(1)
                .find(|&i| facts.elements[i as usize].kind.is_type())
                .map(|i| facts.elements[i as usize].binary_name.clone())
        } else {
            Some(binary.clone())
        };
        ids.push(element_id.clone());
        out.push(ElementRecord {
            idx,
            element_id,
            kind: element.kind,
            name: element.name.clone(),
            owner,
            params,
            type_name,
            parent_idx: (element.parent != NO_ELEMENT).then_some(element.parent),
            start_line: element.span.start_line,
            end_line: element.span.end_line,
            name_line: element.name_pos.line,
            name_col: element.name_pos.col,
        });
    }
    out
}

/// A member's element id: `owner#name` without a parameter list (a field),
/// else `owner#name(p1,p2)`. Built in one sized buffer: element ids are
/// spelled for every element and every reference target of a revision,
/// and `format!` with a joined list cost several times as much.
pub fn member_id(owner: &str, name: &str, params: Option<&[String]>) -> String {
    let params_len = params.map_or(0, |p| 2 + p.iter().map(|t| t.len() + 1).sum::<usize>());
    let mut id = String::with_capacity(owner.len() + 1 + name.len() + params_len);
    id.push_str(owner);
    id.push('#');
    id.push_str(name);
    if let Some(params) = params {
        id.push('(');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                id.push(',');
            }
            id.push_str(param);
        }
        id.push(')');
    }
    id
}
