//! Pass one over a file: each declaration becomes a definition occurrence
//! with its symbol information; the file's references and override links
//! wait in the builder until every file's symbols are known.
//!
//! A declaration gets a global symbol when code outside its file can name
//! it: a type that is top-level or a member of such a type, and the
//! methods, constructors, fields, enum constants and record components of
//! those. Lambdas, anonymous and local classes and everything inside them
//! get `local N` symbols, numbered in source order within the document.
//! Initializer blocks get none.

use std::collections::HashMap;

use refscope_engine::{
    Confidence, Element, ElementKind, FileData, FileResolution, NO_ELEMENT, RefTargetKind,
};
use scip::types::{Signature, SymbolInformation};

use crate::builder::{Builder, Declared, LineRange, PendingRelationships, SpanRange};
use crate::signature::{kind_of, signature_text};
use crate::symbol::{
    ScipPackage, method_descriptor, overload_disambiguator, package_descriptors, simple_name,
    term_descriptor, type_descriptor,
};
use crate::text::{SourceText, utf16_len};

/// Where a declaration's name is: its name token (the type's name for a
/// constructor; the created type's name for an anonymous class, or the
/// `{` of an enum constant's body). A lambda has no name: its `->` when
/// the text is at hand, else its first character.
fn name_range(element: &Element, type_name: &str, text: Option<&SourceText>) -> LineRange {
    let line = element.name_pos.line as i32 - 1;
    let start = element.name_pos.col as i32 - 1;
    let token = match element.kind {
        ElementKind::Constructor => type_name,
        ElementKind::AnonymousClass if element.type_erased.is_empty() => "{",
        ElementKind::AnonymousClass => simple_name(&element.type_erased),
        ElementKind::Lambda => {
            return match text.and_then(|t| t.find("->", element.span.start_byte)) {
                Some((line, column)) => [line, column, column + 2],
                None => [line, start, start + 1],
            };
        }
        _ => element.name.as_str(),
    };
    [line, start, start + utf16_len(token)]
}

/// A declaration's symbol information: display name, kind, signature and
/// javadoc.
fn symbol_information(
    element: &Element,
    symbol: String,
    type_name: &str,
    text: Option<&SourceText>,
) -> SymbolInformation {
    let mut info = SymbolInformation::new();
    info.symbol = symbol;
    info.display_name = element.name.clone();
    info.kind = kind_of(element).into();
    info.signature_documentation = Some(Signature {
        language: "java".into(),
        text: signature_text(element, type_name),
        ..Signature::default()
    })
    .into();
    if let (Some(text), Some((first, last))) = (text, element.javadoc)
        && let Some(javadoc) = text.javadoc(first, last)
    {
        info.documentation.push(javadoc);
    }
    info
}

impl Builder<'_> {
    /// Declares the elements of one file in `document`, and sets its
    /// references and override links aside.
    pub fn declare_file(
        &mut self,
        document: usize,
        data: &FileData,
        resolution: &FileResolution,
        text: Option<&SourceText>,
        package: &ScipPackage,
    ) {
        let facts = &data.facts;
        let elements = &facts.elements;
        let package_prefix = format!(
            "{}{}",
            package.prefix(),
            package_descriptors(facts.package.as_deref())
        );
        let overrides: HashMap<u32, &Vec<String>> = resolution
            .overrides
            .iter()
            .map(|o| (o.element, &o.targets))
            .collect();
        // Per element: its symbol, and whether that symbol is global.
        let mut symbols: Vec<Option<(String, bool)>> = vec![None; elements.len()];
        // Methods and constructors seen so far, by declaring type and name.
        let mut overloads: HashMap<(u32, &str), usize> = HashMap::new();
        for (index, element) in elements.iter().enumerate() {
            let kind = element.kind;
            if matches!(
                kind,
                ElementKind::InstanceInitializer | ElementKind::StaticInitializer
            ) {
                continue;
            }
            let parent = element.parent;
            let parent_symbol = (parent != NO_ELEMENT)
                .then(|| symbols[parent as usize].as_ref())
                .flatten();
            let global_parent = match parent_symbol {
                Some((symbol, true)) if elements[parent as usize].kind.is_type() => Some(symbol),
                _ => None,
            };
            let overload = kind.is_executable().then(|| {
                let seen = overloads
                    .entry((parent, element.name.as_str()))
                    .or_insert(0);
                *seen += 1;
                *seen - 1
            });
            let global = match kind {
                ElementKind::AnonymousClass | ElementKind::Lambda => false,
                _ if element.is_local => false,
                _ if kind.is_type() && parent == NO_ELEMENT => true,
                _ => global_parent.is_some(),
            };
            let symbol = if global {
                let owner = global_parent.map_or(package_prefix.as_str(), String::as_str);
                let descriptor = match (kind, overload) {
                    (_, Some(position)) => {
                        method_descriptor(&element.name, &overload_disambiguator(position))
                    }
                    (kind, None) if kind.is_type() => type_descriptor(&element.name),
                    _ => term_descriptor(&element.name),
                };
                format!("{owner}{descriptor}")
            } else {
                self.next_local(document)
            };
            symbols[index] = Some((symbol.clone(), global));

            let record = &data.records[index];
            let type_name = match kind {
                ElementKind::Constructor if parent != NO_ELEMENT => {
                    elements[parent as usize].name.as_str()
                }
                _ => "",
            };
            let name_range = name_range(element, type_name, text);
            let enclosing: Option<SpanRange> = text.and_then(|text| {
                let (start_line, start_col) = text.position(element.span.start_byte)?;
                let (end_line, end_col) = text.position(element.span.end_byte)?;
                Some([start_line, start_col, end_line, end_col])
            });
            self.define(document, name_range, &symbol, enclosing);

            let declared = Declared {
                symbol: symbol.clone(),
                document,
                name_range,
                local: !global,
                is_interface: matches!(kind, ElementKind::Interface | ElementKind::AnnotationType),
            };
            if global {
                self.catalog
                    .global
                    .entry(record.element_id.clone())
                    .or_insert(declared);
            } else {
                self.catalog
                    .local
                    .insert((document, record.element_id.clone()), declared);
            }

            let mut info = symbol_information(element, symbol, type_name, text);
            if !global {
                // A local symbol's place in the hierarchy: the nearest
                // global declaration around it.
                let enclosing_global = facts
                    .ancestry(index as u32)
                    .skip(1)
                    .find_map(|a| symbols[a as usize].as_ref().filter(|(_, global)| *global));
                if let Some((enclosing, _)) = enclosing_global {
                    info.enclosing_symbol = enclosing.clone();
                }
            }
            let info = self.describe(document, info);
            if let Some(targets) = overrides.get(&(index as u32))
                && !targets.is_empty()
            {
                self.relationships.push(PendingRelationships {
                    document,
                    info,
                    is_method: kind.is_executable(),
                    targets: (*targets).clone(),
                });
            }
        }
        for ((parent, name), count) in overloads {
            if parent != NO_ELEMENT {
                let owner = data.records[parent as usize].element_id.clone();
                let seen = self
                    .catalog
                    .executables
                    .entry((owner, name.to_string()))
                    .or_insert(0);
                *seen = (*seen).max(count);
            }
        }
        self.set_references_aside(document, data, resolution);
    }

    /// Keeps the file's exact and external references for pass two; counts
    /// the ambiguous and unresolved ones, which stay out.
    fn set_references_aside(
        &mut self,
        document: usize,
        data: &FileData,
        resolution: &FileResolution,
    ) {
        for reference in &resolution.refs {
            match reference.confidence {
                Confidence::Exact | Confidence::External => {}
                Confidence::Ambiguous => {
                    self.summary.n_ambiguous_skipped += 1;
                    continue;
                }
                Confidence::Unresolved => {
                    self.summary.n_unresolved_skipped += 1;
                    continue;
                }
            }
            let site = &data.facts.ref_sites[reference.site as usize];
            // `new a.B()` names the created type by its last identifier.
            let token = match reference.kind {
                RefTargetKind::New => site.name.rsplit('.').next().unwrap_or(&site.name),
                _ => site.name.as_str(),
            };
            let line = site.pos.line as i32 - 1;
            let start = site.pos.col as i32 - 1;
            self.set_aside(document, [line, start, start + utf16_len(token)], reference);
        }
    }
}
