//! Maven coordinates: of the sources, from their nearest `pom.xml`; of a
//! jar, from where it lies in a Maven repository or from the
//! `pom.properties` it carries.

use std::collections::HashMap;
use std::path::Path;

/// A Maven artifact's coordinates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MavenCoordinates {
    /// `groupId`.
    pub group_id: String,
    /// `artifactId`.
    pub artifact_id: String,
    /// `version`.
    pub version: String,
}

/// The coordinates a `pom.xml` declares: its own `groupId` and `version`,
/// else its `<parent>`'s (Maven's inheritance), with `${...}` properties
/// of the pom itself and `project.*`/`parent.*` names filled in. `None`
/// when the text is not XML, has no `artifactId`, or a value stays
/// unresolved (a property of a parent pom or of the command line).
pub fn pom_coordinates(xml: &str) -> Option<MavenCoordinates> {
    let document = roxmltree::Document::parse(xml).ok()?;
    let project = document.root_element();
    if project.tag_name().name() != "project" {
        return None;
    }
    let child_text = |node: roxmltree::Node<'_, '_>, name: &str| -> Option<String> {
        node.children()
            .find(|c| c.is_element() && c.tag_name().name() == name)
            .and_then(|c| c.text())
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    let parent = project
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "parent");
    let parent_group = parent.and_then(|p| child_text(p, "groupId"));
    let parent_version = parent.and_then(|p| child_text(p, "version"));
    let group_id = child_text(project, "groupId").or_else(|| parent_group.clone())?;
    let artifact_id = child_text(project, "artifactId")?;
    let version = child_text(project, "version").or_else(|| parent_version.clone())?;

    let mut properties: HashMap<String, String> = HashMap::new();
    if let Some(list) = project
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "properties")
    {
        for property in list.children().filter(|c| c.is_element()) {
            let value = property.text().unwrap_or("").trim().to_string();
            properties.insert(property.tag_name().name().to_string(), value);
        }
    }
    for (key, value) in [
        ("project.groupId", Some(&group_id)),
        ("pom.groupId", Some(&group_id)),
        ("project.artifactId", Some(&artifact_id)),
        ("project.version", Some(&version)),
        ("pom.version", Some(&version)),
        ("version", Some(&version)),
        ("project.parent.groupId", parent_group.as_ref()),
        ("parent.groupId", parent_group.as_ref()),
        ("project.parent.version", parent_version.as_ref()),
        ("parent.version", parent_version.as_ref()),
    ] {
        if let Some(value) = value {
            properties
                .entry(key.to_string())
                .or_insert_with(|| value.clone());
        }
    }
    let coordinates = MavenCoordinates {
        group_id: interpolate(&group_id, &properties)?,
        artifact_id: interpolate(&artifact_id, &properties)?,
        version: interpolate(&version, &properties)?,
    };
    Some(coordinates)
}

/// `value` with its `${name}` references replaced from `properties`, a few
/// rounds deep; `None` when one stays.
fn interpolate(value: &str, properties: &HashMap<String, String>) -> Option<String> {
    let mut value = value.to_string();
    for _ in 0..8 {
        let Some(start) = value.find("${") else {
            return Some(value);
        };
        let end = start + value[start..].find('}')?;
        let replacement = properties.get(&value[start + 2..end])?;
        value.replace_range(start..=end, replacement);
    }
    (!value.contains("${")).then_some(value)
}

/// The coordinates of a jar that lies in a Maven repository layout:
/// `.../maven-repo/GROUP/DIRS/ARTIFACT/VERSION/ARTIFACT-VERSION[-CLASSIFIER].jar`
/// (Debian's `/usr/share/maven-repo`), or the same under a `repository`
/// directory (`~/.m2/repository`).
pub fn jar_path_coordinates(path: &Path) -> Option<MavenCoordinates> {
    let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
    let root = parts
        .iter()
        .rposition(|p| *p == "maven-repo" || *p == "repository")?;
    let [group @ .., artifact, version, file] = &parts[root + 1..] else {
        return None;
    };
    if group.is_empty() {
        return None;
    }
    let stem = file.strip_suffix(".jar")?;
    let rest = stem.strip_prefix(&format!("{artifact}-{version}"))?;
    if !(rest.is_empty() || rest.starts_with('-')) {
        return None;
    }
    Some(MavenCoordinates {
        group_id: group.join("."),
        artifact_id: artifact.to_string(),
        version: version.to_string(),
    })
}

/// The coordinates a `META-INF/maven/.../pom.properties` states.
pub fn pom_properties_coordinates(text: &str) -> Option<MavenCoordinates> {
    let mut values: HashMap<&str, &str> = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            values.insert(key.trim(), value.trim());
        }
    }
    let value = |key: &str| {
        values
            .get(key)
            .filter(|v| !v.is_empty())
            .map(|v| v.to_string())
    };
    Some(MavenCoordinates {
        group_id: value("groupId")?,
        artifact_id: value("artifactId")?,
        version: value("version")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coordinates(group: &str, artifact: &str, version: &str) -> MavenCoordinates {
        MavenCoordinates {
            group_id: group.into(),
            artifact_id: artifact.into(),
            version: version.into(),
        }
    }

    #[test]
    fn a_pom_inherits_group_and_version_from_its_parent() {
        let pom = r#"<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.apache.commons</groupId>
    <artifactId>commons-parent</artifactId>
    <version>52</version>
  </parent>
  <artifactId>commons-lang3</artifactId>
  <version>3.12.0</version>
  <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4</version></dependency></dependencies>
</project>"#;
        assert_eq!(
            pom_coordinates(pom),
            Some(coordinates("org.apache.commons", "commons-lang3", "3.12.0"))
        );
        let module = r#"<project>
  <parent><groupId>org.acme</groupId><artifactId>parent</artifactId><version>2.1</version></parent>
  <artifactId>shop-core</artifactId>
</project>"#;
        assert_eq!(
            pom_coordinates(module),
            Some(coordinates("org.acme", "shop-core", "2.1"))
        );
    }

    #[test]
    fn properties_fill_in_and_unknown_ones_give_up() {
        let pom = r#"<project>
  <groupId>org.acme</groupId><artifactId>shop</artifactId><version>${revision}</version>
  <properties><revision>1.4.0</revision></properties>
</project>"#;
        assert_eq!(
            pom_coordinates(pom),
            Some(coordinates("org.acme", "shop", "1.4.0"))
        );
        let child = r#"<project>
  <parent><groupId>org.acme</groupId><artifactId>p</artifactId><version>3</version></parent>
  <artifactId>shop</artifactId><version>${project.parent.version}</version>
</project>"#;
        assert_eq!(
            pom_coordinates(child),
            Some(coordinates("org.acme", "shop", "3"))
        );
        let unknown = "<project><groupId>g</groupId><artifactId>a</artifactId><version>${changelist}</version></project>";
        assert_eq!(pom_coordinates(unknown), None);
        assert_eq!(
            pom_coordinates("<project><groupId>g</groupId></project>"),
            None
        );
        assert_eq!(pom_coordinates("not xml"), None);
    }

    #[test]
    fn jars_in_a_maven_repository_tell_their_coordinates() {
        assert_eq!(
            jar_path_coordinates(Path::new(
                "/usr/share/maven-repo/org/apache/commons/commons-lang3/3.12.0/commons-lang3-3.12.0.jar"
            )),
            Some(coordinates("org.apache.commons", "commons-lang3", "3.12.0"))
        );
        assert_eq!(
            jar_path_coordinates(Path::new(
                "/home/u/.m2/repository/junit/junit/4.13.2/junit-4.13.2-tests.jar"
            )),
            Some(coordinates("junit", "junit", "4.13.2"))
        );
        assert_eq!(
            jar_path_coordinates(Path::new("/usr/share/java/commons-io.jar")),
            None
        );
        assert_eq!(
            pom_properties_coordinates(
                "#Generated\nversion=2.11.0\ngroupId=commons-io\nartifactId=commons-io\n"
            ),
            Some(coordinates("commons-io", "commons-io", "2.11.0"))
        );
    }
}
