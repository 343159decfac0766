//! A Java project's dependency jars, found without running its build.
//!
//! [`discover`] reads the build files under a directory — Maven's
//! `pom.xml` (parents, properties, `dependencyManagement` and imported
//! BOMs applied), Gradle's `build.gradle(.kts)` with `gradle.properties`
//! and version catalogs (`gradle/libs.versions.toml`) — and looks each
//! declared dependency up where jars already are on this machine
//! ([`Repositories`]): Maven's local repository, Gradle's module cache,
//! Debian's `/usr/share/maven-repo` and `/usr/share/java`. The
//! dependencies of what it finds follow (compile and runtime scope, as
//! Maven would take them), read from their POMs. Nothing is downloaded and
//! no build runs; a version that is not present is replaced by a version
//! alias or the nearest version present, and the report says so.

#![forbid(unsafe_code)]

mod gradle;
mod maven;
pub mod repos;
pub mod version;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use repos::{Kind, Layout, Repositories, Root};

use gradle::Catalog;
use maven::{Declared, Poms};

/// How many levels of dependencies of dependencies are followed.
const MAX_TRANSITIVE_DEPTH: usize = 8;

/// Directories never searched for build files.
const SKIPPED_DIRS: [&str; 6] = ["target", "build", "node_modules", "out", "bin", "debian"];

/// One dependency and what was found for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// Maven group id.
    pub group: String,
    /// Maven artifact id.
    pub artifact: String,
    /// The version asked for, when the build says one.
    pub version: Option<String>,
    /// Maven scope (`compile`, `provided`, `runtime`, `test`, `system`).
    pub scope: String,
    /// The build file that declares it (relative to the directory
    /// searched), or the dependency whose POM does.
    pub declared_in: String,
    /// What was found.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What was found for a dependency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Outcome {
    /// The jar of the version asked for.
    Found {
        /// The jar.
        jar: PathBuf,
    },
    /// A jar of another version, with why it was taken.
    Substituted {
        /// The jar.
        jar: PathBuf,
        /// Its version.
        used_version: String,
        /// Why.
        why: String,
    },
    /// Nothing; why not.
    Missing {
        /// Why not.
        why: String,
    },
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The build files read, relative to the directory searched.
    pub build_files: Vec<String>,
    /// Each dependency once, the declared ones first, in the order met.
    pub dependencies: Vec<Dependency>,
    /// Build files or POMs that could not be read, versions that could not
    /// be worked out, parents and BOMs taken at another version.
    pub warnings: Vec<String>,
}

impl Report {
    /// The jars found, each once, in the order met.
    pub fn jars(&self) -> Vec<PathBuf> {
        let mut seen = HashSet::new();
        self.dependencies
            .iter()
            .filter_map(|d| match &d.outcome {
                Outcome::Found { jar } | Outcome::Substituted { jar, .. } => Some(jar.clone()),
                Outcome::Missing { .. } => None,
            })
            .filter(|jar| seen.insert(jar.clone()))
            .collect()
    }

    /// How many were found as asked, substituted and missing.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut counts = (0, 0, 0);
        for d in &self.dependencies {
            match d.outcome {
                Outcome::Found { .. } => counts.0 += 1,
                Outcome::Substituted { .. } => counts.1 += 1,
                Outcome::Missing { .. } => counts.2 += 1,
            }
        }
        counts
    }
}

/// The build files under `root`, sorted: `pom.xml`, `build.gradle`,
/// `build.gradle.kts`, outside hidden and build-output directories and
/// those `enters` turns away (given their path).
fn build_files(root: &Path, enters: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < 16
                    && !name.starts_with('.')
                    && !SKIPPED_DIRS.contains(&name.as_str())
                    && enters(&entry.path())
                {
                    dirs.push((entry.path(), depth + 1));
                }
            } else if ["pom.xml", "build.gradle", "build.gradle.kts"].contains(&name.as_str()) {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

/// The dependency jars of the project under `root`, looked up in `repos`.
pub fn discover(root: &Path, repos: &Repositories) -> Report {
    discover_entering(root, repos, &|_| true)
}

/// [`discover`], with the build files of the directories `enters` turns
/// away (given their path) left out: trees the index leaves out.
pub fn discover_entering(
    root: &Path,
    repos: &Repositories,
    enters: &dyn Fn(&Path) -> bool,
) -> Report {
    let mut report = Report::default();
    let mut poms = Poms::new(repos);
    let relative = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    };
    // Declared dependencies per build file; then the modules of the build
    // itself are left out (their sources are indexed).
    let mut declared: Vec<(String, Declared)> = Vec::new();
    let mut own_modules: HashSet<(String, String)> = HashSet::new();
    let mut catalogs: HashMap<PathBuf, Catalog> = HashMap::new();
    for file in build_files(root, enters) {
        let name = relative(&file);
        report.build_files.push(name.clone());
        if file.file_name().is_some_and(|n| n == "pom.xml") {
            let Some(effective) = poms.effective(&file) else {
                continue;
            };
            own_modules.insert((effective.group.clone(), effective.artifact.clone()));
            for dep in poms.declared(&effective) {
                declared.push((name.clone(), dep));
            }
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            report.warnings.push(format!("{name}: cannot be read"));
            continue;
        };
        let dir = file.parent().unwrap_or(root);
        let mut properties = gradle::properties(root);
        properties.extend(gradle::properties(dir));
        let catalog = catalog_for(root, dir, &mut catalogs, &mut report.warnings);
        let (found, unknown) = gradle::declared(&text, &properties, &catalog);
        report
            .warnings
            .extend(unknown.into_iter().map(|w| format!("{name}: {w}")));
        declared.extend(found.into_iter().map(|dep| (name.clone(), dep)));
    }
    let mut seen: HashSet<(String, String, Option<String>)> = HashSet::new();
    let mut queue: VecDeque<(String, Declared, usize)> = declared
        .into_iter()
        .filter(|(_, dep)| !own_modules.contains(&(dep.group.clone(), dep.artifact.clone())))
        .map(|(file, dep)| (file, dep, 0))
        .collect();
    // Artifacts reached through others: the first version met wins, as
    // Maven's nearest-first mediation has it.
    let mut reached: HashSet<(String, String)> = queue
        .iter()
        .map(|(_, dep, _)| (dep.group.clone(), dep.artifact.clone()))
        .collect();
    while let Some((declared_in, dep, depth)) = queue.pop_front() {
        if !seen.insert((dep.group.clone(), dep.artifact.clone(), dep.version.clone())) {
            continue;
        }
        let outcome = match &dep.version {
            None => Outcome::Missing {
                why: "no version: the build neither declares nor manages one".to_string(),
            },
            Some(version) => match repos.locate(&dep.group, &dep.artifact, version, Kind::Jar) {
                Some(located) => match located.substituted {
                    None => Outcome::Found { jar: located.path },
                    Some(why) => Outcome::Substituted {
                        jar: located.path,
                        used_version: located.version,
                        why,
                    },
                },
                None => Outcome::Missing {
                    why: format!("not in {}", repos.describe()),
                },
            },
        };
        let used = match &outcome {
            Outcome::Found { .. } => dep.version.clone(),
            Outcome::Substituted { used_version, .. } => Some(used_version.clone()),
            Outcome::Missing { .. } => None,
        };
        if let Some(used) = used
            && depth < MAX_TRANSITIVE_DEPTH
            && let Some(pom) = repos.locate(&dep.group, &dep.artifact, &used, Kind::Pom)
            && let Some(effective) = poms.effective(&pom.path)
        {
            let via = format!("{}:{}:{used}", dep.group, dep.artifact);
            for next in poms.declared(&effective) {
                let inherited = matches!(next.scope.as_str(), "compile" | "runtime");
                if !inherited
                    || next.optional
                    || !reached.insert((next.group.clone(), next.artifact.clone()))
                {
                    continue;
                }
                // A dependency of a test dependency is for tests too.
                let scope = match dep.scope.as_str() {
                    "test" | "provided" => dep.scope.clone(),
                    _ => next.scope.clone(),
                };
                queue.push_back((via.clone(), Declared { scope, ..next }, depth + 1));
            }
        }
        report.dependencies.push(Dependency {
            group: dep.group,
            artifact: dep.artifact,
            version: dep.version,
            scope: dep.scope,
            declared_in,
            outcome,
        });
    }
    report.warnings.extend(poms.warnings);
    report
}

/// The version catalog of the Gradle build in `dir`: its own
/// `gradle/libs.versions.toml`, else the root's.
fn catalog_for(
    root: &Path,
    dir: &Path,
    catalogs: &mut HashMap<PathBuf, Catalog>,
    warnings: &mut Vec<String>,
) -> Catalog {
    for base in [dir, root] {
        let path = base.join("gradle/libs.versions.toml");
        if !path.is_file() {
            continue;
        }
        if let Some(known) = catalogs.get(&path) {
            return known.clone();
        }
        let read = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| gradle::catalog(&text));
        let catalog = match read {
            Ok(catalog) => catalog,
            Err(e) => {
                warnings.push(format!("{}: {e}", path.display()));
                HashMap::new()
            }
        };
        catalogs.insert(path, catalog.clone());
        return catalog;
    }
    HashMap::new()
}
