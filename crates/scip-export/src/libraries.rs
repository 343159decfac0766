//! Which package a library class belongs to: the JDK (`maven jdk 17`), a
//! jar with Maven coordinates, or none known.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use refscope_engine::{JdkOrigin, JdkTypes};

use crate::error::ScipError;
use crate::maven::{MavenCoordinates, jar_path_coordinates, pom_properties_coordinates};
use crate::symbol::ScipPackage;

/// The JDK's major version when its `release` file does not tell (the
/// version refscope is made for).
pub const DEFAULT_JDK_VERSION: &str = "17";

/// The libraries references resolve into, by class.
#[derive(Debug, Clone)]
pub struct Libraries {
    /// The JDK's binary names, sorted.
    jdk_names: Vec<String>,
    jdk: ScipPackage,
    /// A jar's package by the binary names of its classes (the first jar
    /// holding a class wins, as on a class path).
    jar_of_class: HashMap<String, usize>,
    jar_packages: Vec<ScipPackage>,
}

impl Default for Libraries {
    /// No library known: every library class in the unknown package.
    fn default() -> Self {
        Self {
            jdk_names: Vec::new(),
            jdk: ScipPackage::jdk(DEFAULT_JDK_VERSION),
            jar_of_class: HashMap::new(),
            jar_packages: Vec::new(),
        }
    }
}

impl Libraries {
    /// The JDK whose type names `jdk` holds, and the jars of a class path.
    /// A jar's coordinates come from its path in a Maven repository, else
    /// from the one `pom.properties` it carries; a jar with neither gives
    /// its classes the unknown package.
    pub fn new(jdk: &JdkTypes, jars: &[PathBuf]) -> Result<Self, ScipError> {
        let mut libraries = Self {
            jdk_names: jdk.binary_names.clone(),
            jdk: ScipPackage::jdk(&jdk_major_version(&jdk.origin)),
            ..Self::default()
        };
        libraries.jdk_names.sort_unstable();
        for jar in jars {
            let listing = JarListing::read(jar)?;
            let package = listing
                .coordinates_package
                .or_else(|| {
                    jar_path_coordinates(jar)
                        .map(|c| ScipPackage::maven(&c.group_id, &c.artifact_id, &c.version))
                })
                .unwrap_or_else(ScipPackage::unknown);
            let index = libraries.jar_packages.len();
            libraries.jar_packages.push(package);
            for class in listing.classes {
                libraries.jar_of_class.entry(class).or_insert(index);
            }
        }
        Ok(libraries)
    }

    /// The package of library class `binary_name`.
    pub fn package_of(&self, binary_name: &str) -> ScipPackage {
        if self
            .jdk_names
            .binary_search_by(|n| n.as_str().cmp(binary_name))
            .is_ok()
        {
            return self.jdk.clone();
        }
        match self.jar_of_class.get(binary_name) {
            Some(&jar) => self.jar_packages[jar].clone(),
            None => ScipPackage::unknown(),
        }
    }
}

/// The major version in the JDK's `release` file (`JAVA_VERSION="17.0.9"`
/// → `17`, `"1.8.0_392"` → `8`), else [`DEFAULT_JDK_VERSION`].
fn jdk_major_version(origin: &JdkOrigin) -> String {
    let home = match origin {
        JdkOrigin::Jmods(jmods) => jmods.parent(),
        JdkOrigin::SourceZip(zip) => zip.parent().map(|dir| {
            if dir.ends_with("lib") {
                dir.parent().unwrap_or(dir)
            } else {
                dir
            }
        }),
        JdkOrigin::Missing => None,
    };
    home.and_then(|home| std::fs::read_to_string(home.join("release")).ok())
        .and_then(|release| major_of_release(&release))
        .unwrap_or_else(|| DEFAULT_JDK_VERSION.to_string())
}

fn major_of_release(release: &str) -> Option<String> {
    let value = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim()
        .trim_matches('"');
    let mut parts = value.split(['.', '_', '-', '+']);
    let first = parts.next()?;
    let major = if first == "1" { parts.next()? } else { first };
    (!major.is_empty() && major.chars().all(|c| c.is_ascii_digit())).then(|| major.to_string())
}

/// What a jar holds that matters here.
struct JarListing {
    /// Binary names of its classes.
    classes: Vec<String>,
    /// The package its one `pom.properties` names.
    coordinates_package: Option<ScipPackage>,
}

impl JarListing {
    fn read(jar: &Path) -> Result<Self, ScipError> {
        let unreadable = |message: String| ScipError::Jar {
            jar: jar.to_path_buf(),
            message,
        };
        let file = std::fs::File::open(jar).map_err(|e| unreadable(e.to_string()))?;
        let mut archive = zip::ZipArchive::new(file).map_err(|e| unreadable(e.to_string()))?;
        let mut classes = Vec::new();
        let mut poms = Vec::new();
        for name in archive.file_names() {
            if let Some(class) = name.strip_suffix(".class") {
                // Multi-release jars keep versions of classes under
                // META-INF/versions/N/.
                let class = match class.strip_prefix("META-INF/versions/") {
                    Some(rest) => match rest.split_once('/') {
                        Some((_, class)) => class,
                        None => continue,
                    },
                    None => class,
                };
                if !class.ends_with("module-info") && !class.ends_with("package-info") {
                    classes.push(class.replace('/', "."));
                }
            } else if name.starts_with("META-INF/maven/") && name.ends_with("/pom.properties") {
                poms.push(name.to_string());
            }
        }
        let coordinates_package = match poms.as_slice() {
            [only] => {
                let mut text = String::new();
                archive
                    .by_name(only)
                    .map_err(|e| unreadable(e.to_string()))?
                    .read_to_string(&mut text)
                    .map_err(|e| unreadable(e.to_string()))?;
                pom_properties_coordinates(&text)
                    .filter(|c| describes_jar(c, jar, &classes))
                    .map(|c| ScipPackage::maven(&c.group_id, &c.artifact_id, &c.version))
            }
            _ => None,
        };
        Ok(Self {
            classes,
            coordinates_package,
        })
    }
}

/// Whether a jar's one `pom.properties` is the jar's own, not that of a
/// library shaded into it (`junit-jupiter-params` carries univocity's):
/// the jar's file is named after the artifact, or a class lies in the
/// group's package.
fn describes_jar(coordinates: &MavenCoordinates, jar: &Path, classes: &[String]) -> bool {
    let named_after = jar
        .file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|stem| stem.starts_with(&coordinates.artifact_id));
    let group_package = format!("{}.", coordinates.group_id);
    named_after || classes.iter().any(|c| c.starts_with(&group_package))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn release_files_give_the_major_version() {
        assert_eq!(
            major_of_release("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"17.0.9\"\n").as_deref(),
            Some("17")
        );
        assert_eq!(
            major_of_release("JAVA_VERSION=\"1.8.0_392\"").as_deref(),
            Some("8")
        );
        assert_eq!(
            major_of_release("JAVA_VERSION=\"21\"").as_deref(),
            Some("21")
        );
        assert_eq!(major_of_release("OS_NAME=Linux"), None);
    }

    #[test]
    fn a_jar_names_its_classes_package_from_its_pom_properties() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("lib.jar");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        for (name, content) in [
            ("org/acme/Util.class", "\u{ca}"),
            ("org/acme/Util$Inner.class", ""),
            ("META-INF/versions/11/org/acme/Util.class", ""),
            (
                "META-INF/maven/org.acme/util/pom.properties",
                "groupId=org.acme\nartifactId=util\nversion=2.0\n",
            ),
        ] {
            writer.start_file(name, options).unwrap();
            writer.write_all(content.as_bytes()).unwrap();
        }
        writer.finish().unwrap();
        let jdk = JdkTypes::missing();
        let libraries = Libraries::new(&jdk, &[jar]).unwrap();
        let util = ScipPackage::maven("org.acme", "util", "2.0");
        assert_eq!(libraries.package_of("org.acme.Util"), util);
        assert_eq!(libraries.package_of("org.acme.Util$Inner"), util);
        assert_eq!(libraries.package_of("org.other.X"), ScipPackage::unknown());
    }

    #[test]
    fn a_shaded_library_does_not_name_the_jar() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("junit-jupiter-params.jar");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        for (name, content) in [
            (
                "org/junit/jupiter/params/shadow/com/univocity/Parser.class",
                "",
            ),
            (
                "META-INF/maven/com.univocity/univocity-parsers/pom.properties",
                "groupId=com.univocity\nartifactId=univocity-parsers\nversion=2.9.1\n",
            ),
        ] {
            writer.start_file(name, options).unwrap();
            writer.write_all(content.as_bytes()).unwrap();
        }
        writer.finish().unwrap();
        let libraries = Libraries::new(&JdkTypes::missing(), &[jar]).unwrap();
        assert_eq!(
            libraries.package_of("org.junit.jupiter.params.shadow.com.univocity.Parser"),
            ScipPackage::unknown()
        );
    }
}
