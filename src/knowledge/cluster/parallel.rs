//! A tiny deterministic parallel map over scoped threads (std only).

use std::num::NonZero;

/// Worker threads at most (count); the target machine has 2 cores, more gains little here.
const MAX_THREADS: usize = 8;

/// Maps `work` over `items` on a few threads; results come back in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(MAX_THREADS);
    if threads < 2 || items.len() < 2 {
        return items.iter().map(&work).collect();
    }
    let work = &work;
    let mut parts: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mine = items.iter().enumerate().skip(t).step_by(threads);
                    mine.map(|(index, item)| (index, work(item)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.iter_mut().flat_map(std::mem::take).collect();
    all.sort_unstable_by_key(|&(index, _)| index);
    all.into_iter().map(|(_, result)| result).collect()
}
