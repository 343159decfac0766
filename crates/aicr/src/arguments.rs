//! One table per tool describes its arguments; the JSON Schema the server
//! lists and the checks every call goes through are both derived from it, so
//! the schema a client sees and the rules the tool enforces cannot drift
//! apart.

use serde_json::{Map, Value, json};

use refscope_tool::{ToolDefinition, ToolError};

/// A tool: canonical name, description and its arguments.
#[derive(Debug)]
pub(crate) struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub fields: &'static [FieldSpec],
}

/// One argument of a tool.
#[derive(Debug)]
pub(crate) struct FieldSpec {
    pub name: &'static str,
    pub kind: FieldKind,
    pub required: bool,
    pub description: &'static str,
}

/// What an argument's value must be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldKind {
    /// A string with something other than white space in it, at most this
    /// many characters long.
    Text { max_chars: usize },
    /// A short code of lowercase ASCII letters, digits, `_` and `-`,
    /// starting with a letter or digit (`api-contract`, `lgtm`).
    Code,
    /// A line number, 1 or more.
    Line,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// An object `{start_line, end_line}` with `1 <= start_line <= end_line`.
    LineRange,
}

/// The longest code [`FieldKind::Code`] accepts.
const MAX_CODE_CHARS: usize = 64;

/// A range of lines, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineRange {
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, at least `start_line`.
    pub end_line: u32,
}

/// Arguments that passed their tool's table: every field known, every
/// required one present, every value of its kind. The accessors read them
/// back typed; an optional field given as `null` reads as absent.
#[derive(Debug)]
pub(crate) struct CheckedArguments<'a> {
    arguments: &'a Map<String, Value>,
}

impl ToolSpec {
    /// The definition the server lists.
    pub fn definition(&self) -> ToolDefinition {
        let properties: Map<String, Value> = self
            .fields
            .iter()
            .map(|field| (field.name.to_string(), field.schema()))
            .collect();
        let required: Vec<&str> = self
            .fields
            .iter()
            .filter(|field| field.required)
            .map(|field| field.name)
            .collect();
        let schema = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        let Value::Object(input_schema) = schema else {
            unreachable!("json! of an object literal is an object")
        };
        ToolDefinition {
            name: self.name,
            description: self.description,
            input_schema,
        }
    }

    /// Checks `arguments` against the table: the error names the tool, the
    /// field and the rule it broke.
    pub fn check<'a>(
        &self,
        arguments: &'a Map<String, Value>,
    ) -> Result<CheckedArguments<'a>, ToolError> {
        if let Some(unknown) = arguments
            .keys()
            .find(|key| !self.fields.iter().any(|field| field.name == *key))
        {
            let accepted: Vec<&str> = self.fields.iter().map(|field| field.name).collect();
            let attribution_hint = if is_attribution_field(unknown) {
                "; attribution comes only from aicr.try_blame"
            } else {
                ""
            };
            return Err(ToolError::new(format!(
                "{}: unknown field `{unknown}`{attribution_hint}; the accepted fields are {}",
                self.name,
                accepted.join(", ")
            )));
        }
        for field in self.fields {
            match arguments.get(field.name) {
                None | Some(Value::Null) if field.required => {
                    return Err(ToolError::new(format!(
                        "{}: field `{}` is required: {}",
                        self.name,
                        field.name,
                        field.kind.rule()
                    )));
                }
                None | Some(Value::Null) => {}
                Some(value) => field.kind.check(value).map_err(|rule| {
                    ToolError::new(format!(
                        "{}: field `{}` {rule}, got {}",
                        self.name,
                        field.name,
                        shown_value(value)
                    ))
                })?,
            }
        }
        Ok(CheckedArguments { arguments })
    }
}

impl FieldSpec {
    fn schema(&self) -> Value {
        let mut schema = match self.kind {
            FieldKind::Text { max_chars } => json!({
                "type": "string",
                "minLength": 1,
                "maxLength": max_chars,
            }),
            FieldKind::Code => json!({
                "type": "string",
                "pattern": "^[a-z0-9][a-z0-9_-]*$",
                "maxLength": MAX_CODE_CHARS,
            }),
            FieldKind::Line => json!({"type": "integer", "minimum": 1}),
            FieldKind::Choice(choices) => json!({"type": "string", "enum": choices}),
            FieldKind::LineRange => json!({
                "type": "object",
                "properties": {
                    "start_line": {"type": "integer", "minimum": 1, "description": "First line, 1-based."},
                    "end_line": {"type": "integer", "minimum": 1, "description": "Last line, included; at least start_line."},
                },
                "required": ["start_line", "end_line"],
                "additionalProperties": false,
            }),
        };
        schema["description"] = Value::from(self.description);
        schema
    }
}

impl FieldKind {
    /// The rule, as the error messages state it.
    fn rule(self) -> String {
        match self {
            Self::Text { max_chars } => {
                format!("a non-empty string of at most {max_chars} characters")
            }
            Self::Code => format!(
                "a short code of lowercase letters, digits, '_' and '-' (at most {MAX_CODE_CHARS} characters)"
            ),
            Self::Line => "an integer line number, 1 or more".to_string(),
            Self::Choice(choices) => format!("one of {}", choices.join(", ")),
            Self::LineRange => {
                "an object {start_line, end_line} of line numbers with start_line <= end_line"
                    .to_string()
            }
        }
    }

    /// `Err` with "must be ..." when `value` is not of this kind.
    fn check(self, value: &Value) -> Result<(), String> {
        let broken = || Err(format!("must be {}", self.rule()));
        match self {
            Self::Text { max_chars } => match value.as_str() {
                Some(text) if !text.trim().is_empty() && text.chars().count() <= max_chars => {
                    Ok(())
                }
                _ => broken(),
            },
            Self::Code => match value.as_str() {
                Some(code) if is_code(code) => Ok(()),
                _ => broken(),
            },
            Self::Line => match line_number(value) {
                Some(_) => Ok(()),
                None => broken(),
            },
            Self::Choice(choices) => match value.as_str() {
                Some(choice) if choices.contains(&choice) => Ok(()),
                _ => broken(),
            },
            Self::LineRange => match line_range(value) {
                Some(_) => Ok(()),
                None => broken(),
            },
        }
    }
}

impl CheckedArguments<'_> {
    /// A string field (text, code or choice), if given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).and_then(Value::as_str)
    }

    /// A required string field.
    pub fn required_text(&self, name: &str) -> &str {
        self.text(name)
            .unwrap_or_else(|| panic!("the table made field `{name}` required"))
    }

    /// A line-number field, if given.
    pub fn line(&self, name: &str) -> Option<u32> {
        self.arguments.get(name).and_then(line_number)
    }

    /// A line-range field, if given.
    pub fn range(&self, name: &str) -> Option<LineRange> {
        self.arguments.get(name).and_then(line_range)
    }
}

/// Field names by which an agent might try to attribute a finding to a
/// person; they are refused with a pointer to `aicr.try_blame`.
fn is_attribution_field(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "author",
        "attribution",
        "owner",
        "assignee",
        "blame",
        "committer",
        "email",
    ]
    .iter()
    .any(|word| name.contains(word))
}

fn is_code(code: &str) -> bool {
    let mut chars = code.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_lowercase() || first.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        && code.len() <= MAX_CODE_CHARS
}

fn line_number(value: &Value) -> Option<u32> {
    value
        .as_u64()
        .filter(|line| *line >= 1)
        .and_then(|line| u32::try_from(line).ok())
}

fn line_range(value: &Value) -> Option<LineRange> {
    let object = value.as_object()?;
    if object
        .keys()
        .any(|key| key != "start_line" && key != "end_line")
    {
        return None;
    }
    let start_line = line_number(object.get("start_line")?)?;
    let end_line = line_number(object.get("end_line")?)?;
    (start_line <= end_line).then_some(LineRange {
        start_line,
        end_line,
    })
}

/// A value as an error message quotes it: JSON, cut to a readable length.
fn shown_value(value: &Value) -> String {
    const MAX_SHOWN_CHARS: usize = 80;
    let json = value.to_string();
    if json.chars().count() <= MAX_SHOWN_CHARS {
        json
    } else {
        let cut: String = json.chars().take(MAX_SHOWN_CHARS).collect();
        format!("{cut}…")
    }
}
