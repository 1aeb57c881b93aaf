//! Density clustering of comment embeddings into themes (SPEC §3.1): HDBSCAN with cosine
//! distance and leaf cluster selection, written for large inputs.
//!
//! Exact HDBSCAN needs every pairwise distance (10^10 for 100,000 comments). Here each point's
//! neighbourhood (core distance, the points within it, the nearest beyond it) comes from a
//! random-projection forest (`knn`), and the minimum spanning tree is taken over the edges
//! those neighbourhoods and a sample give (`tree`); both approximations are described where
//! they are made, and both are exact for inputs that fit in one leaf. Inputs are first sorted
//! by their key, so the same set of comments gives the same clusters in any order.

mod knn;
mod parallel;
mod tree;

use crate::knowledge::embed::Vector;

/// HDBSCAN parameters, in points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Smallest group that counts as a cluster.
    pub min_cluster_size: usize,
    /// Neighbours (the point itself included) whose distance is a point's core distance.
    pub min_samples: usize,
}

impl Params {
    /// The original tool's choice for `n` comments: `min_cluster_size = max(5, n/100)`,
    /// `min_samples = max(2, min_cluster_size/3)`.
    pub fn for_corpus(n: usize) -> Params {
        let min_cluster_size = (n / 100).max(5);
        Params {
            min_cluster_size,
            min_samples: (min_cluster_size / 3).max(2),
        }
    }
}

/// One cluster: input positions of its members, in key order, and its medoid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub members: Vec<usize>,
    /// The member with the smallest summed cosine distance to the others (ties: smallest key).
    pub medoid: usize,
}

/// The clusters, ordered by their smallest member key, and the points in none (noise).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Clustering {
    pub clusters: Vec<Cluster>,
    pub noise: Vec<usize>,
}

/// Clusters L2-normalised `vectors`; `keys[i]` identifies `vectors[i]` (unique, e.g. comment
/// ids) and fixes the processing order. Returned indices are input positions.
pub fn cluster<K: Ord>(keys: &[K], vectors: &[Vector], params: Params) -> Clustering {
    let mut order: Vec<usize> = (0..vectors.len().min(keys.len())).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let points: Vec<&[f32]> = order.iter().map(|&i| vectors[i].as_slice()).collect();
    let found = knn::neighbourhood(&points, params.min_samples);
    let leaves = tree::leaf_clusters(&points, &found, params.min_cluster_size);
    let mut clustered = vec![false; points.len()];
    let clusters = leaves
        .into_iter()
        .map(|members| {
            members.iter().for_each(|&p| clustered[p as usize] = true);
            let medoid = order[medoid(&points, &members) as usize];
            Cluster {
                members: members.iter().map(|&p| order[p as usize]).collect(),
                medoid,
            }
        })
        .collect();
    let noise = (0..points.len())
        .filter(|&p| !clustered[p])
        .map(|p| order[p])
        .collect();
    Clustering { clusters, noise }
}

/// For unit vectors, the summed cosine distance of `x` to the members is `m - x·Σ`, so the
/// medoid is the member with the largest dot product with the members' sum.
fn medoid(points: &[&[f32]], members: &[u32]) -> u32 {
    let dimension = points.first().map_or(0, |p| p.len());
    let mut sum = vec![0.0_f32; dimension];
    for &m in members {
        sum.iter_mut()
            .zip(points[m as usize])
            .for_each(|(s, x)| *s += x);
    }
    let mut best = (f32::NEG_INFINITY, 0);
    for &m in members {
        let score = knn::dot(points[m as usize], &sum);
        if score > best.0 {
            best = (score, m);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `per_group` unit vectors in a small random cloud around each of `groups` axes (which
    /// share a common component, like themes share vocabulary), plus `noise` vectors on axes of
    /// their own.
    fn blobs(groups: usize, per_group: usize, noise: usize) -> Vec<Vector> {
        const JITTER_AXES: usize = 8;
        let dimension = groups + noise + JITTER_AXES + 1;
        let mut state = 7_u32;
        let mut jitter = move || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as f32 / 65_536.0 * 0.1 - 0.05
        };
        let mut vectors = Vec::new();
        for g in 0..groups + noise {
            for _ in 0..if g < groups { per_group } else { 1 } {
                let mut v = vec![0.0; dimension];
                v[g] = 1.0;
                v[groups + noise..dimension - 1]
                    .iter_mut()
                    .for_each(|x| *x = jitter());
                v[dimension - 1] = if g < groups { 0.5 } else { 0.0 };
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                vectors.push(v.into_iter().map(|x| x / norm).collect());
            }
        }
        vectors
    }

    #[test]
    fn finds_the_groups_and_leaves_the_noise_out() {
        let vectors = blobs(3, 20, 6);
        let keys: Vec<usize> = (0..vectors.len()).collect();
        // min_samples = 5 smooths the clouds' random sub-structure, which leaf selection would
        // otherwise split (scikit-learn's HDBSCAN splits the same points the same way).
        let result = cluster(
            &keys,
            &vectors,
            Params {
                min_cluster_size: 5,
                min_samples: 5,
            },
        );
        let sets: Vec<Vec<usize>> = result.clusters.iter().map(|c| c.members.clone()).collect();
        assert_eq!(
            sets,
            vec![
                (0..20).collect::<Vec<_>>(),
                (20..40).collect(),
                (40..60).collect()
            ]
        );
        assert_eq!(result.noise, (60..66).collect::<Vec<_>>());
        assert!(
            result
                .clusters
                .iter()
                .all(|c| c.members.contains(&c.medoid))
        );
    }

    #[test]
    fn tiny_and_degenerate_inputs_are_all_noise() {
        let none: Vec<Vector> = Vec::new();
        assert_eq!(
            cluster::<u32>(&[], &none, Params::for_corpus(0)),
            Clustering::default()
        );
        let zeros = vec![vec![0.0; 4]; 3];
        let result = cluster(&[3, 1, 2], &zeros, Params::for_corpus(3));
        assert!(result.clusters.is_empty());
        assert_eq!(result.noise, [1, 2, 0]); // input positions, in key order
    }

    #[test]
    fn params_follow_the_original_tool() {
        assert_eq!(
            Params::for_corpus(50),
            Params {
                min_cluster_size: 5,
                min_samples: 2
            }
        );
        assert_eq!(
            Params::for_corpus(100_000),
            Params {
                min_cluster_size: 1000,
                min_samples: 333
            }
        );
    }
}
