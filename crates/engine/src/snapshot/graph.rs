//! The reference graph of a revision: who calls an element, what it calls,
//! what implements it and what references it.
//!
//! Answers come from the global reference index (`ref_postings` over the
//! interned `targets`: which
//! units have a site targeting an element id; `overrides`: which elements
//! override a method or extend a type) and from the resolutions of the
//! units it names. The index is shared by every revision, so each unit it
//! names is looked up in the revision's manifest: a unit that the revision
//! does not hold answers nothing.
//!
//! ```no_run
//! use refscope_engine::CallersConfig;
//! use refscope_engine::{Snapshot, Store};
//!
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let snapshot = Snapshot::new(&store, Snapshot::pick_revision(&store, None, None)?)?;
//! let element = snapshot.find_element("com.acme.Shop#order")?;
//! for hit in snapshot.callers(&element.id, &CallersConfig::default())? {
//!     println!("{}:{}:{} {:?}", hit.path, hit.line, hit.col, hit.via);
//! }
//! # Ok::<(), refscope_engine::Error>(())
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use super::{ElementView, FileData, FileEntry, Snapshot};
use crate::error::Error;
use refscope_resolve::{Confidence, FileResolution, RefTargetKind, ResolvedRef};
use refscope_syntax::facts::{ElementKind, ExprShape, NO_ELEMENT, RefSite};

/// How many ids an unknown-element error suggests at most.
const MAX_SUGGESTIONS: usize = 8;

/// An element named by a user or a query.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundElement {
    /// Its element id.
    pub id: String,
    /// Its declaration, when the revision's sources declare it; `None` for
    /// library elements and for members the compiler declares (default
    /// constructors), which are known only from the references to them.
    /// When several files declare the same id (duplicate classes), the
    /// first by path.
    pub declared: Option<ElementView>,
}

/// A reference site, with what it targets and what contains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefHit {
    /// The file of the site.
    pub path: String,
    /// Line of the referenced name token.
    pub line: u32,
    /// UTF-16 column of the referenced name token.
    pub col: u32,
    /// What kind of reference it is.
    pub kind: RefTargetKind,
    /// How sure its resolution is.
    pub confidence: Confidence,
    /// The element id of the target; `None` when unresolved.
    pub target: Option<String>,
    /// The target's simple name (`<init>` for constructors), or the name
    /// as written when unresolved.
    pub name: String,
    /// The innermost element containing the site: a lambda's id for a
    /// site in a lambda.
    pub enclosing: Option<String>,
    /// The nearest element containing the site that is not a lambda: the
    /// method, constructor, field, initializer or type.
    pub enclosing_named: Option<String>,
    /// For a polymorphic caller: the overridden method the call targets.
    pub via: Option<String>,
    /// The file declaring the target, when it is in the repository.
    pub decl_file: Option<String>,
    /// The line of the target's name, when it is in the repository.
    pub decl_line: Option<u32>,
    /// For an ambiguous resolution: the other candidates' ids.
    pub alternatives: Vec<String>,
}

/// How [`Snapshot::callers`] searches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallersConfig {
    /// Also report calls to the methods the element overrides or
    /// implements, transitively upwards, marked with [`RefHit::via`]. A
    /// `super.m()` call never dispatches to an override and is left out;
    /// so is a call on `this` from a class that is neither a supertype nor
    /// a subtype of the element's class.
    pub polymorphic: bool,
}

impl Default for CallersConfig {
    fn default() -> Self {
        Self { polymorphic: true }
    }
}

/// An element that overrides a method or extends a type, directly or
/// through others.
#[derive(Debug, Clone, PartialEq)]
pub struct Implementation {
    /// The overriding method or the subtype.
    pub view: ElementView,
    /// The element it directly overrides or extends, on the way from the
    /// element asked about.
    pub overrides: String,
    /// 1 for a direct override or subtype, 2 for one of those's, ...
    pub depth: u32,
}

impl Snapshot<'_> {
    /// The element named by `spec`: an element id
    /// (`com.acme.Shop#order(java.lang.String,int)`, `com.acme.Shop$Cart`),
    /// an id without parameter types when one overload has the name
    /// (`com.acme.Shop#order`), parameter types by simple name
    /// (`com.acme.Shop#order(String,int)`), or a nested type by its
    /// canonical name (`com.acme.Shop.Cart`). Library elements that the
    /// revision references are found too.
    pub fn find_element(&self, spec: &str) -> Result<FoundElement, Error> {
        let compact: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
        let (owner, member) = match compact.split_once('#') {
            Some((owner, member)) => (owner, Some(member)),
            None => (compact.as_str(), None),
        };
        let mut walk = Walk::new(self);
        for candidate in binary_name_candidates(owner) {
            let ids = match member {
                None => walk.type_matches(&candidate)?,
                Some(member) => walk.member_matches(&candidate, member)?,
            };
            match ids.len() {
                0 => continue,
                1 => return walk.found(&ids[0]),
                _ => {
                    return Err(Error::AmbiguousElement {
                        spec: spec.to_string(),
                        revision: self.revision.name.clone(),
                        candidates: ids,
                        hint: "give the parameter types, e.g. Owner#name(int,java.lang.String)",
                    });
                }
            }
        }
        Err(Error::UnknownElement {
            spec: spec.to_string(),
            revision: self.revision.name.clone(),
            nearest: walk.nearest_ids(&compact, owner, member)?,
        })
    }

    /// The element declared on a line of a file: the innermost one whose
    /// name is on the line; when none is, the innermost element containing
    /// the line. Lambdas and anonymous classes stand for the element
    /// around them. Several (`int a, b;`) are an error listing them.
    pub fn element_declared_on_line(&self, path: &str, line: u32) -> Result<FoundElement, Error> {
        let file = self.file(path)?;
        let facts = self.facts(&file)?;
        if line == 0 || line > facts.n_lines.max(1) {
            return Err(Error::LineOutOfRange {
                path: path.to_string(),
                line,
                n_lines: facts.n_lines,
            });
        }
        let named = |index: u32| {
            !matches!(
                facts.elements[index as usize].kind,
                ElementKind::Lambda | ElementKind::AnonymousClass
            )
        };
        let mut candidates: Vec<u32> = (0..facts.elements.len() as u32)
            .filter(|&i| named(i) && facts.elements[i as usize].name_pos.line == line)
            .collect();
        if candidates.is_empty() {
            for &owner in facts.owners_of_line(line) {
                if let Some(around) = facts.ancestry(owner).find(|&i| named(i))
                    && !candidates.contains(&around)
                {
                    candidates.push(around);
                }
            }
        }
        let all = candidates.clone();
        candidates.retain(|&c| {
            !all.iter()
                .any(|&other| other != c && facts.ancestry(other).any(|a| a == c))
        });
        facts.sort_by_appearance(&mut candidates);
        let records = self.records(&file)?;
        let ids: Vec<String> = candidates
            .iter()
            .filter_map(|&i| records.get(i as usize))
            .map(|r| r.element_id.clone())
            .collect();
        match ids.len() {
            0 => Err(Error::NoElementOnLine {
                path: path.to_string(),
                line,
            }),
            1 => Ok(FoundElement {
                id: ids[0].clone(),
                declared: Some(ElementView {
                    path: path.to_string(),
                    record: records[candidates[0] as usize].clone(),
                    element: facts.elements[candidates[0] as usize].clone(),
                }),
            }),
            _ => Err(Error::AmbiguousElement {
                spec: format!("{path}:{line}"),
                revision: self.revision.name.clone(),
                candidates: ids,
                hint: "name one by its id",
            }),
        }
    }

    /// The sites that call or reference element `id` (a method,
    /// constructor or field), sorted by position; with
    /// [`CallersConfig::polymorphic`], also the calls to the methods it
    /// overrides, marked with [`RefHit::via`].
    pub fn callers(&self, id: &str, config: &CallersConfig) -> Result<Vec<RefHit>, Error> {
        Ok(self.callers_shared(id, config)?.as_ref().clone())
    }

    /// [`Self::callers`] without the copy: the answer is worked out once
    /// per revision and kept in the snapshot's cache (a revision never
    /// changes), so asking again, from this snapshot or a later one built
    /// on the same cache, costs a lookup.
    pub fn callers_shared(
        &self,
        id: &str,
        config: &CallersConfig,
    ) -> Result<Arc<Vec<RefHit>>, Error> {
        if let Some(hits) = self.cache.callers(id, config.polymorphic) {
            return Ok(hits);
        }
        let mut walk = Walk::new(self);
        let mut hits: Vec<RefHit> = walk
            .sites_targeting(id, None)?
            .into_iter()
            .map(|c| c.hit)
            .collect();
        if config.polymorphic {
            let own_class = owner_of(id);
            for ancestor in walk.overridden_transitively(id)? {
                for candidate in walk.sites_targeting(&ancestor, Some(&ancestor))? {
                    if walk.dispatch_may_reach(&candidate, &ancestor, own_class)? {
                        hits.push(candidate.hit);
                    }
                }
            }
        }
        let hits = Arc::new(sorted_hits(hits));
        self.cache
            .keep_callers(id, config.polymorphic, hits.clone());
        Ok(hits)
    }

    /// The references made inside an element: sites whose innermost
    /// element is it or one of its descendants (lambdas, anonymous and
    /// local classes in a method; every member of a type), in source
    /// order. Unresolved sites are included.
    pub fn callees(&self, element: &ElementView) -> Result<Vec<RefHit>, Error> {
        let mut each = self.callees_of_each(std::slice::from_ref(element))?;
        Ok(each.pop().unwrap_or_default())
    }

    /// [`Self::callees`] of several elements, in the order given; a file
    /// holding several of them is read once.
    pub fn callees_of_each(&self, elements: &[ElementView]) -> Result<Vec<Vec<RefHit>>, Error> {
        let mut walk = Walk::new(self);
        let mut out = Vec::with_capacity(elements.len());
        for element in elements {
            let file = self.file(&element.path)?;
            let loaded = walk.load(&file)?;
            let idx = element.record.idx;
            out.push(sorted_hits(loaded.hits_where(|site| {
                site.enclosing != NO_ELEMENT
                    && loaded.facts.ancestry(site.enclosing).any(|a| a == idx)
            })));
        }
        Ok(out)
    }

    /// The references made on lines `start..=end` of a file, in source
    /// order. Unresolved sites are included.
    pub fn callees_on_lines(&self, path: &str, start: u32, end: u32) -> Result<Vec<RefHit>, Error> {
        let mut walk = Walk::new(self);
        let file = self.file(path)?;
        let loaded = walk.load(&file)?;
        if start > loaded.facts.n_lines.max(1) {
            return Err(Error::LineOutOfRange {
                path: path.to_string(),
                line: start,
                n_lines: loaded.facts.n_lines,
            });
        }
        Ok(sorted_hits(
            loaded.hits_where(|site| (start..=end).contains(&site.pos.line)),
        ))
    }

    /// What overrides method `id`, or extends or implements type `id`,
    /// transitively (overrides of overrides, subtypes of subtypes), sorted
    /// by file and line.
    pub fn implementations(&self, id: &str) -> Result<Vec<Implementation>, Error> {
        let mut walk = Walk::new(self);
        let mut out: Vec<Implementation> = Vec::new();
        // Ids already walked from, and (id, path) pairs already reported: a
        // class copied to two paths is reported twice but walked once.
        let mut walked: HashSet<String> = HashSet::from([id.to_string()]);
        let mut reported: HashSet<(String, String)> = HashSet::new();
        let mut queue: VecDeque<(String, u32)> = VecDeque::from([(id.to_string(), 0)]);
        while let Some((current, depth)) = queue.pop_front() {
            for (unit, idx) in walk.overriding_elements(&current)? {
                for file in self.files_of_unit(unit)?.to_vec() {
                    let loaded = walk.load(&file)?;
                    let Some(view) = loaded.view(idx) else {
                        continue;
                    };
                    let child = view.record.element_id.clone();
                    if walked.insert(child.clone()) {
                        queue.push_back((child.clone(), depth + 1));
                    }
                    if reported.insert((child, view.path.clone())) {
                        out.push(Implementation {
                            view,
                            overrides: current.clone(),
                            depth: depth + 1,
                        });
                    }
                }
            }
        }
        out.sort_by(|a, b| {
            (
                &a.view.path,
                a.view.record.name_line,
                a.view.record.name_col,
            )
                .cmp(&(
                    &b.view.path,
                    b.view.record.name_line,
                    b.view.record.name_col,
                ))
        });
        Ok(out)
    }

    /// The sites referencing element `id`: for a member, the sites
    /// targeting it; for a type, the sites targeting any of its own
    /// members or constructors (`new T()` included). Sorted by position.
    pub fn references(&self, id: &str) -> Result<Vec<RefHit>, Error> {
        let mut walk = Walk::new(self);
        if id.contains('#') {
            let hits = walk.sites_targeting(id, None)?;
            return Ok(sorted_hits(hits.into_iter().map(|c| c.hit).collect()));
        }
        let mut units: Vec<i64> = walk
            .posting_targets_in_range(&format!("{id}#"), &format!("{id}$"))?
            .into_iter()
            .map(|(_, unit)| unit)
            .collect();
        units.sort_unstable();
        units.dedup();
        let mut hits = Vec::new();
        for unit in units {
            for file in self.files_of_unit(unit)?.to_vec() {
                let loaded = walk.load(&file)?;
                hits.extend(
                    loaded.refs_where(|r| r.confidence != Confidence::Unresolved && r.owner == id),
                );
            }
        }
        Ok(sorted_hits(hits))
    }
}

impl Snapshot<'_> {
    /// What the declarations of `id` directly override (a method) or
    /// extend and implement (a type), as recorded by resolution; library
    /// elements have none recorded.
    pub fn direct_supers(&self, id: &str) -> Result<Vec<String>, Error> {
        let mut supers = Walk::new(self).direct_supers(id)?;
        let mut seen = HashSet::new();
        supers.retain(|s| seen.insert(s.clone()));
        Ok(supers)
    }

    /// The declarations of `id` in the revision, as `(file, element
    /// index)`, sorted by path.
    pub fn declarations_of(&self, id: &str) -> Result<Vec<(FileEntry, u32)>, Error> {
        let rows = self.store.elements_with_id(id)?;
        let mut out = Vec::new();
        for (unit, idx) in rows {
            for file in self.files_of_unit(unit)? {
                out.push((file.clone(), idx));
            }
        }
        out.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        Ok(out)
    }
}

/// A file with its resolution decoded: everything the graph needs of it.
#[derive(Clone)]
struct LoadedFile(Arc<FileData>);

/// A site found while walking, with its file kept for later checks.
struct Candidate {
    file: LoadedFile,
    site: u32,
    hit: RefHit,
}

impl Deref for LoadedFile {
    type Target = FileData;

    fn deref(&self) -> &FileData {
        &self.0
    }
}

impl LoadedFile {
    fn resolution(&self) -> &FileResolution {
        self.0
            .resolution
            .get()
            .expect("Walk::load decodes the resolution of every file it returns")
    }

    fn view(&self, idx: u32) -> Option<ElementView> {
        Some(ElementView {
            path: self.entry.path.clone(),
            record: self.records.get(idx as usize)?.clone(),
            element: self.facts.elements.get(idx as usize)?.clone(),
        })
    }

    fn element_id(&self, idx: u32) -> Option<String> {
        (idx != NO_ELEMENT)
            .then(|| self.records.get(idx as usize))
            .flatten()
            .map(|r| r.element_id.clone())
    }

    fn hit(&self, r: &ResolvedRef, via: Option<String>) -> Option<RefHit> {
        let site = self.facts.ref_sites.get(r.site as usize)?;
        let named = if site.enclosing == NO_ELEMENT {
            None
        } else {
            self.facts
                .ancestry(site.enclosing)
                .find(|&i| self.facts.elements[i as usize].kind != ElementKind::Lambda)
        };
        Some(RefHit {
            path: self.entry.path.clone(),
            line: site.pos.line,
            col: site.pos.col,
            kind: r.kind,
            confidence: r.confidence,
            target: r.target_id(),
            name: if r.name.is_empty() {
                site.name.clone()
            } else {
                r.name.clone()
            },
            enclosing: self.element_id(site.enclosing),
            enclosing_named: named.and_then(|i| self.element_id(i)),
            via,
            decl_file: r.decl_file.clone(),
            decl_line: (r.decl_file.is_some() && r.decl_line > 0).then_some(r.decl_line),
            alternatives: r.alternatives.clone(),
        })
    }

    fn refs_where(&self, keep: impl Fn(&ResolvedRef) -> bool) -> Vec<RefHit> {
        self.resolution()
            .refs
            .iter()
            .filter(|r| keep(r))
            .filter_map(|r| self.hit(r, None))
            .collect()
    }

    fn hits_where(&self, keep: impl Fn(&RefSite) -> bool) -> Vec<RefHit> {
        self.refs_where(|r| self.facts.ref_sites.get(r.site as usize).is_some_and(&keep))
    }
}

/// One walk over the graph: the snapshot (whose cache keeps the files
/// read) plus the supertypes worked out so far.
struct Walk<'a, 's> {
    snapshot: &'a Snapshot<'s>,
    supertypes: HashMap<String, Rc<HashSet<String>>>,
}

impl<'a, 's> Walk<'a, 's> {
    fn new(snapshot: &'a Snapshot<'s>) -> Self {
        Self {
            snapshot,
            supertypes: HashMap::new(),
        }
    }

    fn load(&mut self, file: &FileEntry) -> Result<LoadedFile, Error> {
        let data = self.snapshot.file_data(file)?;
        self.snapshot.file_resolution(&data)?;
        Ok(LoadedFile(data))
    }

    /// Keeps the `(text, unit)` rows whose unit the revision holds.
    fn rows_in_revision(&self, rows: Vec<(String, i64)>) -> Result<Vec<(String, i64)>, Error> {
        let mut kept = Vec::with_capacity(rows.len());
        for (text, unit) in rows {
            if !self.snapshot.files_of_unit(unit)?.is_empty() {
                kept.push((text, unit));
            }
        }
        Ok(kept)
    }

    /// Units of the revision with a site targeting exactly `target`.
    fn posting_units(&self, target: &str) -> Result<Vec<i64>, Error> {
        Ok(self
            .rows_in_revision(self.snapshot.store.postings_of(target)?)?
            .into_iter()
            .map(|(_, unit)| unit)
            .collect())
    }

    /// Posted targets in `[low, high)` with their units, in the revision.
    fn posting_targets_in_range(&self, low: &str, high: &str) -> Result<Vec<(String, i64)>, Error> {
        self.rows_in_revision(self.snapshot.store.postings_in_range(low, high)?)
    }

    /// Override targets in `[low, high)` with the overriding units, in the
    /// revision.
    fn override_targets_in_range(
        &self,
        low: &str,
        high: &str,
    ) -> Result<Vec<(String, i64)>, Error> {
        self.rows_in_revision(self.snapshot.store.overrides_in_range(low, high)?)
    }

    /// Elements of the revision that directly override method `target` or
    /// extend type `target`, as `(unit, element index)`.
    fn overriding_elements(&self, target: &str) -> Result<Vec<(i64, u32)>, Error> {
        let rows = self.snapshot.store.overriding_elements(target)?;
        let mut kept = Vec::with_capacity(rows.len());
        for (unit, idx) in rows {
            if !self.snapshot.files_of_unit(unit)?.is_empty() {
                kept.push((unit, idx));
            }
        }
        Ok(kept)
    }

    fn declarations(&self, id: &str) -> Result<Vec<(FileEntry, u32)>, Error> {
        self.snapshot.declarations_of(id)
    }

    /// Declared ids in `[low, high)` with their kinds, in the revision.
    fn declared_ids_in_range(
        &self,
        low: &str,
        high: &str,
    ) -> Result<Vec<(String, ElementKind)>, Error> {
        let rows = self.snapshot.store.elements_in_id_range(low, high)?;
        let mut out = Vec::new();
        for row in rows {
            if let Some(kind) = row.kind
                && !self.snapshot.files_of_unit(row.unit_id)?.is_empty()
            {
                out.push((row.element_id, kind));
            }
        }
        Ok(out)
    }

    /// Whether `id` is declared in the revision (`want` says of what kind).
    fn is_declared(&self, id: &str, want: impl Fn(ElementKind) -> bool) -> Result<bool, Error> {
        for (kind, unit) in self.snapshot.store.element_kinds_with_id(id)? {
            if kind.is_some_and(&want) && !self.snapshot.files_of_unit(unit)?.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether a site of the revision targets `id`, or an element of it
    /// overrides or extends `id`.
    fn is_referenced(&self, id: &str) -> Result<bool, Error> {
        if !self.posting_units(id)?.is_empty() {
            return Ok(true);
        }
        Ok(!self.overriding_elements(id)?.is_empty())
    }

    /// The ids a type name can mean: itself if declared or referenced.
    fn type_matches(&self, name: &str) -> Result<Vec<String>, Error> {
        let known = self.is_declared(name, ElementKind::is_type)?
            || !self.overriding_elements(name)?.is_empty()
            || !self
                .posting_targets_in_range(&format!("{name}#"), &format!("{name}$"))?
                .is_empty();
        Ok(if known {
            vec![name.to_string()]
        } else {
            Vec::new()
        })
    }

    /// The ids `owner#member` can mean: the exact id, else every method or
    /// constructor of that name whose parameter types fit the ones given
    /// (all of them when none are given).
    fn member_matches(&self, owner: &str, member: &str) -> Result<Vec<String>, Error> {
        let full = format!("{owner}#{member}");
        if self.is_declared(&full, |_| true)? || self.is_referenced(&full)? {
            return Ok(vec![full]);
        }
        let (name, given) = match member.split_once('(') {
            Some((name, rest)) => match rest.strip_suffix(')') {
                Some(params) => (name, Some(split_params(params))),
                None => return Ok(Vec::new()),
            },
            None => (member, None),
        };
        let low = format!("{owner}#{name}(");
        let high = format!("{owner}#{name})");
        let mut ids: Vec<String> = self
            .declared_ids_in_range(&low, &high)?
            .into_iter()
            .filter(|(_, kind)| kind.is_executable())
            .map(|(id, _)| id)
            .chain(
                self.posting_targets_in_range(&low, &high)?
                    .into_iter()
                    .chain(self.override_targets_in_range(&low, &high)?)
                    .map(|(id, _)| id),
            )
            .filter(|id| id.ends_with(')') && !id[low.len()..id.len() - 1].contains(')'))
            .filter(|id| match &given {
                None => true,
                Some(given) => params_fit(given, &split_params(&id[low.len()..id.len() - 1])),
            })
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// The found element for an id known to exist.
    fn found(&mut self, id: &str) -> Result<FoundElement, Error> {
        let declared = match self.declarations(id)?.into_iter().next() {
            Some((file, idx)) => self.load(&file)?.view(idx),
            None => None,
        };
        Ok(FoundElement {
            id: id.to_string(),
            declared,
        })
    }

    /// Ids to suggest for an unknown `owner#member` (or type `owner`):
    /// first the members of that name the owner inherits, nearest
    /// supertype first; then elements of the revision with the same simple
    /// name (case ignored), those sharing the longest prefix with `spec`
    /// first. At most [`MAX_SUGGESTIONS`].
    fn nearest_ids(
        &mut self,
        spec: &str,
        owner: &str,
        member: Option<&str>,
    ) -> Result<Vec<String>, Error> {
        let mut out: Vec<String> = Vec::new();
        if let Some(member) = member {
            for candidate in binary_name_candidates(owner) {
                if !self.is_declared(&candidate, ElementKind::is_type)? {
                    continue;
                }
                for sup in self.supertypes_nearest_first(&candidate)? {
                    out.extend(self.member_matches(&sup, member)?);
                }
            }
        }
        let simple_name = match member {
            Some(member) => member.split('(').next().unwrap_or(member),
            None => owner.rsplit(['.', '$']).next().unwrap_or(owner),
        };
        let mut named = self.ids_named(simple_name)?;
        let common_prefix = |id: &str| {
            id.bytes()
                .zip(spec.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        named.sort_by_cached_key(|id| {
            let name = id.rsplit(['#', '.', '$']).next().unwrap_or(id);
            (
                !name.starts_with(simple_name),
                std::cmp::Reverse(common_prefix(id)),
                id.clone(),
            )
        });
        out.extend(named);
        let mut seen = HashSet::new();
        out.retain(|id| seen.insert(id.clone()));
        out.truncate(MAX_SUGGESTIONS);
        Ok(out)
    }

    /// The ids of the revision whose element has this simple name, case
    /// ignored.
    fn ids_named(&self, name: &str) -> Result<Vec<String>, Error> {
        let mut ids = Vec::new();
        for (id, unit) in self.snapshot.store.elements_named(name)? {
            if !self.snapshot.files_of_unit(unit)?.is_empty() {
                ids.push(id);
            }
        }
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// The proper supertypes of type `name`, nearest first.
    fn supertypes_nearest_first(&mut self, name: &str) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([name.to_string()]);
        let mut queue: VecDeque<String> = VecDeque::from([name.to_string()]);
        while let Some(current) = queue.pop_front() {
            for sup in self.direct_supers(&current)? {
                if seen.insert(sup.clone()) {
                    out.push(sup.clone());
                    queue.push_back(sup);
                }
            }
        }
        Ok(out)
    }

    /// The sites of the revision whose resolved target is `target`.
    fn sites_targeting(
        &mut self,
        target: &str,
        via: Option<&str>,
    ) -> Result<Vec<Candidate>, Error> {
        let mut out = Vec::new();
        for unit in self.posting_units(target)? {
            for file in self.snapshot.files_of_unit(unit)?.to_vec() {
                let loaded = self.load(&file)?;
                for r in &loaded.resolution().refs {
                    if r.target_id().as_deref() != Some(target) {
                        continue;
                    }
                    if let Some(hit) = loaded.hit(r, via.map(str::to_string)) {
                        out.push(Candidate {
                            file: loaded.clone(),
                            site: r.site,
                            hit,
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// The methods `id` overrides or implements, transitively upwards
    /// through the repository's declarations, nearest first. Library
    /// methods end the walk: their own overrides are not recorded.
    fn overridden_transitively(&mut self, id: &str) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([id.to_string()]);
        let mut queue: VecDeque<String> = VecDeque::from([id.to_string()]);
        while let Some(current) = queue.pop_front() {
            for target in self.direct_supers(&current)? {
                if seen.insert(target.clone()) {
                    out.push(target.clone());
                    queue.push_back(target);
                }
            }
        }
        Ok(out)
    }

    /// What the declarations of `id` directly override (methods) or extend
    /// (types), from their units' override links.
    fn direct_supers(&mut self, id: &str) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        for (file, idx) in self.declarations(id)? {
            let loaded = self.load(&file)?;
            for link in &loaded.resolution().overrides {
                if link.element == idx {
                    out.extend(link.targets.iter().cloned());
                }
            }
        }
        Ok(out)
    }

    /// Every supertype of type `name`, transitively, itself included.
    fn supertypes(&mut self, name: &str) -> Result<Rc<HashSet<String>>, Error> {
        if let Some(known) = self.supertypes.get(name) {
            return Ok(known.clone());
        }
        let mut closure: HashSet<String> =
            self.supertypes_nearest_first(name)?.into_iter().collect();
        closure.insert(name.to_string());
        let closure = Rc::new(closure);
        self.supertypes.insert(name.to_string(), closure.clone());
        Ok(closure)
    }

    fn is_subtype(&mut self, sub: &str, sup: &str) -> Result<bool, Error> {
        Ok(self.supertypes(sub)?.contains(sup))
    }

    /// Whether a call to `ancestor` at `candidate` may dispatch to an
    /// override declared in `own_class`. `super.m()` never does. A call on
    /// `this` (written or implicit) from a class that inherits `ancestor`
    /// does only if that class is a supertype or a subtype of
    /// `own_class`. Any other receiver may hold an instance of
    /// `own_class`.
    fn dispatch_may_reach(
        &mut self,
        candidate: &Candidate,
        ancestor: &str,
        own_class: &str,
    ) -> Result<bool, Error> {
        let facts = &candidate.file.facts;
        let Some(site) = facts.ref_sites.get(candidate.site as usize) else {
            return Ok(true);
        };
        match site.receiver {
            ExprShape::Super | ExprShape::QualifiedSuper => Ok(false),
            ExprShape::Implicit | ExprShape::This if site.enclosing != NO_ELEMENT => {
                let Some(this_type) = facts.enclosing_type(site.enclosing) else {
                    return Ok(true);
                };
                let this_type = facts.elements[this_type as usize].binary_name.clone();
                // An implicit call in an inner class may be on an outer
                // instance: only a class that inherits the method itself
                // is known to be the receiver.
                if !self.is_subtype(&this_type, owner_of(ancestor))? {
                    return Ok(true);
                }
                Ok(self.is_subtype(&this_type, own_class)?
                    || self.is_subtype(own_class, &this_type)?)
            }
            _ => Ok(true),
        }
    }
}

/// The type part of a member id (`p.A` of `p.A#m(int)`).
fn owner_of(id: &str) -> &str {
    id.split_once('#').map_or(id, |(owner, _)| owner)
}

/// Binary names a written type name can mean, most literal first:
/// `p.Outer.Inner`, then `p.Outer$Inner`, `p$Outer$Inner`.
fn binary_name_candidates(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    let mut current = name.to_string();
    while let Some(dot) = current.rfind('.') {
        current.replace_range(dot..=dot, "$");
        out.push(current.clone());
    }
    out
}

fn split_params(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split(',').map(str::to_string).collect()
    }
}

/// Whether parameter types as given fit a declaration's: each equal, or a
/// trailing part of the qualified name (`String` for `java.lang.String`,
/// `Map.Entry` for `java.util.Map$Entry`).
fn params_fit(given: &[String], declared: &[String]) -> bool {
    given.len() == declared.len()
        && given.iter().zip(declared).all(|(g, d)| {
            let (g, d) = (g.replace('$', "."), d.replace('$', "."));
            g == d || d.ends_with(&format!(".{g}"))
        })
}

/// Hits sorted by position, each site once.
fn sorted_hits(mut hits: Vec<RefHit>) -> Vec<RefHit> {
    hits.sort_by(|a, b| {
        (&a.path, a.line, a.col, &a.target, &a.via)
            .cmp(&(&b.path, b.line, b.col, &b.target, &b.via))
    });
    hits.dedup_by(|a, b| {
        (&a.path, a.line, a.col, &a.target) == (&b.path, b.line, b.col, &b.target)
    });
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_type_names_become_binary_names() {
        assert_eq!(
            binary_name_candidates("p.Outer.Inner"),
            ["p.Outer.Inner", "p.Outer$Inner", "p$Outer$Inner"]
        );
        assert_eq!(binary_name_candidates("A"), ["A"]);
    }

    #[test]
    fn parameter_types_fit_by_simple_or_qualified_name() {
        let declared = split_params("java.lang.String,int,java.util.Map$Entry");
        assert!(params_fit(&split_params("String,int,Map.Entry"), &declared));
        assert!(params_fit(
            &split_params("java.lang.String,int,java.util.Map$Entry"),
            &declared
        ));
        assert!(params_fit(&split_params("String,int,Entry"), &declared));
        assert!(!params_fit(&split_params("String,long,Entry"), &declared));
        assert!(!params_fit(&split_params("String,int"), &declared));
        assert!(!params_fit(&split_params("ng,int,Entry"), &declared));
    }
}
