//! The selectors a query starts from: an element id or pattern, the
//! elements of lines or of files, the elements of a kind, and `changed`
//! (whose diff is read in the `revision` module). The kind words and the
//! kinds each selects are here too.

use refscope_engine::{ElementKind, ElementSearch, Error, Snapshot, glob_matches};

use super::super::ast::{KindSelector, Selector, Span};
use super::super::error::QueryError;
use super::Evaluator;
use super::row::Row;
use super::set_op::distinct;

impl<'s> Evaluator<'s> {
    pub(super) fn select(
        &self,
        snapshot: &Snapshot<'s>,
        selector: &Selector,
        span: Span,
    ) -> Result<Vec<Row>, QueryError> {
        let at = |e: Error| QueryError::evaluation(Some(span), e.to_string());
        match selector {
            Selector::Element(spec) if spec.contains(['*', '?']) => {
                let search = ElementSearch {
                    id: Some(spec.clone()),
                    ..ElementSearch::default()
                };
                let views = snapshot.search_elements(&search).map_err(at)?;
                Ok(distinct(views.into_iter().map(Row::declared).collect()))
            }
            Selector::Element(spec) => match snapshot.find_element(spec) {
                Ok(found) => Ok(vec![Row {
                    id: found.id,
                    view: found.declared,
                    edge: None,
                    change: None,
                    declared_in: None,
                }]),
                Err(e) => Err(self.unknown_element(snapshot, spec, span, e)),
            },
            Selector::Lines { file, start, end } => {
                if *start == 0 || end < start {
                    return Err(QueryError::evaluation(
                        Some(span),
                        format!(
                            "{file}:{start}-{end}: lines count from 1 and a range must not end before it starts"
                        ),
                    ));
                }
                match snapshot.elements_at(file, *start, *end) {
                    Ok(views) => Ok(distinct(views.into_iter().map(Row::declared).collect())),
                    Err(e @ Error::FileNotInRevision { .. }) => {
                        Err(self.unknown_file(snapshot, file, span, e))
                    }
                    Err(e) => Err(at(e)),
                }
            }
            Selector::File(pattern) => {
                let files = snapshot.files().map_err(at)?;
                let exact = !pattern.contains(['*', '?']);
                let matching: Vec<String> = files
                    .iter()
                    .map(|f| f.path.clone())
                    .filter(|path| {
                        if exact {
                            path == pattern || path.ends_with(&format!("/{pattern}"))
                        } else {
                            glob_matches(pattern, path)
                        }
                    })
                    .collect();
                if matching.is_empty() && exact {
                    let e = Error::FileNotInRevision {
                        path: pattern.clone(),
                        revision: snapshot.revision().name.clone(),
                    };
                    return Err(self.unknown_file(snapshot, pattern, span, e));
                }
                let mut rows = Vec::new();
                for path in matching {
                    let views = snapshot.elements_of_file(&path).map_err(at)?;
                    rows.extend(views.into_iter().map(Row::declared));
                }
                Ok(distinct(rows))
            }
            Selector::Kind(kind) => {
                let views = snapshot.search_elements(&kind_search(kind)).map_err(at)?;
                Ok(distinct(views.into_iter().map(Row::declared).collect()))
            }
            Selector::Changed {
                base,
                head,
                merge_base,
            } => self.changed(snapshot, base, head.as_ref(), *merge_base, span),
        }
    }
}

/// The kinds a kind word selects.
pub fn kinds_of_word(word: &str) -> Vec<ElementKind> {
    use ElementKind as K;
    match word {
        "types" => K::ALL.into_iter().filter(|k| k.is_type()).collect(),
        "classes" => vec![K::Class],
        "interfaces" => vec![K::Interface],
        "enums" => vec![K::Enum],
        "records" => vec![K::Record],
        "annotations" => vec![K::AnnotationType],
        "methods" => vec![K::Method, K::AnnotationElement],
        "constructors" => vec![K::Constructor],
        "executables" => K::ALL.into_iter().filter(|k| k.is_executable()).collect(),
        "fields" => vec![K::Field, K::RecordComponent, K::EnumConstant],
        "constants" => vec![K::EnumConstant],
        "initializers" => vec![K::InstanceInitializer, K::StaticInitializer],
        "lambdas" => vec![K::Lambda],
        _ => Vec::new(),
    }
}

fn kind_search(kind: &KindSelector) -> ElementSearch {
    ElementSearch {
        kinds: kinds_of_word(&kind.kind_word),
        name: kind.name.clone(),
        id: None,
        package: kind.package.clone(),
        path: kind.path.clone(),
    }
}
