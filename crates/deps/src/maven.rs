//! Maven's `pom.xml`: the dependencies a POM declares once its parents,
//! properties and `dependencyManagement` (imported BOMs included) are
//! applied, as Maven would see them, without running Maven.
//!
//! Parents are read from `relativePath` (by default `../pom.xml`) when
//! that file is the parent asked for, else from the repositories; BOMs
//! and the POMs of dependencies (for their own dependencies) from the
//! repositories. What cannot be read becomes a warning, never an error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::repos::{Kind, Repositories};

/// How deep parents and BOM imports may nest.
const MAX_DEPTH: usize = 12;

/// A dependency as a POM declares it (before management applies).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RawDep {
    pub(crate) group: String,
    pub(crate) artifact: String,
    pub(crate) version: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) kind: Option<String>,
    pub(crate) optional: bool,
}

/// A POM as written.
#[derive(Debug, Clone, Default)]
struct RawPom {
    group: Option<String>,
    artifact: Option<String>,
    version: Option<String>,
    parent: Option<(String, String, String, Option<String>)>,
    properties: Vec<(String, String)>,
    managed: Vec<RawDep>,
    deps: Vec<RawDep>,
}

/// A POM with its parents applied.
#[derive(Debug, Clone, Default)]
pub(crate) struct Effective {
    /// `groupId` and `artifactId`, inherited and interpolated.
    pub(crate) group: String,
    pub(crate) artifact: String,
    properties: HashMap<String, String>,
    /// Managed versions and scopes by `group:artifact`.
    managed: HashMap<(String, String), (Option<String>, Option<String>)>,
    /// Declared dependencies, the parents' first.
    declared: Vec<RawDep>,
}

/// A dependency with management applied: its version (when known) and
/// scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) group: String,
    pub(crate) artifact: String,
    pub(crate) version: Option<String>,
    pub(crate) scope: String,
    pub(crate) optional: bool,
}

fn text_of(node: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
        .and_then(|c| c.text())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn deps_of(node: Option<roxmltree::Node<'_, '_>>) -> Vec<RawDep> {
    let Some(list) = node.and_then(|n| child(n, "dependencies")) else {
        return Vec::new();
    };
    list.children()
        .filter(|c| c.is_element() && c.tag_name().name() == "dependency")
        .filter_map(|d| {
            Some(RawDep {
                group: text_of(d, "groupId")?,
                artifact: text_of(d, "artifactId")?,
                version: text_of(d, "version"),
                scope: text_of(d, "scope"),
                kind: text_of(d, "type"),
                optional: text_of(d, "optional").is_some_and(|o| o == "true"),
            })
        })
        .collect()
}

fn parse(text: &str) -> Result<RawPom, String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| e.to_string())?;
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err(format!(
            "the root element is <{}>, not <project>",
            project.tag_name().name()
        ));
    }
    let parent = child(project, "parent").and_then(|p| {
        Some((
            text_of(p, "groupId")?,
            text_of(p, "artifactId")?,
            text_of(p, "version")?,
            text_of(p, "relativePath"),
        ))
    });
    let properties = child(project, "properties")
        .map(|props| {
            props
                .children()
                .filter(|c| c.is_element())
                .map(|c| {
                    let value = c.text().unwrap_or("").trim().to_string();
                    (c.tag_name().name().to_string(), value)
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(RawPom {
        group: text_of(project, "groupId"),
        artifact: text_of(project, "artifactId"),
        version: text_of(project, "version"),
        parent,
        properties,
        managed: deps_of(child(project, "dependencyManagement")),
        deps: deps_of(Some(project)),
    })
}

/// `text` with `${name}` replaced by the properties' values, nested ones
/// too; unknown names are left as written.
pub(crate) fn interpolate(text: &str, properties: &HashMap<String, String>) -> String {
    let mut out = text.to_string();
    for _ in 0..8 {
        if !out.contains("${") {
            break;
        }
        let mut next = String::with_capacity(out.len());
        let mut rest = &out[..];
        let mut changed = false;
        while let Some(open) = rest.find("${") {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let name = &rest[open + 2..open + close];
            next.push_str(&rest[..open]);
            match properties.get(name) {
                Some(value) => {
                    next.push_str(value);
                    changed = true;
                }
                None => next.push_str(&rest[open..=open + close]),
            }
            rest = &rest[open + close + 1..];
        }
        next.push_str(rest);
        out = next;
        if !changed {
            break;
        }
    }
    out
}

/// Reads POMs and works out their effective dependencies, keeping what it
/// read.
pub(crate) struct Poms<'r> {
    repos: &'r Repositories,
    read: HashMap<PathBuf, Option<Effective>>,
    pub(crate) warnings: Vec<String>,
}

impl<'r> Poms<'r> {
    pub(crate) fn new(repos: &'r Repositories) -> Self {
        Self {
            repos,
            read: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The POM at `path` with its parents applied; `None` (and a warning)
    /// when it cannot be read.
    pub(crate) fn effective(&mut self, path: &Path) -> Option<Effective> {
        self.effective_at(path, 0)
    }

    fn effective_at(&mut self, path: &Path, depth: usize) -> Option<Effective> {
        if let Some(known) = self.read.get(path) {
            return known.clone();
        }
        // Marks the POM while it is worked out: a parent cycle ends here.
        self.read.insert(path.to_path_buf(), None);
        let found = self.work_out(path, depth);
        self.read.insert(path.to_path_buf(), found.clone());
        found
    }

    fn work_out(&mut self, path: &Path, depth: usize) -> Option<Effective> {
        if depth > MAX_DEPTH {
            self.warnings.push(format!(
                "{}: parents and imports nest too deep",
                path.display()
            ));
            return None;
        }
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                self.warnings.push(format!("{}: {e}", path.display()));
                return None;
            }
        };
        let raw = match parse(&text) {
            Ok(raw) => raw,
            Err(e) => {
                self.warnings
                    .push(format!("{}: not a POM: {e}", path.display()));
                return None;
            }
        };
        let mut effective = match &raw.parent {
            Some(parent) => self.parent(path, parent, depth).unwrap_or_default(),
            None => Effective::default(),
        };
        let parent_version = raw.parent.as_ref().map(|p| p.2.clone());
        let parent_group = raw.parent.as_ref().map(|p| p.0.clone());
        let group = raw
            .group
            .clone()
            .or(parent_group.clone())
            .unwrap_or_default();
        let version = raw
            .version
            .clone()
            .or(parent_version.clone())
            .unwrap_or_default();
        let artifact = raw.artifact.clone().unwrap_or_default();
        let properties = &mut effective.properties;
        for (name, value) in &raw.properties {
            properties.insert(name.clone(), value.clone());
        }
        for prefix in ["project.", "pom.", ""] {
            properties.insert(format!("{prefix}groupId"), group.clone());
            properties.insert(format!("{prefix}artifactId"), artifact.clone());
            properties.insert(format!("{prefix}version"), version.clone());
        }
        if let (Some(g), Some(v)) = (&parent_group, &parent_version) {
            properties.insert("project.parent.groupId".into(), g.clone());
            properties.insert("project.parent.version".into(), v.clone());
        }
        effective.group = interpolate(&group, &effective.properties);
        effective.artifact = interpolate(&artifact, &effective.properties);
        // Own management first, so that it wins over what BOMs import.
        let mut imports = Vec::new();
        for dep in &raw.managed {
            let dep = self.interpolated(dep, &effective.properties);
            if dep.scope.as_deref() == Some("import") && dep.kind.as_deref() == Some("pom") {
                imports.push(dep);
                continue;
            }
            effective
                .managed
                .insert((dep.group, dep.artifact), (dep.version, dep.scope));
        }
        for bom in imports {
            let Some(version) = bom.version.clone() else {
                continue;
            };
            let Some(located) = self
                .repos
                .locate(&bom.group, &bom.artifact, &version, Kind::Pom)
            else {
                self.warnings.push(format!(
                    "{}: BOM {}:{}:{version} is not in {}",
                    path.display(),
                    bom.group,
                    bom.artifact,
                    self.repos.describe()
                ));
                continue;
            };
            if let Some(why) = &located.substituted {
                self.warnings.push(format!(
                    "{}: BOM {}:{}: {why}",
                    path.display(),
                    bom.group,
                    bom.artifact
                ));
            }
            if let Some(imported) = self.effective_at(&located.path, depth + 1) {
                for (key, value) in imported.managed {
                    effective.managed.entry(key).or_insert(value);
                }
            }
        }
        effective.declared.extend(raw.deps.iter().cloned());
        Some(effective)
    }

    /// The effective parent of the POM at `path`.
    fn parent(
        &mut self,
        path: &Path,
        (group, artifact, version, relative): &(String, String, String, Option<String>),
        depth: usize,
    ) -> Option<Effective> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut local = dir.join(relative.as_deref().unwrap_or("../pom.xml"));
        if local.is_dir() {
            local = local.join("pom.xml");
        }
        if local.is_file()
            && let Ok(text) = std::fs::read_to_string(&local)
            && let Ok(raw) = parse(&text)
            && raw.artifact.as_deref() == Some(artifact.as_str())
        {
            return self.effective_at(&local, depth + 1);
        }
        match self.repos.locate(group, artifact, version, Kind::Pom) {
            Some(located) => {
                if let Some(why) = &located.substituted {
                    self.warnings.push(format!(
                        "{}: parent {group}:{artifact}: {why}",
                        path.display()
                    ));
                }
                self.effective_at(&located.path, depth + 1)
            }
            None => {
                self.warnings.push(format!(
                    "{}: parent {group}:{artifact}:{version} is neither at {} nor in {}",
                    path.display(),
                    local.display(),
                    self.repos.describe()
                ));
                None
            }
        }
    }

    fn interpolated(&self, dep: &RawDep, properties: &HashMap<String, String>) -> RawDep {
        RawDep {
            group: interpolate(&dep.group, properties),
            artifact: interpolate(&dep.artifact, properties),
            version: dep.version.as_deref().map(|v| interpolate(v, properties)),
            scope: dep.scope.as_deref().map(|s| interpolate(s, properties)),
            kind: dep.kind.clone(),
            optional: dep.optional,
        }
    }

    /// The dependencies `effective` declares, management applied; a
    /// version that names an unknown property is `None`.
    pub(crate) fn declared(&self, effective: &Effective) -> Vec<Declared> {
        let mut out: Vec<Declared> = Vec::new();
        for dep in &effective.declared {
            let dep = self.interpolated(dep, &effective.properties);
            if dep
                .kind
                .as_deref()
                .is_some_and(|k| k != "jar" && k != "test-jar" && k != "bundle")
                || dep.group.contains("${")
                || dep.artifact.contains("${")
            {
                continue;
            }
            let managed = effective
                .managed
                .get(&(dep.group.clone(), dep.artifact.clone()));
            let version = dep
                .version
                .clone()
                .or_else(|| managed.and_then(|m| m.0.clone()))
                .filter(|v| !v.contains("${"));
            let scope = dep
                .scope
                .clone()
                .or_else(|| managed.and_then(|m| m.1.clone()))
                .unwrap_or_else(|| "compile".to_string());
            // A child's declaration replaces its parent's.
            out.retain(|d| (&d.group, &d.artifact) != (&dep.group, &dep.artifact));
            out.push(Declared {
                group: dep.group,
                artifact: dep.artifact,
                version,
                scope,
                optional: dep.optional,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_nest_and_unknown_ones_stay() {
        let props: HashMap<String, String> = [
            ("a".to_string(), "1.${b}".to_string()),
            ("b".to_string(), "2".to_string()),
        ]
        .into_iter()
        .collect();
        assert_eq!(interpolate("v${a}-${c}", &props), "v1.2-${c}");
        assert_eq!(interpolate("plain", &props), "plain");
    }

    #[test]
    fn a_pom_that_is_not_one_is_refused() {
        assert!(parse("<settings/>").unwrap_err().contains("<settings>"));
        assert!(parse("<project>").is_err());
    }
}
