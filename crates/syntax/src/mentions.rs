//! Which identifiers a file's facts spell anywhere: what a file can reach
//! by name.
//!
//! A member of a class is only ever found through its name as some file
//! writes it: a call or field access names the member, a declaration that
//! overrides it repeats the name, a constructor is reached through its
//! class's simple name (`new C(..)`, `extends C` with an implicit
//! `super()`). So a file whose facts spell none of a set of names cannot
//! have been resolved differently because members of those names changed
//! (an interface's abstract methods are the exception: a lambda reaches
//! them without a name, which is the caller's to know).
//!
//! The test over-approximates on purpose: every string the facts keep is
//! split into identifier tokens, type texts and receiver texts included.

use std::collections::BTreeSet;

use crate::facts::FileFacts;

/// Whether `facts` spell any of `names` as an identifier token.
pub fn mentions_any(facts: &FileFacts, names: &BTreeSet<String>) -> bool {
    if names.is_empty() {
        return false;
    }
    let hit = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|token| !token.is_empty() && names.contains(token))
    };
    facts.imports.iter().any(|i| hit(&i.path))
        || facts.elements.iter().any(|e| {
            hit(&e.name)
                || hit(&e.type_text)
                || e.supertypes.iter().any(|s| hit(s))
                || e.supertypes_written.iter().any(|s| hit(s))
                || e.params.iter().any(|p| hit(&p.type_text))
                || e.throws.iter().any(|t| hit(t))
                || e.type_params
                    .iter()
                    .any(|t| t.bounds.iter().any(|b| hit(b)))
                || e.annotations.iter().any(|a| hit(a))
        })
        || facts
            .ref_sites
            .iter()
            .any(|s| hit(&s.name) || hit(&s.receiver_text))
        || facts.locals.iter().any(|l| hit(&l.type_text))
        || facts.exprs.iter().any(|e| hit(&e.text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    const SOURCE: &str = "package p;
import static java.util.Collections.emptyList;
class A extends Base implements Runnable {
    java.util.List<String> seen = java.util.Collections.nCopies(2, \"x\");
    @Override public void run() { seen.forEach(System.out::println); }
    Object make() { return new Widget(); }
}
";

    #[test]
    fn every_kind_of_name_counts() {
        let facts = crate::extract(SOURCE.as_bytes());
        // An import, a call, a method reference, a field, an override, a
        // created type, a supertype (whose constructor an implicit
        // `super()` calls), a receiver.
        for name in [
            "emptyList",
            "nCopies",
            "println",
            "seen",
            "run",
            "Widget",
            "Base",
            "out",
        ] {
            assert!(mentions_any(&facts, &names(&[name])), "{name}");
        }
    }

    #[test]
    fn names_never_written_do_not_count() {
        let facts = crate::extract(SOURCE.as_bytes());
        assert!(!mentions_any(
            &facts,
            &names(&["emptySet", "Collection", "make2"])
        ));
        assert!(!mentions_any(&facts, &names(&[])));
        // Tokens, not substrings.
        assert!(!mentions_any(&facts, &names(&["empty", "Lis"])));
    }
}
