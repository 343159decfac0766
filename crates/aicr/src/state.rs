//! `.aicr-output-state.json`: what a review produced, as the orchestrator
//! reads it back. The file is replaced atomically after every tool call
//! (a temporary file in the same directory, flushed to disk, renamed over
//! the old one), so a reader sees the state before or after a call, never
//! half of one, and a crash loses at most the call in flight.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::arguments::LineRange;

/// The file name of the state in the agent directory.
pub const STATE_FILE_NAME: &str = ".aicr-output-state.json";

/// The version written in `schemaVersion`; a state of another version is
/// refused rather than misread.
pub const STATE_SCHEMA_VERSION: u32 = 1;

/// The JSON Schema (draft 2020-12) of the state file.
pub const STATE_JSON_SCHEMA: &str = include_str!("state.schema.json");

/// Everything a review reported, in the order it was reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewState {
    /// [`STATE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The commit under review, when the state was written by the tools of a
    /// task (not by the prose fallback alone).
    pub revision: Option<String>,
    /// The base commit of the task's diff, if it has one.
    pub base_revision: Option<String>,
    /// Findings, each validated against the revision and the diff.
    pub problems: Vec<Problem>,
    /// The last summary published.
    pub summary: Option<Summary>,
    /// Why the review ended without findings (`lgtm`, `no_reviewable_code`,
    /// ...); never set together with problems.
    pub skip_reason: Option<String>,
    /// Every `aicr.fetch_more_context` call that was answered.
    pub context_requests: Vec<ContextRequest>,
    /// Every `aicr.try_blame` call that was answered.
    pub attribution_requests: Vec<AttributionRequest>,
}

/// One finding of `aicr.report_problem`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// `P1`, `P2`, ... in the order reported.
    pub id: String,
    /// Repository-relative path, `/`-separated.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line when the finding spans several.
    pub end_line: Option<u32>,
    /// `file:line` or `file:line-end_line`.
    pub location: String,
    /// `info`, `low`, `medium`, `high` or `critical`.
    pub severity: String,
    /// A short stable family (`correctness`, `security`, ...).
    pub category: String,
    /// What is wrong, when it triggers, the impact.
    pub message: String,
    /// A proposed fix, possibly a fenced diff.
    pub suggestion: Option<String>,
    /// A stable de-duplication key.
    pub fingerprint: Option<String>,
}

/// The summary of `aicr.publish_summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Optional title.
    pub title: Option<String>,
    /// The summary's Markdown.
    pub markdown: String,
}

/// One `aicr.fetch_more_context` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextRequest {
    /// The path as requested.
    pub path: String,
    /// The lines requested; `null` for the whole file.
    pub range: Option<LineRange>,
    /// Why the agent asked.
    pub reason: String,
}

/// One `aicr.try_blame` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributionRequest {
    /// The path as requested.
    pub path: String,
    /// The lines requested; `null` for the whole file.
    pub range: Option<LineRange>,
    /// Why the agent asked.
    pub reason: String,
    /// The answer's status: `ok`, `partial` or `not_found`.
    pub status: String,
}

/// Reading or writing the state failed.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file system refused.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// The file is not a state this version understands.
    #[error(
        "{path} is not a review state of schema version {STATE_SCHEMA_VERSION} ({message}); remove it with `refscope aicr clean --agent-dir {}`",
        agent_dir.display()
    )]
    Invalid {
        path: PathBuf,
        agent_dir: PathBuf,
        message: String,
    },
}

impl ReviewState {
    /// An empty state for a review of `revision` against `base_revision`.
    pub fn new(revision: Option<String>, base_revision: Option<String>) -> Self {
        Self {
            schema_version: STATE_SCHEMA_VERSION,
            revision,
            base_revision,
            problems: Vec::new(),
            summary: None,
            skip_reason: None,
            context_requests: Vec::new(),
            attribution_requests: Vec::new(),
        }
    }

    /// The state in `agent_dir`, or `None` when there is no state file.
    pub fn load(agent_dir: &Path) -> Result<Option<Self>, StateError> {
        let path = state_path(agent_dir);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StateError::Io {
                    action: "cannot read",
                    path,
                    source,
                });
            }
        };
        let invalid = |message: String| StateError::Invalid {
            path: path.clone(),
            agent_dir: agent_dir.to_path_buf(),
            message,
        };
        let state: Self =
            serde_json::from_slice(&bytes).map_err(|error| invalid(error.to_string()))?;
        if state.schema_version != STATE_SCHEMA_VERSION {
            return Err(invalid(format!(
                "schemaVersion is {}",
                state.schema_version
            )));
        }
        Ok(Some(state))
    }

    /// Replaces the state file in `agent_dir` with this state, atomically.
    pub fn write(&self, agent_dir: &Path) -> Result<(), StateError> {
        let mut json = serde_json::to_vec_pretty(self).expect("a state always serializes");
        json.push(b'\n');
        write_atomically(&state_path(agent_dir), &json)
    }
}

/// Where the state of `agent_dir` lives.
pub fn state_path(agent_dir: &Path) -> PathBuf {
    agent_dir.join(STATE_FILE_NAME)
}

/// Removes the state of `agent_dir` and any temporary file a killed writer
/// left beside it. `true` when a state file was there.
pub fn remove_state(agent_dir: &Path) -> Result<bool, StateError> {
    let io_error = |action, path: &Path| {
        let path = path.to_path_buf();
        move |source| StateError::Io {
            action,
            path,
            source,
        }
    };
    let entries = match fs::read_dir(agent_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(source) => return Err(io_error("cannot list", agent_dir)(source)),
    };
    for entry in entries {
        let entry = entry.map_err(io_error("cannot list", agent_dir))?;
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|name| name.starts_with(TEMPORARY_PREFIX) && name.ends_with(".tmp"))
        {
            let path = entry.path();
            fs::remove_file(&path).map_err(io_error("cannot remove", &path))?;
        }
    }
    let path = state_path(agent_dir);
    match fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(io_error("cannot remove", &path)(source)),
    }
}

/// Temporary files are named `<prefix><pid>.<n>.tmp`.
const TEMPORARY_PREFIX: &str = ".aicr-output-state.json.";

/// Writes `bytes` to a new file beside `path`, flushes it to disk, renames it
/// over `path` and flushes the directory, so `path` holds the old bytes or
/// the new ones whatever happens.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    static NEXT_TEMPORARY: AtomicU64 = AtomicU64::new(0);
    let directory = path.parent().unwrap_or(Path::new("."));
    let temporary = directory.join(format!(
        "{TEMPORARY_PREFIX}{}.{}.tmp",
        std::process::id(),
        NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .map_err(|source| StateError::Io {
                action: "cannot create",
                path: temporary.clone(),
                source,
            })?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|source| StateError::Io {
                action: "cannot write",
                path: temporary.clone(),
                source,
            })?;
        fs::rename(&temporary, path).map_err(|source| StateError::Io {
            action: "cannot replace",
            path: path.to_path_buf(),
            source,
        })
    })();
    if result.is_err() {
        // The temporary file is ours alone; leaving it would only confuse.
        let _ = fs::remove_file(&temporary);
        return result;
    }
    // The rename is durable only once the directory entry is on disk.
    File::open(directory)
        .and_then(|directory| directory.sync_all())
        .map_err(|source| StateError::Io {
            action: "cannot flush",
            path: directory.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_state_reads_back_and_leaves_no_temporary_file() {
        let agent_dir = tempfile::tempdir().unwrap();
        let mut state = ReviewState::new(Some("abc".into()), None);
        state.skip_reason = Some("lgtm".into());
        state.write(agent_dir.path()).unwrap();
        state.write(agent_dir.path()).unwrap();
        assert_eq!(ReviewState::load(agent_dir.path()).unwrap(), Some(state));
        let names: Vec<String> = fs::read_dir(agent_dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [STATE_FILE_NAME]);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_at_the_state_path_is_replaced_not_written_through() {
        let agent_dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("precious.txt");
        fs::write(&target, "keep me").unwrap();
        let state_path = agent_dir.path().join(STATE_FILE_NAME);
        std::os::unix::fs::symlink(&target, &state_path).unwrap();
        let state = ReviewState::new(Some("abc".into()), None);
        state.write(agent_dir.path()).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
        assert!(fs::symlink_metadata(&state_path).unwrap().is_file());
        assert_eq!(ReviewState::load(agent_dir.path()).unwrap(), Some(state));
    }

    #[test]
    fn clean_removes_the_state_and_stale_temporaries_only() {
        let agent_dir = tempfile::tempdir().unwrap();
        assert!(!remove_state(agent_dir.path()).unwrap());
        ReviewState::new(None, None)
            .write(agent_dir.path())
            .unwrap();
        fs::write(
            agent_dir.path().join(".aicr-output-state.json.77.0.tmp"),
            "{",
        )
        .unwrap();
        fs::write(agent_dir.path().join("notes.md"), "keep").unwrap();
        assert!(remove_state(agent_dir.path()).unwrap());
        let names: Vec<String> = fs::read_dir(agent_dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["notes.md"]);
    }

    #[test]
    fn a_state_of_another_version_or_garbage_is_refused_with_the_fix() {
        let agent_dir = tempfile::tempdir().unwrap();
        fs::write(state_path(agent_dir.path()), "{\"schemaVersion\": 9").unwrap();
        let error = ReviewState::load(agent_dir.path()).unwrap_err().to_string();
        assert!(error.contains("refscope aicr clean --agent-dir"), "{error}");
        let mut state = serde_json::to_value(ReviewState::new(None, None)).unwrap();
        state["schemaVersion"] = 9.into();
        fs::write(state_path(agent_dir.path()), state.to_string()).unwrap();
        let error = ReviewState::load(agent_dir.path()).unwrap_err().to_string();
        assert!(error.contains("schemaVersion is 9"), "{error}");
    }

    /// The documented schema names exactly the keys the code writes, at the
    /// top level and in every kind of item.
    #[test]
    fn the_json_schema_names_exactly_the_written_keys() {
        let schema: serde_json::Value = serde_json::from_str(STATE_JSON_SCHEMA).unwrap();
        let mut state = ReviewState::new(Some("r".into()), Some("b".into()));
        state.problems.push(Problem {
            id: "P1".into(),
            file: "A.java".into(),
            line: 1,
            end_line: Some(2),
            location: "A.java:1-2".into(),
            severity: "low".into(),
            category: "style".into(),
            message: "m".into(),
            suggestion: None,
            fingerprint: None,
        });
        state.summary = Some(Summary {
            title: None,
            markdown: "s".into(),
        });
        let range = Some(LineRange {
            start_line: 1,
            end_line: 2,
        });
        state.context_requests.push(ContextRequest {
            path: "A.java".into(),
            range,
            reason: "r".into(),
        });
        state.attribution_requests.push(AttributionRequest {
            path: "A.java".into(),
            range,
            reason: "r".into(),
            status: "ok".into(),
        });
        let written = serde_json::to_value(&state).unwrap();
        let keys = |value: &serde_json::Value| {
            let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        let schema_keys = |schema: &serde_json::Value| keys(&schema["properties"]);
        let definitions = &schema["$defs"];
        assert_eq!(schema_keys(&schema), keys(&written));
        assert_eq!(
            schema_keys(&definitions["problem"]),
            keys(&written["problems"][0])
        );
        assert_eq!(
            schema_keys(&definitions["summary"]),
            keys(&written["summary"])
        );
        assert_eq!(
            schema_keys(&definitions["contextRequest"]),
            keys(&written["contextRequests"][0])
        );
        assert_eq!(
            schema_keys(&definitions["attributionRequest"]),
            keys(&written["attributionRequests"][0])
        );
        assert_eq!(
            schema_keys(&definitions["lineRange"]),
            keys(&written["contextRequests"][0]["range"])
        );
    }
}
