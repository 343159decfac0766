//! `refscope export --scip`: the SCIP index of an indexed revision, written
//! beside the file asked for and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use refscope_engine::JdkTypes;
use refscope_scip_export::{Libraries, ScipConfig, SourceFiles, export_scip};

use crate::StoreArgs;
use crate::location::open_for_reading;

/// Where the libraries of an export come from: `--classpath`, and the
/// jars the build files declare unless `auto` is off.
pub struct LibraryArgs<'a> {
    pub classpath: &'a [String],
    pub repos: &'a crate::deps::RepoArgs,
    pub auto: bool,
}

/// Exports revision `rev` (default: as every reading command picks it) of
/// the store to `out`.
pub fn run(
    store: &StoreArgs,
    rev: Option<&str>,
    out: &Path,
    libraries: &LibraryArgs<'_>,
) -> Result<()> {
    let opened = open_for_reading(store, None)?;
    let snapshot = opened.snapshot(rev)?;
    let revision = snapshot.revision();
    let project_root: PathBuf = match (&opened.source, &revision.root) {
        (Some(source), _) => source.root().to_path_buf(),
        (None, Some(root)) => PathBuf::from(root),
        (None, None) => anyhow::bail!(
            "cannot tell the repository's directory, which the index names as its project root: pass --repo"
        ),
    };
    let project_root = std::fs::canonicalize(&project_root).unwrap_or(project_root);
    let jars = crate::deps::class_path(
        libraries.classpath,
        &project_root,
        libraries.repos,
        !libraries.auto,
        &crate::deps::Paths::new(
            &project_root,
            &project_root,
            &refscope_engine::PathFilter::default(),
        ),
    )?;
    let jdk = JdkTypes::discover()?;
    let libraries = Libraries::new(&jdk, &jars)?;
    let files = SourceFiles::new(opened.source.as_ref(), revision);
    let config = ScipConfig {
        project_root: &project_root,
        tool_version: env!("CARGO_PKG_VERSION"),
        libraries: &libraries,
        files: &files,
    };

    // Written beside the target and renamed, so that a failed export never
    // leaves half an index under the name asked for.
    let mut partial_name = out.file_name().unwrap_or_default().to_os_string();
    partial_name.push(".partial");
    let partial = out.with_file_name(partial_name);
    let written = (|| -> Result<_> {
        let file = std::fs::File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        let mut writer = std::io::BufWriter::new(file);
        let summary = export_scip(&snapshot, &config, &mut writer)?;
        writer
            .flush()
            .with_context(|| format!("cannot write {}", partial.display()))?;
        std::fs::rename(&partial, out)
            .with_context(|| format!("cannot write {}", out.display()))?;
        Ok(summary)
    })();
    let summary = match written {
        Ok(summary) => summary,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    eprintln!(
        "refscope: wrote {}: {} documents, {} definitions, {} references, {} external symbols ({} ambiguous and {} unresolved sites left out)",
        out.display(),
        summary.n_documents,
        summary.n_definitions,
        summary.n_references,
        summary.n_external_symbols,
        summary.n_ambiguous_skipped,
        summary.n_unresolved_skipped
    );
    if summary.n_exact_without_definition > 0 {
        eprintln!(
            "refscope: {} exact references target a declaration no file of the revision holds; their symbols have no definition",
            summary.n_exact_without_definition
        );
    }
    Ok(())
}
