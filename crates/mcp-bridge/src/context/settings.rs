//! How much a code-context answer holds: defaults, a config file, and
//! per-call overrides, applied in that order.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The name of the settings file looked up in the store directory.
pub const SETTINGS_FILE: &str = "context-settings.json";

/// The field names of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum KeyStyle {
    /// English field names (`element_relations`, `owning_elements`, ...).
    #[default]
    En,
    /// The field names of the original design document (`元素关系`,
    /// `所属元素`, ...), for prompts written against it.
    Zh,
}

/// Everything that bounds an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextSettings {
    /// Levels of callers listed per owning element: 1 lists who calls the
    /// element; 2 adds who calls those; 0 lists none.
    pub caller_depth: u32,
    /// Levels of referenced elements: 1 lists what each diff line uses; 2
    /// adds what those methods use (`calls` in their element info); 0
    /// lists none.
    pub callee_depth: u32,
    /// Source lines shown per element; longer sources are cut with a
    /// marker.
    pub max_source_lines: u32,
    /// Reference locations listed per element (and level).
    pub max_callers: u32,
    /// Whether callers in test sources are listed.
    pub include_tests: bool,
    /// Whether each owning element says which commit last changed it.
    pub include_history: bool,
    /// The field names of the answer.
    pub key_style: KeyStyle,
    /// Diff lines looked at per call; ranges past it are left out and said
    /// so in `truncated`.
    pub max_diff_lines: u32,
    /// Entries of `element_info` per answer.
    pub max_elements: u32,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            caller_depth: 1,
            callee_depth: 1,
            max_source_lines: 80,
            max_callers: 20,
            include_tests: true,
            include_history: false,
            key_style: KeyStyle::En,
            max_diff_lines: 2000,
            max_elements: 150,
        }
    }
}

/// Settings given for one call (or on a command line): each replaces the
/// configured value when present.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SettingsOverrides {
    /// Levels of callers per owning element (default 1; 0 for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller_depth: Option<u32>,
    /// Levels of referenced elements (default 1: what each diff line uses;
    /// 2 adds what those methods use; 0 for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callee_depth: Option<u32>,
    /// Source lines shown per element before it is cut (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_source_lines: Option<u32>,
    /// Reference locations listed per element (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_callers: Option<u32>,
    /// Whether callers in test sources are listed (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tests: Option<bool>,
    /// Whether each owning element says which commit last changed it
    /// (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_history: Option<bool>,
    /// Field names of the answer: "en" (default) or "zh" (the original
    /// design document's names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_style: Option<KeyStyle>,
}

/// A settings file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file cannot be read.
    #[error("cannot read settings file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a JSON object of known settings.
    #[error("settings file {} is not valid: {source}; it holds a JSON object with any of caller_depth, callee_depth, max_source_lines, max_callers, include_tests, include_history, key_style, max_diff_lines, max_elements", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        source: serde_json::Error,
    },
}

impl ContextSettings {
    /// The defaults with the settings of a JSON file applied.
    pub fn from_file(path: &Path) -> Result<Self, SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| SettingsError::Parse {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The settings of `explicit` if given, else of
    /// [`SETTINGS_FILE`] in `store_dir` if it exists, else the defaults.
    pub fn configured(explicit: Option<&Path>, store_dir: &Path) -> Result<Self, SettingsError> {
        match explicit {
            Some(path) => Self::from_file(path),
            None => {
                let beside = store_dir.join(SETTINGS_FILE);
                if beside.is_file() {
                    Self::from_file(&beside)
                } else {
                    Ok(Self::default())
                }
            }
        }
    }

    /// These settings with the overrides applied.
    pub fn with(&self, overrides: &SettingsOverrides) -> Self {
        Self {
            caller_depth: overrides.caller_depth.unwrap_or(self.caller_depth),
            callee_depth: overrides.callee_depth.unwrap_or(self.callee_depth),
            max_source_lines: overrides.max_source_lines.unwrap_or(self.max_source_lines),
            max_callers: overrides.max_callers.unwrap_or(self.max_callers),
            include_tests: overrides.include_tests.unwrap_or(self.include_tests),
            include_history: overrides.include_history.unwrap_or(self.include_history),
            key_style: overrides.key_style.unwrap_or(self.key_style),
            max_diff_lines: self.max_diff_lines,
            max_elements: self.max_elements,
        }
    }
}
