//! `refscope deps`: the dependency jars a project's build files declare,
//! as found on this machine; and the class path `index` and `watch` add
//! from them.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use refscope_deps::{Outcome, Report, Repositories};

/// The environment variable naming repository directories
/// (`:`-separated), as `--maven-repo` does.
const REPOS_VARIABLE: &str = "REFSCOPE_MAVEN_REPOS";

/// Where dependency jars are looked up, and whether at all.
#[derive(Debug, Clone, Args)]
pub struct RepoArgs {
    /// A directory to look dependency jars up in: Maven's layout, Gradle's
    /// `caches/modules-2/files-2.1`, or jars side by side; may be repeated.
    /// Given (or given by REFSCOPE_MAVEN_REPOS, `:`-separated), only these
    /// are searched; else ~/.m2/repository, Gradle's cache,
    /// /usr/share/maven-repo and /usr/share/java.
    #[arg(long = "maven-repo", value_name = "DIR")]
    maven_repos: Vec<PathBuf>,
}

impl RepoArgs {
    fn repositories(&self) -> Repositories {
        let mut dirs = self.maven_repos.clone();
        if dirs.is_empty()
            && let Some(value) = std::env::var_os(REPOS_VARIABLE)
        {
            dirs = std::env::split_paths(&value)
                .filter(|p| !p.as_os_str().is_empty())
                .collect();
        }
        match dirs.is_empty() {
            true => Repositories::standard(std::env::home_dir().as_deref()),
            false => Repositories::named(&dirs),
        }
    }
}

#[derive(Debug, Args)]
pub struct DepsArgs {
    /// The project: a repository or a plain directory (default: the
    /// current directory).
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    repos: RepoArgs,
}

pub fn run(args: DepsArgs) -> Result<()> {
    let repos = args.repos.repositories();
    // The build files of trees the index leaves out (`refscope.toml`)
    // are left out here too.
    let filter = crate::paths::PathArgs::default().filter(&args.path)?;
    let paths = Paths::new(&args.path, &args.path, &filter);
    let report = refscope_deps::discover_entering(&args.path, &repos, &|dir| paths.enters(dir));
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&serde_json::json!({
                "repositories": repos.roots.iter().map(|r| r.dir.display().to_string()).collect::<Vec<_>>(),
                "build_files": report.build_files,
                "dependencies": report.dependencies,
                "warnings": report.warnings,
            }))?
        );
        return Ok(());
    }
    print!("{}", to_text(&report, &repos));
    Ok(())
}

fn to_text(report: &Report, repos: &Repositories) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "looked up in: {}", repos.describe());
    if report.build_files.is_empty() {
        let _ = writeln!(
            out,
            "no build file (pom.xml, build.gradle, build.gradle.kts)"
        );
    }
    for file in &report.build_files {
        let _ = writeln!(out, "build file: {file}");
    }
    for d in &report.dependencies {
        let version = d.version.as_deref().unwrap_or("?");
        let what = format!("{}:{}:{version} ({})", d.group, d.artifact, d.scope);
        let found = match &d.outcome {
            Outcome::Found { jar } => format!("found      {}", jar.display()),
            Outcome::Substituted {
                jar,
                used_version,
                why,
            } => format!("substituted {used_version}: {} ({why})", jar.display()),
            Outcome::Missing { why } => format!("missing    ({why})"),
        };
        let _ = writeln!(out, "  {what:<60} {found}    [{}]", d.declared_in);
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    let (found, substituted, missing) = report.counts();
    let _ = writeln!(
        out,
        "{found} found, {substituted} substituted, {missing} missing"
    );
    out
}

/// The jars `--classpath` names (`values`), then those the build files
/// under `root` declare (unless `off`), each once.
pub(crate) fn class_path(
    values: &[String],
    root: &Path,
    repos: &RepoArgs,
    off: bool,
    paths: &Paths<'_>,
) -> Result<Vec<PathBuf>> {
    let mut jars = expand_classpath(values)?;
    for jar in auto_classpath(root, repos, off, paths) {
        if !jars.contains(&jar) {
            jars.push(jar);
        }
    }
    Ok(jars)
}

/// The paths indexed: the build files of a directory the index leaves
/// out are left out too.
pub(crate) struct Paths<'p> {
    /// Where the walk for build files starts, as given to it.
    walk_root: &'p Path,
    /// That directory from the top of the tree (empty at the top).
    prefix: String,
    filter: &'p refscope_engine::PathFilter,
}

impl<'p> Paths<'p> {
    /// For a walk from `walk_root` in the tree whose top is `tree_root`.
    pub(crate) fn new(
        walk_root: &'p Path,
        tree_root: &Path,
        filter: &'p refscope_engine::PathFilter,
    ) -> Self {
        let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or(path.to_path_buf());
        let prefix = canonical(walk_root)
            .strip_prefix(canonical(tree_root))
            .ok()
            .and_then(Path::to_str)
            .map(|rel| rel.replace('\\', "/"))
            .unwrap_or_default();
        Self {
            walk_root,
            prefix,
            filter,
        }
    }

    /// Whether the walk enters `dir`, a directory under its root.
    fn enters(&self, dir: &Path) -> bool {
        let Some(rel) = dir.strip_prefix(self.walk_root).ok().and_then(Path::to_str) else {
            return true;
        };
        let rel = rel.replace('\\', "/");
        match (self.prefix.is_empty(), rel.is_empty()) {
            (_, true) => true,
            (true, false) => self.filter.enters(&rel),
            (false, false) => self.filter.enters(&format!("{}/{rel}", self.prefix)),
        }
    }
}

/// The jars the build files under `path` declare, unless `off`; one line
/// on standard error says what was found, when there are build files.
fn auto_classpath(path: &Path, repos: &RepoArgs, off: bool, paths: &Paths<'_>) -> Vec<PathBuf> {
    if off {
        return Vec::new();
    }
    let report =
        refscope_deps::discover_entering(path, &repos.repositories(), &|dir| paths.enters(dir));
    if report.build_files.is_empty() {
        return Vec::new();
    }
    let (found, substituted, missing) = report.counts();
    eprintln!(
        "refscope: dependencies from {} build file(s): {found} found, {substituted} substituted, \
         {missing} missing{} (`refscope deps` lists them; --no-auto-classpath leaves them out)",
        report.build_files.len(),
        match report.warnings.len() {
            0 => String::new(),
            n => format!(", {n} warning(s)"),
        }
    );
    report.jars()
}

/// The jar files named by `--classpath` values: `:`-separated entries, an
/// entry `DIR/*` standing for every `.jar` in DIR (sorted by name).
fn expand_classpath(values: &[String]) -> Result<Vec<PathBuf>> {
    let mut jars = Vec::new();
    for entry in values.iter().flat_map(|v| v.split(':')) {
        if entry.is_empty() {
            continue;
        }
        if let Some(dir) = entry.strip_suffix("/*") {
            let listing = std::fs::read_dir(dir).map_err(|e| {
                crate::UsageError(format!("--classpath {entry}: cannot list {dir}: {e}"))
            })?;
            let mut found: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jar"))
                .collect();
            found.sort();
            jars.extend(found);
        } else {
            let path = PathBuf::from(entry);
            if !path.is_file() {
                return Err(
                    crate::UsageError(format!("--classpath {entry}: no such jar file")).into(),
                );
            }
            jars.push(path);
        }
    }
    Ok(jars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_from_below_the_top_or_by_another_path_sees_the_trees_paths() {
        let top = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(top.path().join("svc/vendor")).unwrap();
        let filter = refscope_engine::PathFilter::new(&[], &["svc/vendor/**".to_string()]).unwrap();
        // From the top, named another way.
        let other_name = top.path().join("svc/..");
        let paths = Paths::new(&other_name, top.path(), &filter);
        assert!(!paths.enters(&other_name.join("svc/vendor")));
        assert!(paths.enters(&other_name.join("svc")));
        // From a directory below the top.
        let below = top.path().join("svc");
        let paths = Paths::new(&below, top.path(), &filter);
        assert!(!paths.enters(&below.join("vendor")));
        assert!(paths.enters(&below));
    }
}
