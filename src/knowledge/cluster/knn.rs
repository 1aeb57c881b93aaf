//! Approximate neighbourhoods under cosine distance: each point's core distance, the points
//! within it, and its nearest neighbours beyond it.
//!
//! A forest of random-projection trees (each node split at the median of the points'
//! projections on the difference of two random points) cuts the points into leaves of at most
//! `leaf_max` points. A point's candidates are the members of its leaves in all trees; its core
//! distance is the `min_samples`-th smallest candidate distance (the point itself counted, as in
//! HDBSCAN): an upper bound of the exact value, exact when the true neighbours share one of its
//! leaves. Inputs that fit one leaf are handled exactly. Deterministic: a fixed seed, total
//! orders with index tie-breaks, and results merged in leaf order whatever the threads do.

use super::parallel::parallel_map;

/// Nearest neighbours kept per point beyond its core distance (count): the short links between
/// dense regions; 100,000 points cost 12 MB.
pub const GRAPH_NEIGHBOURS: usize = 15;
/// Seed of the random-projection trees; any fixed value keeps runs reproducible.
const SEED: u64 = 0x6769_746c_6f72_6521;
/// Smallest leaf (points) worth a tree split: below it, comparing everything is cheap anyway.
const MIN_LEAF: usize = 128;
/// Leaves hold up to this many times `min_samples + 1` points, so that a point's
/// `min_samples` nearest neighbours mostly share one of its leaves; 3 found the same clusters
/// as 4 on the benchmark corpora in three quarters of the time, 2 lost clusters.
const LEAF_FACTOR: usize = 3;
/// Candidate distance evaluations (count) that buy more than the minimum number of trees:
/// about 2 s of one core on sparse 256-dimension vectors. More trees find better neighbours at
/// a linear cost.
const DISTANCE_BUDGET: usize = 150_000_000;
/// Bounds on the number of trees (count): two so that a point sees across one partition's
/// cuts; four, beyond which small inputs gained little on the development corpora.
const TREES: (usize, usize) = (2, 4);

/// A point's neighbours beyond its core distance: `(distance, index)`, nearest first, padded
/// with [`NONE`].
pub type Neighbours = [(f32, u32); GRAPH_NEIGHBOURS];
/// Padding of a neighbour list.
pub const NONE: (f32, u32) = (f32::INFINITY, u32::MAX);

/// What the clustering needs to know about every point's neighbourhood.
pub struct Neighbourhood {
    pub core: Vec<f32>,
    pub neighbours: Vec<Neighbours>,
    /// Per block of points (the leaves of the first tree), the other points within each one's
    /// core distance, `stride` per point, padded with `u32::MAX`.
    within: Vec<Vec<u32>>,
    /// Per point, its block and its position in the block.
    within_at: Vec<(u32, u32)>,
    stride: usize,
}

impl Neighbourhood {
    /// The other points within `point`'s core distance (its `min_samples - 1` nearest).
    pub fn within(&self, point: usize) -> impl Iterator<Item = u32> {
        let (block, at) = self.within_at.get(point).copied().unwrap_or((u32::MAX, 0));
        let start = at as usize * self.stride;
        let list = self
            .within
            .get(block as usize)
            .and_then(|b| b.get(start..start + self.stride));
        list.unwrap_or_default()
            .iter()
            .copied()
            .filter(|&q| q != u32::MAX)
    }
}

/// Cosine distance of two L2-normalised vectors, in `0.0..=2.0`.
pub fn distance(a: &[f32], b: &[f32]) -> f32 {
    (1.0 - dot(a, b)).max(0.0)
}

/// Dot product with eight independent sums, which the compiler turns into SIMD.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (chunks_a, tail_a) = a.as_chunks::<8>();
    let (chunks_b, tail_b) = b.as_chunks::<8>();
    let mut sums = [0.0_f32; 8];
    for (x, y) in chunks_a.iter().zip(chunks_b) {
        for lane in 0..8 {
            sums[lane] += x[lane] * y[lane];
        }
    }
    let tail: f32 = tail_a.iter().zip(tail_b).map(|(x, y)| x * y).sum();
    sums.iter().sum::<f32>() + tail
}

/// The points' non-zero components `(dimension, value)`, when they are few: TF-IDF vectors
/// touch a few dozen of their dimensions, and a dot product over those reads a quarter of the
/// memory a dense one does (memory, not arithmetic, bounds the neighbour search).
struct Sparse {
    offsets: Vec<usize>,
    entries: Vec<(u32, f32)>,
}

impl Sparse {
    /// The sparse form, if the points are on average at most half non-zero.
    fn of(points: &[&[f32]]) -> Option<Sparse> {
        let non_zero: usize = points
            .iter()
            .map(|p| p.iter().filter(|&&x| x != 0.0).count())
            .sum();
        let dense: usize = points.iter().map(|p| p.len()).sum();
        if non_zero * 2 > dense {
            return None;
        }
        let mut sparse = Sparse {
            offsets: Vec::with_capacity(points.len() + 1),
            entries: Vec::with_capacity(non_zero),
        };
        sparse.offsets.push(0);
        for point in points {
            let entries = point.iter().enumerate().filter(|(_, x)| **x != 0.0);
            sparse.entries.extend(entries.map(|(i, &x)| (i as u32, x)));
            sparse.offsets.push(sparse.entries.len());
        }
        Some(sparse)
    }

    /// Cosine distance between a dense point and point `q`. Summing in dimension order over
    /// `q`'s non-zeros gives exactly the same value from either side (the zero terms add 0).
    fn distance(&self, dense: &[f32], q: usize) -> f32 {
        let entries = &self.entries[self.offsets[q]..self.offsets[q + 1]];
        let dot: f32 = entries
            .iter()
            .map(|&(i, x)| dense.get(i as usize).map_or(0.0, |d| d * x))
            .sum();
        (1.0 - dot).max(0.0)
    }
}

/// Computes every point's neighbourhood for the given `min_samples` (the point counted).
pub fn neighbourhood(points: &[&[f32]], min_samples: usize) -> Neighbourhood {
    let n = points.len();
    let leaf_max = (LEAF_FACTOR * (min_samples + 1)).max(MIN_LEAF);
    let per_tree = (n * leaf_max * 3 / 4).max(1); // candidates per tree: leaves are 1/2..1 full
    let trees = if n <= leaf_max {
        1
    } else {
        (DISTANCE_BUDGET / per_tree).clamp(TREES.0, TREES.1)
    };
    let mut rng = SplitMix(SEED);
    let forest: Vec<Vec<Vec<u32>>> = (0..trees)
        .map(|_| rp_leaves(points, leaf_max, &mut rng))
        .collect();
    let mut leaf_of = vec![vec![0_u32; n]; forest.len()];
    for (tree, leaves) in forest.iter().enumerate() {
        for (index, leaf) in leaves.iter().enumerate() {
            leaf.iter()
                .for_each(|&p| leaf_of[tree][p as usize] = index as u32);
        }
    }
    let stride = min_samples.max(1) - 1;
    let sparse = Sparse::of(points);
    let measure = |p: usize, q: usize| match &sparse {
        Some(sparse) => sparse.distance(points[p], q),
        None => distance(points[p], points[q]),
    };
    // Blocks are the first tree's leaves: neighbouring points, so candidates stay in cache.
    // Within a block, points sharing their other trees' leaves come together, so those leaves
    // too are read from cache (reading them from memory for every point is ten times slower).
    let order_blocks: Vec<Vec<u32>> = forest[0]
        .iter()
        .map(|leaf| {
            let mut block = leaf.clone();
            block.sort_by_cached_key(|&p| {
                (
                    leaf_of[1..]
                        .iter()
                        .map(|of| of[p as usize])
                        .collect::<Vec<u32>>(),
                    p,
                )
            });
            block
        })
        .collect();
    let blocks = parallel_map(&order_blocks, |block| {
        let mut seen = vec![false; n];
        let mut candidates: Vec<(f32, u32)> = Vec::new();
        let mut within = vec![u32::MAX; block.len() * stride];
        let found: Vec<(f32, Neighbours)> = block
            .iter()
            .enumerate()
            .map(|(at, &p)| {
                candidates.clear();
                for (tree, leaves) in forest.iter().enumerate() {
                    for &q in &leaves[leaf_of[tree][p as usize] as usize] {
                        if !std::mem::replace(&mut seen[q as usize], true) {
                            candidates.push((measure(p as usize, q as usize), q));
                        }
                    }
                }
                candidates
                    .iter()
                    .for_each(|&(_, q)| seen[q as usize] = false);
                nearest_of(
                    p,
                    &mut candidates,
                    min_samples,
                    &mut within[at * stride..(at + 1) * stride],
                )
            })
            .collect();
        (found, within)
    });
    let mut result = Neighbourhood {
        core: vec![f32::INFINITY; n],
        neighbours: vec![[NONE; GRAPH_NEIGHBOURS]; n],
        within: Vec::with_capacity(blocks.len()),
        within_at: vec![(u32::MAX, 0); n],
        stride,
    };
    for (index, (block, (found, within))) in order_blocks.iter().zip(blocks).enumerate() {
        for (at, (&p, (core, list))) in block.iter().zip(found).enumerate() {
            result.core[p as usize] = core;
            result.neighbours[p as usize] = list;
            result.within_at[p as usize] = (index as u32, at as u32);
        }
        result.within.push(within);
    }
    result
}

/// From a point's candidates `(distance, index)` (itself included): its core distance (the
/// `min_samples`-th smallest, itself counted), the others within it (written to `within`) and
/// the [`GRAPH_NEIGHBOURS`] nearest beyond it.
fn nearest_of(
    point: u32,
    candidates: &mut [(f32, u32)],
    min_samples: usize,
    within: &mut [u32],
) -> (f32, Neighbours) {
    let order = |x: &(f32, u32), y: &(f32, u32)| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1));
    let core_rank = (min_samples.max(1) - 1).min(candidates.len() - 1);
    let core = candidates.select_nth_unstable_by(core_rank, order).1.0;
    let inside = candidates[..=core_rank]
        .iter()
        .map(|&(_, q)| q)
        .filter(|&q| q != point);
    within
        .iter_mut()
        .zip(inside)
        .for_each(|(slot, q)| *slot = q);
    let beyond = &mut candidates[core_rank + 1..];
    let keep = GRAPH_NEIGHBOURS.min(beyond.len());
    if keep < beyond.len() {
        beyond.select_nth_unstable_by(keep, order);
    }
    let nearest = &mut beyond[..keep];
    nearest.sort_unstable_by(order);
    let mut list = [NONE; GRAPH_NEIGHBOURS];
    list[..keep].copy_from_slice(nearest);
    (core, list)
}

/// Splits the points into leaves of at most `leaf_max` points along random directions.
fn rp_leaves(points: &[&[f32]], leaf_max: usize, rng: &mut SplitMix) -> Vec<Vec<u32>> {
    let mut leaves = Vec::new();
    let mut pending = vec![(0..points.len() as u32).collect::<Vec<u32>>()];
    while let Some(node) = pending.pop() {
        if node.len() <= leaf_max {
            leaves.push(node);
            continue;
        }
        let a = points[node[rng.below(node.len())] as usize];
        let b = points[node[rng.below(node.len())] as usize];
        let direction: Vec<f32> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        let mut projected: Vec<(f32, u32)> = node
            .iter()
            .map(|&i| (dot(points[i as usize], &direction), i))
            .collect();
        let middle = projected.len() / 2;
        // Equal projections (duplicates, or a == b) fall back to index order: still a halving.
        projected.select_nth_unstable_by(middle, |x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        let (left, right) = projected.split_at(middle);
        pending.push(left.iter().map(|&(_, i)| i).collect());
        pending.push(right.iter().map(|&(_, i)| i).collect());
    }
    leaves
}

/// SplitMix64: a tiny, good-enough generator for picking split points.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % bound as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(angle: f32) -> Vec<f32> {
        vec![angle.cos(), angle.sin()]
    }

    #[test]
    fn small_inputs_get_exact_core_distances_and_neighbours() {
        let vectors: Vec<Vec<f32>> = (0..10).map(|i| unit(i as f32 * 0.1)).collect();
        let points: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let found = neighbourhood(&points, 3);
        // min_samples = 3 counts point 0 itself, then points 1 and 2.
        assert!((found.core[0] - distance(&vectors[0], &vectors[2])).abs() < 1e-6);
        let mut within: Vec<u32> = found.within(5).collect();
        within.sort();
        assert_eq!(within, [4, 6]);
        let beyond: Vec<u32> = found.neighbours[0].iter().map(|e| e.1).take(3).collect();
        assert_eq!(beyond, [3, 4, 5]);
        assert_eq!(found.neighbours[0][7], NONE);
    }

    #[test]
    fn large_inputs_find_most_true_neighbours() {
        // 3,000 points on a circle: the forest must find the exact core distance for most.
        let vectors: Vec<Vec<f32>> = (0..3000)
            .map(|i| unit((i * 7919 % 3000) as f32 * 0.002))
            .collect();
        let points: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let found = neighbourhood(&points, 10);
        let exact = |p: usize| {
            let mut d: Vec<f32> = points.iter().map(|q| distance(points[p], q)).collect();
            d.sort_by(f32::total_cmp);
            d[9]
        };
        let hits = (0..3000)
            .step_by(10)
            .filter(|&p| found.core[p] <= exact(p) + 1e-6)
            .count();
        assert!(hits >= 270, "{hits} of 300 exact");
    }
}
