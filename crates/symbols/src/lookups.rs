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
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

/// The names one file's resolution looked up, innermost open computation
/// last.
#[derive(Debug)]
pub struct LookupLog {
    frames: RefCell<Vec<Frame>>,
    /// False for a log that notes nothing ([`LookupLog::off`]).
    recording: bool,
}

/// What one open computation looked up.
#[derive(Debug, Default)]
struct Frame {
    names: FxHashSet<Box<str>>,
    /// The memoized name lists already recorded here, by address (each
    /// kept alive, so an address is never another list's): a memo hit
    /// asks for the same few lists again and again.
    replayed: FxHashMap<usize, Arc<[Box<str>]>>,
}

impl Default for LookupLog {
    /// A log with nothing recorded yet.
    fn default() -> Self {
        Self {
            frames: RefCell::new(vec![Frame::default()]),
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
        let names = &mut frames.last_mut().expect("a log has an open frame").names;
        if !names.contains(name) {
            names.insert(name.into());
        }
    }

    /// Notes that each of `names` was looked up: the names a memoized
    /// computation recorded, replayed on a hit.
    pub fn record_all(&self, names: &Arc<[Box<str>]>) {
        if !self.recording {
            return;
        }
        let mut frames = self.frames.borrow_mut();
        let frame = frames.last_mut().expect("a log has an open frame");
        let address = Arc::as_ptr(names).cast::<Box<str>>() as usize;
        if frame.replayed.insert(address, names.clone()).is_some() {
            return;
        }
        for name in names.iter() {
            if !frame.names.contains(name) {
                frame.names.insert(name.clone());
            }
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
        struct Open<'l>(&'l LookupLog);
        impl Drop for Open<'_> {
            fn drop(&mut self) {
                self.0.frames.borrow_mut().pop();
            }
        }
        self.frames.borrow_mut().push(Frame::default());
        let open = Open(self);
        let value = compute();
        let names = {
            let mut frames = self.frames.borrow_mut();
            let inner = std::mem::take(frames.last_mut().expect("the nested frame is open"));
            let outer = frames.len() - 2;
            frames[outer].names.extend(inner.names.iter().cloned());
            // What the inner frame replayed, the outer one now has.
            frames[outer].replayed.extend(inner.replayed);
            inner.names
        };
        drop(open);
        (value, sorted(names))
    }

    /// Everything looked up, sorted.
    pub fn finish(self) -> Vec<Box<str>> {
        let mut frames = self.frames.into_inner();
        sorted(frames.swap_remove(0).names)
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
    fn a_replayed_list_is_recorded_in_each_frame_that_replays_it() {
        let log = LookupLog::default();
        let memoized: std::sync::Arc<[Box<str>]> = vec!["p.A".into(), "p.B".into()].into();
        log.record_all(&memoized);
        // Replayed again inside a nested computation: its memo needs them.
        let ((), inner) = log.nested(|| {
            log.record_all(&memoized);
            log.record("p.C");
        });
        assert_eq!(inner, ["p.A".into(), "p.B".into(), "p.C".into()]);
        let ((), inner) = log.nested(|| log.record_all(&memoized));
        assert_eq!(inner, ["p.A".into(), "p.B".into()]);
        log.record_all(&memoized);
        assert_eq!(log.finish(), ["p.A".into(), "p.B".into(), "p.C".into()]);
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
