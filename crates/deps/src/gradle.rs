//! Gradle builds (`build.gradle`, `build.gradle.kts`) and version
//! catalogs (`gradle/libs.versions.toml`), read for the common ways of
//! declaring a dependency, without running Gradle:
//!
//! * `implementation 'g:a:v'`, `implementation("g:a:v")` (any of the usual
//!   configurations);
//! * `implementation group: 'g', name: 'a', version: 'v'` and the Kotlin
//!   form with `=`;
//! * `implementation(libs.some.lib)` through a version catalog;
//! * `$name` and `${name}` from `gradle.properties` or `ext` assignments
//!   (`def name = 'v'`, `val name = "v"`, `ext.name = 'v'`).
//!
//! A declaration written any other way is not seen.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use crate::maven::{Declared, interpolate};

const CONFIGURATIONS: &str = "implementation|api|compileOnly|runtimeOnly|compileOnlyApi|\
     testImplementation|testCompileOnly|testRuntimeOnly|annotationProcessor|\
     testAnnotationProcessor|kapt|compile|testCompile|provided";

fn regexes() -> &'static [Regex; 4] {
    static REGEXES: OnceLock<[Regex; 4]> = OnceLock::new();
    REGEXES.get_or_init(|| {
        let conf = format!(r"\b(?P<conf>{CONFIGURATIONS})\b\s*\(?\s*");
        [
            // 'g:a:v' or "g:a" (classifier after a further colon ignored).
            Regex::new(&format!(
                r#"{conf}["'](?P<g>[^:"'\s]+):(?P<a>[^:"'\s]+)(?::(?P<v>[^:"'\s]+))?(?::[^"']*)?["']"#
            ))
            .expect("a valid regex"),
            // group: 'g', name: 'a', version: 'v' (or =).
            Regex::new(&format!(
                r#"{conf}group\s*[:=]\s*["'](?P<g>[^"']+)["']\s*,\s*name\s*[:=]\s*["'](?P<a>[^"']+)["'](?:\s*,\s*version\s*[:=]\s*["'](?P<v>[^"']+)["'])?"#
            ))
            .expect("a valid regex"),
            // libs.some.lib
            Regex::new(&format!(r"{conf}libs\.(?P<alias>[A-Za-z0-9_.]+)")).expect("a valid regex"),
            // def x = 'v', val x = "v", ext.x = 'v', ext { x = 'v' }
            Regex::new(r#"(?m)^\s*(?:def\s+|val\s+|var\s+|ext\.|extra\[")?(?P<k>[A-Za-z_][A-Za-z0-9_.]*)"?\]?\s*=\s*["'](?P<v>[^"'$]+)["']"#)
                .expect("a valid regex"),
        ]
    })
}

/// A version catalog's libraries: alias (with `.` separators) to group,
/// artifact and version.
pub(crate) type Catalog = HashMap<String, (String, String, Option<String>)>;

/// The scope a configuration stands for.
fn scope_of(configuration: &str) -> &'static str {
    match configuration {
        "compileOnly" | "compileOnlyApi" | "provided" | "annotationProcessor" | "kapt" => {
            "provided"
        }
        "runtimeOnly" => "runtime",
        c if c.starts_with("test") => "test",
        _ => "compile",
    }
}

/// A version catalog: aliases (normalised to `.` separators) to
/// coordinates and version.
pub(crate) fn catalog(text: &str) -> Result<Catalog, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    let versions = table.get("versions").and_then(|v| v.as_table());
    let version_of = |value: &toml::Value| -> Option<String> {
        match value {
            toml::Value::String(v) => Some(v.clone()),
            toml::Value::Table(t) => t
                .get("ref")
                .and_then(|r| r.as_str())
                .and_then(|r| versions?.get(r))
                .and_then(|v| match v {
                    toml::Value::String(v) => Some(v.clone()),
                    toml::Value::Table(t) => t
                        .get("strictly")
                        .or(t.get("require"))
                        .and_then(|v| v.as_str())
                        .map(str::to_string),
                    _ => None,
                })
                .or_else(|| {
                    t.get("strictly")
                        .or(t.get("require"))
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                }),
            _ => None,
        }
    };
    let mut out = HashMap::new();
    let Some(libraries) = table.get("libraries").and_then(|l| l.as_table()) else {
        return Ok(out);
    };
    for (alias, entry) in libraries {
        let key = alias.replace(['-', '_'], ".");
        let found = match entry {
            toml::Value::String(spec) => {
                let mut parts = spec.split(':');
                match (parts.next(), parts.next()) {
                    (Some(g), Some(a)) => Some((
                        g.to_string(),
                        a.to_string(),
                        parts.next().map(str::to_string),
                    )),
                    _ => None,
                }
            }
            toml::Value::Table(t) => {
                let (group, name) = match t.get("module").and_then(|m| m.as_str()) {
                    Some(module) => match module.split_once(':') {
                        Some((g, a)) => (Some(g.to_string()), Some(a.to_string())),
                        None => (None, None),
                    },
                    None => (
                        t.get("group").and_then(|g| g.as_str()).map(str::to_string),
                        t.get("name").and_then(|n| n.as_str()).map(str::to_string),
                    ),
                };
                let version = t.get("version").and_then(version_of);
                group.zip(name).map(|(g, a)| (g, a, version))
            }
            _ => None,
        };
        if let Some(found) = found {
            out.insert(key, found);
        }
    }
    Ok(out)
}

/// The dependencies a Gradle build file declares. `properties` are
/// `gradle.properties`' and the like; `catalog` the version catalog's
/// aliases.
pub(crate) fn declared(
    text: &str,
    properties: &HashMap<String, String>,
    catalog: &Catalog,
) -> (Vec<Declared>, Vec<String>) {
    let [coordinates, map_form, alias, assignment] = regexes();
    let mut properties = properties.clone();
    for found in assignment.captures_iter(text) {
        properties
            .entry(found["k"].trim_start_matches("ext.").to_string())
            .or_insert_with(|| found["v"].to_string());
    }
    // Gradle's `$name` is Maven's `${name}`.
    let dollar = Regex::new(r"\$(?P<n>[A-Za-z_][A-Za-z0-9_.]*)").expect("a valid regex");
    let resolve = |value: &str| {
        let braced = dollar.replace_all(value, "$${$n}");
        let value = interpolate(&braced, &properties);
        (!value.contains("${")).then_some(value)
    };
    let mut out = Vec::new();
    let mut unknown = Vec::new();
    let mut push = |group: &str, artifact: &str, version: Option<&str>, conf: &str| {
        out.push(Declared {
            group: group.to_string(),
            artifact: artifact.to_string(),
            version: version.and_then(&resolve),
            scope: scope_of(conf).to_string(),
            optional: false,
        });
    };
    for form in [coordinates, map_form] {
        for found in form.captures_iter(text) {
            let version = found.name("v").map(|v| v.as_str());
            push(&found["g"], &found["a"], version, &found["conf"]);
        }
    }
    for found in alias.captures_iter(text) {
        let name = found["alias"].replace('_', ".");
        match catalog.get(&name) {
            Some((group, artifact, version)) => {
                push(group, artifact, version.as_deref(), &found["conf"])
            }
            None => unknown.push(format!("libs.{name} is not in the version catalog")),
        }
    }
    (out, unknown)
}

/// `gradle.properties` of a directory, when it has one.
pub(crate) fn properties(dir: &Path) -> HashMap<String, String> {
    let Ok(text) = std::fs::read_to_string(dir.join("gradle.properties")) else {
        return HashMap::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#') && !line.starts_with('!'))
        .filter_map(|line| line.split_once(['=', ':']))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_forms_are_read() {
        let catalog = catalog(
            r#"
[versions]
guava = "32.1.2-jre"
[libraries]
guava = { module = "com.google.guava:guava", version.ref = "guava" }
commons-text = { group = "org.apache.commons", name = "commons-text", version = "1.10.0" }
plain = "org.x:plain:1.0"
"#,
        )
        .unwrap();
        let build = r#"
def slf4jVersion = '2.0.7'
dependencies {
    implementation 'org.apache.commons:commons-lang3:3.12.0'
    api("com.fasterxml.jackson.core:jackson-databind:2.15.2")
    compileOnly "org.projectlombok:lombok:$lombokVersion"
    testImplementation group: 'junit', name: 'junit', version: '4.13.2'
    implementation group = "org.slf4j", name = "slf4j-api", version = "${slf4jVersion}"
    implementation(libs.guava)
    testImplementation libs.commons.text
    runtimeOnly 'org.x:y'
    implementation(libs.missing.one)
}
"#;
        let properties: HashMap<String, String> =
            [("lombokVersion".to_string(), "1.18.28".to_string())]
                .into_iter()
                .collect();
        let (found, unknown) = declared(build, &properties, &catalog);
        let mut got: Vec<String> = found
            .iter()
            .map(|d| {
                format!(
                    "{}:{}:{}:{}",
                    d.group,
                    d.artifact,
                    d.version.as_deref().unwrap_or("?"),
                    d.scope
                )
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                "com.fasterxml.jackson.core:jackson-databind:2.15.2:compile",
                "com.google.guava:guava:32.1.2-jre:compile",
                "junit:junit:4.13.2:test",
                "org.apache.commons:commons-lang3:3.12.0:compile",
                "org.apache.commons:commons-text:1.10.0:test",
                "org.projectlombok:lombok:1.18.28:provided",
                "org.slf4j:slf4j-api:2.0.7:compile",
                "org.x:y:?:runtime",
            ]
        );
        assert_eq!(unknown, ["libs.missing.one is not in the version catalog"]);
    }
}
