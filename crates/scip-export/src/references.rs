//! Pass two, once every file's symbols are known: references become
//! occurrences of their targets' symbols, override links become
//! relationships, and library targets become external symbols.
//!
//! A member the compiler declares (a default constructor, a record's
//! accessor or canonical constructor, an enum's `values` and `valueOf`)
//! gets its symbol and definition the first time a reference targets it:
//! the definition sits on its type's name (an accessor's on its record
//! component's), and its overload number follows the methods of its name
//! the type declares.

use std::sync::Arc;

use refscope_engine::{Confidence, RefTargetKind, ResolvedRef};
use scip::types::symbol_information::Kind;
use scip::types::{Relationship, Signature, SymbolInformation};

use crate::builder::{Builder, PendingReference};
use crate::signature::member_kind;
use crate::symbol::{
    MemberId, library_member_symbol, library_type_symbol, method_descriptor,
    overload_disambiguator, simple_name,
};

impl Builder<'_> {
    /// Writes every reference set aside as an occurrence.
    pub fn resolve_references(&mut self) {
        let targets = std::mem::take(&mut self.targets);
        let ids: Vec<Option<String>> = targets.iter().map(ResolvedRef::target_id).collect();
        // Symbols that do not depend on the referring document (all but
        // local ones and the spelled ones of undeclared targets).
        let mut shared: Vec<Option<Arc<str>>> = vec![None; targets.len()];
        for PendingReference {
            document,
            range,
            target,
        } in std::mem::take(&mut self.references)
        {
            let index = target as usize;
            let (Some(id), target) = (&ids[index], &targets[index]) else {
                continue;
            };
            let symbol = match &shared[index] {
                Some(symbol) => symbol.clone(),
                None => {
                    let (symbol, is_shared) = match target.confidence {
                        Confidence::Exact => self.source_target(document, id, target),
                        _ => (self.library_target(target), true),
                    };
                    let symbol: Arc<str> = Arc::from(symbol);
                    if is_shared {
                        shared[index] = Some(symbol.clone());
                    }
                    symbol
                }
            };
            self.refer(document, range, &symbol);
        }
    }

    /// The symbol of a target the sources declare (or the compiler, for a
    /// type they declare), and whether it is the same from every document.
    fn source_target(&mut self, document: usize, id: &str, target: &ResolvedRef) -> (String, bool) {
        if let Some(declared) = self.catalog.lookup(document, id) {
            return (declared.symbol.clone(), !declared.local);
        }
        if target.implicit
            && let Some(symbol) = self.implicit_member(document, id, target)
        {
            return (symbol, true);
        }
        self.summary.n_exact_without_definition += 1;
        let package = match &target.decl_file {
            Some(path) => self.projects.package_of(path),
            None => crate::symbol::ScipPackage::unknown(),
        };
        (spell_member(&package, target), false)
    }

    /// The symbol of a member the compiler declares in a type of the
    /// sources, made (with its definition) on first use; `None` when the
    /// type is not declared either.
    fn implicit_member(
        &mut self,
        document: usize,
        id: &str,
        target: &ResolvedRef,
    ) -> Option<String> {
        if let Some(known) = self.implicit.get(id) {
            return known.clone();
        }
        let made = self.make_implicit_member(document, target);
        self.implicit.insert(id.to_string(), made.clone());
        made
    }

    fn make_implicit_member(&mut self, document: usize, target: &ResolvedRef) -> Option<String> {
        let owner = self.catalog.lookup(document, &target.owner)?.clone();
        // `new I() { ... }` of an interface `I` constructs the anonymous
        // class; what it names is `I` itself.
        if owner.is_interface && target.name == "<init>" {
            return Some(owner.symbol);
        }
        let is_method = target.kind != RefTargetKind::Field;
        let symbol = if owner.local {
            self.next_local(owner.document)
        } else if is_method {
            let declared = self
                .catalog
                .executables
                .get(&(target.owner.clone(), target.name.clone()))
                .copied()
                .unwrap_or(0);
            format!(
                "{}{}",
                owner.symbol,
                method_descriptor(&target.name, &overload_disambiguator(declared))
            )
        } else {
            format!(
                "{}{}",
                owner.symbol,
                crate::symbol::term_descriptor(&target.name)
            )
        };
        // A record's accessor is defined by its component; the rest by the
        // type's name.
        let component = format!("{}#{}", target.owner, target.name);
        let range = match self.catalog.lookup(owner.document, &component) {
            Some(declared) if is_method && target.params.is_empty() => declared.name_range,
            _ => owner.name_range,
        };
        self.define(owner.document, range, &symbol, None);
        let mut info = SymbolInformation::new();
        info.symbol = symbol.clone();
        info.display_name = target.name.clone();
        info.kind = member_kind(&target.name, is_method, target.is_static).into();
        info.signature_documentation = Some(Signature {
            language: "java".into(),
            text: implicit_signature(target),
            ..Signature::default()
        })
        .into();
        info.documentation
            .push("Declared implicitly by the compiler.".into());
        if owner.local {
            info.enclosing_symbol = self.documents[owner.document]
                .symbols
                .iter()
                .find(|s| s.symbol == owner.symbol)
                .map(|s| s.enclosing_symbol.clone())
                .unwrap_or_default();
        }
        self.describe(owner.document, info);
        Some(symbol)
    }

    /// The symbol of a library target, recorded among the external
    /// symbols.
    fn library_target(&mut self, target: &ResolvedRef) -> String {
        // Only `new I() { ... }` of a library interface `I` targets a
        // constructor the compiler declares: it names `I` itself.
        if target.implicit && target.name == "<init>" {
            return self.library_supertype(&target.owner);
        }
        let package = self.libraries.package_of(&target.owner);
        let symbol = spell_member(&package, target);
        let is_method = target.kind != RefTargetKind::Field;
        self.externals.entry(symbol.clone()).or_insert_with(|| {
            let mut info = SymbolInformation::new();
            info.symbol = symbol.clone();
            info.display_name = target.name.clone();
            info.kind = member_kind(&target.name, is_method, target.is_static).into();
            info
        });
        symbol
    }

    /// Writes every override link as relationships.
    pub fn resolve_relationships(&mut self) {
        for pending in std::mem::take(&mut self.relationships) {
            let mut relationships = Vec::with_capacity(pending.targets.len());
            for target in &pending.targets {
                let symbol = match self.catalog.lookup(pending.document, target) {
                    Some(declared) => declared.symbol.clone(),
                    None => self.library_supertype(target),
                };
                relationships.push(Relationship {
                    symbol,
                    is_implementation: true,
                    // Find references on an overridden method finds its
                    // overrides too, as in scip-java.
                    is_reference: pending.is_method,
                    ..Relationship::default()
                });
            }
            self.documents[pending.document].symbols[pending.info].relationships = relationships;
        }
    }

    /// The symbol of an overridden library method or a library supertype,
    /// recorded among the external symbols.
    fn library_supertype(&mut self, target: &str) -> String {
        let (symbol, display_name, kind) = match MemberId::parse(target) {
            Some(member) => {
                let package = self.libraries.package_of(member.owner);
                let symbol = library_member_symbol(
                    &package,
                    member.owner,
                    member.name,
                    member.params.as_deref(),
                );
                let kind = member_kind(member.name, member.params.is_some(), false);
                (symbol, member.name.to_string(), kind)
            }
            None => {
                let package = self.libraries.package_of(target);
                let symbol = library_type_symbol(&package, target);
                (
                    symbol,
                    simple_name(target).to_string(),
                    Kind::UnspecifiedKind,
                )
            }
        };
        self.externals.entry(symbol.clone()).or_insert_with(|| {
            let mut info = SymbolInformation::new();
            info.symbol = symbol.clone();
            info.display_name = display_name;
            info.kind = kind.into();
            info
        });
        symbol
    }
}

/// A member's symbol spelled from its id, as for libraries.
fn spell_member(package: &crate::symbol::ScipPackage, target: &ResolvedRef) -> String {
    let params = (target.kind != RefTargetKind::Field).then_some(target.params.as_slice());
    library_member_symbol(package, &target.owner, &target.name, params)
}

/// `Desk()`, `valueOf(java.lang.String)`: the signature of a member the
/// compiler declares, from what a reference tells.
fn implicit_signature(target: &ResolvedRef) -> String {
    let name = match target.name.as_str() {
        "<init>" => simple_name(&target.owner),
        name => name,
    };
    let prefix = if target.is_static { "static " } else { "" };
    if target.kind == RefTargetKind::Field {
        return format!("{prefix}{name}");
    }
    format!("{prefix}{name}({})", target.params.join(", "))
}
