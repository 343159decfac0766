//! Dependencies found from build files, without a build: `refscope deps`
//! reads a Maven project with a parent, properties, managed versions and an
//! imported BOM, and a Gradle module with a version catalog, and finds each
//! jar in a repository named for the test, substituting what is missing at
//! the version asked; `index` then resolves calls into the jars found, and
//! `--no-auto-classpath` leaves them out.

use std::path::Path;

use serde_json::Value;

use crate::common::run;

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A library jar: an interface `com.acme.lib.Greeter` with `greet(String)`.
const GREETER: &str = "class com/acme/lib/Greeter 0601 java/lang/Object -
  method 0401 greet (Ljava/lang/String;)Ljava/lang/String; -
";

const PARENT_POM: &str = r#"<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>shop-parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <properties><greeter.version>2.1</greeter.version></properties>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>com.acme.lib</groupId><artifactId>greeter</artifactId><version>${greeter.version}</version></dependency>
      <dependency><groupId>org.acme</groupId><artifactId>acme-bom</artifactId><version>3.0</version><type>pom</type><scope>import</scope></dependency>
    </dependencies>
  </dependencyManagement>
</project>
"#;

const MODULE_POM: &str = r#"<project>
  <parent><groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>1.0</version></parent>
  <artifactId>shop</artifactId>
  <dependencies>
    <dependency><groupId>com.acme.lib</groupId><artifactId>greeter</artifactId></dependency>
    <dependency><groupId>org.acme</groupId><artifactId>managed-by-bom</artifactId><scope>test</scope></dependency>
    <dependency><groupId>org.acme</groupId><artifactId>older</artifactId><version>5.0</version></dependency>
    <dependency><groupId>org.acme</groupId><artifactId>absent</artifactId><version>1.0</version></dependency>
    <dependency><groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>1.0</version><type>pom</type></dependency>
  </dependencies>
</project>
"#;

const BOM: &str = r#"<project><groupId>org.acme</groupId><artifactId>acme-bom</artifactId><version>3.0</version>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.acme</groupId><artifactId>managed-by-bom</artifactId><version>7.1</version></dependency>
  </dependencies></dependencyManagement>
</project>
"#;

/// The greeter's POM, with a dependency of its own (compile scope) and
/// one for its tests only.
const GREETER_POM: &str = r#"<project><groupId>com.acme.lib</groupId><artifactId>greeter</artifactId><version>2.1</version>
  <dependencies>
    <dependency><groupId>org.acme</groupId><artifactId>runtime-of-greeter</artifactId><version>1.1</version></dependency>
    <dependency><groupId>org.acme</groupId><artifactId>tests-of-greeter</artifactId><version>1.1</version><scope>test</scope></dependency>
  </dependencies>
</project>
"#;

const USE: &str = "package com.acme.shop;

import com.acme.lib.Greeter;

class Use {
    String hello(Greeter greeter) {
        return greeter.greet(\"world\");
    }
}
";

fn project(root: &Path, repo: &Path) {
    write(&root.join("pom.xml"), PARENT_POM.as_bytes());
    write(&root.join("shop/pom.xml"), MODULE_POM.as_bytes());
    write(
        &root.join("shop/src/main/java/com/acme/shop/Use.java"),
        USE.as_bytes(),
    );
    write(
        &root.join("tools/build.gradle"),
        b"dependencies {\n    implementation(libs.acme.tools)\n    testImplementation 'org.acme:gradle-only:$toolsVersion'\n}\n",
    );
    write(&root.join("tools/gradle.properties"), b"toolsVersion=0.9\n");
    write(
        &root.join("gradle/libs.versions.toml"),
        b"[versions]\ntools = \"4.4\"\n[libraries]\nacme-tools = { module = \"org.acme:tools\", version.ref = \"tools\" }\n",
    );
    let jar = refscope_test_support::jar(GREETER);
    write(&repo.join("com/acme/lib/greeter/2.1/greeter-2.1.jar"), &jar);
    write(
        &repo.join("com/acme/lib/greeter/2.1/greeter-2.1.pom"),
        GREETER_POM.as_bytes(),
    );
    write(
        &repo.join("org/acme/acme-bom/3.0/acme-bom-3.0.pom"),
        BOM.as_bytes(),
    );
    for (artifact, version) in [
        ("managed-by-bom", "7.1"),
        ("older", "4.2"),
        ("older", "6.0"),
        ("runtime-of-greeter", "1.1"),
        ("tests-of-greeter", "1.1"),
        ("tools", "4.4"),
        ("gradle-only", "0.9"),
    ] {
        let jar = refscope_test_support::jar("");
        write(
            &repo.join(format!(
                "org/acme/{artifact}/{version}/{artifact}-{version}.jar"
            )),
            &jar,
        );
    }
}

/// Indexes the project at `root` into a store in `work` named for
/// `extra` (more options of `index`), with the jars of repository `repo`;
/// what `index` said on standard error, and the store's path.
fn index(work: &Path, root: &Path, repo: &Path, extra: &[&str]) -> (String, String) {
    let store = work.join(format!("store{}", extra.len()));
    let store = store.to_str().unwrap().to_string();
    let mut args = vec![
        "index",
        "--files",
        root.to_str().unwrap(),
        "--store",
        &store,
    ];
    args.extend(["--maven-repo", repo.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let indexed = run(work, &args);
    let stderr = String::from_utf8_lossy(&indexed.output.stderr).into_owned();
    indexed.ok();
    (stderr, store)
}

#[test]
fn build_files_name_the_jars_and_index_resolves_into_them() {
    let work = tempfile::tempdir().unwrap();
    let (root, repo) = (work.path().join("project"), work.path().join("repo"));
    project(&root, &repo);
    let repo_arg = repo.to_str().unwrap();
    let root_arg = root.to_str().unwrap();
    let out = run(
        work.path(),
        &["deps", root_arg, "--json", "--maven-repo", repo_arg],
    )
    .ok();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["build_files"],
        serde_json::json!(["pom.xml", "shop/pom.xml", "tools/build.gradle"])
    );
    let mut seen: Vec<String> = report["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let used = d["used_version"]
                .as_str()
                .map(|v| format!(" -> {v}"))
                .unwrap_or_default();
            format!(
                "{}:{}:{} {} {}{used} [{}]",
                d["group"].as_str().unwrap(),
                d["artifact"].as_str().unwrap(),
                d["version"].as_str().unwrap_or("?"),
                d["scope"].as_str().unwrap(),
                d["status"].as_str().unwrap(),
                d["declared_in"].as_str().unwrap(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "com.acme.lib:greeter:2.1 compile found [shop/pom.xml]",
            "org.acme:absent:1.0 compile missing [shop/pom.xml]",
            "org.acme:gradle-only:0.9 test found [tools/build.gradle]",
            "org.acme:managed-by-bom:7.1 test found [shop/pom.xml]",
            "org.acme:older:5.0 compile substituted -> 4.2 [shop/pom.xml]",
            "org.acme:runtime-of-greeter:1.1 compile found [com.acme.lib:greeter:2.1]",
            "org.acme:tools:4.4 compile found [tools/build.gradle]",
        ],
        "{out}"
    );
    let missing = report["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["artifact"] == "absent")
        .unwrap();
    assert!(
        missing["why"].as_str().unwrap().contains(repo_arg),
        "{missing}"
    );

    // The call into the jar resolves with the jars found, and not without.
    let greet = |extra: &[&str]| {
        let (stderr, store) = index(work.path(), &root, &repo, extra);
        let store = store.as_str();
        let callees = run(
            work.path(),
            &[
                "callees",
                "com.acme.shop.Use#hello",
                "--json",
                "--store",
                store,
                "--repo",
                root_arg,
            ],
        )
        .ok();
        (stderr, callees)
    };
    let (said, with_jars) = greet(&[]);
    assert!(said.contains("5 found, 1 substituted, 1 missing"), "{said}");
    assert!(
        with_jars.contains("com.acme.lib.Greeter#greet(java.lang.String)"),
        "{with_jars}"
    );
    let (said, without) = greet(&["--no-auto-classpath"]);
    assert!(!said.contains("found"), "{said}");
    assert!(
        !without.contains("com.acme.lib.Greeter#greet(java.lang.String)"),
        "{without}"
    );
}

#[test]
fn the_build_files_of_excluded_trees_are_left_out() {
    let work = tempfile::tempdir().unwrap();
    let (root, repo) = (work.path().join("project"), work.path().join("repo"));
    project(&root, &repo);
    std::fs::write(
        root.join("refscope.toml"),
        "[index]\nexclude = [\"tools/**\"]\n",
    )
    .unwrap();
    let out = run(
        work.path(),
        &[
            "deps",
            root.to_str().unwrap(),
            "--json",
            "--maven-repo",
            repo.to_str().unwrap(),
        ],
    )
    .ok();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["build_files"],
        serde_json::json!(["pom.xml", "shop/pom.xml"])
    );
}

#[test]
fn a_broken_pom_is_a_warning_and_no_build_file_is_said() {
    let work = tempfile::tempdir().unwrap();
    write(&work.path().join("p/pom.xml"), b"<project><dependencies>");
    let dir = work.path().join("p");
    let out = run(work.path(), &["deps", dir.to_str().unwrap()]).ok();
    assert!(
        out.contains("warning: ") && out.contains("pom.xml: not a POM"),
        "{out}"
    );
    assert!(out.contains("0 found, 0 substituted, 0 missing"), "{out}");
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = run(work.path(), &["deps", empty.to_str().unwrap()]).ok();
    assert!(out.contains("no build file"), "{out}");
}

/// Overloads that a missing jar leaves open: `print(Runnable)` and
/// `print(Object)`, called with a `Greeter` from the jar.
const PRINTER: &str = "package com.acme.shop;

import com.acme.lib.Greeter;

class Printer {
    void print(Runnable task) {}
    void print(Object any) {}
    void print(Greeter greeter, int times) {}

    void show(Greeter greeter) {
        print(greeter);
    }
}
";

/// The overload a call takes: exact with the jar (a `Greeter` is no
/// `Runnable`), a guess without it (it might be one).
#[test]
fn a_call_whose_argument_type_is_missing_is_no_exact_choice() {
    let work = tempfile::tempdir().unwrap();
    let (root, repo) = (work.path().join("project"), work.path().join("repo"));
    project(&root, &repo);
    write(
        &root.join("shop/src/main/java/com/acme/shop/Printer.java"),
        PRINTER.as_bytes(),
    );
    let root_arg = root.to_str().unwrap();
    let print_call = |extra: &[&str]| -> Value {
        let (_, store) = index(work.path(), &root, &repo, extra);
        let store = store.as_str();
        let out = run(
            work.path(),
            &["export", "--refs", "--store", store, "--repo", root_arg],
        )
        .ok();
        out.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|r| r["line"] == 11 && r["name"] == "print")
            .unwrap_or_else(|| panic!("no call of print on line 11 in {out}"))
    };
    let with_jar = print_call(&[]);
    assert_eq!(with_jar["confidence"], "exact", "{with_jar}");
    assert_eq!(with_jar["owner"], "com.acme.shop.Printer", "{with_jar}");
    assert_eq!(
        with_jar["params"],
        serde_json::json!(["java.lang.Object"]),
        "{with_jar}"
    );
    // The same choice, said to be one of several.
    let without = print_call(&["--no-auto-classpath"]);
    assert_eq!(without["confidence"], "ambiguous", "{without}");
    assert_eq!(without["params"], with_jar["params"], "{without}");
}
