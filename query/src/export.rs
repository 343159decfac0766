//! Export of an indexed revision in the JSON Lines record format of the
//! javac oracle (`shared/oracle/README.md`), so `score` can compare the two.

use std::io::Write;

use refscope_engine::{Error, Snapshot};
use serde::Serialize;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ExportConfig {
    /// Declaration records.
    pub decls: bool,
    /// Only files under this repository-relative directory, with paths
    /// made relative to it (the oracle's `--base`).
    pub under: Option<String>,
}

/// A declaration record.
#[derive(Debug, Serialize)]
struct DeclRecord<'a> {
    t: &'static str,
    file: &'a str,
    kind: &'static str,
    owner: Option<&'a str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    binary_name: Option<&'a str>,
    params: &'a [String],
    start_line: u32,
    end_line: u32,
    name_line: u32,
    name_col: u32,
    modifiers: Vec<&'static str>,
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Files exported.
    pub n_files: u64,
    /// Declaration records written.
    pub n_decls: u64,
}

/// Writes the records of `snapshot` to `out`, files in path order and
/// records in (line, column) order of their names within a file.
pub fn export(
    snapshot: &Snapshot,
    config: &ExportConfig,
    out: &mut dyn Write,
) -> Result<ExportSummary, ExportError> {
    let mut summary = ExportSummary::default();
    let prefix = config.under.as_deref().map(|u| {
        let trimmed = u.trim_matches('/');
        if trimmed.is_empty() {
            String::new()
        } else {
            format!("{trimmed}/")
        }
    });
    for file in snapshot.files()? {
        let relative = match &prefix {
            Some(prefix) => match file.path.strip_prefix(prefix.as_str()) {
                Some(rest) => rest,
                None => continue,
            },
            None => file.path.as_str(),
        };
        // javac does not report declarations of these files.
        if relative.ends_with("module-info.java") || relative.ends_with("package-info.java") {
            continue;
        }
        summary.n_files += 1;
        if !config.decls {
            continue;
        }
        let facts = snapshot.facts(&file)?;
        let mut records = snapshot.records(&file)?;
        records.sort_by_key(|r| (r.name_line, r.name_col));
        for record in &records {
            let Some(kind) = record.decl_kind() else {
                continue;
            };
            let element = &facts.elements[record.idx as usize];
            let is_type = element.kind.is_type();
            let decl = DeclRecord {
                t: "decl",
                file: relative,
                kind,
                owner: record.owner.as_deref(),
                name: &record.name,
                binary_name: is_type.then_some(record.element_id.as_str()),
                params: if is_type { &[] } else { &record.params },
                start_line: record.start_line,
                end_line: record.end_line,
                name_line: record.name_line,
                name_col: record.name_col,
                modifiers: element.modifiers.keywords().collect(),
            };
            serde_json::to_writer(&mut *out, &decl).map_err(|e| ExportError::Write(e.into()))?;
            out.write_all(b"\n").map_err(ExportError::Write)?;
            summary.n_decls += 1;
        }
    }
    Ok(summary)
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the store failed.
    #[error(transparent)]
    Engine(#[from] Error),
    /// Writing the output failed.
    #[error("cannot write the export: {0}")]
    Write(std::io::Error),
}
