//! What the clustering needs of an embedding: the dot product of two (cosine similarity, since
//! embeddings are at most unit length), the sum of a group, and a dense projection for the
//! neighbour search at scale. Dense vectors (remote models) and sparse ones (the built-in
//! embedder's) both qualify.

use std::borrow::Cow;

use super::knn;
use crate::knowledge::embed::{SparseVector, Vector};

/// Dimension (count) of the dense projection of sparse vectors for the neighbour search:
/// 100,000 projections stay near 100 MB. Only the search sees it, not the similarities.
const PROJECTION_DIMENSION: usize = 256;

/// An embedding the clustering can compare, sum and project.
pub trait Point: Clone + Default + Send + Sync {
    /// Dot product: the cosine similarity of two embeddings, or of a group's sums.
    fn dot(&self, other: &Self) -> f32;
    /// The dot products with each of `others`, in order: what comparing all pairs needs.
    fn dots(&self, others: &[&Self]) -> Vec<f32> {
        others.iter().map(|other| self.dot(other)).collect()
    }
    /// Adds `other` to `self`, component by component.
    fn add(&mut self, other: &Self);
    /// A dense form for the random-projection forest, which keeps dot products roughly.
    fn projection(&self) -> Cow<'_, [f32]>;
}

impl Point for Vector {
    fn dot(&self, other: &Self) -> f32 {
        knn::dot(self, other)
    }

    fn add(&mut self, other: &Self) {
        if self.is_empty() {
            self.extend_from_slice(other);
        } else {
            self.iter_mut().zip(other).for_each(|(s, x)| *s += x);
        }
    }

    fn projection(&self) -> Cow<'_, [f32]> {
        Cow::Borrowed(self)
    }
}

impl Point for SparseVector {
    fn dot(&self, other: &Self) -> f32 {
        SparseVector::dot(self, other)
    }

    /// `self` spread over a dense row, which each other vector reads at its components: the same
    /// sums, in the same order, as [`SparseVector::dot`] (the components not shared add zero),
    /// without a merge per pair.
    fn dots(&self, others: &[&Self]) -> Vec<f32> {
        let width = self
            .0
            .last()
            .map_or(0, |&(component, _)| component as usize + 1);
        let mut row = vec![0.0_f32; width];
        self.0.iter().for_each(|&(c, x)| row[c as usize] = x);
        others
            .iter()
            .map(|other| {
                other
                    .0
                    .iter()
                    .map(|&(c, y)| row.get(c as usize).map_or(0.0, |x| x * y))
                    .sum()
            })
            .collect()
    }

    fn add(&mut self, other: &Self) {
        let entries = std::mem::take(&mut self.0);
        *self = SparseVector::summed(entries.into_iter().chain(other.0.iter().copied()).collect());
    }

    /// Signed feature hashing of the components: colliding ones cancel out on average.
    fn projection(&self) -> Cow<'_, [f32]> {
        let mut dense = vec![0.0_f32; PROJECTION_DIMENSION];
        for &(component, weight) in &self.0 {
            let hash = mix(u64::from(component));
            let sign = if hash >> 63 == 0 { 1.0 } else { -1.0 };
            dense[(hash % PROJECTION_DIMENSION as u64) as usize] += sign * weight;
        }
        Cow::Owned(dense)
    }
}

/// SplitMix64's finaliser: neighbouring components land on unrelated dimensions.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_dot_and_sum_match_their_dense_forms() {
        let a = SparseVector(vec![(0, 0.6), (3, 0.8)]);
        let b = SparseVector(vec![(1, 0.5), (3, 0.5), (7, 0.5)]);
        assert!((a.dot(&b) - 0.4).abs() < 1e-6);
        let mut sum = SparseVector::default();
        sum.add(&a);
        sum.add(&b);
        assert_eq!(sum.0, [(0, 0.6), (1, 0.5), (3, 1.3), (7, 0.5)]);
        let others = [&b, &sum, &SparseVector::default()];
        let one_by_one: Vec<f32> = others.iter().map(|o| a.dot(o)).collect();
        assert_eq!(a.dots(&others), one_by_one);
        let projected = a.projection();
        assert_eq!(projected.iter().filter(|x| **x != 0.0).count(), 2);
    }

    #[test]
    fn dense_sums_start_empty() {
        let mut sum = Vector::default();
        sum.add(&vec![1.0, 2.0]);
        sum.add(&vec![0.5, 0.5]);
        assert_eq!(sum, [1.5, 2.5]);
        assert!((sum.dot(&vec![1.0, 0.0]) - 1.5).abs() < 1e-6);
    }
}
