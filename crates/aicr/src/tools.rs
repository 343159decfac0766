//! [`ReviewTools`]: the five `aicr.*` tools bound to one review task, as a
//! [`ToolSet`] the MCP server (and the stream replay) call.
//!
//! Every call is checked against its tool's table (unknown fields refused),
//! then against the repository (files at the revision, lines of the diff);
//! a valid call is applied to a copy of the state, the copy is written, and
//! only then does it become the state. An invalid call changes nothing.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::arguments::{CheckedArguments, FieldKind, FieldSpec, LineRange, ToolSpec};
use super::blame::blame;
use super::names::{
    FETCH_MORE_CONTEXT, PUBLISH_SUMMARY, REPORT_PROBLEM, SKIP, TRY_BLAME, normalize_tool_name,
};
use super::read::{PathProblem, ResolvedFile, looks_binary, normalized_path};
use super::repository::ReviewRepository;
use super::state::{
    AttributionRequest, ContextRequest, Problem, ReviewState, StateError, Summary, state_path,
};
use super::target::{ReviewTarget, ReviewTargetError};
use refscope_tool::{ToolDefinition, ToolError, ToolSet};

/// The review tools of one task, writing `.aicr-output-state.json` into an
/// agent directory after every call.
///
/// ```no_run
/// use refscope_aicr::{Repository, ReviewTarget, ReviewTools};
/// use refscope_tool::ToolSet;
///
/// let target = ReviewTarget {
///     repository: Repository::Git("/src/shop".into()),
///     revision: "feature".into(),
///     base_revision: Some("main".into()),
/// };
/// let mut tools = ReviewTools::open(&target, std::path::Path::new("/tmp/agent")).unwrap();
/// let arguments = serde_json::json!({"reason": "lgtm"});
/// tools.call("aicr.skip", arguments.as_object().unwrap()).unwrap();
/// ```
pub struct ReviewTools {
    repository: ReviewRepository,
    agent_dir: PathBuf,
    state: ReviewState,
}

/// The review tools cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ReviewToolsError {
    /// The task's repository or revisions.
    #[error(transparent)]
    Target(#[from] ReviewTargetError),
    /// The state file in the agent directory.
    #[error(transparent)]
    State(#[from] StateError),
    /// The agent directory cannot be created.
    #[error("cannot create the agent directory {path}: {source}")]
    AgentDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The agent directory holds the state of another review.
    #[error(
        "{path} holds the state of a review of revision {found}, not {expected}; remove it with `refscope aicr clean --agent-dir {}`",
        agent_dir.display()
    )]
    StaleState {
        path: PathBuf,
        agent_dir: PathBuf,
        found: String,
        expected: String,
    },
}

/// Severities a problem may have, mildest first.
const SEVERITIES: &[&str] = &["info", "low", "medium", "high", "critical"];

/// The most lines `aicr.fetch_more_context` returns in one answer.
pub const MAX_FETCHED_LINES: u32 = 2000;

const PATH_TEXT: FieldKind = FieldKind::Text { max_chars: 4096 };
const SHORT_TEXT: FieldKind = FieldKind::Text { max_chars: 300 };
const REASON_TEXT: FieldKind = FieldKind::Text { max_chars: 2000 };
const LONG_TEXT: FieldKind = FieldKind::Text { max_chars: 65_536 };

static REPORT_PROBLEM_SPEC: ToolSpec = ToolSpec {
    name: REPORT_PROBLEM,
    description: "Report one problem found in the change under review. This is the only way to report a finding: free text is not read. \
Inputs: file and line (when the review has a base revision, line must be a changed line or a context line of a hunk of the diff), optional end_line for a span within the same hunk, severity, a short stable category, a message saying what is wrong, when it triggers and its impact, an optional suggestion (may hold a fenced diff) and an optional fingerprint for de-duplication. \
Output: the problem's id and its location file:line or file:line-end_line. \
Use it once per distinct problem; do not name or guess authors (use aicr.try_blame). \
Caveats: an invalid call records nothing and its error names the field to fix; reporting a problem withdraws an earlier aicr.skip.",
    fields: &[
        FieldSpec {
            name: "file",
            kind: PATH_TEXT,
            required: true,
            description: "Repository-relative path of the file, '/'-separated, as it is at the revision under review.",
        },
        FieldSpec {
            name: "line",
            kind: FieldKind::Line,
            required: true,
            description: "Line of the problem at the revision under review (1-based). With a base revision: a changed line or a context line of a hunk of the diff.",
        },
        FieldSpec {
            name: "end_line",
            kind: FieldKind::Line,
            required: false,
            description: "Last line when the problem spans several lines: at least line, in the same diff hunk.",
        },
        FieldSpec {
            name: "severity",
            kind: FieldKind::Choice(SEVERITIES),
            required: true,
            description: "How bad it is: info, low, medium, high or critical.",
        },
        FieldSpec {
            name: "category",
            kind: FieldKind::Code,
            required: true,
            description: "A short stable family in lowercase, such as correctness, security, performance, concurrency, api-contract, maintainability.",
        },
        FieldSpec {
            name: "message",
            kind: LONG_TEXT,
            required: true,
            description: "What is wrong, when it triggers, and the impact.",
        },
        FieldSpec {
            name: "suggestion",
            kind: LONG_TEXT,
            required: false,
            description: "How to fix it; may hold a fenced diff.",
        },
        FieldSpec {
            name: "fingerprint",
            kind: SHORT_TEXT,
            required: false,
            description: "A stable key for de-duplication: the same problem keeps the same fingerprint across reviews.",
        },
    ],
};

static PUBLISH_SUMMARY_SPEC: ToolSpec = ToolSpec {
    name: PUBLISH_SUMMARY,
    description: "Publish the review's overall summary in Markdown. \
Inputs: markdown (required, non-empty) and an optional title. Output: confirmation. \
Use it once at the end of a review, after reporting the problems. \
Caveats: a later call replaces the earlier summary; problems belong in aicr.report_problem, not in the summary.",
    fields: &[
        FieldSpec {
            name: "title",
            kind: SHORT_TEXT,
            required: false,
            description: "Title of the summary.",
        },
        FieldSpec {
            name: "markdown",
            kind: LONG_TEXT,
            required: true,
            description: "The summary in Markdown.",
        },
    ],
};

static SKIP_SPEC: ToolSpec = ToolSpec {
    name: SKIP,
    description: "End the review without findings and say why. \
Input: reason, a short code: lgtm (reviewed, nothing actionable), no_reviewable_code (nothing in the change can be reviewed), no_output_publisher, or another lowercase code. Output: confirmation. \
Use it instead of writing 'LGTM' in free text. \
Caveats: refused once problems are reported; a later call replaces the reason.",
    fields: &[FieldSpec {
        name: "reason",
        kind: FieldKind::Code,
        required: true,
        description: "Why the review has no findings: lgtm, no_reviewable_code, no_output_publisher, or another short lowercase code.",
    }],
};

static FETCH_MORE_CONTEXT_SPEC: ToolSpec = ToolSpec {
    name: FETCH_MORE_CONTEXT,
    description: "Read a file of the repository at the revision under review, whole or a range of lines, when the diff and the code context are not enough. \
Inputs: path (repository-relative), optional range {start_line, end_line}, and the reason you need it. \
Output: the file's text for the lines served, with start_line, end_line and total_lines; at most 2000 lines per call (truncated says so: ask for a range). \
Caveats: a path that does not exist at the revision, is absolute, contains '..' or leads out through a symbolic link is refused; do not retry such a path.",
    fields: &[
        FieldSpec {
            name: "path",
            kind: PATH_TEXT,
            required: true,
            description: "Repository-relative path of the file, '/'-separated.",
        },
        FieldSpec {
            name: "range",
            kind: FieldKind::LineRange,
            required: false,
            description: "The lines to read, both ends included; the whole file when absent.",
        },
        FieldSpec {
            name: "reason",
            kind: REASON_TEXT,
            required: true,
            description: "Why this context is needed.",
        },
    ],
};

static TRY_BLAME_SPEC: ToolSpec = ToolSpec {
    name: TRY_BLAME,
    description: "Find who last changed lines of a file at the revision under review, following renames: per line the commit id, author, author e-mail, author time and commit summary, never the source text. \
Inputs: path (repository-relative), optional range {start_line, end_line}, and the reason you need it. \
Output: status ok (every line attributed), partial (some lines) or not_found (no history: the file does not exist at the revision, or no such lines), and the lines. \
Use it for attribution; problems never carry an author field. \
Caveats: a path that is absolute, contains '..' or leads out through a symbolic link is refused.",
    fields: &[
        FieldSpec {
            name: "path",
            kind: PATH_TEXT,
            required: true,
            description: "Repository-relative path of the file, '/'-separated.",
        },
        FieldSpec {
            name: "range",
            kind: FieldKind::LineRange,
            required: false,
            description: "The lines to blame, both ends included; the whole file when absent.",
        },
        FieldSpec {
            name: "reason",
            kind: REASON_TEXT,
            required: true,
            description: "Why attribution is needed.",
        },
    ],
};

/// The tables of the five tools, in the order they are listed.
static SPECS: [&ToolSpec; 5] = [
    &REPORT_PROBLEM_SPEC,
    &PUBLISH_SUMMARY_SPEC,
    &SKIP_SPEC,
    &FETCH_MORE_CONTEXT_SPEC,
    &TRY_BLAME_SPEC,
];

/// The definitions of the review tools, as a server lists them; they do not
/// depend on the task.
pub fn review_tool_definitions() -> Vec<ToolDefinition> {
    SPECS.iter().map(|spec| spec.definition()).collect()
}

impl ReviewTools {
    /// The tools of the review of `target`, recording into `agent_dir`
    /// (created if missing). A state already there is continued when it
    /// belongs to the same revision, and refused when it belongs to another
    /// one: `refscope aicr clean` removes a stale state before a run.
    pub fn open(target: &ReviewTarget, agent_dir: &Path) -> Result<Self, ReviewToolsError> {
        let repository = ReviewRepository::open(target)?;
        std::fs::create_dir_all(agent_dir).map_err(|source| ReviewToolsError::AgentDir {
            path: agent_dir.to_path_buf(),
            source,
        })?;
        let revision = repository.revision.clone();
        let base_revision = repository.base_revision.clone();
        let state = match ReviewState::load(agent_dir)? {
            Some(state)
                if state
                    .revision
                    .as_ref()
                    .is_some_and(|found| *found != revision) =>
            {
                return Err(ReviewToolsError::StaleState {
                    path: state_path(agent_dir),
                    agent_dir: agent_dir.to_path_buf(),
                    found: state.revision.unwrap_or_default(),
                    expected: revision,
                });
            }
            Some(mut state) => {
                state.revision = Some(revision);
                state.base_revision = base_revision;
                state
            }
            None => ReviewState::new(Some(revision), base_revision),
        };
        Ok(Self {
            repository,
            agent_dir: agent_dir.to_path_buf(),
            state,
        })
    }

    /// The state as of the last call.
    pub fn state(&self) -> &ReviewState {
        &self.state
    }

    /// The directory the state is written to.
    pub fn agent_dir(&self) -> &Path {
        &self.agent_dir
    }

    fn report_problem(
        &self,
        state: &mut ReviewState,
        arguments: &CheckedArguments<'_>,
    ) -> Result<Value, ToolError> {
        let requested_file = arguments.required_text("file");
        let line = arguments.line("line").expect("line is required");
        let end_line = arguments.line("end_line");
        let refuse = |message: String| Err(ToolError::new(format!("{REPORT_PROBLEM}: {message}")));
        if let Some(end_line) = end_line
            && end_line < line
        {
            return refuse(format!(
                "field `end_line` ({end_line}) must be at least `line` ({line})"
            ));
        }
        let revision = self.repository.short_revision();
        let file = normalized_path(requested_file)
            .map_err(|problem| self.path_error(REPORT_PROBLEM, "file", requested_file, &problem))?;
        if let Some(diff) = &self.repository.diff {
            let Some(hunks) = diff.hunks(&file) else {
                let changed: Vec<&str> = diff.changed_paths().take(20).collect();
                return refuse(format!(
                    "field `file`: `{file}` is not changed by the diff under review; report problems on the changed files ({})",
                    if changed.is_empty() {
                        "none".to_string()
                    } else {
                        changed.join(", ")
                    }
                ));
            };
            let commentable = hunks
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let Some(hunk) = diff.hunk_of(&file, line) else {
                return refuse(if hunks.is_empty() {
                    format!(
                        "field `line`: `{file}` has no commentable lines in the diff (deleted, binary or only its mode changed)"
                    )
                } else {
                    format!(
                        "field `line` ({line}) is not a commentable line of `{file}` in the diff: the changed lines and their context lines are {commentable}"
                    )
                });
            };
            if let Some(end_line) = end_line
                && end_line > hunk.last_line
            {
                return refuse(format!(
                    "field `end_line` ({end_line}) leaves the diff hunk {hunk} that holds line {line}; end the span within it or report the lines separately"
                ));
            }
        } else {
            let resolved = self.repository.resolve_file(&file).map_err(|problem| {
                self.path_error(REPORT_PROBLEM, "file", requested_file, &problem)
            })?;
            let total_lines = self
                .text_of(REPORT_PROBLEM, "file", requested_file, &resolved)?
                .lines()
                .count() as u32;
            let last_line = end_line.unwrap_or(line);
            if last_line > total_lines {
                let field = if end_line.is_some() {
                    "end_line"
                } else {
                    "line"
                };
                return refuse(format!(
                    "field `{field}` ({last_line}) is past the end of `{file}`, which has {total_lines} lines at revision {revision}"
                ));
            }
        }
        let fingerprint = arguments.text("fingerprint").map(str::to_string);
        if let Some(fingerprint) = &fingerprint
            && let Some(earlier) = state
                .problems
                .iter()
                .find(|problem| problem.fingerprint.as_ref() == Some(fingerprint))
        {
            return refuse(format!(
                "field `fingerprint`: `{fingerprint}` is already reported as {} at {}; report each problem once",
                earlier.id, earlier.location
            ));
        }
        let end_line = end_line.filter(|end_line| *end_line != line);
        let location = match end_line {
            Some(end_line) => format!("{file}:{line}-{end_line}"),
            None => format!("{file}:{line}"),
        };
        let id = format!("P{}", state.problems.len() + 1);
        state.problems.push(Problem {
            id: id.clone(),
            file,
            line,
            end_line,
            location: location.clone(),
            severity: arguments.required_text("severity").to_string(),
            category: arguments.required_text("category").to_string(),
            message: arguments.required_text("message").to_string(),
            suggestion: arguments.text("suggestion").map(str::to_string),
            fingerprint,
        });
        let withdrawn_skip = state.skip_reason.take();
        let mut answer = json!({
            "recorded": true,
            "id": id,
            "location": location,
            "problems": state.problems.len(),
        });
        if let Some(reason) = withdrawn_skip {
            answer["note"] = Value::from(format!(
                "the earlier aicr.skip ({reason}) is withdrawn: the review has findings"
            ));
        }
        Ok(answer)
    }

    fn publish_summary(
        state: &mut ReviewState,
        arguments: &CheckedArguments<'_>,
    ) -> Result<Value, ToolError> {
        let replaced = state
            .summary
            .replace(Summary {
                title: arguments.text("title").map(str::to_string),
                markdown: arguments.required_text("markdown").to_string(),
            })
            .is_some();
        Ok(json!({"recorded": true, "replaced_earlier_summary": replaced}))
    }

    fn skip(state: &mut ReviewState, arguments: &CheckedArguments<'_>) -> Result<Value, ToolError> {
        let reason = arguments.required_text("reason");
        if !state.problems.is_empty() {
            return Err(ToolError::new(format!(
                "{SKIP}: field `reason` ({reason}) cannot be recorded: {} problem(s) are already reported, and a review with findings is not skipped",
                state.problems.len()
            )));
        }
        state.skip_reason = Some(reason.to_string());
        Ok(json!({"recorded": true, "skipReason": reason}))
    }

    fn fetch_more_context(
        &self,
        state: &mut ReviewState,
        arguments: &CheckedArguments<'_>,
    ) -> Result<Value, ToolError> {
        let path = arguments.required_text("path");
        let range = arguments.range("range");
        let file = self
            .repository
            .resolve_file(path)
            .map_err(|problem| self.path_error(FETCH_MORE_CONTEXT, "path", path, &problem))?;
        let text = self.text_of(FETCH_MORE_CONTEXT, "path", path, &file)?;
        let lines: Vec<&str> = text.lines().collect();
        let total_lines = lines.len() as u32;
        let wanted = range.unwrap_or(LineRange {
            start_line: 1,
            end_line: total_lines.max(1),
        });
        if range.is_some() && wanted.start_line > total_lines {
            return Err(ToolError::new(format!(
                "{FETCH_MORE_CONTEXT}: field `range` starts at line {} but `{path}` has {total_lines} lines at revision {}; ask for lines within 1-{total_lines}",
                wanted.start_line,
                self.repository.short_revision()
            )));
        }
        let end_line = wanted
            .end_line
            .min(total_lines)
            .min(wanted.start_line.saturating_add(MAX_FETCHED_LINES - 1));
        let truncated = end_line < wanted.end_line.min(total_lines);
        let served: &[&str] = if total_lines == 0 {
            &[]
        } else {
            &lines[(wanted.start_line - 1) as usize..end_line as usize]
        };
        let mut content = served.join("\n");
        if !served.is_empty() {
            content.push('\n');
        }
        state.context_requests.push(ContextRequest {
            path: path.to_string(),
            range,
            reason: arguments.required_text("reason").to_string(),
        });
        let mut answer = json!({
            "path": path,
            "revision": self.repository.revision,
            "start_line": if total_lines == 0 { 0 } else { wanted.start_line },
            "end_line": end_line,
            "total_lines": total_lines,
            "truncated": truncated,
            "content": content,
        });
        if file.path != normalized_path(path).unwrap_or_default() {
            answer["resolved_path"] = Value::from(file.path);
        }
        if truncated {
            answer["note"] = Value::from(format!(
                "at most {MAX_FETCHED_LINES} lines per call: ask for the range {}-{} next if you need it",
                end_line + 1,
                wanted.end_line.min(total_lines)
            ));
        }
        Ok(answer)
    }

    fn try_blame(
        &self,
        state: &mut ReviewState,
        arguments: &CheckedArguments<'_>,
    ) -> Result<Value, ToolError> {
        let path = arguments.required_text("path");
        let range = arguments.range("range");
        let answer = blame(&self.repository, path, range)
            .map_err(|problem| self.path_error(TRY_BLAME, "path", path, &problem))?;
        state.attribution_requests.push(AttributionRequest {
            path: path.to_string(),
            range,
            reason: arguments.required_text("reason").to_string(),
            status: answer.status.to_string(),
        });
        Ok(serde_json::to_value(answer).expect("a blame answer always serializes"))
    }

    /// The error for a path that cannot be read.
    fn path_error(
        &self,
        tool: &str,
        field: &str,
        requested: &str,
        problem: &PathProblem,
    ) -> ToolError {
        ToolError::new(format!(
            "{tool}: field `{field}`: {}",
            problem.message(requested, &self.repository.short_revision())
        ))
    }

    /// A text file's content; binary files are refused.
    fn text_of(
        &self,
        tool: &str,
        field: &str,
        requested: &str,
        file: &ResolvedFile,
    ) -> Result<String, ToolError> {
        let bytes = self.repository.bytes(file).map_err(|error| {
            ToolError::new(format!(
                "{tool}: field `{field}`: cannot read `{requested}`: {error}"
            ))
        })?;
        if looks_binary(&bytes) {
            return Err(ToolError::new(format!(
                "{tool}: field `{field}`: `{requested}` is a binary file; stop retrying this path"
            )));
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl ToolSet for ReviewTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        review_tool_definitions()
    }

    fn canonical_name(&self, requested: &str) -> Option<&'static str> {
        normalize_tool_name(requested)
    }

    fn call(
        &mut self,
        name: &'static str,
        arguments: &Map<String, Value>,
    ) -> Result<Value, ToolError> {
        let spec = SPECS
            .iter()
            .find(|spec| spec.name == name)
            .ok_or_else(|| ToolError::new(format!("{name} is not a review tool")))?;
        let mut next = self.state.clone();
        let outcome = spec.check(arguments).and_then(|arguments| match name {
            REPORT_PROBLEM => self.report_problem(&mut next, &arguments),
            PUBLISH_SUMMARY => Self::publish_summary(&mut next, &arguments),
            SKIP => Self::skip(&mut next, &arguments),
            FETCH_MORE_CONTEXT => self.fetch_more_context(&mut next, &arguments),
            TRY_BLAME => self.try_blame(&mut next, &arguments),
            _ => unreachable!("every spec has a handler"),
        });
        match outcome {
            Ok(answer) => {
                next.write(&self.agent_dir).map_err(|error| {
                    ToolError::new(format!(
                        "{name}: the call was not recorded because the state cannot be written ({error}); fix the agent directory and call again"
                    ))
                })?;
                self.state = next;
                Ok(answer)
            }
            Err(refusal) => {
                // The state is written after every call, an invalid one too,
                // so the file exists once the agent has called anything.
                self.state.write(&self.agent_dir).map_err(|error| {
                    ToolError::new(format!(
                        "{refusal}; also, the state cannot be written: {error}"
                    ))
                })?;
                Err(refusal)
            }
        }
    }
}
