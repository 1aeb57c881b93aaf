//! Whether the lessons help (behaviour §3.4), for one analysis: reads the review activity, maps
//! each active finding to the theme it stands for and its publication date (later for a lesson
//! the hold-back keeps out of the issue), and measures. No model is asked.

use std::collections::BTreeSet;

use anyhow::Result;

use crate::domain::RepoId;
use crate::domain::effect::{EffectReport, Lesson};
use crate::domain::findings::Finding;
use crate::knowledge::effect::{holdback::HoldBack, measure};
use crate::repo_config::RepoConfig;
use crate::store::Store;
use crate::store::effect::review_activity;

/// The measurement and which findings the hold-back keeps out of the issue at `now`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Measured {
    pub report: EffectReport,
    /// Ids of the active findings not shown yet.
    pub held_back: BTreeSet<String>,
}

/// What [`measure_lessons`] measures: one repository's analysis.
pub struct Subject<'a> {
    pub repo_id: RepoId,
    pub repo: &'a str,
    pub active: &'a [Finding],
    pub config: &'a RepoConfig,
    /// Unix seconds: the analysis window's start and the analysis's time.
    pub window_start: i64,
    pub now: i64,
}

/// Measures the active findings of an analysis under its config's hold-back.
pub fn measure_lessons(store: &Store, subject: &Subject) -> Result<Measured> {
    let Subject {
        repo_id,
        repo,
        active,
        config,
        window_start,
        now,
    } = *subject;
    let activity = review_activity(&store.reader()?, repo_id, window_start)?;
    let holdback = HoldBack::from_config(&config.effect);
    let themes: Vec<&str> = activity
        .themes
        .iter()
        .map(|t| t.theme_id.as_str())
        .collect();
    let lessons: Vec<Lesson> = active
        .iter()
        .filter_map(|finding| {
            let theme_id = theme_of(&finding.id, &themes)?;
            let published_at = holdback.map_or(finding.first_seen, |h| {
                h.published_at(repo, &finding.id, finding.first_seen)
            });
            Some(Lesson {
                finding_id: finding.id.clone(),
                theme_id: theme_id.to_string(),
                files: finding.files.clone(),
                published_at,
                held_back: published_at > finding.first_seen,
            })
        })
        .collect();
    let held_back = active
        .iter()
        .filter(|f| holdback.is_some_and(|h| h.holds(repo, &f.id, f.first_seen, now)))
        .map(|f| f.id.clone())
        .collect();
    Ok(Measured {
        report: measure(&activity, &lessons, holdback.map(|h| h.delay_secs)),
        held_back,
    })
}

/// The theme a finding stands for: `f-` + the theme id, possibly followed by `-` and the id of
/// the comment a theme's further lesson is titled from.
pub fn theme_of<'a>(finding_id: &str, themes: &[&'a str]) -> Option<&'a str> {
    let rest = finding_id.strip_prefix("f-")?;
    themes.iter().copied().find(|theme| {
        rest.strip_prefix(theme)
            .is_some_and(|tail| tail.is_empty() || tail.starts_with('-'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_maps_to_its_theme_and_a_further_lesson_to_the_same_one() {
        let themes = ["t-0123456789", "t-abcdef0123"];
        assert_eq!(theme_of("f-t-0123456789", &themes), Some("t-0123456789"));
        assert_eq!(theme_of("f-t-abcdef0123-42", &themes), Some("t-abcdef0123"));
        assert_eq!(theme_of("f-t-01234567890", &themes), None);
        assert_eq!(theme_of("f-9f86d081", &themes), None);
    }
}
