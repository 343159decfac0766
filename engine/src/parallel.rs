//! Per-worker state for parallel loops that hand out one item per task.
//!
//! Rayon's `*_init` adaptors build state once per run of items, and let
//! one worker work through a run alone: when item costs are uneven (a few
//! huge files), the other workers idle at the end. Splitting down to one
//! item per task (`with_max_len(1)`) fixes the balance, but would build the
//! state (a git repository handle, a database handle) once per item. A
//! [`StatePool`] keeps built states for the next item instead.

use std::sync::Mutex;

/// States built by `init` on demand and reused: at most one per thread
/// that runs items at the same time.
pub(crate) struct StatePool<S, F> {
    idle: Mutex<Vec<S>>,
    init: F,
}

impl<S, F: Fn() -> S> StatePool<S, F> {
    pub(crate) fn new(init: F) -> Self {
        Self {
            idle: Mutex::new(Vec::new()),
            init,
        }
    }

    /// Runs `work` with an idle state, or a new one if none is idle.
    pub(crate) fn with<R>(&self, work: impl FnOnce(&mut S) -> R) -> R {
        let idle = self.idle.lock().expect("state pool lock").pop();
        let mut state = idle.unwrap_or_else(|| (self.init)());
        let result = work(&mut state);
        self.idle.lock().expect("state pool lock").push(state);
        result
    }
}

/// Drops `value` on a thread of its own, for a structure of many small
/// allocations that takes a while to free and that nothing waits for (or
/// here, if no thread can be started).
pub(crate) fn drop_in_background<T: Send + 'static>(value: T) {
    // On failure `spawn` drops the closure, and the value with it, here.
    let _ = std::thread::Builder::new()
        .name("refscope-drop".into())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::{StatePool, drop_in_background};
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn states_are_reused_across_items() {
        let built = AtomicUsize::new(0);
        let pool = StatePool::new(|| {
            built.fetch_add(1, Ordering::Relaxed);
            0u64
        });
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let sum: u64 = threads.install(|| {
            (0..1000u64)
                .collect::<Vec<_>>()
                .into_par_iter()
                .with_max_len(1)
                .map(|i| {
                    pool.with(|seen| {
                        *seen += 1;
                        i
                    })
                })
                .sum()
        });
        assert_eq!(sum, 999 * 1000 / 2);
        // Each state is used by one item at a time: no more states than
        // threads that could run items at once.
        assert!(built.load(Ordering::Relaxed) <= 2, "{built:?}");
        let used: u64 = pool.idle.into_inner().unwrap().into_iter().sum();
        assert_eq!(used, 1000);
    }

    #[test]
    fn a_value_dropped_in_background_is_dropped_on_another_thread() {
        struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (sender, dropped_on) = std::sync::mpsc::channel();
        drop_in_background(Tell(sender));
        let thread = dropped_on.recv().expect("the value is dropped");
        assert_ne!(thread, std::thread::current().id());
    }
}
