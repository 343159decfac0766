//! Parallel loops of the indexer: items handed out one at a time and
//! their results taken in order ([`in_order`]), and the memory the
//! workers hold free given back ([`release_memory`]).

/// How often [`in_order`]'s caller looks for finished items.
const ORDERED_POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// Runs `produce` for items `0..n` on `pool`'s threads (each with its own
/// state from `init`) and hands each result to `consume` on the calling
/// thread, in item order. Stops at the first error of `consume`.
///
/// Each thread takes the next item when it is done with one, so with
/// items sorted by cost the threads finish together, and none waits for
/// another before its next item (as a loop over chunks of items would at
/// the end of each chunk). Results that arrive before their turn wait in
/// order; at most `ahead` more wait to be taken, beyond which producers
/// wait for `consume`. The caller looks for results every millisecond
/// rather than being woken by each one: its work per item is small, so
/// it would mostly wait, and each send would wake it with a futex call
/// (15 K of them parsing the JDK, 0.15 s of the workers' time in perf).
/// A few items (no more than `ahead`) are waited for instead: the poll
/// would add up to a millisecond to a commit of a few files.
pub(crate) fn in_order<S, R, E>(
    pool: &rayon::ThreadPool,
    n: usize,
    ahead: usize,
    init: impl Fn() -> S + Sync,
    produce: impl Fn(&mut S, usize) -> R + Sync,
    mut consume: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E>
where
    R: Send,
{
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc::{TryRecvError, sync_channel};

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = sync_channel::<(usize, R)>(ahead.max(1));
    std::thread::scope(|scope| {
        let (next, stop, init, produce) = (&next, &stop, &init, &produce);
        let producers = scope.spawn(move || {
            pool.broadcast(|_| {
                let sender = sender.clone();
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let item = next.fetch_add(1, Ordering::Relaxed);
                    if item >= n {
                        break;
                    }
                    // A closed channel means `consume` failed: stop too.
                    if sender.send((item, produce(&mut state, item))).is_err() {
                        break;
                    }
                }
            });
            // The last sender goes here, which ends the loop below.
            drop(sender);
        });
        let mut waiting: BTreeMap<usize, R> = BTreeMap::new();
        let mut due = 0;
        let mut result = Ok(());
        let block = n <= ahead;
        'receive: loop {
            let received = if block {
                receiver.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                receiver.try_recv()
            };
            match received {
                Ok((item, produced)) => {
                    waiting.insert(item, produced);
                    while let Some(produced) = waiting.remove(&due) {
                        if let Err(e) = consume(due, produced) {
                            result = Err(e);
                            break 'receive;
                        }
                        due += 1;
                    }
                }
                Err(TryRecvError::Empty) => std::thread::sleep(ORDERED_POLL),
                Err(TryRecvError::Disconnected) => break,
            }
        }
        stop.store(true, Ordering::Relaxed);
        drop(receiver);
        if let Err(panic) = producers.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

/// Has the workers of `pool` and the calling thread give the memory they
/// hold free back to the system: after a structure of many small
/// allocations made by the workers is freed, its memory stays resident
/// until they allocate again, and so adds to the peak of whatever follows.
pub(crate) fn release_memory(pool: &rayon::ThreadPool) {
    pool.broadcast(|_| release_free_memory());
    release_free_memory();
}

/// Gives the memory that the calling thread's allocator heap holds free
/// back to the system.
fn release_free_memory() {
    // SAFETY: mimalloc (tree-sitter's allocator, and the CLI's) collects
    // the calling thread's heap; it touches no memory of ours.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::in_order;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn in_order_hands_every_result_over_in_order() {
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        // Many items (the caller polls) and few (the caller waits).
        for (n, ahead) in [(500, 4), (3, 8)] {
            let built = AtomicUsize::new(0);
            let mut seen = Vec::new();
            let result: Result<(), ()> = in_order(
                &threads,
                n,
                ahead,
                || built.fetch_add(1, Ordering::Relaxed),
                |_, item| {
                    // Uneven costs, so items finish out of order.
                    if item % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(300));
                    }
                    item * 3
                },
                |item, produced| {
                    assert_eq!(produced, item * 3);
                    seen.push(item);
                    Ok(())
                },
            );
            assert_eq!(result, Ok(()));
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
            // One state per thread of the pool.
            assert_eq!(built.load(Ordering::Relaxed), 2);
        }
    }

    #[test]
    fn in_order_stops_at_the_first_error() {
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        // Far more than the producers go through once stopped.
        const N: usize = 50_000_000;
        let produced = AtomicUsize::new(0);
        let mut consumed = 0;
        let result = in_order(
            &threads,
            N,
            2,
            || (),
            |_, item| {
                produced.fetch_add(1, Ordering::Relaxed);
                item
            },
            |item, _| {
                consumed += 1;
                if item == 10 { Err(item) } else { Ok(()) }
            },
        );
        assert_eq!(result, Err(10));
        assert_eq!(consumed, 11);
        // The producers stopped instead of going through all.
        assert!(produced.load(Ordering::Relaxed) < N, "{produced:?}");
    }
}
