//! Client spellings of tool names, mapped back to canonical names.
//!
//! MCP clients do not all call a tool by the name the server lists. Some
//! prefix the server's name (`aicr-output_aicr_report_problem`,
//! `mcp__refscope__code_context`) and some turn dots into underscores,
//! because their model APIs allow only `[A-Za-z0-9_-]` in function names.
//! The server maps every incoming name back before dispatch.

/// The canonical name among `canonical` that `requested` spells: the name
/// itself; the name with dots turned into underscores; either of those
/// behind a prefix that ends in `_`, `-`, `.`, `/` or `:` (a client's
/// server prefix). When several canonical names fit (a prefix form of one
/// could end another), the longest wins. `None` when none fits.
///
/// ```
/// use refscope_mcp_bridge::tool_name::canonical_tool_name;
///
/// let names = ["code_context", "aicr.report_problem"];
/// assert_eq!(canonical_tool_name("aicr-output_aicr_report_problem", names), Some("aicr.report_problem"));
/// assert_eq!(canonical_tool_name("mcp__refscope__code_context", names), Some("code_context"));
/// assert_eq!(canonical_tool_name("report_problem", names), None);
/// ```
pub fn canonical_tool_name<'a>(
    requested: &str,
    canonical: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<&'a str> = None;
    for name in canonical {
        if name == requested {
            return Some(name);
        }
        if spells(requested, name) && best.is_none_or(|b| name.len() > b.len()) {
            best = Some(name);
        }
    }
    best
}

/// Whether `requested` is `name` with dots as underscores, or either form
/// behind a separator-terminated prefix.
fn spells(requested: &str, name: &str) -> bool {
    let underscored = name.replace('.', "_");
    [name, underscored.as_str()].into_iter().any(|form| {
        requested == form
            || requested.strip_suffix(form).is_some_and(|prefix| {
                prefix.len() > 1 && prefix.ends_with(['_', '-', '.', '/', ':'])
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = [
        "code_context",
        "code_query",
        "aicr.report_problem",
        "aicr.skip",
    ];

    #[test]
    fn client_spellings_map_back_to_canonical_names() {
        let cases: [(&str, Option<&str>); 12] = [
            ("code_context", Some("code_context")),
            ("aicr.report_problem", Some("aicr.report_problem")),
            ("aicr_report_problem", Some("aicr.report_problem")),
            (
                "aicr-output_aicr_report_problem",
                Some("aicr.report_problem"),
            ),
            ("aicr-output.aicr.skip", Some("aicr.skip")),
            ("mcp__aicr-output__aicr_skip", Some("aicr.skip")),
            ("refscope_code_context", Some("code_context")),
            ("refscope/code_query", Some("code_query")),
            ("report_problem", None),
            ("skip", None),
            ("code_contexts", None),
            ("_code_context", None),
        ];
        for (requested, expected) in cases {
            assert_eq!(
                canonical_tool_name(requested, NAMES),
                expected,
                "for {requested}"
            );
        }
    }

    #[test]
    fn the_longest_canonical_name_wins_when_several_fit() {
        let names = ["skip", "aicr.skip"];
        assert_eq!(canonical_tool_name("x_aicr_skip", names), Some("aicr.skip"));
        assert_eq!(canonical_tool_name("x_skip", names), Some("skip"));
    }
}
