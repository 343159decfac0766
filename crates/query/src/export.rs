//! Export of an indexed revision in the JSON Lines record format of the
//! javac oracle (`oracle/README.md`), so `score` can compare the two.

use std::io::Write;

use refscope_engine::Confidence;
use refscope_engine::NO_ELEMENT;
use refscope_engine::{Error, Snapshot};
use serde::Serialize;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ExportConfig {
    /// Declaration records.
    pub decls: bool,
    /// Reference records.
    pub refs: bool,
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

/// A reference record.
#[derive(Debug, Serialize)]
struct RefRecord<'a> {
    t: &'static str,
    file: &'a str,
    line: u32,
    col: u32,
    kind: &'static str,
    name: &'a str,
    owner: Option<&'a str>,
    params: Option<&'a [String]>,
    #[serde(rename = "static")]
    is_static: bool,
    decl_file: Option<&'a str>,
    decl_line: Option<u32>,
    resolved: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    implicit: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    anon: bool,
    confidence: &'static str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    alternatives: &'a [String],
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Files exported.
    pub n_files: u64,
    /// Declaration records written.
    pub n_decls: u64,
    /// Reference records written.
    pub n_refs: u64,
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
        if !config.decls && !config.refs {
            continue;
        }
        let data = snapshot.file_data(&file)?;
        let facts = &data.facts;
        if config.refs {
            let refs = &snapshot.file_resolution(&data)?.refs;
            let strip = |path: &'_ str| -> Option<String> {
                match &prefix {
                    Some(prefix) => path.strip_prefix(prefix.as_str()).map(str::to_string),
                    None => Some(path.to_string()),
                }
            };
            for r in refs {
                let site = &facts.ref_sites[r.site as usize];
                let resolved = r.confidence != Confidence::Unresolved;
                let decl_file = r.decl_file.as_deref().and_then(strip);
                let record = RefRecord {
                    t: "ref",
                    file: relative,
                    line: site.pos.line,
                    col: site.pos.col,
                    kind: r.kind.as_str(),
                    name: &r.name,
                    owner: resolved.then_some(r.owner.as_str()),
                    params: resolved.then_some(r.params.as_slice()),
                    is_static: r.is_static,
                    decl_line: decl_file.as_ref().map(|_| snapshot.target_line(r)),
                    decl_file: decl_file.as_deref(),
                    resolved,
                    implicit: r.implicit,
                    anon: site.anonymous_class != NO_ELEMENT,
                    confidence: r.confidence.as_str(),
                    alternatives: &r.alternatives,
                };
                serde_json::to_writer(&mut *out, &record)
                    .map_err(|e| ExportError::Write(e.into()))?;
                out.write_all(b"\n").map_err(ExportError::Write)?;
                summary.n_refs += 1;
            }
        }
        if !config.decls {
            continue;
        }
        let mut records: Vec<_> = data.records.iter().collect();
        records.sort_by_key(|r| (r.name_line, r.name_col));
        for record in records {
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
