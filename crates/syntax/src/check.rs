//! The invariants of [`FileFacts`] that its readers index by: every index
//! it holds points inside the list it names, elements come in pre-order
//! and expressions children first (so walking parents or operands always
//! ends). Extraction makes facts that hold them; facts read back from
//! bytes (the store's pack) are checked before anything indexes them.

use crate::facts::{ExprKind, FileFacts, NO_ELEMENT, NO_EXPR};

/// Facts that break an invariant: which one, where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadFacts(String);

impl FileFacts {
    /// Checks what the declarations alone hold (the elements' parents), for
    /// facts read without their bodies: their elements' initializers name
    /// expressions that were not read.
    pub fn check_declarations(&self) -> Result<(), BadFacts> {
        for (i, e) in self.elements.iter().enumerate() {
            if e.parent != NO_ELEMENT && e.parent as usize >= i {
                return Err(BadFacts(format!(
                    "element {i} has parent {}, not an earlier element",
                    e.parent
                )));
            }
        }
        Ok(())
    }

    /// Checks every index the facts hold; see the module documentation.
    pub fn check(&self) -> Result<(), BadFacts> {
        self.check_declarations()?;
        let n_elements = self.elements.len();
        let n_exprs = self.exprs.len();
        let element = |index: u32, what: &dyn Fn() -> String| {
            if index == NO_ELEMENT || (index as usize) < n_elements {
                Ok(())
            } else {
                Err(BadFacts(format!(
                    "{} names element {index} of {n_elements}",
                    what()
                )))
            }
        };
        let expr = |index: u32, what: &dyn Fn() -> String| {
            if index == NO_EXPR || (index as usize) < n_exprs {
                Ok(())
            } else {
                Err(BadFacts(format!(
                    "{} names expression {index} of {n_exprs}",
                    what()
                )))
            }
        };
        for (i, e) in self.elements.iter().enumerate() {
            expr(e.init, &|| format!("element {i}'s initializer"))?;
        }
        for (i, site) in self.ref_sites.iter().enumerate() {
            let at = || format!("reference site {i}");
            element(site.enclosing, &at)?;
            element(site.anonymous_class, &at)?;
            expr(site.receiver_expr, &at)?;
            for &arg in &site.args {
                expr(arg, &at)?;
            }
        }
        for (i, local) in self.locals.iter().enumerate() {
            let at = || format!("local {i}");
            element(local.enclosing, &at)?;
            expr(local.init, &at)?;
        }
        for (i, e) in self.exprs.iter().enumerate() {
            let below = |operand: u32| operand == NO_EXPR || (operand as usize) < i;
            // An operand naming nothing (a lambda whose element broken
            // syntax did not make) is the list's sentinel.
            let in_list =
                |operand: u32, len: usize| operand == u32::MAX || (operand as usize) < len;
            let fits = match e.kind {
                ExprKind::Local => in_list(e.a, self.locals.len()),
                ExprKind::Site => in_list(e.a, self.ref_sites.len()),
                ExprKind::Lambda => in_list(e.a, n_elements) && below(e.b),
                _ => below(e.a) && below(e.b),
            };
            if !fits {
                return Err(BadFacts(format!(
                    "expression {i} ({:?}) has operands {} and {} out of place",
                    e.kind, e.a, e.b
                )));
            }
        }
        for (i, &(returned, from)) in self.returns.iter().enumerate() {
            let at = || format!("return {i}");
            expr(returned, &at)?;
            element(from, &at)?;
        }
        for (i, run) in self.line_runs.iter().enumerate() {
            let end = u64::from(run.first_owner) + u64::from(run.n_owners);
            if end > self.line_owners.len() as u64 {
                return Err(BadFacts(format!(
                    "line run {i} ends at owner {end} of {}",
                    self.line_owners.len()
                )));
            }
        }
        for (i, &owner) in self.line_owners.iter().enumerate() {
            element(owner, &|| format!("line owner {i}"))?;
        }
        for (i, note) in self.notes.iter().enumerate() {
            element(note.element, &|| format!("note {i}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::{FileFacts, NO_ELEMENT};

    const SOURCE: &[u8] = b"package p;\nclass A {\n  int n = 1;\n  int m(int x) { return m(x + n); }\n  Runnable r = () -> m(2);\n}\n";

    fn facts() -> FileFacts {
        let facts = crate::extract(SOURCE);
        assert_eq!(facts.check(), Ok(()));
        assert!(!facts.exprs.is_empty() && !facts.ref_sites.is_empty() && !facts.locals.is_empty());
        facts
    }

    fn refused(change: impl FnOnce(&mut FileFacts), expected: &str) {
        let mut facts = facts();
        change(&mut facts);
        let message = facts
            .check()
            .expect_err("the change breaks an invariant")
            .to_string();
        assert!(message.contains(expected), "{message}");
    }

    #[test]
    fn every_index_out_of_its_list_is_refused() {
        refused(|f| f.elements[1].parent = 1, "element 1 has parent 1");
        refused(|f| f.elements[0].parent = 7, "element 0 has parent 7");
        let n_exprs = facts().exprs.len() as u32;
        refused(|f| f.elements[1].init = n_exprs, "element 1's initializer");
        refused(
            |f| f.ref_sites[0].enclosing = 99,
            "reference site 0 names element 99",
        );
        refused(
            |f| f.ref_sites[0].args = vec![n_exprs + 1],
            "reference site 0 names expression",
        );
        refused(|f| f.locals[0].enclosing = 50, "local 0 names element 50");
        let last = facts().exprs.len() - 1;
        refused(
            |f| {
                f.exprs[last].kind = crate::facts::ExprKind::Paren;
                f.exprs[last].a = last as u32;
            },
            &format!("expression {last} (Paren)"),
        );
        refused(|f| f.returns.push((0, 40)), "return");
        refused(|f| f.line_runs[0].n_owners = 1000, "line run 0 ends");
        refused(|f| f.line_owners[0] = 1234, "line owner 0");
    }

    #[test]
    fn the_declarations_alone_check_parents_only() {
        let mut facts = facts();
        facts.exprs.clear();
        assert!(
            facts.check().is_err(),
            "the initializers name expressions not read"
        );
        assert_eq!(facts.check_declarations(), Ok(()));
        facts.elements[0].parent = NO_ELEMENT;
        facts.elements[2].parent = 2;
        assert!(facts.check_declarations().is_err());
    }
}
