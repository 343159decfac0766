//! The structure of a revision: members and owners of elements, direct
//! supertypes and overridden methods, and elements found by kind, name,
//! package and path.
//!
//! ```no_run
//! use refscope_engine::{ElementKind, ElementSearch, Snapshot, Store};
//!
//! let store = Store::open_existing("/repo/.git/refscope".as_ref())?;
//! let snapshot = Snapshot::new(&store, Snapshot::pick_revision(&store, None, None)?)?;
//! let search = ElementSearch {
//!     kinds: vec![ElementKind::Method],
//!     name: Some("get*".into()),
//!     package: Some("com.acme".into()),
//!     ..ElementSearch::default()
//! };
//! for view in snapshot.search_elements(&search)? {
//!     println!("{}", view.record.element_id);
//! }
//! # Ok::<(), refscope_engine::Error>(())
//! ```

use std::collections::HashMap;

use super::{ElementView, FileEntry, Snapshot};
use crate::error::Error;
use refscope_syntax::facts::ElementKind;

/// Which elements [`Snapshot::search_elements`] finds. Patterns are globs:
/// `*` matches any run of characters (`/` and `.` included), `?` one
/// character; everything else matches itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElementSearch {
    /// The kinds wanted; empty for every kind.
    pub kinds: Vec<ElementKind>,
    /// A pattern the element's simple name matches.
    pub name: Option<String>,
    /// A pattern the element id matches (`com.acme.*#get*`).
    pub id: Option<String>,
    /// A pattern the element's package matches (`com.acme`, `com.acme*`).
    pub package: Option<String>,
    /// A pattern the element's repository-relative file matches.
    pub path: Option<String>,
}

impl Snapshot<'_> {
    /// The elements of the revision that `search` describes, sorted by
    /// file and position.
    pub fn search_elements(&self, search: &ElementSearch) -> Result<Vec<ElementView>, Error> {
        // The literal start of the id or package pattern narrows the scan
        // to a range of the element id index.
        let prefix = match (&search.id, &search.package) {
            (Some(id), _) => literal_prefix(id),
            (None, Some(package)) => literal_prefix(package),
            (None, None) => String::new(),
        };
        let mut high = prefix.clone();
        high.push(char::MAX);
        // Units are shared between revisions: only those of this
        // revision's manifest count, at each path that has them.
        let mut rows = Vec::new();
        for key in self.store.elements_in_id_range(&prefix, &high)? {
            for file in self.files_of_unit(key.unit_id)?.iter() {
                rows.push((
                    file.path.clone(),
                    key.idx,
                    key.element_id.clone(),
                    key.kind,
                    key.name.clone(),
                ));
            }
        }
        let mut wanted: HashMap<String, Vec<u32>> = HashMap::new();
        for (path, idx, id, kind, name) in rows {
            let kind_fits =
                search.kinds.is_empty() || kind.is_some_and(|k| search.kinds.contains(&k));
            let fits = kind_fits
                && search
                    .name
                    .as_deref()
                    .is_none_or(|p| glob_matches(p, &name))
                && search.id.as_deref().is_none_or(|p| id_matches(p, &id))
                && search
                    .package
                    .as_deref()
                    .is_none_or(|p| glob_matches(p, package_of(&id)))
                && search
                    .path
                    .as_deref()
                    .is_none_or(|p| glob_matches(p, &path));
            if fits {
                wanted.entry(path).or_default().push(idx);
            }
        }
        for indices in wanted.values_mut() {
            indices.sort_unstable();
            indices.dedup();
        }
        let mut paths: Vec<String> = wanted.keys().cloned().collect();
        paths.sort();
        let mut out = Vec::new();
        for path in paths {
            let file = self.file(&path)?;
            out.extend(self.views_of(&file, &wanted[&path])?);
        }
        Ok(out)
    }

    /// Every element of a file, in source order.
    pub fn elements_of_file(&self, path: &str) -> Result<Vec<ElementView>, Error> {
        let file = self.file(path)?;
        let data = self.file_data(&file)?;
        Ok(data
            .records
            .iter()
            .zip(&data.facts.elements)
            .map(|(record, element)| ElementView {
                path: path.to_string(),
                record: record.clone(),
                element: element.clone(),
            })
            .collect())
    }

    /// The elements directly inside `view`: a type's fields, methods,
    /// constructors, initializers and nested types; a method's lambdas,
    /// local and anonymous classes.
    pub fn members_of(&self, view: &ElementView) -> Result<Vec<ElementView>, Error> {
        let file = self.file(&view.path)?;
        let data = self.file_data(&file)?;
        let indices: Vec<u32> = data
            .records
            .iter()
            .filter(|r| r.parent_idx == Some(view.record.idx))
            .map(|r| r.idx)
            .collect();
        self.views_of(&file, &indices)
    }

    /// The element directly around `view` (the type of a member, the
    /// method of a lambda), or `None` for a top-level type.
    pub fn owner_of(&self, view: &ElementView) -> Result<Option<ElementView>, Error> {
        let Some(parent) = view.record.parent_idx else {
            return Ok(None);
        };
        let file = self.file(&view.path)?;
        Ok(self.views_of(&file, &[parent])?.into_iter().next())
    }

    /// The views of elements `indices` of a file, in the order given.
    fn views_of(&self, file: &FileEntry, indices: &[u32]) -> Result<Vec<ElementView>, Error> {
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let records = self.records(file)?;
        let facts = self.facts(file)?;
        Ok(indices
            .iter()
            .filter_map(|&idx| {
                Some(ElementView {
                    path: file.path.clone(),
                    record: records.get(idx as usize)?.clone(),
                    element: facts.elements.get(idx as usize)?.clone(),
                })
            })
            .collect())
    }
}

/// Whether `text` matches glob `pattern` (`*` any run, `?` one character).
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point: the last `*` seen.
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Whether element `id` matches id pattern `pattern`: a pattern without a
/// parameter list matches methods and constructors of any parameters.
pub fn id_matches(pattern: &str, id: &str) -> bool {
    if glob_matches(pattern, id) {
        return true;
    }
    let member_part = pattern.split_once('#').map_or("", |(_, m)| m);
    !member_part.contains('(')
        && id
            .find('(')
            .is_some_and(|open| glob_matches(pattern, &id[..open]))
}

/// The package of an element id: the part of its type's binary name
/// before the last dot; empty for the default package.
pub fn package_of(id: &str) -> &str {
    let type_part = id.split_once('#').map_or(id, |(owner, _)| owner);
    type_part
        .rsplit_once('.')
        .map_or("", |(package, _)| package)
}

/// The characters of a glob before its first wildcard.
fn literal_prefix(pattern: &str) -> String {
    pattern
        .chars()
        .take_while(|c| !matches!(c, '*' | '?'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_any_run_and_single_characters() {
        assert!(glob_matches("*Test*", "src/test/java/ShopTest.java"));
        assert!(glob_matches("get*", "getTotal"));
        assert!(!glob_matches("get*", "target"));
        assert!(glob_matches("a?c", "abc"));
        assert!(!glob_matches("a?c", "ac"));
        assert!(glob_matches("*", ""));
        assert!(glob_matches("com.acme.*#*", "com.acme.Shop#order(int)"));
        assert!(!glob_matches("com.acme", "com.acme.shop"));
    }

    #[test]
    fn ids_match_with_or_without_parameters() {
        assert!(id_matches("com.acme.*#order", "com.acme.Shop#order(int)"));
        assert!(id_matches("com.acme.*#ord*", "com.acme.Shop#order(int)"));
        assert!(!id_matches(
            "com.acme.*#order()",
            "com.acme.Shop#order(int)"
        ));
        assert!(id_matches("*#items", "com.acme.Shop#items"));
    }

    #[test]
    fn packages_of_ids() {
        assert_eq!(package_of("com.acme.Shop$Cart#add(int)"), "com.acme");
        assert_eq!(package_of("com.acme.Shop"), "com.acme");
        assert_eq!(package_of("Top#m()"), "");
    }
}
