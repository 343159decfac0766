//! The index under construction: documents, the symbols the sources
//! declare, and what waits for every file's symbols to be known
//! (references, override links).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use refscope_engine::{RefTargetKind, ResolvedRef};
use scip::types::{
    Document, MultiLineRange, Occurrence, PositionEncoding, SingleLineRange, SymbolInformation,
    SymbolRole, occurrence,
};

use crate::libraries::Libraries;
use crate::projects::ProjectPackages;
use crate::symbol::local_symbol;

/// A single-line range: 0-based line, start and end UTF-16 columns.
pub type LineRange = [i32; 3];

/// A range over lines: start line and column, end line and column.
pub type SpanRange = [i32; 4];

/// A symbol the sources declare, and where its name is.
#[derive(Debug, Clone)]
pub struct Declared {
    /// The SCIP symbol.
    pub symbol: String,
    /// The index of its document.
    pub document: usize,
    /// Where its name is.
    pub name_range: LineRange,
    /// A `local N` symbol (meaningful in its document only).
    pub local: bool,
    /// An interface or annotation type (which has no constructor).
    pub is_interface: bool,
}

/// The declared symbols by element id.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Global symbols: the first declaration in path order.
    pub global: HashMap<String, Declared>,
    /// Local symbols, by document and element id.
    pub local: HashMap<(usize, String), Declared>,
    /// How many methods (or constructors) of a name a type declares, by
    /// the type's element id and the name.
    pub executables: HashMap<(String, String), usize>,
}

impl Catalog {
    /// The declaration of `id` as seen from `document`: its own local
    /// symbols first.
    pub fn lookup(&self, document: usize, id: &str) -> Option<&Declared> {
        self.local
            .get(&(document, id.to_string()))
            .or_else(|| self.global.get(id))
    }
}

/// A resolved reference waiting for its target's symbol.
#[derive(Debug)]
pub struct PendingReference {
    /// The document it is in.
    pub document: usize,
    /// Where its name is.
    pub range: LineRange,
    /// What it resolved to: an index in [`Builder::targets`].
    pub target: u32,
}

/// A declaration's override links waiting for their targets' symbols.
#[derive(Debug)]
pub struct PendingRelationships {
    /// The document declaring it.
    pub document: usize,
    /// Its symbol information's index in the document.
    pub info: usize,
    /// A method (whose links are also references) rather than a type.
    pub is_method: bool,
    /// Element ids of what it overrides, or binary names of its direct
    /// supertypes.
    pub targets: Vec<String>,
}

/// An occurrence as kept until its document is written: symbols shared
/// between the occurrences naming them.
#[derive(Debug, Clone)]
pub struct CompactOccurrence {
    /// Where it is.
    pub range: LineRange,
    /// Its symbol.
    pub symbol: Arc<str>,
    /// `SymbolRole` bits.
    pub roles: i32,
    /// The declaration's span, for definitions.
    pub enclosing: Option<SpanRange>,
}

/// A document as kept until it is written.
#[derive(Debug, Default)]
pub struct DocumentParts {
    /// The Java file's repository-relative path.
    pub relative_path: String,
    /// Its occurrences, in no order.
    pub occurrences: Vec<CompactOccurrence>,
    /// The symbols it defines.
    pub symbols: Vec<SymbolInformation>,
}

impl DocumentParts {
    /// The SCIP document: occurrences sorted by range (then symbol and
    /// roles), each once.
    pub fn into_document(mut self) -> Document {
        self.occurrences.sort_by(|a, b| {
            (a.range, &a.symbol, a.roles, a.enclosing).cmp(&(
                b.range,
                &b.symbol,
                b.roles,
                b.enclosing,
            ))
        });
        self.occurrences
            .dedup_by(|a, b| a.range == b.range && a.symbol == b.symbol && a.roles == b.roles);
        let mut document = Document::new();
        document.relative_path = self.relative_path;
        document.language = "java".into();
        document.position_encoding = PositionEncoding::UTF16CodeUnitOffsetFromLineStart.into();
        document.occurrences = self
            .occurrences
            .into_iter()
            .map(|o| {
                let mut occurrence = occurrence_at(o.range, &o.symbol, o.roles);
                if let Some(span) = o.enclosing {
                    set_enclosing_range(&mut occurrence, span);
                }
                occurrence
            })
            .collect();
        document.symbols = self.symbols;
        document
    }
}

/// What the export counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScipSummary {
    /// Documents written: one per Java file.
    pub n_documents: u64,
    /// Definition occurrences.
    pub n_definitions: u64,
    /// Reference occurrences: every exact and external reference site.
    pub n_references: u64,
    /// Symbols of libraries in `external_symbols`.
    pub n_external_symbols: u64,
    /// Reference sites left out as ambiguous (several candidates).
    pub n_ambiguous_skipped: u64,
    /// Reference sites left out as unresolved.
    pub n_unresolved_skipped: u64,
    /// Exact references whose target no file declares (nor the compiler
    /// for a type a file declares): written with a symbol spelled from the
    /// target's id, which no definition carries.
    pub n_exact_without_definition: u64,
}

/// The index under construction.
pub struct Builder<'a> {
    /// One per Java file, in path order.
    pub documents: Vec<DocumentParts>,
    /// The next `local N` of each document.
    pub n_locals: Vec<u32>,
    /// The declared symbols.
    pub catalog: Catalog,
    /// References, in the order of their sites.
    pub references: Vec<PendingReference>,
    /// The distinct targets of the references (a file calls the same few
    /// methods many times), each kept once.
    pub targets: Vec<ResolvedRef>,
    /// Index in `targets` by a key of what a target is.
    pub target_index: HashMap<String, u32>,
    /// Override links.
    pub relationships: Vec<PendingRelationships>,
    /// Library symbols, by symbol.
    pub externals: BTreeMap<String, SymbolInformation>,
    /// Symbols of members the compiler declares, by element id, once made
    /// (`None`: their type is not declared either).
    pub implicit: HashMap<String, Option<String>>,
    /// Which library a class is in.
    pub libraries: &'a Libraries,
    /// Which project a source file is in.
    pub projects: ProjectPackages<'a>,
    /// The counts.
    pub summary: ScipSummary,
}

impl<'a> Builder<'a> {
    /// An empty index.
    pub fn new(libraries: &'a Libraries, projects: ProjectPackages<'a>) -> Self {
        Self {
            documents: Vec::new(),
            n_locals: Vec::new(),
            catalog: Catalog::default(),
            references: Vec::new(),
            targets: Vec::new(),
            target_index: HashMap::new(),
            relationships: Vec::new(),
            externals: BTreeMap::new(),
            implicit: HashMap::new(),
            libraries,
            projects,
            summary: ScipSummary::default(),
        }
    }

    /// Starts the document of the Java file at `path`; returns its index.
    pub fn add_document(&mut self, path: &str) -> usize {
        self.documents.push(DocumentParts {
            relative_path: path.to_string(),
            ..DocumentParts::default()
        });
        self.n_locals.push(0);
        self.summary.n_documents += 1;
        self.documents.len() - 1
    }

    /// A fresh `local N` symbol of a document.
    pub fn next_local(&mut self, document: usize) -> String {
        let n = self.n_locals[document];
        self.n_locals[document] += 1;
        local_symbol(n)
    }

    /// Adds a definition occurrence.
    pub fn define(
        &mut self,
        document: usize,
        range: LineRange,
        symbol: &str,
        enclosing: Option<SpanRange>,
    ) {
        self.documents[document]
            .occurrences
            .push(CompactOccurrence {
                range,
                symbol: Arc::from(symbol),
                roles: SymbolRole::Definition as i32,
                enclosing,
            });
        self.summary.n_definitions += 1;
    }

    /// Adds a reference occurrence.
    pub fn refer(&mut self, document: usize, range: LineRange, symbol: &Arc<str>) {
        self.documents[document]
            .occurrences
            .push(CompactOccurrence {
                range,
                symbol: symbol.clone(),
                roles: 0,
                enclosing: None,
            });
        self.summary.n_references += 1;
    }

    /// Sets a reference aside for pass two.
    pub fn set_aside(&mut self, document: usize, range: LineRange, target: &ResolvedRef) {
        let key = format!(
            "{:?} {:?} {} {}#{}({}) {} {:?}",
            target.confidence,
            target.kind == RefTargetKind::Field,
            target.implicit,
            target.owner,
            target.name,
            target.params.join(","),
            target.is_static,
            target.decl_file,
        );
        let next = self.targets.len() as u32;
        let index = *self.target_index.entry(key).or_insert(next);
        if index == next {
            self.targets.push(target.clone());
        }
        self.references.push(PendingReference {
            document,
            range,
            target: index,
        });
    }

    /// Adds a symbol's information to a document; returns its index there.
    pub fn describe(&mut self, document: usize, info: SymbolInformation) -> usize {
        let symbols = &mut self.documents[document].symbols;
        symbols.push(info);
        symbols.len() - 1
    }
}

/// An occurrence of `symbol` with `roles` at a single-line range, in both
/// of SCIP's encodings of ranges (older readers know only the first).
fn occurrence_at(range: LineRange, symbol: &str, roles: i32) -> Occurrence {
    let [line, start, end] = range;
    let mut occurrence = Occurrence::new();
    occurrence.range = range.to_vec();
    occurrence.set_single_line_range(SingleLineRange {
        line,
        start_character: start,
        end_character: end,
        ..SingleLineRange::default()
    });
    occurrence.symbol = symbol.to_string();
    occurrence.symbol_roles = roles;
    occurrence
}

/// Sets an occurrence's enclosing range, in both encodings.
fn set_enclosing_range(occurrence: &mut Occurrence, span: SpanRange) {
    let [start_line, start, end_line, end] = span;
    if start_line == end_line {
        occurrence.enclosing_range = vec![start_line, start, end];
        occurrence.typed_enclosing_range = Some(
            occurrence::Typed_enclosing_range::SingleLineEnclosingRange(SingleLineRange {
                line: start_line,
                start_character: start,
                end_character: end,
                ..SingleLineRange::default()
            }),
        );
    } else {
        occurrence.enclosing_range = span.to_vec();
        occurrence.typed_enclosing_range = Some(
            occurrence::Typed_enclosing_range::MultiLineEnclosingRange(MultiLineRange {
                start_line,
                start_character: start,
                end_line,
                end_character: end,
                ..MultiLineRange::default()
            }),
        );
    }
}
