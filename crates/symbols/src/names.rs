//! Type names of a revision: which types exist (the repository's and the
//! JDK's) and how a type name written in a file qualifies, following Java's
//! scoping rules: type variables, enclosing and inherited member types,
//! single-type imports, the file's own package, on-demand imports, then
//! `java.lang`.
//!
//! This is the part of the symbol table that declarations need: it turns
//! `Map.Entry<K, V>` in a parameter list into `java.util.Map.Entry`, which
//! is what element ids and the decl export are made of. A name that cannot
//! be qualified stays as written, the way javac reports error types.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, RwLock};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use refscope_syntax::facts::{ElementKind, FileFacts, NO_ELEMENT};

use crate::canonical::join_name;
pub use crate::canonical::{canonical_name, canonical_names, type_skeleton};
use crate::jdk::{JdkClassReader, JdkTypes};
use crate::lookups::LookupLog;

/// The direct supertypes of a type, canonical names, superclass first.
pub type Supertypes = Arc<[Arc<str>]>;

/// Source types answered one name at a time from outside the universe:
/// the symbol table of a revision read from a store, when only a few of
/// its files are resolved and the rest are not read.
pub trait SourceTypes: Send + Sync {
    /// The direct supertypes of the source type `canonical` (canonical
    /// names, as [`TypeUniverse::qualify_supertypes`] gives them), or
    /// `None` when no source file declares it.
    fn source_type(&self, canonical: &str) -> Option<Supertypes>;
}

/// Every named type of a revision, by canonical name (`p.Outer.Inner`):
/// the libraries' (the JDK, jars on the class path), and the revision's
/// own source types, which replace library types of the same name (so the
/// JDK's own sources index as source). Source types are held here for a
/// whole revision, or answered by a [`SourceTypes`].
#[derive(Default)]
pub struct TypeUniverse {
    /// Library types, shared by the universes of every revision resolved
    /// with the same libraries.
    library: Arc<LibraryTypes>,
    /// Source types, canonical name → direct supertypes.
    sources: HashMap<String, Supertypes>,
    /// Source types answered from outside, with what they answered.
    external: Option<Arc<dyn SourceTypes>>,
    external_memo: RwLock<HashMap<Box<str>, Option<Supertypes>>>,
}

/// What a [`TypeUniverse`]'s external source answered, by canonical name.
#[derive(Default)]
pub struct ExternalAnswers(HashMap<Box<str>, Option<Supertypes>>);

/// The library types of a [`TypeUniverse`]: the JDK's and the class
/// path's, with their supertypes as read so far. Made once per set of
/// libraries: a process indexing one commit after another gives each
/// revision's universe the same one, instead of naming tens of thousands
/// of types and opening the JDK's archives again per commit.
#[derive(Default)]
pub struct LibraryTypes {
    /// Canonical name → binary name.
    names: HashMap<String, Box<str>>,
    /// The JDK's class files, for library supertypes read on first use.
    jdk_classes: Option<Mutex<JdkClassReader>>,
    /// Supertypes read so far, by binary name.
    supertypes: RwLock<HashMap<Box<str>, Supertypes>>,
}

impl LibraryTypes {
    /// The types of `jdk` and of the class path (`class_path_names`,
    /// binary names); the supertypes of JDK types are read from its class
    /// files when a member type lookup first needs them.
    pub fn new<'n>(
        jdk: &Arc<JdkTypes>,
        class_path_names: impl IntoIterator<Item = &'n str>,
    ) -> Self {
        let mut types = Self::default();
        types.add_names(jdk.binary_names.iter().map(String::as_str));
        types.add_names(class_path_names);
        types.jdk_classes = Some(Mutex::new(jdk.class_reader()));
        types
    }

    fn add_names<'n>(&mut self, binary_names: impl IntoIterator<Item = &'n str>) {
        for binary in binary_names {
            // Library class names never contain `$` except as the nesting
            // separator, and anonymous or local classes (`$1`) are skipped.
            let is_nameable = binary
                .split('$')
                .skip(1)
                .all(|part| !part.starts_with(|c: char| c.is_ascii_digit()));
            if is_nameable {
                self.names
                    .insert(binary.replace('$', "."), Box::from(binary));
            }
        }
    }

    /// The direct supertypes of the library class `binary`, read from its
    /// class file when first asked for (empty when it has none to read).
    fn supertypes(&self, binary: &str) -> Supertypes {
        if let Some(known) = self.supertypes.read().expect("supertypes lock").get(binary) {
            return known.clone();
        }
        let read = self.jdk_classes.as_ref().and_then(|reader| {
            reader
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .supertypes(binary)
        });
        let supertypes: Supertypes = read
            .unwrap_or_default()
            .iter()
            .map(|b| Arc::from(b.replace('$', ".")))
            .collect();
        self.supertypes
            .write()
            .expect("supertypes lock")
            .insert(binary.into(), supertypes.clone());
        supertypes
    }
}

impl std::fmt::Debug for TypeUniverse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypeUniverse")
            .field("library", &self.library.names.len())
            .field("sources", &self.sources.len())
            .field("external", &self.external.is_some())
            .finish()
    }
}

/// Longest chain of supertypes followed when looking for inherited member
/// types; guards against cycles in broken code.
const MAX_INHERITANCE_DEPTH: usize = 24;

/// A type the universe knows, as member type lookups need it.
enum Known<'u> {
    Source(Supertypes),
    /// A library type, by binary name.
    Library(&'u str),
}

impl TypeUniverse {
    /// A universe of library types (binary names such as
    /// `java.util.Map$Entry`) whose supertypes are not known.
    pub fn with_jdk(binary_names: &[String]) -> Self {
        let mut library = LibraryTypes::default();
        library.add_names(binary_names.iter().map(String::as_str));
        Self::over(Arc::new(library))
    }

    /// A universe of the JDK's types and of the class path's
    /// (`class_path_names`, binary names); the supertypes of JDK types are
    /// read from its class files when a member type lookup first needs
    /// them.
    pub fn with_libraries<'n>(
        jdk: &Arc<JdkTypes>,
        class_path_names: impl IntoIterator<Item = &'n str>,
    ) -> Self {
        Self::over(Arc::new(LibraryTypes::new(jdk, class_path_names)))
    }

    /// A universe of the types of `library`, with no source type yet.
    pub fn over(library: Arc<LibraryTypes>) -> Self {
        Self {
            library,
            ..Self::default()
        }
    }

    /// Answers source types through `external` (see [`SourceTypes`]).
    pub fn set_external(&mut self, external: Arc<dyn SourceTypes>) {
        self.external = Some(external);
    }

    /// Forgets what the external source answered about `names`: its
    /// answers about them changed.
    pub fn forget_external_of<'n>(&self, names: impl IntoIterator<Item = &'n str>) {
        let mut memo = self.external_memo.write().expect("memo lock");
        for name in names {
            memo.remove(name);
        }
    }

    /// What the external source answered so far, taken out: for the
    /// universe of a revision whose source answers alike but for the names
    /// it then forgets ([`Self::forget_external_of`]).
    pub fn take_external_answers(&self) -> ExternalAnswers {
        ExternalAnswers(std::mem::take(
            &mut *self.external_memo.write().expect("memo lock"),
        ))
    }

    /// Takes `answers` as what the external source answered.
    pub fn keep_external_answers(&self, answers: ExternalAnswers) {
        *self.external_memo.write().expect("memo lock") = answers.0;
    }

    /// Declares source types by canonical name, their supertypes not known
    /// yet: the names a revision's files declare, before any file's
    /// supertypes are qualified ([`Self::qualify_supertypes`]).
    pub fn declare_sources<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        let empty: Supertypes = Arc::from(Vec::<Arc<str>>::new());
        for name in names {
            self.sources.insert(name.to_string(), empty.clone());
        }
    }

    /// Sets the supertypes of the source type `canonical`.
    pub fn set_supertypes(&mut self, canonical: &str, supertypes: &[String]) {
        self.sources
            .insert(canonical.to_string(), to_supertypes(supertypes));
    }

    /// Adds the types declared in a revision's files, all of them: their
    /// names first, then each type's supertypes qualified against them
    /// ([`Self::qualify_supertypes`]).
    pub fn add_sources<'a>(&mut self, files: impl IntoIterator<Item = &'a FileFacts> + Clone) {
        let names: Vec<String> = files
            .clone()
            .into_iter()
            .flat_map(|facts| canonical_names(facts).into_iter().flatten())
            .collect();
        self.declare_sources(names.iter().map(String::as_str));
        let resolved: Vec<(String, Vec<String>)> = files
            .into_iter()
            .flat_map(|facts| self.qualify_supertypes(facts, None))
            .map(|(canonical, _, supertypes)| (canonical, supertypes))
            .collect();
        for (canonical, supertypes) in resolved {
            self.set_supertypes(&canonical, &supertypes);
        }
    }

    /// The named types of `facts` as this universe sees them: (canonical
    /// name, binary name, direct supertypes), the supertypes qualified in
    /// the scope around each type without inherited member types (which
    /// would need the supertypes being computed), noting the lookups in
    /// `log`. The universe must know the file's own names already.
    pub fn qualify_supertypes(
        &self,
        facts: &FileFacts,
        log: Option<&LookupLog>,
    ) -> Vec<(String, String, Vec<String>)> {
        let mut qualifier = Qualifier::with_inheritance(self, facts, false);
        qualifier.log = log;
        let mut out = Vec::new();
        for (index, element) in facts.elements.iter().enumerate() {
            if !element.kind.is_type() {
                continue;
            }
            let Some(canonical) = qualifier.canonical(index as u32) else {
                continue;
            };
            let scope = element.parent;
            let supertypes = element
                .supertypes
                .iter()
                .filter(|s| !s.is_empty())
                .filter_map(|s| qualifier.resolve_type_name(scope, s))
                .collect();
            out.push((
                canonical.to_string(),
                element.binary_name.clone(),
                supertypes,
            ));
        }
        out
    }

    fn find(&self, canonical: &str) -> Option<Known<'_>> {
        if let Some(supertypes) = self.sources.get(canonical) {
            return Some(Known::Source(supertypes.clone()));
        }
        if let Some(external) = &self.external {
            let known = self
                .external_memo
                .read()
                .expect("memo lock")
                .get(canonical)
                .cloned();
            let found = match known {
                Some(found) => found,
                None => {
                    let found = external.source_type(canonical);
                    self.external_memo
                        .write()
                        .expect("memo lock")
                        .insert(canonical.into(), found.clone());
                    found
                }
            };
            if let Some(supertypes) = found {
                return Some(Known::Source(supertypes));
            }
        }
        self.library
            .names
            .get(canonical)
            .map(|binary| Known::Library(binary))
    }

    /// Whether a type has this canonical name, noting the lookup in `log`
    /// (see [`crate::lookups`]).
    pub fn contains(&self, canonical: &str, log: Option<&LookupLog>) -> bool {
        if let Some(log) = log {
            log.record(canonical);
        }
        self.sources.contains_key(canonical) || self.find(canonical).is_some()
    }

    /// The direct supertypes of the type `canonical`, if it is known,
    /// noting the lookup in `log`. A library type's are read from its
    /// class file when first asked for (empty when it has none to read).
    pub fn supertypes(&self, canonical: &str, log: Option<&LookupLog>) -> Option<Supertypes> {
        if let Some(log) = log {
            log.record(canonical);
        }
        match self.find(canonical)? {
            Known::Source(supertypes) => Some(supertypes),
            Known::Library(binary) => Some(self.library.supertypes(binary)),
        }
    }

    /// The canonical name of member type `name` of `owner`, declared or
    /// inherited; every type looked at is noted in `log`.
    pub fn member_type(
        &self,
        owner: &str,
        name: &str,
        follow_inheritance: bool,
        log: Option<&LookupLog>,
    ) -> Option<String> {
        let member = |owner: &str| {
            let mut candidate = String::with_capacity(owner.len() + 1 + name.len());
            candidate.push_str(owner);
            candidate.push('.');
            candidate.push_str(name);
            self.contains(&candidate, log).then_some(candidate)
        };
        // Most lookups end here: no set or queue for them.
        if let Some(found) = member(owner) {
            return Some(found);
        }
        if !follow_inheritance {
            return None;
        }
        let mut seen: HashSet<Arc<str>> = HashSet::default();
        let mut queue: Vec<(Arc<str>, usize)> = Vec::new();
        let push_supertypes = |of: &str, depth: usize, queue: &mut Vec<(Arc<str>, usize)>| {
            if depth < MAX_INHERITANCE_DEPTH
                && let Some(supertypes) = self.supertypes(of, log)
            {
                // Depth-first in declaration order: superclass first.
                queue.extend(supertypes.iter().rev().map(|s| (s.clone(), depth + 1)));
            }
        };
        push_supertypes(owner, 0, &mut queue);
        seen.insert(Arc::from(owner));
        while let Some((current, depth)) = queue.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            if let Some(found) = member(&current) {
                return Some(found);
            }
            push_supertypes(&current, depth, &mut queue);
        }
        None
    }
}

/// Supertypes as the universe keeps them.
pub fn to_supertypes(names: &[String]) -> Supertypes {
    names.iter().map(|n| Arc::from(n.as_str())).collect()
}

/// Qualifies type names written in one file.
pub struct Qualifier<'a> {
    universe: &'a TypeUniverse,
    facts: &'a FileFacts,
    /// Where the universe lookups of a file being resolved are noted.
    log: Option<&'a LookupLog>,
    follow_inheritance: bool,
    /// Type elements by (enclosing element, simple name).
    declared_types: HashMap<(u32, &'a str), u32>,
    /// [`canonical_name`] of each type element, by element index (`None`
    /// for other elements): scope lookups ask for them over and over.
    canonical_names: Vec<Option<String>>,
    /// For each element, the nearest of it and its ancestors that can
    /// change what a simple type name means inside it (a type, or an
    /// element declaring local types), [`NO_ELEMENT`] if none: names
    /// resolve alike in both.
    name_scopes: Vec<u32>,
    /// [`Self::resolve_name`]'s answers by (name scope, inherit), then name: a
    /// file names the same types in the same scope again and again. The
    /// universe lookups an answer made were recorded by its first call
    /// (a qualifier serves one file's recording).
    resolved: RefCell<ResolvedNames>,
}

/// Type names resolved by a [`Qualifier`]: by (name scope, inherit), then
/// name.
type ResolvedNames = HashMap<(u32, bool), HashMap<Box<str>, Option<String>>>;

const PRIMITIVES: [&str; 9] = [
    "boolean", "byte", "short", "char", "int", "long", "float", "double", "void",
];

/// Deepest chain of type-variable bounds followed (`<A extends B, B extends C>`).
const MAX_BOUND_DEPTH: usize = 8;

impl<'a> Qualifier<'a> {
    /// The universe names are qualified against.
    pub fn universe(&self) -> &'a TypeUniverse {
        self.universe
    }

    /// A qualifier for the names of `facts` against `universe`.
    pub fn new(universe: &'a TypeUniverse, facts: &'a FileFacts) -> Self {
        Self::with_inheritance(universe, facts, true)
    }

    /// [`Self::new`], noting every universe lookup in `log`: the
    /// qualifier of a file being resolved, whose resolution depends on
    /// the names it looked up.
    pub fn recording(universe: &'a TypeUniverse, facts: &'a FileFacts, log: &'a LookupLog) -> Self {
        Self {
            log: Some(log),
            ..Self::new(universe, facts)
        }
    }

    /// The log lookups are noted in, if any.
    pub fn log(&self) -> Option<&'a LookupLog> {
        self.log
    }

    /// [`TypeUniverse::member_type`], noting the lookups in this
    /// qualifier's log.
    pub fn member_type(&self, owner: &str, name: &str, follow_inheritance: bool) -> Option<String> {
        self.universe
            .member_type(owner, name, follow_inheritance, self.log)
    }

    fn with_inheritance(
        universe: &'a TypeUniverse,
        facts: &'a FileFacts,
        follow_inheritance: bool,
    ) -> Self {
        let mut declared_types = HashMap::default();
        for (index, element) in facts.elements.iter().enumerate() {
            if element.kind.is_type()
                && element.kind != ElementKind::AnonymousClass
                && element.parent != NO_ELEMENT
            {
                declared_types
                    .entry((element.parent, element.name.as_str()))
                    .or_insert(index as u32);
            }
        }
        let canonical_names = canonical_names(facts);
        let declaring: HashSet<u32> = declared_types.keys().map(|&(parent, _)| parent).collect();
        let mut name_scopes: Vec<u32> = Vec::with_capacity(facts.elements.len());
        for (index, element) in facts.elements.iter().enumerate() {
            let index = index as u32;
            let scope = if element.kind.is_type() || declaring.contains(&index) {
                index
            } else if element.parent == NO_ELEMENT {
                NO_ELEMENT
            } else {
                // Parents come before their children; any other order
                // keeps the element itself, which is only less shared.
                name_scopes
                    .get(element.parent as usize)
                    .copied()
                    .unwrap_or(index)
            };
            name_scopes.push(scope);
        }
        Self {
            universe,
            facts,
            log: None,
            follow_inheritance,
            declared_types,
            canonical_names,
            name_scopes,
            resolved: RefCell::default(),
        }
    }

    /// The canonical name of element `index`, if it is a type that has one.
    fn canonical(&self, index: u32) -> Option<&str> {
        self.canonical_names[index as usize].as_deref()
    }

    /// The erased, fully qualified source name of a type written as
    /// `erased` (an erased-as-written text such as `Map.Entry[]`) inside
    /// element `scope`: type variables become the erasure of their first
    /// bound, unknown names stay as written.
    pub fn qualify(&self, scope: u32, erased: &str) -> String {
        self.qualify_bounded(scope, erased, 0)
    }

    fn qualify_bounded(&self, scope: u32, erased: &str, depth: usize) -> String {
        let base = erased.trim_end_matches("[]");
        let dims = &erased[base.len()..];
        if base.is_empty() || PRIMITIVES.contains(&base) {
            return erased.to_string();
        }
        if !base.contains('.')
            && let Some((declaring, bound)) = self.type_variable(scope, base)
        {
            if depth >= MAX_BOUND_DEPTH {
                return format!("java.lang.Object{dims}");
            }
            let mut erased_bound = match bound {
                Some(bound) => self.qualify_bounded(declaring, bound, depth + 1),
                None => "java.lang.Object".to_string(),
            };
            erased_bound.push_str(dims);
            return erased_bound;
        }
        match self.resolve_type_name(scope, base) {
            Some(mut canonical) => {
                canonical.push_str(dims);
                canonical
            }
            None => erased.to_string(),
        }
    }

    /// The type variable `name` visible in `scope`: the element declaring
    /// it and its first bound.
    pub fn type_variable(&self, scope: u32, name: &str) -> Option<(u32, Option<&'a str>)> {
        if scope == NO_ELEMENT {
            return None;
        }
        for index in self.facts.ancestry(scope) {
            let element = &self.facts.elements[index as usize];
            if let Some(param) = element.type_params.iter().find(|p| p.name == name) {
                return Some((index, param.bounds.first().map(String::as_str)));
            }
            // A type variable is hidden by a member type of the same name
            // declared in a type between the use and the declaration.
            if element.kind.is_type() && self.declared_member_type(index, name).is_some() {
                return None;
            }
        }
        None
    }

    /// Resolves a dotted or simple type name (no type arguments, no array
    /// suffix) to a canonical name.
    pub fn resolve_type_name(&self, scope: u32, name: &str) -> Option<String> {
        self.resolve_name(scope, name, self.follow_inheritance)
    }

    /// [`Self::resolve_type_name`], looking at inherited member types only
    /// when `inherit` is set.
    fn resolve_name(&self, scope: u32, name: &str, inherit: bool) -> Option<String> {
        let scope = self
            .name_scopes
            .get(scope as usize)
            .copied()
            .unwrap_or(scope);
        if let Some(known) = self
            .resolved
            .borrow()
            .get(&(scope, inherit))
            .and_then(|names| names.get(name))
        {
            return known.clone();
        }
        let found = self.find_name(scope, name, inherit);
        self.resolved
            .borrow_mut()
            .entry((scope, inherit))
            .or_default()
            .insert(name.into(), found.clone());
        found
    }

    /// [`Self::resolve_name`], without the memo.
    fn find_name(&self, scope: u32, name: &str, inherit: bool) -> Option<String> {
        let mut segments = name.split('.');
        let first = segments.next()?;
        let rest: Vec<&str> = segments.collect();
        if let Some(mut current) = self.resolve_simple(scope, first, inherit) {
            for segment in &rest {
                current = self
                    .member_type(&current, segment, inherit)
                    .unwrap_or_else(|| join_name(&current, segment));
            }
            return Some(current);
        }
        if rest.is_empty() {
            return None;
        }
        // A package-qualified name: the longest known prefix that is a type.
        let all: Vec<&str> = std::iter::once(first).chain(rest.iter().copied()).collect();
        for split in (1..all.len()).rev() {
            let prefix = all[..=split].join(".");
            if self.universe.contains(&prefix, self.log) {
                let mut current = prefix;
                for segment in &all[split + 1..] {
                    current = self
                        .member_type(&current, segment, inherit)
                        .unwrap_or_else(|| join_name(&current, segment));
                }
                return Some(current);
            }
        }
        None
    }

    /// A simple type name, by Java's scoping order.
    fn resolve_simple(&self, scope: u32, name: &str, inherit: bool) -> Option<String> {
        // 1. Types declared in enclosing elements (members, local classes),
        //    and member types inherited by enclosing types.
        if scope != NO_ELEMENT {
            for index in self.facts.ancestry(scope) {
                if let Some(found) = self.declared_member_type(index, name) {
                    return Some(found);
                }
                let element = &self.facts.elements[index as usize];
                if element.kind.is_type() {
                    if element.name == name
                        && !element.is_local
                        && element.kind != ElementKind::AnonymousClass
                        && let Some(canonical) = self.canonical(index)
                    {
                        return Some(canonical.to_string());
                    }
                    if let Some(found) = self.inherited_member_type(index, name, inherit) {
                        return Some(found);
                    }
                }
            }
        }
        let imports = &self.facts.imports;
        // 2. Single-type imports (and single static imports of member types);
        //    an import names a canonical name, kept as written even when the
        //    type is unknown, as javac reports it.
        for import in imports.iter().filter(|i| !i.on_demand) {
            let simple = import.path.rsplit('.').next().unwrap_or(&import.path);
            if simple != name {
                continue;
            }
            if !import.is_static || self.universe.contains(&import.path, self.log) {
                return Some(import.path.clone());
            }
        }
        // 3. The file's own package.
        let in_package = match &self.facts.package {
            Some(package) => join_name(package, name),
            None => name.to_string(),
        };
        if self.universe.contains(&in_package, self.log) {
            return Some(in_package);
        }
        // 4. On-demand imports, of packages and of member types.
        for import in imports.iter().filter(|i| i.on_demand) {
            let candidate = join_name(&import.path, name);
            if self.universe.contains(&candidate, self.log) {
                return Some(candidate);
            }
            if let Some(found) = self.member_type(&import.path, name, inherit) {
                return Some(found);
            }
        }
        // 5. `java.lang`.
        let lang = join_name("java.lang", name);
        if self.universe.contains(&lang, self.log) {
            return Some(lang);
        }
        None
    }

    /// A type named `name` declared directly inside element `index` (a
    /// member type, or a local class of a method body).
    fn declared_member_type(&self, index: u32, name: &str) -> Option<String> {
        let &child = self.declared_types.get(&(index, name))?;
        let element = &self.facts.elements[child as usize];
        Some(
            self.canonical(child)
                .unwrap_or(&element.binary_name)
                .to_string(),
        )
    }

    fn inherited_member_type(&self, index: u32, name: &str, inherit: bool) -> Option<String> {
        if !inherit {
            return None;
        }
        match self.canonical(index) {
            Some(canonical) => {
                let supertypes = self.universe.supertypes(canonical, self.log)?;
                supertypes
                    .iter()
                    .find_map(|s| self.member_type(s, name, true))
            }
            None => {
                // Local and anonymous classes: qualify their supertypes here.
                let element = &self.facts.elements[index as usize];
                element
                    .supertypes
                    .iter()
                    .filter(|s| !s.is_empty())
                    .filter_map(|s| self.resolve_name(element.parent, s, false))
                    .find_map(|s| self.member_type(&s, name, true))
            }
        }
    }
}
