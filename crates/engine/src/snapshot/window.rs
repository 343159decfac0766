//! Callers a window at a time: how many there are, and the ones at some
//! positions of the list, without reading every file that calls.
//!
//! The reference index keeps with each posting how the unit's sites of the
//! target read ([`SiteCounts`](refscope_store::SiteCounts)): how many, how
//! many call on `super`, how many on `this`. That counts an element's
//! callers file by file without reading the files: every site of the
//! element itself calls it; a site of a method it overrides calls it
//! unless it calls on `super`, and when it calls on `this`, only the file
//! can say (see [`Walk::dispatch_may_reach`]). A window then reads only
//! the files it falls in, and the files with such calls on `this`.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use refscope_store::FileEntry;

use super::Snapshot;
use super::answers::{CallersConfig, RefHit};
use super::plan::{CallerPlan, PlannedFile};
use super::walk::{Candidate, Walk, owner_of, sorted_hits};
use crate::error::Error;

impl CallerPlan {
    /// The callers in `file`, as [`Snapshot::callers`] lists them.
    fn hits_in(&self, walk: &mut Walk<'_, '_>, file: &FileEntry) -> Result<Vec<RefHit>, Error> {
        let loaded = walk.load(file)?;
        let mut hits = Vec::new();
        for r in &loaded.resolution().refs {
            let Some(target) = r.target_id() else {
                continue;
            };
            for (wanted, via) in &self.targets {
                if *wanted != target {
                    continue;
                }
                let Some(mut hit) = loaded.hit(walk.snapshot(), r, via.clone()) else {
                    continue;
                };
                let reaches = match via {
                    None => true,
                    Some(ancestor) => {
                        let candidate = Candidate {
                            file: loaded.clone(),
                            site: r.site,
                            hit: hit.clone(),
                        };
                        walk.dispatch_may_reach(&candidate, ancestor, &self.own_class)?
                    }
                };
                if reaches {
                    let snapshot = walk.snapshot();
                    snapshot
                        .mark_injection(walk, &loaded, r.site, &self.id, &self.runs, &mut hit)?;
                    hits.push(hit);
                }
            }
        }
        Ok(sorted_hits(hits))
    }
}

impl Snapshot<'_> {
    /// The callers of `id` that [`Self::callers`] lists in files `shown`
    /// keeps, only those at positions `range` of that list, and how many
    /// there are in all. Unless the whole list is known already, only the
    /// files the window falls in are read (and those whose calls on
    /// `this` decide which overrides they reach), so the first window of
    /// a method with thousands of callers costs what it shows.
    pub fn callers_window(
        &self,
        id: &str,
        config: &CallersConfig,
        shown: &dyn Fn(&str) -> bool,
        range: Range<usize>,
    ) -> Result<(Vec<RefHit>, usize), Error> {
        if let Some(all) = self.cache.callers(id, config.polymorphic) {
            return Ok(window_of(&all, shown, range));
        }
        let plan = self.caller_plan(id, config)?;
        let listed = plan.files.iter().filter(|f| shown(&f.entry.path));
        let total = listed.clone().map(|f| f.callers).sum();
        let mut walk = Walk::new(self);
        let mut hits = Vec::new();
        let mut start = 0;
        for PlannedFile {
            entry: file,
            callers: n,
            ..
        } in listed
        {
            let end = start + n;
            if start >= range.end {
                break;
            }
            if end > range.start {
                let in_file = plan.hits_in(&mut walk, file)?;
                if in_file.len() != *n {
                    // The counts kept with the index do not describe the
                    // file (a store changed behind refscope's back): the
                    // whole list is read instead. Tests must never get
                    // here.
                    debug_assert!(
                        false,
                        "{}: {n} callers counted, {} read",
                        file.path,
                        in_file.len()
                    );
                    let all = self.callers_shared(id, config)?;
                    return Ok(window_of(&all, shown, range));
                }
                let from = range.start.saturating_sub(start);
                let to = (range.end - start).min(*n);
                hits.extend_from_slice(&in_file[from.min(to)..to]);
            }
            start = end;
        }
        Ok((hits, total))
    }

    /// The callers of `id` in files `shown` keeps that this revision has
    /// and `base` has not, and those `base` has and this one has not, each
    /// in [`Self::callers`]' order; two callers are the same when their
    /// files and calling elements are (lines move). Only files whose
    /// resolution differs between the two revisions are read (and those
    /// whose calls on `this` make the count depend on the revision): a file
    /// with the same unit in both calls the same way.
    pub fn callers_gained_and_lost(
        &self,
        base: &Snapshot<'_>,
        id: &str,
        config: &CallersConfig,
        shown: &dyn Fn(&str) -> bool,
    ) -> Result<(Vec<RefHit>, Vec<RefHit>), Error> {
        let (head_plan, base_plan) = (self.caller_plan(id, config)?, base.caller_plan(id, config)?);
        if head_plan.targets != base_plan.targets {
            // The element overrides other methods than it did: every
            // file's callers may differ.
            let head = self.callers_shared(id, config)?;
            let old = base.callers_shared(id, config)?;
            let listed =
                |hits: &[RefHit]| hits.iter().filter(|h| shown(&h.path)).cloned().collect();
            return Ok(gained_and_lost(listed(&head), listed(&old)));
        }
        let mut by_path: BTreeMap<&str, (Option<&PlannedFile>, Option<&PlannedFile>)> =
            BTreeMap::new();
        for file in head_plan.files.iter().filter(|f| shown(&f.entry.path)) {
            by_path.entry(&file.entry.path).or_default().0 = Some(file);
        }
        for file in base_plan.files.iter().filter(|f| shown(&f.entry.path)) {
            by_path.entry(&file.entry.path).or_default().1 = Some(file);
        }
        let (mut head_walk, mut base_walk) = (Walk::new(self), Walk::new(base));
        let (mut gained, mut lost) = (Vec::new(), Vec::new());
        for (head, old) in by_path.into_values() {
            if let (Some(h), Some(b)) = (head, old)
                && h.entry.unit_id == b.entry.unit_id
                && !h.read
                && !b.read
            {
                continue;
            }
            let head = match head {
                Some(file) => head_plan.hits_in(&mut head_walk, &file.entry)?,
                None => Vec::new(),
            };
            let old = match old {
                Some(file) => base_plan.hits_in(&mut base_walk, &file.entry)?,
                None => Vec::new(),
            };
            let (g, l) = gained_and_lost(head, old);
            gained.extend(g);
            lost.extend(l);
        }
        Ok((gained, lost))
    }

    /// Where the callers of `id` are: kept in the revision's cache.
    fn caller_plan(&self, id: &str, config: &CallersConfig) -> Result<Arc<CallerPlan>, Error> {
        if let Some(plan) = self.cache.caller_plan(id, config.polymorphic) {
            return Ok(plan);
        }
        let mut walk = Walk::new(self);
        let mut targets = vec![(id.to_string(), None)];
        if config.polymorphic {
            for ancestor in walk.overridden_transitively(id)? {
                targets.push((ancestor.clone(), Some(ancestor)));
            }
        }
        // Per path: the file, its callers as counted, and whether only the
        // file can count them.
        let mut files: BTreeMap<String, (FileEntry, usize, bool)> = BTreeMap::new();
        for (target, via) in &targets {
            for (unit, counts) in self.store.postings_with_counts(target)? {
                for file in self.files_of_unit(unit)?.iter() {
                    let slot = files
                        .entry(file.path.clone())
                        .or_insert_with(|| (file.clone(), 0, false));
                    match via {
                        None => slot.1 += counts.sites as usize,
                        Some(_) if counts.on_this == 0 => {
                            slot.1 += counts.sites.saturating_sub(counts.on_super) as usize;
                        }
                        Some(_) => slot.2 = true,
                    }
                }
            }
        }
        let mut plan = CallerPlan {
            targets,
            own_class: owner_of(id).to_string(),
            id: id.to_string(),
            runs: std::sync::OnceLock::new(),
            files: Vec::with_capacity(files.len()),
        };
        for (_, (entry, counted, read)) in files {
            let callers = match read {
                true => plan.hits_in(&mut walk, &entry)?.len(),
                false => counted,
            };
            if callers > 0 {
                plan.files.push(PlannedFile {
                    entry,
                    callers,
                    read,
                });
            }
        }
        let plan = Arc::new(plan);
        self.cache
            .keep_caller_plan(id, config.polymorphic, plan.clone());
        Ok(plan)
    }
}

/// The hits of `head` whose file and calling element no hit of `base` has,
/// and the other way round.
fn gained_and_lost(head: Vec<RefHit>, base: Vec<RefHit>) -> (Vec<RefHit>, Vec<RefHit>) {
    fn site(hit: &RefHit) -> (&str, Option<&str>) {
        (&hit.path, hit.enclosing_named.as_deref())
    }
    let head_sites: HashSet<_> = head.iter().map(site).collect();
    let base_sites: HashSet<_> = base.iter().map(site).collect();
    let gained = head
        .iter()
        .filter(|h| !base_sites.contains(&site(h)))
        .cloned()
        .collect();
    let lost = base
        .iter()
        .filter(|b| !head_sites.contains(&site(b)))
        .cloned()
        .collect();
    (gained, lost)
}

/// The hits of `all` in files `shown` keeps, at positions `range` of
/// those, and how many those are.
fn window_of(
    all: &[RefHit],
    shown: &dyn Fn(&str) -> bool,
    range: Range<usize>,
) -> (Vec<RefHit>, usize) {
    let listed = all.iter().filter(|hit| shown(&hit.path));
    let total = listed.clone().count();
    let hits = listed
        .skip(range.start)
        .take(range.end.saturating_sub(range.start))
        .cloned()
        .collect();
    (hits, total)
}
