//! The errors for names a selector does not find: an unknown element or
//! file, with a suggestion of the nearest name the revision has (or the
//! nearest keyword, for a word that is no id).

use refscope_engine::{ElementKind, ElementSearch, Error, Snapshot};

use super::super::ast::Span;
use super::super::error::{QueryError, nearest_word};
use super::super::parser::KIND_WORDS;
use super::Evaluator;

impl<'s> Evaluator<'s> {
    /// An unknown element, with the engine's nearest ids, else the nearest
    /// member or type by edit distance, else the nearest keyword.
    pub(super) fn unknown_element(
        &self,
        snapshot: &Snapshot<'s>,
        spec: &str,
        span: Span,
        e: Error,
    ) -> QueryError {
        let mut error = QueryError::evaluation(Some(span), e.to_string());
        if let Error::UnknownElement { nearest, .. } = &e
            && nearest.is_empty()
        {
            // Same owner (for a member) or same package (for a type).
            let (scope, word) = match spec.split_once('#') {
                Some((owner, member)) => (
                    format!("{owner}#*"),
                    member.split('(').next().unwrap_or(member),
                ),
                None => match spec.rsplit_once('.') {
                    Some((package, name)) => (format!("{package}.*"), name),
                    None => (String::from("*"), spec),
                },
            };
            let search = ElementSearch {
                id: Some(scope),
                ..ElementSearch::default()
            };
            if spec.contains(['.', '#'])
                && let Ok(views) = snapshot.search_elements(&search)
            {
                let names: Vec<(String, String)> = views
                    .iter()
                    .filter(|v| v.record.kind != ElementKind::Lambda)
                    .map(|v| (v.record.name.clone(), v.record.element_id.clone()))
                    .collect();
                let simple: Vec<String> = names
                    .iter()
                    .map(|(name, id)| {
                        if spec.contains('#') {
                            name.clone()
                        } else {
                            id.rsplit(['.', '$']).next().unwrap_or(id).to_string()
                        }
                    })
                    .collect();
                if let Some(best) = nearest_word(word, simple.iter().map(String::as_str))
                    && let Some(index) = simple.iter().position(|s| s == best)
                {
                    error.suggestion = Some(names[index].1.clone());
                }
            } else if !spec.contains(['.', '#', '/']) {
                error = error.suggesting(
                    spec,
                    KIND_WORDS.iter().copied().chain(["file", "changed", "at"]),
                );
            }
        }
        error
    }

    /// An unknown file, with the file of the same name or the nearest path.
    pub(super) fn unknown_file(
        &self,
        snapshot: &Snapshot<'s>,
        file: &str,
        span: Span,
        e: Error,
    ) -> QueryError {
        let mut error = QueryError::evaluation(Some(span), e.to_string());
        if let Ok(files) = snapshot.files() {
            let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
            let name = file.rsplit('/').next().unwrap_or(file);
            error.suggestion = paths
                .iter()
                .find(|p| p.ends_with(&format!("/{file}")) || p.rsplit('/').next() == Some(name))
                .map(|p| p.to_string())
                .or_else(|| nearest_word(file, paths.iter().copied()).map(str::to_string));
        }
        error
    }
}
