//! From neighbourhoods to leaf clusters: the minimum spanning tree of the mutual-reachability
//! graph, its single-linkage hierarchy, and the leaves of the condensed tree (HDBSCAN).
//!
//! The spanning tree (Kruskal) is taken over three kinds of edges instead of all n² pairs:
//! - each point to the points within its core distance: such an edge weighs the larger of the
//!   two core distances, and these are the edges that hold a dense region together;
//! - each point to its nearest neighbours beyond its core distance: the short links between
//!   dense regions;
//! - the spanning tree of all pairs of an evenly spaced sample of at most [`LINK_SAMPLE`]
//!   points: long-range links, without which two groups would be linked only through whatever
//!   sparse points sit between them, gluing noise to clusters.
//!
//! Components still apart (groups without a sampled point) are joined through one
//! representative each, their point of smallest core distance. With exact neighbourhoods and
//! every point sampled (inputs up to [`LINK_SAMPLE`] points) the tree is exact.

use super::knn::{self, Neighbourhood};
use super::parallel::parallel_map;

/// Points (count) whose pairwise edges are all considered: 1,000 cost a million distance
/// evaluations (about 0.05 s) and a 4 MB matrix, and give each cluster of 1% of the corpus
/// about 10 sampled points.
const LINK_SAMPLE: usize = 1000;

/// One edge: mutual-reachability distance and its two points (smaller index first).
type Edge = (f32, u32, u32);

/// The leaf clusters of the condensed tree, as lists of point indices (ascending), ordered by
/// their smallest point. Points in none of them are noise.
pub fn leaf_clusters(
    points: &[&[f32]],
    found: &Neighbourhood,
    min_cluster_size: usize,
) -> Vec<Vec<u32>> {
    let n = points.len();
    if n < 2 * min_cluster_size.max(1) {
        return Vec::new(); // no split can leave two clusters of the minimum size
    }
    let tree = spanning_tree(points, found);
    let (children, root) = single_linkage(n, &tree);
    condensed_leaves(n, &children, root, min_cluster_size)
}

fn by_weight(a: &Edge, b: &Edge) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Minimum spanning tree of the mutual-reachability graph restricted to the edges described in
/// the module documentation, its components then joined.
fn spanning_tree(points: &[&[f32]], found: &Neighbourhood) -> Vec<Edge> {
    let n = points.len();
    let core = &found.core;
    let reach = |a: usize, b: usize, d: f32| d.max(core[a]).max(core[b]);
    let mut edges: Vec<Edge> = Vec::with_capacity(n * knn::GRAPH_NEIGHBOURS);
    for (a, list) in found.neighbours.iter().enumerate() {
        for &(d, b) in list.iter().filter(|e| e.1 != u32::MAX) {
            let (low, high) = (a.min(b as usize), a.max(b as usize));
            edges.push((reach(a, b as usize, d), low as u32, high as u32));
        }
    }
    edges.extend(sample_tree(points, core));
    edges.sort_unstable_by(by_weight);
    // Kruskal over those edges merged with the ones inside core distances: an edge from a point
    // to a denser point within its core distance weighs the point's own core distance, so all
    // of them are taken when the points are visited in order of core distance.
    let mut visits: Vec<u32> = (0..n as u32).collect();
    let denser = |b: u32, a: u32| {
        core[b as usize]
            .total_cmp(&core[a as usize])
            .then(b.cmp(&a))
    };
    visits.sort_unstable_by(|&a, &b| denser(a, b));
    let mut visits = visits.into_iter().peekable();
    let mut explicit = edges.into_iter().peekable();
    let mut sets = UnionFind::new(n);
    let mut tree: Vec<Edge> = Vec::with_capacity(n);
    loop {
        let visit_first = match (visits.peek(), explicit.peek()) {
            (Some(&a), Some(edge)) => core[a as usize] <= edge.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if visit_first {
            let Some(a) = visits.next() else { break };
            for b in found.within(a as usize).filter(|&b| denser(b, a).is_lt()) {
                if sets.union(a, b) {
                    tree.push((core[a as usize], a.min(b), a.max(b)));
                }
            }
        } else if let Some((w, a, b)) = explicit.next()
            && sets.union(a, b)
        {
            tree.push((w, a, b));
        }
    }
    // Join the components through representatives.
    let mut representative: Vec<Option<u32>> = vec![None; n];
    for p in 0..n as u32 {
        let root = sets.find(p) as usize;
        if representative[root].is_none_or(|r| denser(p, r).is_lt()) {
            representative[root] = Some(p);
        }
    }
    let reps: Vec<u32> = representative.into_iter().flatten().collect();
    if reps.len() > 1 {
        let mut joins: Vec<Edge> = Vec::with_capacity(reps.len() * (reps.len() - 1) / 2);
        for (i, &a) in reps.iter().enumerate() {
            for &b in &reps[i + 1..] {
                let d = knn::distance(points[a as usize], points[b as usize]);
                joins.push((reach(a as usize, b as usize, d), a.min(b), a.max(b)));
            }
        }
        joins.sort_unstable_by(by_weight);
        tree.extend(joins.into_iter().filter(|&(_, a, b)| sets.union(a, b)));
    }
    tree.sort_unstable_by(by_weight);
    tree
}

/// The minimum spanning tree (Prim) of the complete mutual-reachability graph of an evenly
/// spaced sample: the long-range edges of the sample graph that can be in the final tree (an
/// edge outside the sample's own tree is the heaviest of some cycle, so never needed).
fn sample_tree(points: &[&[f32]], core: &[f32]) -> Vec<Edge> {
    let n = points.len();
    let size = LINK_SAMPLE.min(n);
    let sample: Vec<usize> = (0..size).map(|i| i * n / size).collect();
    let rows: Vec<usize> = (0..size).collect();
    let matrix: Vec<Vec<f32>> = parallel_map(&rows, |&i| {
        let a = sample[i];
        sample
            .iter()
            .map(|&b| {
                knn::distance(points[a], points[b])
                    .max(core[a])
                    .max(core[b])
            })
            .collect()
    });
    let mut tree = Vec::with_capacity(size.saturating_sub(1));
    let mut best: Vec<(f32, usize)> = vec![(f32::INFINITY, 0); size]; // (weight, from) per row
    let mut done = vec![false; size];
    let mut current = 0;
    for _ in 1..size {
        done[current] = true;
        let mut next = (f32::INFINITY, usize::MAX);
        for j in 0..size {
            if done[j] {
                continue;
            }
            let w = matrix[current][j];
            if w < best[j].0 {
                best[j] = (w, current);
            }
            if best[j].0 < next.0 || next.1 == usize::MAX {
                next = (best[j].0, j);
            }
        }
        let (a, b) = (sample[best[next.1].1], sample[next.1]);
        tree.push((next.0, a.min(b) as u32, a.max(b) as u32));
        current = next.1;
    }
    tree
}

/// The single-linkage dendrogram: node `n + i` is the i-th merge, with its two children and
/// its size. Returns the children per merge and the root node.
fn single_linkage(n: usize, tree: &[Edge]) -> (Vec<(u32, u32, u32)>, u32) {
    let mut sets = UnionFind::new(n);
    let mut node_of: Vec<u32> = (0..n as u32).collect(); // set root -> dendrogram node
    let mut size = vec![1_u32; n];
    let mut children = Vec::with_capacity(n.saturating_sub(1));
    for &(_, a, b) in tree {
        let (ra, rb) = (sets.find(a), sets.find(b));
        let (na, nb) = (node_of[ra as usize], node_of[rb as usize]);
        let merged = size[ra as usize] + size[rb as usize];
        sets.union(a, b);
        let root = sets.find(a) as usize;
        node_of[root] = (n + children.len()) as u32;
        size[root] = merged;
        children.push((na, nb, merged));
    }
    let root = (n + children.len()).saturating_sub(1) as u32;
    (children, root)
}

/// Walks the dendrogram from the root: a merge whose two sides both have at least
/// `min_cluster_size` points splits its cluster in two; otherwise points just fall out of it.
/// Returns the clusters that never split (leaf selection), the root excepted.
fn condensed_leaves(
    n: usize,
    children: &[(u32, u32, u32)],
    root: u32,
    min_cluster_size: usize,
) -> Vec<Vec<u32>> {
    let size = |node: u32| {
        if (node as usize) < n {
            1
        } else {
            children[node as usize - n].2 as usize
        }
    };
    let mut has_children: Vec<bool> = vec![false];
    let mut cluster_of_point = vec![0_u32; n];
    let mut pending = vec![(root, 0_u32)];
    while let Some((node, cluster)) = pending.pop() {
        if (node as usize) < n {
            cluster_of_point[node as usize] = cluster;
            continue;
        }
        let (left, right, _) = children[node as usize - n];
        if size(left) >= min_cluster_size && size(right) >= min_cluster_size {
            has_children[cluster as usize] = true;
            for side in [left, right] {
                pending.push((side, has_children.len() as u32));
                has_children.push(false);
            }
        } else {
            pending.push((left, cluster));
            pending.push((right, cluster));
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); has_children.len()];
    for (point, &cluster) in cluster_of_point.iter().enumerate() {
        if cluster != 0 && !has_children[cluster as usize] {
            members[cluster as usize].push(point as u32);
        }
    }
    let mut leaves: Vec<Vec<u32>> = members.into_iter().filter(|m| !m.is_empty()).collect();
    leaves.sort_unstable_by_key(|m| m[0]);
    leaves
}

/// Disjoint sets with path halving and union by size.
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Joins the sets of `a` and `b`; false when they were already one.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_groups_and_an_outlier_make_two_leaves() {
        // Points on a line: 0..5 close together, 10..15 close together, 100 far away.
        let n = 11;
        let position = |p: u32| {
            if p < 5 {
                p as f32
            } else if p < 10 {
                10.0 + p as f32
            } else {
                100.0
            }
        };
        let mut tree: Vec<Edge> = (0..n as u32 - 1)
            .map(|p| ((position(p + 1) - position(p)).abs(), p, p + 1))
            .collect();
        tree.sort_unstable_by(by_weight);
        let (children, root) = single_linkage(n, &tree);
        assert_eq!(children.len(), n - 1);
        let leaves = condensed_leaves(n, &children, root, 4);
        assert_eq!(leaves, vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]);
    }
}
