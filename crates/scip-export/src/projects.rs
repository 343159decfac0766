//! The package of the sources: the coordinates of the `pom.xml` nearest to
//! each Java file, read from the exported revision.

use std::collections::HashMap;

use crate::files::RevisionFiles;
use crate::maven::pom_coordinates;
use crate::symbol::ScipPackage;

/// Finds each source file's package, reading each directory's `pom.xml`
/// once.
pub struct ProjectPackages<'f> {
    files: &'f dyn RevisionFiles,
    /// By repository-relative directory (`""` for the root): the package
    /// of the nearest `pom.xml` at or above it, once known.
    by_directory: HashMap<String, ScipPackage>,
}

impl<'f> ProjectPackages<'f> {
    /// Packages read through `files`.
    pub fn new(files: &'f dyn RevisionFiles) -> Self {
        Self {
            files,
            by_directory: HashMap::new(),
        }
    }

    /// The package of the Java file at `path`: the Maven coordinates of
    /// the nearest `pom.xml` in its directory or above, up to the
    /// repository's root; the unknown package when there is none or its
    /// coordinates cannot be made out.
    pub fn package_of(&mut self, path: &str) -> ScipPackage {
        let mut directory = parent_directory(path);
        let mut visited: Vec<String> = Vec::new();
        let package = loop {
            if let Some(known) = self.by_directory.get(directory) {
                break known.clone();
            }
            visited.push(directory.to_string());
            let pom_path = if directory.is_empty() {
                "pom.xml".to_string()
            } else {
                format!("{directory}/pom.xml")
            };
            if let Some(bytes) = self.files.other_file(&pom_path) {
                break pom_coordinates(&String::from_utf8_lossy(&bytes))
                    .map(|c| ScipPackage::maven(&c.group_id, &c.artifact_id, &c.version))
                    .unwrap_or_else(ScipPackage::unknown);
            }
            if directory.is_empty() {
                break ScipPackage::unknown();
            }
            directory = parent_directory(directory);
        };
        for directory in visited {
            self.by_directory.insert(directory, package.clone());
        }
        package
    }
}

/// `a/b` for `a/b/C.java`, `""` for `C.java`.
fn parent_directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(directory, _)| directory)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use refscope_engine::FileEntry;

    use super::*;

    struct Files(HashMap<&'static str, &'static str>);

    impl RevisionFiles for Files {
        fn java_file(&self, _file: &FileEntry) -> Option<Vec<u8>> {
            None
        }

        fn other_file(&self, path: &str) -> Option<Vec<u8>> {
            self.0.get(path).map(|t| t.as_bytes().to_vec())
        }
    }

    #[test]
    fn the_nearest_pom_names_the_package() {
        let files = Files(HashMap::from([
            (
                "pom.xml",
                "<project><groupId>org.acme</groupId><artifactId>all</artifactId><version>1</version></project>",
            ),
            (
                "core/pom.xml",
                "<project><parent><groupId>org.acme</groupId><artifactId>all</artifactId><version>1</version></parent><artifactId>core</artifactId></project>",
            ),
        ]));
        let mut packages = ProjectPackages::new(&files);
        assert_eq!(
            packages.package_of("core/src/main/java/org/acme/A.java"),
            ScipPackage::maven("org.acme", "core", "1")
        );
        assert_eq!(
            packages.package_of("core/src/main/java/org/acme/B.java"),
            ScipPackage::maven("org.acme", "core", "1")
        );
        assert_eq!(
            packages.package_of("tools/src/T.java"),
            ScipPackage::maven("org.acme", "all", "1")
        );
        let none = Files(HashMap::new());
        assert_eq!(
            ProjectPackages::new(&none).package_of("src/A.java"),
            ScipPackage::unknown()
        );
    }
}
