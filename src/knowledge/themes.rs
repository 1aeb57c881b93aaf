//! Themes from clusters (behaviour §3.1), as pure functions: what a theme is about (its distinctive
//! terms) and which earlier theme a new cluster continues (stable identity across runs).

use std::collections::HashMap;

use crate::knowledge::embed::builtin::TfIdf;

/// Share (0..=1) of an old theme's surviving members that a new cluster must hold to continue
/// it: a majority, so that at most one cluster can qualify on this count.
const MIN_CONTINUED_SHARE: f64 = 0.5;
/// Share (0..=1) of all the old theme's members a continuation must hold, so that a theme whose
/// members mostly became noise is not carried on by a stray few.
const MIN_KEPT_SHARE: f64 = 0.25;
/// Members (count) a continuation must share at least: one comment is not a theme.
const MIN_SHARED: usize = 2;

/// For each cluster (input positions of `model`'s comments), up to `count` terms that weigh
/// more in the cluster than in the whole corpus, most distinctive first (ties by term).
/// The score is the cluster's mean TF-IDF weight minus the corpus's mean weight.
pub fn distinctive_terms(model: &TfIdf, clusters: &[Vec<usize>], count: usize) -> Vec<Vec<String>> {
    let mut corpus: HashMap<&str, f32> = HashMap::new();
    for document in 0..model.len() {
        for (term, weight) in model.weights(document) {
            *corpus.entry(term).or_default() += weight;
        }
    }
    let n = model.len().max(1) as f32;
    clusters
        .iter()
        .map(|members| {
            let mut inside: HashMap<&str, f32> = HashMap::new();
            for &document in members {
                for (term, weight) in model.weights(document) {
                    *inside.entry(term).or_default() += weight;
                }
            }
            let size = members.len().max(1) as f32;
            let mut scored: Vec<(f32, &str)> = inside
                .into_iter()
                .map(|(term, sum)| {
                    (
                        sum / size - corpus.get(term).copied().unwrap_or(0.0) / n,
                        term,
                    )
                })
                .filter(|&(score, _)| score > 0.0)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            scored
                .into_iter()
                .take(count)
                .map(|(_, term)| term.to_string())
                .collect()
        })
        .collect()
}

/// Maps each new cluster (its member keys) to the id of the previous theme it continues, or
/// `None` for a new theme.
///
/// A cluster continues an old theme when it holds at least half of the old members still
/// present in this run's clusters, at least a quarter of all its old members, and at least two.
/// (Old members that left the window or turned into noise are not visible here, so "present" means
/// "in some new cluster".) Matching is one-to-one and greedy: best share first, then most shared
/// members, then smallest theme id, then first cluster, so the result does not depend on the
/// order of `previous`.
pub fn match_themes(
    previous: &[(String, Vec<String>)],
    clusters: &[Vec<String>],
) -> Vec<Option<String>> {
    let cluster_of: HashMap<&str, usize> = clusters
        .iter()
        .enumerate()
        .flat_map(|(index, members)| members.iter().map(move |key| (key.as_str(), index)))
        .collect();
    let mut candidates: Vec<(f64, usize, &str, usize)> = Vec::new(); // (share, shared, id, cluster)
    for (id, members) in previous {
        let mut shared: HashMap<usize, usize> = HashMap::new();
        for key in members {
            if let Some(&cluster) = cluster_of.get(key.as_str()) {
                *shared.entry(cluster).or_default() += 1;
            }
        }
        let present: usize = shared.values().sum();
        for (cluster, count) in shared {
            let share = count as f64 / present as f64;
            let kept = count as f64 / members.len() as f64;
            if count >= MIN_SHARED && share >= MIN_CONTINUED_SHARE && kept >= MIN_KEPT_SHARE {
                candidates.push((share, count, id.as_str(), cluster));
            }
        }
    }
    candidates.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(b.2))
            .then(a.3.cmp(&b.3))
    });
    let mut matched: Vec<Option<String>> = vec![None; clusters.len()];
    let mut taken: Vec<&str> = Vec::new();
    for (_, _, id, cluster) in candidates {
        if matched[cluster].is_none() && !taken.contains(&id) {
            matched[cluster] = Some(id.to_string());
            taken.push(id);
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(range: std::ops::Range<u32>) -> Vec<String> {
        range.map(|k| format!("c{k}")).collect()
    }

    #[test]
    fn a_growing_theme_keeps_its_id_and_a_new_one_gets_none() {
        let previous = vec![
            ("t-old".to_string(), keys(0..10)),
            ("t-gone".to_string(), keys(50..60)),
        ];
        // t-old's cluster grew; t-gone's members became noise but for one stray.
        let clusters = vec![
            keys(100..110),
            [keys(0..10), keys(20..35)].concat(),
            [keys(50..51), keys(70..80)].concat(),
        ];
        assert_eq!(
            match_themes(&previous, &clusters),
            vec![None, Some("t-old".to_string()), None]
        );
    }

    #[test]
    fn a_split_theme_continues_in_its_larger_part_only() {
        let previous = vec![("t".to_string(), keys(0..10))];
        let clusters = vec![keys(0..4), keys(4..10)];
        assert_eq!(
            match_themes(&previous, &clusters),
            vec![None, Some("t".to_string())]
        );
    }

    #[test]
    fn two_merged_themes_give_the_cluster_to_the_larger_share() {
        let previous = vec![
            ("b".to_string(), keys(10..14)),
            ("a".to_string(), keys(0..10)),
        ];
        let clusters = vec![keys(0..14)];
        // Both shares are 1.0; "a" shares more members.
        assert_eq!(
            match_themes(&previous, &clusters),
            vec![Some("a".to_string())]
        );
    }
}
