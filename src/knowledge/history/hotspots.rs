//! Churn hotspots: commits per file, decayed towards the newest commit, with the share of fixes.

use std::collections::HashMap;

use super::words::is_fix;
use super::{Hotspot, Prepared};

/// A change counts half as much this many days before the newest commit (behaviour §3.2).
pub const HALF_LIFE_DAYS: f64 = 180.0;

const SECONDS_PER_DAY: f64 = 86_400.0;

/// Every file at the head that has commits, highest decayed score first.
pub fn hotspots(history: &Prepared<'_>) -> Vec<Hotspot> {
    let now = history.newest_commit_at;
    let mut by_path: HashMap<&str, Hotspot> = HashMap::new();
    for (commit, paths) in history.commits.iter().zip(&history.paths) {
        let at = commit.committer_time;
        let age_days = (now - at).max(0) as f64 / SECONDS_PER_DAY;
        let weight = 0.5_f64.powf(age_days / HALF_LIFE_DAYS);
        let fix = is_fix(commit);
        for path in paths.iter().filter(|path| history.exists(path)) {
            let hotspot = by_path.entry(path).or_insert_with(|| Hotspot {
                path: path.clone(),
                ..Hotspot::default()
            });
            hotspot.commits += 1;
            hotspot.score += weight;
            hotspot.fix_commits += usize::from(fix);
            hotspot.last_change = hotspot.last_change.max(at);
        }
    }
    let mut hotspots: Vec<Hotspot> = by_path
        .into_values()
        .map(|mut hotspot| {
            hotspot.fix_ratio = hotspot.fix_commits as f64 / hotspot.commits as f64;
            hotspot
        })
        .collect();
    hotspots.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    hotspots
}
