//! Co-change coupling: pairs of files that change together more often than chance.
//!
//! Each commit is a transaction of the (current) paths it touched. Support is weighted: a
//! commit of `n` files weighs `1 / log2(n)`, so a two-file commit counts fully and wide commits
//! count less; confidence and lift use plain commit counts.
//!
//! The strongest pairs come first by weighted support times confidence: how often the two
//! changed together, and how much of their history that is. Lift only filters, since it grows
//! as files get rarer: two files seen in three commits, always together, reach a lift in the
//! thousands and say less than a pair seen together in three hundred.

use std::collections::HashMap;

use super::Prepared;
use crate::domain::history::Coupling;

/// Commits touching more files than this are skipped: mass renames, formatting,
/// dependency bumps say nothing about design.
pub const MAX_FILES_PER_COMMIT: usize = 50;
/// Weighted commits that changed both files.
pub const MIN_SUPPORT: f64 = 3.0;
/// The larger of P(b | a) and P(a | b).
pub const MIN_CONFIDENCE: f64 = 0.25;
/// How much more often than chance the pair changes together.
pub const MIN_LIFT: f64 = 1.5;

/// Pairs above every threshold, strongest first (see the module documentation).
pub fn couplings(history: &Prepared<'_>) -> Vec<Coupling> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    let mut file_commits: Vec<usize> = Vec::new();
    let mut pairs: HashMap<(usize, usize), (f64, usize)> = HashMap::new();
    let mut transactions = 0_usize;
    for paths in &history.paths {
        let files: Vec<usize> = paths
            .iter()
            .filter(|path| history.exists(path))
            .map(|path| {
                *ids.entry(path).or_insert_with(|| {
                    names.push(path);
                    file_commits.push(0);
                    names.len() - 1
                })
            })
            .collect();
        if files.is_empty() || files.len() > MAX_FILES_PER_COMMIT {
            continue;
        }
        transactions += 1;
        for &file in &files {
            file_commits[file] += 1;
        }
        if files.len() < 2 {
            continue;
        }
        let weight = 1.0 / (files.len() as f64).log2();
        for (index, &a) in files.iter().enumerate() {
            for &b in &files[index + 1..] {
                let pair = pairs.entry((a.min(b), a.max(b))).or_insert((0.0, 0));
                pair.0 += weight;
                pair.1 += 1;
            }
        }
    }
    let mut couplings: Vec<Coupling> = pairs
        .into_iter()
        .filter(|(_, (support, _))| *support >= MIN_SUPPORT)
        .filter_map(|((a, b), (support, together))| {
            let (count_a, count_b) = (file_commits[a] as f64, file_commits[b] as f64);
            let together_f = together as f64;
            let confidence = (together_f / count_a).max(together_f / count_b);
            let lift = together_f * transactions as f64 / (count_a * count_b);
            let (a, b) = if names[a] < names[b] {
                (names[a], names[b])
            } else {
                (names[b], names[a])
            };
            (confidence >= MIN_CONFIDENCE && lift >= MIN_LIFT).then(|| Coupling {
                a: a.to_owned(),
                b: b.to_owned(),
                support,
                confidence,
                lift,
                commits: together,
            })
        })
        .collect();
    couplings.sort_by(|x, y| {
        (y.support * y.confidence)
            .total_cmp(&(x.support * x.confidence))
            .then_with(|| y.lift.total_cmp(&x.lift))
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    couplings
}
