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

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, OnceLock};

use refscope_resolve::{Confidence, RefTargetKind};
use refscope_store::FileEntry;
use refscope_syntax::facts::{ElementKind, NO_ELEMENT, RefSite};

use super::Snapshot;
use super::answers::{CallersConfig, FoundElement, Implementation, RefHit};
use super::data::ElementView;
use super::walk::{Candidate, LoadedFile, Walk, binary_name_candidates, owner_of, sorted_hits};
use crate::error::Error;

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
        let data = self.file_data(&file)?;
        let (facts, records) = (&data.facts, &data.records);
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
        let own_class = owner_of(id);
        let mut reached = walk.sites_targeting(id, None)?;
        if config.polymorphic {
            for ancestor in walk.overridden_transitively(id)? {
                for candidate in walk.sites_targeting(&ancestor, Some(&ancestor))? {
                    if walk.dispatch_may_reach(&candidate, &ancestor, own_class)? {
                        reached.push(candidate);
                    }
                }
            }
        }
        let runs = OnceLock::new();
        let mut hits: Vec<RefHit> = Vec::with_capacity(reached.len());
        for Candidate {
            file,
            site,
            mut hit,
        } in reached
        {
            self.mark_injection(&mut walk, &file, site, id, &runs, &mut hit)?;
            hits.push(hit);
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
            let hits = self.hits_with_injections(&mut walk, &loaded, |site| {
                site.enclosing != NO_ELEMENT
                    && loaded.facts.ancestry(site.enclosing).any(|a| a == idx)
            })?;
            out.push(sorted_hits(hits));
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
        let hits = self.hits_with_injections(&mut walk, &loaded, |site| {
            (start..=end).contains(&site.pos.line)
        })?;
        Ok(sorted_hits(hits))
    }

    /// The hits of `file`'s sites that `keep` keeps, a call through a
    /// Spring injection point marked with it.
    fn hits_with_injections(
        &self,
        walk: &mut Walk<'_, '_>,
        file: &LoadedFile,
        keep: impl Fn(&RefSite) -> bool,
    ) -> Result<Vec<RefHit>, Error> {
        let mut hits = Vec::new();
        for r in &file.resolution().refs {
            if !file.facts.ref_sites.get(r.site as usize).is_some_and(&keep) {
                continue;
            }
            let Some(mut hit) = file.hit(self, r, None) else {
                continue;
            };
            if r.kind == RefTargetKind::Call
                && let Some((injection, _)) = self.injection_at(walk, file, r.site)?
            {
                hit.injection = Some(injection);
            }
            hits.push(hit);
        }
        Ok(hits)
    }

    /// Whether method `id` is declared in the sources with a body (not
    /// abstract, not an interface's method without `default`).
    pub(super) fn has_body(&self, id: &str) -> Result<bool, Error> {
        let Some((file, idx)) = self.declarations_of(id)?.into_iter().next() else {
            return Ok(false);
        };
        let data = self.file_data(&file)?;
        let facts = &data.facts;
        let Some(method) = facts.elements.get(idx as usize) else {
            return Ok(false);
        };
        if method.kind != ElementKind::Method {
            return Ok(method.kind == ElementKind::Constructor);
        }
        let in_interface = facts.elements.get(method.parent as usize).is_some_and(|p| {
            matches!(p.kind, ElementKind::Interface | ElementKind::AnnotationType)
        });
        let m = method.modifiers;
        Ok(if in_interface {
            m.has("default") || m.has("static") || m.has("private")
        } else {
            !m.has("abstract")
        })
    }

    /// Marks a caller of method `id` that calls through an injection
    /// point whose beans include its class (or a subclass of it): a guess
    /// when the point takes several, none of them primary. A call through
    /// a point reaches a bean's method, not an abstract one its class
    /// implements: whether `id` has a body is asked once, into `runs`,
    /// when a first call through a point is met.
    pub(super) fn mark_injection(
        &self,
        walk: &mut Walk<'_, '_>,
        file: &LoadedFile,
        site: u32,
        id: &str,
        runs: &OnceLock<bool>,
        hit: &mut RefHit,
    ) -> Result<(), Error> {
        if hit.kind != RefTargetKind::Call {
            return Ok(());
        }
        let Some((injection, classes)) = self.injection_at(walk, file, site)? else {
            return Ok(());
        };
        let body = match runs.get() {
            Some(&body) => body,
            None => {
                let body = self.has_body(id)?;
                let _ = runs.set(body);
                body
            }
        };
        if !body {
            return Ok(());
        }
        let own_class = owner_of(id);
        let mut reaches = false;
        for class in &classes {
            if class.replace('$', ".") == own_class.replace('$', ".")
                || walk.is_subtype(class, own_class)?
            {
                reaches = true;
                break;
            }
        }
        if reaches {
            if injection.candidates > 1 && !injection.many {
                hit.confidence = Confidence::Ambiguous;
            }
            hit.injection = Some(injection);
        }
        Ok(())
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
                hits.extend(loaded.refs_where(self, |r| {
                    r.confidence != Confidence::Unresolved && r.owner == id
                }));
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
            for file in self.files_of_unit(unit)?.iter() {
                out.push((file.clone(), idx));
            }
        }
        out.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        Ok(out)
    }
}
