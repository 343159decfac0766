//! Client spellings of tool names, mapped back to canonical names.
//!
//! MCP clients do not all call a tool by the name the server lists. Some
//! prefix the server's name (`aicr-output_aicr_report_problem`,
//! `mcp__refscope__code_context`) and some turn dots into underscores,
//! because their model APIs allow only `[A-Za-z0-9_-]` in function names.
//! The server maps every incoming name back before dispatch.

/// The canonical name among `canonical` that `requested` spells, or `None`.
///
/// Names are compared as words: maximal runs of ASCII letters and digits,
/// without regard to case, so every run of other characters (`.`, `_`, `-`,
/// `/`, `:`, doubled or not) is one separator. `requested` spells a name when
/// its words end with the name's words: a prefix before a separator (a
/// server name, `mcp`, `functions`) is accepted, but a word is never matched
/// by the end of a longer word, and no word may be missing or added at the
/// end. When several names fit (`skip` and `aicr.skip`), the one with the
/// most words wins.
///
/// ```
/// use refscope_tool::canonical_tool_name;
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
    let requested_words = words(requested);
    canonical
        .into_iter()
        .map(|name| (name, words(name)))
        .filter(|(_, name_words)| !name_words.is_empty() && requested_words.ends_with(name_words))
        .max_by_key(|(_, name_words)| name_words.len())
        .map(|(name, _)| name)
}

/// A name's words: maximal runs of ASCII letters and digits, lowercased.
fn words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
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
        let cases: [(&str, Option<&str>); 14] = [
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
            ("_code_context", Some("code_context")),
            ("Code-Context", Some("code_context")),
            ("xcode_context", None),
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
