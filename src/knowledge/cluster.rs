//! Clustering of comment embeddings into themes: average linkage over each comment's nearest
//! neighbours, stopped at a fixed cosine similarity, so that a group of alike comments is found
//! whatever the size of the corpus around it.
//!
//! Up to a few thousand comments every pair is compared. Comparing every pair of 100,000
//! comments costs 5·10^9 dot products, so beyond that each point's nearest neighbours come from a
//! random-projection forest (`knn`), and only those pairs are candidates for a merge
//! (`linkage`). Inputs are first sorted
//! by their key, so the same set of comments gives the same clusters in any order.

mod knn;
mod linkage;
mod parallel;
mod point;

pub use point::Point;

/// Clustering parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Mean cosine similarity (0..=1) of a cluster's cross pairs below which two groups stay
    /// apart.
    pub min_similarity: f32,
}

impl Default for Params {
    /// The built-in embedder's threshold, chosen on the training split of the labelled corpus
    /// (`gitlore-bench findings`).
    fn default() -> Params {
        Params {
            min_similarity: 0.14,
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

/// The clusters (two members or more), ordered by their smallest member key, and the points in
/// none (noise).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Clustering {
    pub clusters: Vec<Cluster>,
    pub noise: Vec<usize>,
}

/// Clusters embeddings of at most unit length; `keys[i]` identifies `vectors[i]` (unique, e.g.
/// comment ids) and fixes the processing order. Returned indices are input positions.
pub fn cluster<K: Ord, P: Point>(keys: &[K], vectors: &[P], params: Params) -> Clustering {
    let mut order: Vec<usize> = (0..vectors.len().min(keys.len())).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let points: Vec<&P> = order.iter().map(|&i| &vectors[i]).collect();
    let leaves = linkage::clusters(&points, params.min_similarity);
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
fn medoid<P: Point>(points: &[&P], members: &[u32]) -> u32 {
    let mut sum = P::default();
    for &m in members {
        sum.add(points[m as usize]);
    }
    let mut best = (f32::NEG_INFINITY, 0);
    for &m in members {
        let score = points[m as usize].dot(&sum);
        if score > best.0 {
            best = (score, m);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::embed::Vector;

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
                v[dimension - 1] = if g < groups { 0.3 } else { 0.0 };
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
        let result = cluster(&keys, &vectors, Params::default());
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
    fn a_small_group_is_found_alone_and_among_many_others() {
        let alone = blobs(1, 3, 4);
        let keys: Vec<usize> = (0..alone.len()).collect();
        let found = cluster(&keys, &alone, Params::default());
        assert_eq!(found.clusters.len(), 1);
        assert_eq!(found.clusters[0].members, [0, 1, 2]);
        // Groups of three among 1,200 comments: each still found, whole and alone.
        let crowd = blobs(400, 3, 0);
        let keys: Vec<usize> = (0..crowd.len()).collect();
        let found = cluster(&keys, &crowd, Params::default());
        let sets: Vec<Vec<usize>> = found.clusters.iter().map(|c| c.members.clone()).collect();
        let expected: Vec<Vec<usize>> = (0..400)
            .map(|g| vec![3 * g, 3 * g + 1, 3 * g + 2])
            .collect();
        assert_eq!(sets, expected);
    }

    #[test]
    fn tiny_and_degenerate_inputs_are_all_noise() {
        let none: Vec<Vector> = Vec::new();
        assert_eq!(
            cluster::<u32, Vector>(&[], &none, Params::default()),
            Clustering::default()
        );
        let zeros = vec![vec![0.0; 4]; 3];
        let result = cluster(&[3, 1, 2], &zeros, Params::default());
        assert!(result.clusters.is_empty());
        assert_eq!(result.noise, [1, 2, 0]); // input positions, in key order
    }
}
