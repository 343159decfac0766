//! What a file's resolution looked at.
//!
//! While a file is qualified and resolved, every class key it looks up in
//! the symbol table and every type name it looks up in the type universe
//! is recorded on its thread, hits and misses alike. Stored with the
//! file's resolution, the names let a later revision decide whether the
//! resolution still holds: it does when each name still leads to the same
//! thing (the same class signature, still a library class, still absent).
//!
//! Lookups answered from a memo shared between files (the method memo of
//! the symbol table) replay the names the memoized computation recorded,
//! so a file depends on what it used whichever file computed it first.

use std::cell::RefCell;

use rustc_hash::FxHashSet;

thread_local! {
    /// Open recordings of this thread, innermost last.
    static RECORDINGS: RefCell<Vec<FxHashSet<Box<str>>>> = const { RefCell::new(Vec::new()) };
}

/// Notes that the resolution running on this thread looked up `name`.
pub fn record(name: &str) {
    RECORDINGS.with(|recordings| {
        if let Some(names) = recordings.borrow_mut().last_mut()
            && !names.contains(name)
        {
            names.insert(name.into());
        }
    });
}

/// Records the names looked up until [`Recording::finish`]; an enclosing
/// recording receives them too.
pub struct Recording(());

impl Recording {
    /// Starts recording on this thread.
    pub fn start() -> Self {
        RECORDINGS.with(|recordings| recordings.borrow_mut().push(FxHashSet::default()));
        Self(())
    }

    /// The names looked up since the start, sorted.
    pub fn finish(self) -> Vec<Box<str>> {
        let names = RECORDINGS.with(|recordings| {
            let mut recordings = recordings.borrow_mut();
            let names = recordings.pop().expect("a recording was started");
            if let Some(outer) = recordings.last_mut() {
                outer.extend(names.iter().cloned());
            }
            names
        });
        std::mem::forget(self);
        let mut names: Vec<Box<str>> = names.into_iter().collect();
        names.sort_unstable();
        names
    }
}

impl Drop for Recording {
    /// A recording abandoned by a panic is closed, so the thread's next
    /// file starts clean.
    fn drop(&mut self) {
        RECORDINGS.with(|recordings| {
            recordings.borrow_mut().pop();
        });
    }
}
