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

#[cfg(test)]
mod tests {
    use super::StatePool;
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
}
