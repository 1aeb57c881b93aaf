//! From neighbourhoods to clusters: average-linkage agglomeration over the nearest-neighbour
//! graph, stopped at a fixed similarity.
//!
//! Candidate pairs are all pairs for inputs of up to [`EXACT_LIMIT`] points, else each point's
//! nearest neighbours (`knn`). Taken from the most similar pair
//! down, two clusters merge when the mean cosine similarity of all their cross pairs is at least
//! the threshold; for unit vectors that mean is `Σa · Σb / (|a| |b|)`, so each cluster only
//! keeps the sum of its vectors. The threshold is an absolute similarity, not a share of the
//! corpus: the same comments form the same cluster among seven comments or among 100,000. Two
//! groups of two or more also stay apart when they are far less alike to each other than the
//! tighter one is within itself (its own mean similarity comes from the same sum).

use super::knn;
use super::parallel::parallel_map;
use super::point::Point;

/// Points (count) up to which every pair is a candidate: 4,000 points are 8 million dot
/// products, about 0.2 s on two cores.
pub const EXACT_LIMIT: usize = 4000;

/// Share (0..=1) of the tighter group's own mean similarity that two groups of two or more must
/// reach between them to merge, chosen on the corpus's training split (0.3 to 0.6 give the same
/// themes there; the most lenient is kept).
const MIN_CROSS_SHARE: f32 = 0.3;

/// One candidate pair: cosine similarity and its two points (smaller index first).
type Pair = (f32, u32, u32);

/// Clusters of two or more points (point indices, ascending), ordered by their smallest point.
pub fn clusters<P: Point>(points: &[&P], min_similarity: f32) -> Vec<Vec<u32>> {
    let n = points.len();
    let mut pairs = candidates(points, min_similarity);
    pairs.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    pairs.dedup_by(|x, y| x.1 == y.1 && x.2 == y.2);

    let mut sets = Sets::new(points);
    for &(_, a, b) in &pairs {
        let (ra, rb) = (sets.find(a), sets.find(b));
        if ra != rb && sets.mean_similarity(ra, rb) >= min_similarity && !sets.apart_from(ra, rb) {
            sets.union(ra, rb);
        }
    }
    let mut by_root: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for p in 0..n as u32 {
        let root = sets.find(p);
        by_root.entry(root).or_default().push(p);
    }
    let mut found: Vec<Vec<u32>> = by_root.into_values().filter(|m| m.len() >= 2).collect();
    found.sort_by_key(|members| members[0]);
    found
}

/// The candidate pairs at `min_similarity` or more.
fn candidates<P: Point>(points: &[&P], min_similarity: f32) -> Vec<Pair> {
    let n = points.len();
    let alike = |a: usize, b: usize| {
        let (low, high) = (a.min(b), a.max(b));
        let similarity = points[low].dot(points[high]);
        (similarity >= min_similarity).then_some((similarity, low as u32, high as u32))
    };
    let rows: Vec<usize> = (0..n).collect();
    let per_point: Vec<Vec<Pair>> = if n <= EXACT_LIMIT {
        parallel_map(&rows, |&a| {
            let similarities = points[a].dots(&points[a + 1..]);
            (a + 1..n)
                .zip(similarities)
                .filter(|&(_, similarity)| similarity >= min_similarity)
                .map(|(b, similarity)| (similarity, a as u32, b as u32))
                .collect()
        })
    } else {
        let projections: Vec<_> = points.iter().map(|p| p.projection()).collect();
        let projected: Vec<&[f32]> = projections.iter().map(|p| p.as_ref()).collect();
        let found = knn::neighbourhood(&projected, 2);
        parallel_map(&rows, |&a| {
            let nearest = found
                .within(a)
                .chain(found.neighbours[a].iter().map(|&(_, b)| b));
            nearest
                .filter(|&b| b != u32::MAX && b as usize != a)
                .filter_map(|b| alike(a, b as usize))
                .collect()
        })
    };
    per_point.into_iter().flatten().collect()
}

/// Disjoint sets of points, each root holding its size and the sum of its vectors.
struct Sets<P> {
    parent: Vec<u32>,
    size: Vec<u32>,
    sum: Vec<P>,
}

impl<P: Point> Sets<P> {
    fn new(points: &[&P]) -> Sets<P> {
        Sets {
            parent: (0..points.len() as u32).collect(),
            size: vec![1; points.len()],
            sum: points.iter().map(|&p| p.clone()).collect(),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// The mean similarity of the cross pairs of two roots' sets.
    fn mean_similarity(&self, a: u32, b: u32) -> f32 {
        let pairs = self.size[a as usize] as f32 * self.size[b as usize] as f32;
        self.sum[a as usize].dot(&self.sum[b as usize]) / pairs
    }

    /// The mean similarity of the pairs within a root's set; `None` for a single point.
    fn internal_similarity(&self, root: u32) -> Option<f32> {
        let n = self.size[root as usize] as f32;
        let sum = &self.sum[root as usize];
        // |Σ|² counts every ordered pair once and every point with itself once.
        (n >= 2.0).then(|| (sum.dot(sum) - n) / (n * (n - 1.0)))
    }

    /// Whether two groups are far less alike to each other than each is within itself: two
    /// saved replies of one maintainer, each repeated word for word, share their greeting and
    /// sign-off and still make two lessons.
    fn apart_from(&self, a: u32, b: u32) -> bool {
        match (self.internal_similarity(a), self.internal_similarity(b)) {
            (Some(x), Some(y)) => self.mean_similarity(a, b) < MIN_CROSS_SHARE * x.min(y),
            _ => false,
        }
    }

    /// Joins two roots' sets under the smaller index, so the result does not depend on the
    /// order of equal pairs.
    fn union(&mut self, a: u32, b: u32) {
        let (keep, gone) = (a.min(b), a.max(b));
        self.parent[gone as usize] = keep;
        self.size[keep as usize] += self.size[gone as usize];
        let moved = std::mem::take(&mut self.sum[gone as usize]);
        self.sum[keep as usize].add(&moved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    #[test]
    fn a_chain_of_pairs_does_not_glue_dissimilar_ends() {
        // a ~ b and b ~ c each at about 0.7, but a and c are orthogonal: the mean over all
        // cross pairs keeps c out of {a, b}.
        let vectors = [
            unit(&[1.0, 0.0, 0.0]),
            unit(&[1.0, 1.0, 0.0]),
            unit(&[0.0, 1.0, 0.0]),
            unit(&[0.0, 0.0, 1.0]),
        ];
        let points: Vec<&Vec<f32>> = vectors.iter().collect();
        assert_eq!(clusters(&points, 0.6), vec![vec![0, 1]]);
        assert_eq!(clusters(&points, 0.3), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn two_tight_groups_a_little_alike_stay_two() {
        // Two pairs of near-duplicates (within each pair about 0.99), 0.2 alike across: above
        // the threshold, far below what holds each pair together.
        let a = unit(&[1.0, 0.0, 0.45, 0.0]);
        let b = unit(&[1.0, 0.1, 0.45, 0.0]);
        let c = unit(&[0.0, 1.0, 0.45, 0.0]);
        let d = unit(&[0.1, 1.0, 0.45, 0.0]);
        let vectors = [a, b, c, d];
        let points: Vec<&Vec<f32>> = vectors.iter().collect();
        let cross = knn::dot(points[0], points[2]);
        assert!(cross > 0.15 && cross < 0.3, "{cross}");
        assert_eq!(clusters(&points, 0.15), vec![vec![0, 1], vec![2, 3]]);
    }
}
