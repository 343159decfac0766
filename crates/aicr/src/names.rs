//! The canonical names of the review tools, and the mapping from the names
//! clients actually send back to them.
//!
//! A server lists `aicr.report_problem`; what comes back is often spelled
//! otherwise. Function-calling APIs do not allow dots, so clients replace
//! them (`aicr_report_problem`); agent CLIs prefix the server's name to keep
//! tools of several servers apart (`mcp__aicr-output__aicr_report_problem`,
//! `aicr-output_aicr_report_problem`, `aicr-output__aicr.report_problem`);
//! some change the case. [`normalize_tool_name`] undoes exactly these
//! transformations and nothing more: the name must still end in the whole
//! tool name, `aicr` included, after a separator.

/// `aicr.report_problem`: one finding on a line of the diff.
pub const REPORT_PROBLEM: &str = "aicr.report_problem";
/// `aicr.publish_summary`: the review's summary in Markdown.
pub const PUBLISH_SUMMARY: &str = "aicr.publish_summary";
/// `aicr.skip`: the review ends without findings, and why.
pub const SKIP: &str = "aicr.skip";
/// `aicr.fetch_more_context`: a file (or lines of it) at the revision.
pub const FETCH_MORE_CONTEXT: &str = "aicr.fetch_more_context";
/// `aicr.try_blame`: who last changed lines of a file, and in which commit.
pub const TRY_BLAME: &str = "aicr.try_blame";

/// Every review tool, in the order the server lists them.
pub const REVIEW_TOOL_NAMES: [&str; 5] = [
    REPORT_PROBLEM,
    PUBLISH_SUMMARY,
    SKIP,
    FETCH_MORE_CONTEXT,
    TRY_BLAME,
];

/// The canonical `aicr.*` name that `requested` stands for, or `None` when it
/// names no review tool: [`refscope_tool::canonical_tool_name`] over the
/// review tools. Case and separators do not matter, and any prefix before a
/// separator is accepted, but the whole tool name must end the requested
/// one: `report_problem` alone, `xaicr_skip` or `aicr_skip_all` are not
/// review tools.
///
/// ```
/// use refscope_aicr::normalize_tool_name;
/// assert_eq!(
///     normalize_tool_name("mcp__aicr-output__aicr_report_problem"),
///     Some("aicr.report_problem")
/// );
/// assert_eq!(normalize_tool_name("report_problem"), None);
/// ```
pub fn normalize_tool_name(requested: &str) -> Option<&'static str> {
    refscope_tool::canonical_tool_name(requested, REVIEW_TOOL_NAMES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_spellings_map_to_canonical_names_and_nothing_else_does() {
        let table: &[(&str, Option<&str>)] = &[
            // The names as listed.
            ("aicr.report_problem", Some(REPORT_PROBLEM)),
            ("aicr.publish_summary", Some(PUBLISH_SUMMARY)),
            ("aicr.skip", Some(SKIP)),
            ("aicr.fetch_more_context", Some(FETCH_MORE_CONTEXT)),
            ("aicr.try_blame", Some(TRY_BLAME)),
            // Dots turned into underscores or hyphens (function-calling APIs).
            ("aicr_report_problem", Some(REPORT_PROBLEM)),
            ("aicr-try-blame", Some(TRY_BLAME)),
            // A server-name prefix, with one or two separators.
            ("aicr-output_aicr_report_problem", Some(REPORT_PROBLEM)),
            ("aicr-output__aicr_skip", Some(SKIP)),
            ("aicr-output__aicr.publish_summary", Some(PUBLISH_SUMMARY)),
            (
                "aicr-output.aicr.fetch_more_context",
                Some(FETCH_MORE_CONTEXT),
            ),
            ("aicr-output/aicr.try_blame", Some(TRY_BLAME)),
            ("aicr-output:aicr_skip", Some(SKIP)),
            // Claude Code's `mcp__<server>__<tool>`, whatever the server is called.
            (
                "mcp__aicr-output__aicr_report_problem",
                Some(REPORT_PROBLEM),
            ),
            ("mcp__refscope__aicr_try_blame", Some(TRY_BLAME)),
            ("mcp_review_aicr_skip", Some(SKIP)),
            // OpenAI-style namespaces.
            ("functions.aicr_publish_summary", Some(PUBLISH_SUMMARY)),
            // Case.
            ("AICR.Report_Problem", Some(REPORT_PROBLEM)),
            ("MCP__AICR-OUTPUT__AICR_SKIP", Some(SKIP)),
            // Not review tools: the namespace missing, a longer word, a
            // suffix, another tool, an empty name.
            ("report_problem", None),
            ("skip", None),
            ("xaicr_skip", None),
            ("aicr_skip_all", None),
            ("aicr_report_problems", None),
            ("aicr.report", None),
            ("aicr_problem", None),
            ("mcp__aicr-output__code_context", None),
            ("mcp__aicr-output__aicr", None),
            ("aicrskip", None),
            ("Read", None),
            ("", None),
            ("__", None),
        ];
        let failures: Vec<String> = table
            .iter()
            .filter(|(requested, expected)| normalize_tool_name(requested) != *expected)
            .map(|(requested, expected)| {
                format!(
                    "{requested:?}: expected {expected:?}, got {:?}",
                    normalize_tool_name(requested)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
