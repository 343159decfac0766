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
    let paths = Paths {
        root: &args.path,
        filter: &filter,
    };
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

/// The paths indexed (under `root`): the build files of a directory the
/// index leaves out are left out too.
pub(crate) struct Paths<'p> {
    pub(crate) root: &'p Path,
    pub(crate) filter: &'p refscope_engine::PathFilter,
}

impl Paths<'_> {
    fn enters(&self, dir: &Path) -> bool {
        match dir.strip_prefix(self.root).ok().and_then(Path::to_str) {
            Some(rel) if !rel.is_empty() => self.filter.enters(&rel.replace('\\', "/")),
            _ => true,
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
