//! The walks behind the reference graph's answers: files loaded with
//! their resolutions, the global index read for one revision, hierarchies
//! followed through the override links.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use refscope_resolve::{FileResolution, ResolvedRef};
use refscope_store::FileEntry;
use refscope_syntax::facts::{ElementKind, ExprShape, NO_ELEMENT};

use super::Snapshot;
use super::answers::{FoundElement, RefHit};
use super::data::ElementView;
use super::data::FileData;
use crate::error::Error;

/// How many ids an unknown-element error suggests at most.
const MAX_SUGGESTIONS: usize = 8;

/// A file with its resolution decoded: everything the graph needs of it.
#[derive(Clone)]
pub(super) struct LoadedFile(Arc<FileData>);

/// A site found while walking, with its file kept for later checks.
pub(super) struct Candidate {
    pub(super) file: LoadedFile,
    pub(super) site: u32,
    pub(super) hit: RefHit,
}

impl Deref for LoadedFile {
    type Target = FileData;

    fn deref(&self) -> &FileData {
        &self.0
    }
}

impl LoadedFile {
    pub(super) fn resolution(&self) -> &FileResolution {
        self.0
            .resolution
            .get()
            .expect("Walk::load decodes the resolution of every file it returns")
    }

    pub(super) fn view(&self, idx: u32) -> Option<ElementView> {
        Some(ElementView {
            path: self.entry.path.clone(),
            record: self.records.get(idx as usize)?.clone(),
            element: self.facts.elements.get(idx as usize)?.clone(),
        })
    }

    pub(super) fn element_id(&self, idx: u32) -> Option<String> {
        (idx != NO_ELEMENT)
            .then(|| self.records.get(idx as usize))
            .flatten()
            .map(|r| r.element_id.clone())
    }

    pub(super) fn hit(
        &self,
        snapshot: &Snapshot<'_>,
        r: &ResolvedRef,
        via: Option<String>,
    ) -> Option<RefHit> {
        let site = self.facts.ref_sites.get(r.site as usize)?;
        let named = if site.enclosing == NO_ELEMENT {
            None
        } else {
            self.facts
                .ancestry(site.enclosing)
                .find(|&i| self.facts.elements[i as usize].kind != ElementKind::Lambda)
        };
        let spot = r.decl_file.as_ref().map(|_| snapshot.target_spot(r));
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
            decl_line: spot.map(|s| s.line).filter(|&line| line > 0),
            alternatives: r.alternatives.clone(),
            injection: None,
            target_origin: spot.map(|s| s.origin).unwrap_or_default(),
        })
    }

    pub(super) fn refs_where(
        &self,
        snapshot: &Snapshot<'_>,
        keep: impl Fn(&ResolvedRef) -> bool,
    ) -> Vec<RefHit> {
        self.resolution()
            .refs
            .iter()
            .filter(|r| keep(r))
            .filter_map(|r| self.hit(snapshot, r, None))
            .collect()
    }
}

/// One walk over the graph: the snapshot (whose cache keeps the files
/// read) plus the supertypes worked out so far.
pub(super) struct Walk<'a, 's> {
    snapshot: &'a Snapshot<'s>,
    supertypes: HashMap<String, Rc<HashSet<String>>>,
}

impl<'a, 's> Walk<'a, 's> {
    pub(super) fn new(snapshot: &'a Snapshot<'s>) -> Self {
        Self {
            snapshot,
            supertypes: HashMap::new(),
        }
    }

    /// The snapshot walked.
    pub(super) fn snapshot(&self) -> &'a Snapshot<'s> {
        self.snapshot
    }

    pub(super) fn load(&mut self, file: &FileEntry) -> Result<LoadedFile, Error> {
        let data = self.snapshot.file_data(file)?;
        self.snapshot.file_resolution(&data)?;
        Ok(LoadedFile(data))
    }

    /// Keeps the `(text, unit)` rows whose unit the revision holds.
    pub(super) fn rows_in_revision(
        &self,
        rows: Vec<(String, i64)>,
    ) -> Result<Vec<(String, i64)>, Error> {
        let mut kept = Vec::with_capacity(rows.len());
        for (text, unit) in rows {
            if !self.snapshot.files_of_unit(unit)?.is_empty() {
                kept.push((text, unit));
            }
        }
        Ok(kept)
    }

    /// Units of the revision with a site targeting exactly `target`.
    pub(super) fn posting_units(&self, target: &str) -> Result<Vec<i64>, Error> {
        Ok(self
            .rows_in_revision(self.snapshot.store.postings_of(target)?)?
            .into_iter()
            .map(|(_, unit)| unit)
            .collect())
    }

    /// Posted targets in `[low, high)` with their units, in the revision.
    pub(super) fn posting_targets_in_range(
        &self,
        low: &str,
        high: &str,
    ) -> Result<Vec<(String, i64)>, Error> {
        self.rows_in_revision(self.snapshot.store.postings_in_range(low, high)?)
    }

    /// Override targets in `[low, high)` with the overriding units, in the
    /// revision.
    pub(super) fn override_targets_in_range(
        &self,
        low: &str,
        high: &str,
    ) -> Result<Vec<(String, i64)>, Error> {
        self.rows_in_revision(self.snapshot.store.overrides_in_range(low, high)?)
    }

    /// Elements of the revision that directly override method `target` or
    /// extend type `target`, as `(unit, element index)`.
    pub(super) fn overriding_elements(&self, target: &str) -> Result<Vec<(i64, u32)>, Error> {
        let rows = self.snapshot.store.overriding_elements(target)?;
        let mut kept = Vec::with_capacity(rows.len());
        for (unit, idx) in rows {
            if !self.snapshot.files_of_unit(unit)?.is_empty() {
                kept.push((unit, idx));
            }
        }
        Ok(kept)
    }

    pub(super) fn declarations(&self, id: &str) -> Result<Vec<(FileEntry, u32)>, Error> {
        self.snapshot.declarations_of(id)
    }

    /// Declared ids in `[low, high)` with their kinds, in the revision.
    pub(super) fn declared_ids_in_range(
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
    pub(super) fn is_declared(
        &self,
        id: &str,
        want: impl Fn(ElementKind) -> bool,
    ) -> Result<bool, Error> {
        for (kind, unit) in self.snapshot.store.element_kinds_with_id(id)? {
            if kind.is_some_and(&want) && !self.snapshot.files_of_unit(unit)?.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether a site of the revision targets `id`, or an element of it
    /// overrides or extends `id`.
    pub(super) fn is_referenced(&self, id: &str) -> Result<bool, Error> {
        if !self.posting_units(id)?.is_empty() {
            return Ok(true);
        }
        Ok(!self.overriding_elements(id)?.is_empty())
    }

    /// The ids a type name can mean: itself if declared or referenced.
    pub(super) fn type_matches(&self, name: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn member_matches(&self, owner: &str, member: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn found(&mut self, id: &str) -> Result<FoundElement, Error> {
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
    pub(super) fn nearest_ids(
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
    pub(super) fn ids_named(&self, name: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn supertypes_nearest_first(&mut self, name: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn sites_targeting(
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
                    if let Some(hit) = loaded.hit(self.snapshot, r, via.map(str::to_string)) {
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
    pub(super) fn overridden_transitively(&mut self, id: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn direct_supers(&mut self, id: &str) -> Result<Vec<String>, Error> {
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
    pub(super) fn supertypes(&mut self, name: &str) -> Result<Rc<HashSet<String>>, Error> {
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

    pub(super) fn is_subtype(&mut self, sub: &str, sup: &str) -> Result<bool, Error> {
        Ok(self.supertypes(sub)?.contains(sup))
    }

    /// Whether a call to `ancestor` at `candidate` may dispatch to an
    /// override declared in `own_class`. `super.m()` never does. A call on
    /// `this` (written or implicit) from a class that inherits `ancestor`
    /// does only if that class is a supertype or a subtype of
    /// `own_class`. Any other receiver may hold an instance of
    /// `own_class`.
    pub(super) fn dispatch_may_reach(
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
pub(super) fn owner_of(id: &str) -> &str {
    id.split_once('#').map_or(id, |(owner, _)| owner)
}

/// Binary names a written type name can mean, most literal first:
/// `p.Outer.Inner`, then `p.Outer$Inner`, `p$Outer$Inner`.
pub(super) fn binary_name_candidates(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    let mut current = name.to_string();
    while let Some(dot) = current.rfind('.') {
        current.replace_range(dot..=dot, "$");
        out.push(current.clone());
    }
    out
}

pub(super) fn split_params(text: &str) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split(',').map(str::to_string).collect()
    }
}

/// Whether parameter types as given fit a declaration's: each equal, or a
/// trailing part of the qualified name (`String` for `java.lang.String`,
/// `Map.Entry` for `java.util.Map$Entry`).
pub(super) fn params_fit(given: &[String], declared: &[String]) -> bool {
    given.len() == declared.len()
        && given.iter().zip(declared).all(|(g, d)| {
            let (g, d) = (g.replace('$', "."), d.replace('$', "."));
            g == d || d.ends_with(&format!(".{g}"))
        })
}

/// Hits sorted by position, each site once.
pub(super) fn sorted_hits(mut hits: Vec<RefHit>) -> Vec<RefHit> {
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
    pub(super) fn nested_type_names_become_binary_names() {
        assert_eq!(
            binary_name_candidates("p.Outer.Inner"),
            ["p.Outer.Inner", "p.Outer$Inner", "p$Outer$Inner"]
        );
        assert_eq!(binary_name_candidates("A"), ["A"]);
    }

    #[test]
    pub(super) fn parameter_types_fit_by_simple_or_qualified_name() {
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
