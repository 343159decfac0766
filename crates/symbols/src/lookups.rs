//! What a file's qualification and resolution looked at.
//!
//! While a file is qualified and resolved, every class key it looks up in
//! the symbol table and every type name it looks up in the type universe
//! is recorded in the file's [`LookupLog`], hits and misses alike. Stored
//! with the file's resolution, the names let a later revision decide
//! whether the resolution still holds: it does when each name still leads
//! to the same thing (the same class signature, still a library class,
//! still absent).
//!
//! Lookups answered from a memo shared between files (the method memo of
//! the symbol table) replay the names the memoized computation recorded
//! ([`LookupLog::nested`] gives them), so a file depends on what it used
//! whichever file computed it first.
//!
//! The log is a value the resolution of one file carries, never state of
//! the thread it runs on: it is `!Sync`, and a file resolves on one thread.

use std::cell::RefCell;

use rustc_hash::FxHashSet;

/// The names one file's resolution looked up, innermost open computation
/// last.
#[derive(Debug)]
pub struct LookupLog {
    frames: RefCell<Vec<FxHashSet<Box<str>>>>,
    /// False for a log that notes nothing ([`LookupLog::off`]).
    recording: bool,
}

impl Default for LookupLog {
    /// A log with nothing recorded yet.
    fn default() -> Self {
        Self {
            frames: RefCell::new(vec![FxHashSet::default()]),
            recording: true,
        }
    }
}

impl LookupLog {
    /// A log that notes nothing: for resolution whose dependencies nobody
    /// keeps (what an index without the incremental data costs). Memos
    /// filled through it keep no names either, so it must not share memos
    /// with a recording log.
    pub fn off() -> Self {
        Self {
            recording: false,
            ..Self::default()
        }
    }

    /// Notes that `name` was looked up.
    pub fn record(&self, name: &str) {
        if !self.recording {
            return;
        }
        let mut frames = self.frames.borrow_mut();
        let names = frames.last_mut().expect("a log has an open frame");
        if !names.contains(name) {
            names.insert(name.into());
        }
    }

    /// Runs `compute`, and returns with its result the names it looked up,
    /// sorted: for a memo that keeps them with its answer. The enclosing
    /// computation is told about them too.
    pub fn nested<T>(&self, compute: impl FnOnce() -> T) -> (T, Vec<Box<str>>) {
        if !self.recording {
            return (compute(), Vec::new());
        }
        /// Closes the frame if `compute` unwinds, so the log stays usable.
        struct Frame<'l>(&'l LookupLog);
        impl Drop for Frame<'_> {
            fn drop(&mut self) {
                self.0.frames.borrow_mut().pop();
            }
        }
        self.frames.borrow_mut().push(FxHashSet::default());
        let frame = Frame(self);
        let value = compute();
        let names = {
            let mut frames = self.frames.borrow_mut();
            let names = std::mem::take(frames.last_mut().expect("the nested frame is open"));
            let outer = frames.len() - 2;
            frames[outer].extend(names.iter().cloned());
            names
        };
        drop(frame);
        (value, sorted(names))
    }

    /// Everything looked up, sorted.
    pub fn finish(self) -> Vec<Box<str>> {
        let mut frames = self.frames.into_inner();
        sorted(frames.swap_remove(0))
    }
}

fn sorted(names: FxHashSet<Box<str>>) -> Vec<Box<str>> {
    let mut names: Vec<Box<str>> = names.into_iter().collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::LookupLog;

    #[test]
    fn nested_names_reach_the_enclosing_computation() {
        let log = LookupLog::default();
        log.record("p.A");
        let ((), inner) = log.nested(|| {
            log.record("p.C");
            log.record("p.B");
            log.record("p.C");
        });
        assert_eq!(inner, ["p.B".into(), "p.C".into()]);
        log.record("p.D");
        assert_eq!(
            log.finish(),
            ["p.A".into(), "p.B".into(), "p.C".into(), "p.D".into()]
        );
    }

    #[test]
    fn a_computation_that_unwinds_leaves_the_log_usable() {
        let log = LookupLog::default();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            log.nested(|| {
                log.record("p.Lost");
                panic!("resolution failed");
            })
        }));
        assert!(unwound.is_err());
        log.record("p.A");
        // The names of the abandoned computation stay behind with it.
        assert_eq!(log.finish(), ["p.A".into()]);
    }

    #[test]
    fn a_log_that_is_off_notes_nothing() {
        let log = LookupLog::off();
        log.record("p.A");
        let ((), inner) = log.nested(|| log.record("p.B"));
        assert!(inner.is_empty());
        assert!(log.finish().is_empty());
    }
}
