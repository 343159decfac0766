//! Where jars and POMs already are on this machine: Maven's local
//! repository, Gradle's module cache, Debian's `/usr/share/maven-repo` and
//! `/usr/share/java`. Nothing is ever downloaded.
//!
//! An artifact is looked up at the version asked for in every root first;
//! when no root has it, a version alias of the artifact (Debian's
//! `debian`, or `2.x` for a `2.…` version) is taken, else the nearest
//! version present (see [`crate::version::nearest`]). Which one was taken,
//! and why, goes with the answer.

use std::path::{Path, PathBuf};

use crate::version;

/// How a root lays its files out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `GROUP/PATH/ARTIFACT/VERSION/ARTIFACT-VERSION.jar` (Maven's, and
    /// Debian's `maven-repo`).
    Maven,
    /// `GROUP/ARTIFACT/VERSION/HASH/ARTIFACT-VERSION.jar` (Gradle's
    /// `caches/modules-2/files-2.1`).
    Gradle,
    /// `ARTIFACT-VERSION.jar` or `ARTIFACT.jar` side by side (Debian's
    /// `/usr/share/java`).
    Flat,
}

/// A directory artifacts are looked up in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The directory.
    pub dir: PathBuf,
    /// How it lays files out.
    pub layout: Layout,
}

/// The roots looked in, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repositories {
    /// The roots, first looked in first.
    pub roots: Vec<Root>,
}

/// The kind of file looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Jar,
    Pom,
}

impl Kind {
    fn extension(self) -> &'static str {
        match self {
            Kind::Jar => "jar",
            Kind::Pom => "pom",
        }
    }
}

/// An artifact's file as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file.
    pub path: PathBuf,
    /// The version of the file taken.
    pub version: String,
    /// Why a version other than the one asked for was taken; `None` when
    /// it is the one asked for.
    pub substituted: Option<String>,
}

impl Located {
    /// `path`, of version `found`, taken because `asked` is not present;
    /// `what` says what `found` is.
    fn instead(asked: &str, path: PathBuf, found: &str, what: &str) -> Self {
        let why = match found {
            "" => format!("{asked} is not present; the system's unversioned jar stands for it"),
            _ => format!("{asked} is not present; {found} is {what}"),
        };
        Self {
            path,
            version: found.to_string(),
            substituted: Some(why),
        }
    }
}

impl Repositories {
    /// The usual places under `home` (the user's home directory, when
    /// known) and Debian's shared directories, those that exist.
    pub fn standard(home: Option<&Path>) -> Self {
        let mut roots = Vec::new();
        if let Some(home) = home {
            roots.push(Root {
                dir: home.join(".m2/repository"),
                layout: Layout::Maven,
            });
            roots.push(Root {
                dir: home.join(".gradle/caches/modules-2/files-2.1"),
                layout: Layout::Gradle,
            });
        }
        roots.push(Root {
            dir: PathBuf::from("/usr/share/maven-repo"),
            layout: Layout::Maven,
        });
        roots.push(Root {
            dir: PathBuf::from("/usr/share/java"),
            layout: Layout::Flat,
        });
        roots.retain(|root| root.dir.is_dir());
        Self { roots }
    }

    /// Roots named by the user: each laid out as Maven's, unless it holds
    /// `files-2.1` layout's marker (a `modules-2` parent) or jars at its
    /// top.
    pub fn named(dirs: &[PathBuf]) -> Self {
        let roots = dirs
            .iter()
            .map(|dir| Root {
                dir: dir.clone(),
                layout: guess_layout(dir),
            })
            .collect();
        Self { roots }
    }

    /// The file of `group:artifact` at `version` (or the best substitute).
    pub fn locate(
        &self,
        group: &str,
        artifact: &str,
        version: &str,
        kind: Kind,
    ) -> Option<Located> {
        for root in &self.roots {
            if let Some(path) = root.file(group, artifact, version, kind) {
                return Some(Located {
                    path,
                    version: version.to_string(),
                    substituted: None,
                });
            }
        }
        // Versions present with a file of the kind asked.
        let mut present: Vec<(String, &Root)> = Vec::new();
        for root in &self.roots {
            for found in root.versions(group, artifact) {
                if root.file(group, artifact, &found, kind).is_some() {
                    present.push((found, root));
                }
            }
        }
        let major = version.split(['.', '-']).next().unwrap_or("");
        let aliases = [format!("{major}.x"), "debian".to_string()];
        let numbered: Vec<&str> = present
            .iter()
            .map(|(found, _)| found.as_str())
            .filter(|found| {
                found.starts_with(|c: char| c.is_ascii_digit()) && !found.ends_with(".x")
            })
            .collect();
        let take = |wanted: &str, what: &'static str| {
            present
                .iter()
                .find(|(found, _)| found == wanted)
                .map(|(found, root)| (found.as_str(), *root, what))
        };
        let (found, root, what) = aliases
            .iter()
            .find_map(|alias| take(alias, "the system's version"))
            .or_else(|| {
                take(
                    version::nearest(version, &numbered)?,
                    "the nearest version present",
                )
            })
            // An unversioned jar is whatever version the system has.
            .or_else(|| take("", ""))?;
        let path = root.file(group, artifact, found, kind)?;
        Some(Located::instead(version, path, found, what))
    }

    /// The roots, for messages.
    pub fn describe(&self) -> String {
        let dirs: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.dir.display().to_string())
            .collect();
        match dirs.is_empty() {
            true => "no repository".to_string(),
            false => dirs.join(", "),
        }
    }
}

fn guess_layout(dir: &Path) -> Layout {
    if dir.file_name().is_some_and(|name| name == "files-2.1") {
        return Layout::Gradle;
    }
    let has_jars = std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "jar"))
    });
    match has_jars {
        true => Layout::Flat,
        false => Layout::Maven,
    }
}

impl Root {
    fn artifact_dir(&self, group: &str, artifact: &str) -> PathBuf {
        match self.layout {
            Layout::Maven => self.dir.join(group.replace('.', "/")).join(artifact),
            Layout::Gradle => self.dir.join(group).join(artifact),
            Layout::Flat => self.dir.clone(),
        }
    }

    /// The file at exactly this version, if the root has it.
    fn file(&self, group: &str, artifact: &str, version: &str, kind: Kind) -> Option<PathBuf> {
        let name = format!("{artifact}-{version}.{}", kind.extension());
        let dir = self.artifact_dir(group, artifact);
        match self.layout {
            Layout::Maven => Some(dir.join(version).join(name)).filter(|p| p.is_file()),
            Layout::Gradle => std::fs::read_dir(dir.join(version))
                .ok()?
                .flatten()
                .map(|hash| hash.path().join(&name))
                .find(|p| p.is_file()),
            Layout::Flat => {
                let versioned = dir.join(name);
                let plain = dir.join(format!("{artifact}.{}", kind.extension()));
                match (versioned.is_file(), version) {
                    (true, _) => Some(versioned),
                    (false, "") => Some(plain).filter(|p| p.is_file()),
                    (false, _) => None,
                }
            }
        }
    }

    /// The versions of an artifact the root holds.
    fn versions(&self, group: &str, artifact: &str) -> Vec<String> {
        if self.layout == Layout::Flat {
            // An unversioned jar stands for whatever the system has.
            let plain = self.dir.join(format!("{artifact}.jar"));
            return match plain.is_file() {
                true => vec![String::new()],
                false => Vec::new(),
            };
        }
        let Ok(entries) = std::fs::read_dir(self.artifact_dir(group, artifact)) else {
            return Vec::new();
        };
        let mut versions: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        versions.sort();
        versions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"").unwrap();
    }

    #[test]
    fn the_version_asked_for_then_an_alias_then_the_nearest() {
        let dir = tempfile::tempdir().unwrap();
        let maven = dir.path().join("maven");
        touch(&maven.join("org/x/lib/1.2/lib-1.2.jar"));
        touch(&maven.join("org/x/lib/1.9/lib-1.9.jar"));
        touch(&maven.join("org/x/lib/debian/lib-debian.jar"));
        touch(&maven.join("org/x/other/2.0/other-2.0.jar"));
        touch(&maven.join("org/x/other/3.1/other-3.1.pom"));
        let gradle = dir.path().join("caches/modules-2/files-2.1");
        touch(&gradle.join("org.y/g/4.0/0123abcd/g-4.0.jar"));
        let repos = Repositories::named(&[maven.clone(), gradle.clone()]);
        assert_eq!(repos.roots[1].layout, Layout::Gradle);

        let exact = repos.locate("org.x", "lib", "1.2", Kind::Jar).unwrap();
        assert_eq!(
            (exact.path.clone(), exact.substituted),
            (maven.join("org/x/lib/1.2/lib-1.2.jar"), None)
        );
        let alias = repos.locate("org.x", "lib", "1.5", Kind::Jar).unwrap();
        assert_eq!(alias.version, "debian");
        assert!(alias.substituted.unwrap().contains("system's version"));
        let nearest = repos.locate("org.x", "other", "2.5", Kind::Jar).unwrap();
        assert_eq!(nearest.version, "2.0");
        assert!(nearest.substituted.unwrap().contains("nearest"));
        // A version whose directory has no file of the kind asked is not
        // taken.
        assert_eq!(
            repos
                .locate("org.x", "other", "3.1", Kind::Jar)
                .unwrap()
                .version,
            "2.0"
        );
        assert_eq!(
            repos
                .locate("org.x", "other", "3.1", Kind::Pom)
                .unwrap()
                .substituted,
            None
        );
        let gradle_jar = repos.locate("org.y", "g", "4.0", Kind::Jar).unwrap();
        assert_eq!(
            gradle_jar.path,
            gradle.join("org.y/g/4.0/0123abcd/g-4.0.jar")
        );
        assert_eq!(repos.locate("org.z", "none", "1", Kind::Jar), None);
    }

    #[test]
    fn flat_directories_hold_versioned_and_plain_jars() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("a-1.0.jar"));
        touch(&dir.path().join("b.jar"));
        let repos = Repositories::named(&[dir.path().to_path_buf()]);
        assert_eq!(repos.roots[0].layout, Layout::Flat);
        assert_eq!(
            repos
                .locate("g", "a", "1.0", Kind::Jar)
                .unwrap()
                .substituted,
            None
        );
        let plain = repos.locate("g", "b", "2.0", Kind::Jar).unwrap();
        assert_eq!(plain.path, dir.path().join("b.jar"));
        assert!(plain.substituted.is_some());
    }
}
