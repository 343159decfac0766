//! The arguments of an annotation as written: `@Getter(AccessLevel.NONE)`,
//! `@Builder(toBuilder = true, builderMethodName = "between")`,
//! `@Accessors(prefix = {"m", "f"})`.

/// One argument's value, as far as Lombok's options need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    /// `true` or `false`.
    Bool(bool),
    /// A string literal, unquoted (escapes are not decoded: option values
    /// are names).
    Str(String),
    /// A name, dotted or not: `AccessLevel.NONE` gives `NONE`, its last
    /// segment.
    Name(String),
    /// `{a, b}`: the elements.
    Array(Vec<Value>),
    /// Anything else (an expression, a nested annotation).
    Other,
}

impl Value {
    /// The strings of a string or an array of strings.
    pub(super) fn strings(&self) -> Vec<String> {
        match self {
            Self::Str(s) => vec![s.clone()],
            Self::Array(items) => items.iter().flat_map(Self::strings).collect(),
            _ => Vec::new(),
        }
    }
}

/// The arguments of one annotation, by element name (`value` for a single
/// unnamed argument).
#[derive(Debug, Clone, Default)]
pub(super) struct Args(Vec<(String, Value)>);

impl Args {
    /// Reads the arguments of an annotation's text (comments already taken
    /// out). Text it cannot split gives no arguments.
    pub(super) fn parse(annotation: &str) -> Self {
        let Some(open) = annotation.find('(') else {
            return Self::default();
        };
        let inner = annotation[open + 1..]
            .trim_end()
            .strip_suffix(')')
            .unwrap_or(&annotation[open + 1..]);
        let mut args = Vec::new();
        for part in split_top_level(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match top_level_eq(part) {
                Some(eq) => {
                    args.push((part[..eq].trim().to_string(), value(part[eq + 1..].trim())))
                }
                None => args.push(("value".to_string(), value(part))),
            }
        }
        Self(args)
    }

    /// The value of argument `name`.
    pub(super) fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// A boolean argument; `default` when absent or not a literal.
    pub(super) fn flag(&self, name: &str, default: bool) -> bool {
        match self.get(name) {
            Some(Value::Bool(b)) => *b,
            _ => default,
        }
    }

    /// A string argument, if given and not empty.
    pub(super) fn string(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Value::Str(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
}

fn value(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if let Some(s) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Value::Str(s.to_string());
    }
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Value::Array(
            split_top_level(inner)
                .into_iter()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(value)
                .collect(),
        );
    }
    let is_name = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.');
    if is_name {
        return Value::Name(text.rsplit('.').next().unwrap_or(text).to_string());
    }
    Value::Other
}

/// `text` split at the commas outside brackets, parentheses and strings.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0i32, 0, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Where `name = value` has its `=`, if `text` is one.
fn top_level_eq(text: &str) -> Option<usize> {
    let eq = text.find('=')?;
    let name = text[..eq].trim();
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (is_name && !text[eq + 1..].starts_with('=')).then_some(eq)
}

#[cfg(test)]
mod tests {
    use super::{Args, Value};

    #[test]
    fn arguments_are_read_by_name_with_value_for_a_single_one() {
        let args = Args::parse("@Getter(AccessLevel.NONE)");
        assert_eq!(args.get("value"), Some(&Value::Name("NONE".into())));
        let args = Args::parse(
            r#"@Builder(toBuilder = true, builderMethodName = "between", buildMethodName="make")"#,
        );
        assert!(args.flag("toBuilder", false));
        assert_eq!(args.string("builderMethodName"), Some("between"));
        assert_eq!(args.string("buildMethodName"), Some("make"));
        let args = Args::parse(r#"@Accessors(prefix = {"m", "f,g"}, fluent = true)"#);
        assert_eq!(args.get("prefix").unwrap().strings(), ["m", "f,g"]);
        assert!(args.flag("fluent", false));
        assert!(!Args::parse("@Data").flag("fluent", false));
        assert_eq!(
            Args::parse("@Getter(value = lombok.AccessLevel.PROTECTED, onMethod_ = {@Foo(1)})")
                .get("value"),
            Some(&Value::Name("PROTECTED".into()))
        );
    }
}
