//! The prose fallback: an agent that ended its review with words instead of
//! `aicr.skip` ("LGTM", "no actionable problems", "没有发现问题", "there is
//! no reviewable code") still leaves a state the orchestrator understands.
//!
//! The mapping is deliberately conservative. Prose that contrasts or hedges
//! ("LGTM, but ...", "except", "however", "但是", "建议") or that is long
//! enough to be a review of its own is not recognised: a false "lgtm" would
//! hide a finding, while an unrecognised text only leaves the decision to
//! whoever reads it. A state that already holds problems or a skip reason is
//! never changed.

use std::path::Path;

use super::state::{ReviewState, StateError};

/// What a prose conclusion means, as a skip reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProseVerdict {
    /// Reviewed, nothing actionable: skip reason `lgtm`.
    Lgtm,
    /// Nothing reviewable in the change: skip reason `no_reviewable_code`.
    NoReviewableCode,
}

/// What [`apply_prose`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProseOutcome {
    /// The skip reason was written into the state.
    Written(ProseVerdict),
    /// The state already has a skip reason; unchanged.
    AlreadySkipped(String),
    /// The state already has problems; unchanged.
    HasProblems(usize),
    /// The prose does not clearly say either; nothing written.
    NotRecognized,
}

/// Prose longer than this is a review of its own, not a conclusion.
const MAX_CONCLUSION_CHARS: usize = 2000;

/// English phrases, as lowercase word sequences, meaning nothing in the
/// change can be reviewed.
const NO_REVIEWABLE_CODE_PHRASES: &[&str] = &[
    "no reviewable code",
    "no reviewable changes",
    "no reviewable files",
    "nothing reviewable",
    "nothing to review",
    "no code to review",
    "no code changes",
    "no source code changes",
    "no code was changed",
    "contains no code",
    "no code in this change",
    "no code in the diff",
];

/// English phrases meaning reviewed, nothing actionable.
const LGTM_PHRASES: &[&str] = &[
    "lgtm",
    "looks good to me",
    "looks good",
    "no actionable problems",
    "no actionable issues",
    "no actionable findings",
    "no actionable feedback",
    "no actionable comments",
    "nothing actionable",
    "no problems found",
    "no issues found",
    "no problems were found",
    "no issues were found",
    "found no problems",
    "found no issues",
    "did not find any problems",
    "did not find any issues",
    "didn't find any problems",
    "didn't find any issues",
    "nothing to report",
    "no concerns",
    "no findings",
];

/// English words and phrases that contrast or hedge: a conclusion holding
/// one is not trusted.
const HEDGE_PHRASES: &[&str] = &[
    "but",
    "however",
    "except",
    "although",
    "though",
    "nevertheless",
    "apart from",
    "aside from",
    "other than",
    "that said",
    "suggest",
    "consider",
    "nit",
];

/// Chinese phrases meaning nothing in the change can be reviewed.
const NO_REVIEWABLE_CODE_PHRASES_ZH: &[&str] = &[
    "没有可审查的代码",
    "无可审查的代码",
    "没有可评审的代码",
    "无可评审的代码",
    "没有需要审查的代码",
    "没有可审查",
    "无可审查",
    "没有代码变更",
    "没有代码改动",
    "无代码变更",
];

/// Chinese phrases meaning reviewed, nothing actionable.
const LGTM_PHRASES_ZH: &[&str] = &[
    "没有发现问题",
    "未发现问题",
    "没发现问题",
    "未发现明显问题",
    "没有发现明显问题",
    "没有可操作的问题",
    "没有需要修改",
    "无需修改",
    "代码没有问题",
    "没有问题",
    "没问题",
    "看起来不错",
    "可以合并",
];

/// Chinese contrasts and hedges.
const HEDGE_PHRASES_ZH: &[&str] = &["但是", "但", "不过", "然而", "除了", "建议", "需要注意"];

impl ProseVerdict {
    /// The skip reason written for it.
    pub fn skip_reason(self) -> &'static str {
        match self {
            Self::Lgtm => "lgtm",
            Self::NoReviewableCode => "no_reviewable_code",
        }
    }
}

/// What `prose` concludes, or `None` when it does not clearly say there is
/// nothing to report or nothing to review. "No reviewable code" wins over
/// "LGTM" when both are said.
pub fn classify_prose(prose: &str) -> Option<ProseVerdict> {
    if prose.chars().count() > MAX_CONCLUSION_CHARS {
        return None;
    }
    let lowered = prose.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    let words: Vec<&str> = lowered
        .split(|c: char| !(c.is_alphanumeric() || c == '\'') || is_cjk(c))
        .filter(|word| !word.is_empty())
        .collect();
    let says = |phrases: &[&str], phrases_zh: &[&str]| {
        phrases.iter().any(|phrase| contains_words(&words, phrase))
            || phrases_zh.iter().any(|phrase| lowered.contains(phrase))
    };
    if says(HEDGE_PHRASES, HEDGE_PHRASES_ZH) {
        return None;
    }
    if says(NO_REVIEWABLE_CODE_PHRASES, NO_REVIEWABLE_CODE_PHRASES_ZH) {
        Some(ProseVerdict::NoReviewableCode)
    } else if says(LGTM_PHRASES, LGTM_PHRASES_ZH) {
        Some(ProseVerdict::Lgtm)
    } else {
        None
    }
}

/// Writes the skip reason `prose` means into the state of `agent_dir`,
/// unless the state already holds problems or a skip reason, or the prose
/// is not recognised. A state without either (a summary or context requests
/// only) keeps everything it has and gains the skip reason.
pub fn apply_prose(agent_dir: &Path, prose: &str) -> Result<ProseOutcome, StateError> {
    let existing = ReviewState::load(agent_dir)?;
    if let Some(state) = &existing {
        if !state.problems.is_empty() {
            return Ok(ProseOutcome::HasProblems(state.problems.len()));
        }
        if let Some(reason) = &state.skip_reason {
            return Ok(ProseOutcome::AlreadySkipped(reason.clone()));
        }
    }
    let Some(verdict) = classify_prose(prose) else {
        return Ok(ProseOutcome::NotRecognized);
    };
    let mut state = existing.unwrap_or_else(|| ReviewState::new(None, None));
    state.skip_reason = Some(verdict.skip_reason().to_string());
    state.write(agent_dir)?;
    Ok(ProseOutcome::Written(verdict))
}

/// Whether `words` holds the words of `phrase` consecutively.
fn contains_words(words: &[&str], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split(' ').collect();
    words.windows(phrase.len()).any(|window| window == phrase)
}

/// CJK ideographs separate English words but are matched as substrings.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{ff00}'..='\u{ffef}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conclusions_map_to_skip_reasons_and_hedged_or_other_prose_does_not() {
        use ProseVerdict::{Lgtm, NoReviewableCode};
        let table: &[(&str, Option<ProseVerdict>)] = &[
            ("LGTM", Some(Lgtm)),
            ("**LGTM** 👍", Some(Lgtm)),
            (
                "I reviewed the diff and found no actionable problems.",
                Some(Lgtm),
            ),
            ("No issues found in Order.java.", Some(Lgtm)),
            ("I didn’t find any issues.", Some(Lgtm)),
            ("Looks good to me.", Some(Lgtm)),
            ("审查完成，没有发现问题。", Some(Lgtm)),
            ("代码看起来不错，可以合并。", Some(Lgtm)),
            (
                "The change only touches README.md: there is no reviewable code.",
                Some(NoReviewableCode),
            ),
            (
                "Nothing to review: no code changes, LGTM.",
                Some(NoReviewableCode),
            ),
            ("本次变更没有可审查的代码。", Some(NoReviewableCode)),
            // Hedged or contrasted: not trusted.
            ("LGTM, but the null check on line 12 is wrong.", None),
            ("Looks good; however, consider closing the stream.", None),
            ("No issues found except a race in Cache.put.", None),
            ("整体没有问题，但是第 12 行可能空指针。", None),
            ("没有发现问题，建议补充测试。", None),
            // Not a conclusion of either kind.
            (
                "Found a null dereference in Order.total when items is empty.",
                None,
            ),
            ("There are actionable problems.", None),
            ("", None),
            // Words are matched whole.
            ("The flagstone logic is fine? blgtm", None),
        ];
        let failures: Vec<String> = table
            .iter()
            .filter(|(prose, expected)| classify_prose(prose) != *expected)
            .map(|(prose, expected)| {
                format!(
                    "{prose:?}: expected {expected:?}, got {:?}",
                    classify_prose(prose)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_eq!(classify_prose(&"LGTM ".repeat(500)), None);
    }
}
