//! `/metrics`' lesson-effect figures (behaviour §3.5), from each repository's last run report:
//! lessons by verdict, lessons still repeated, and the pooled raises and pull requests of the
//! lessons and of the unpublished themes before and since publication.

use crate::domain::effect::{EffectReport, Window};
use crate::store::metrics::{Count, Metric};
use crate::store::run_reports::RunReport;

/// The metrics of `reports` (repository full name, last report).
pub fn effect_metrics(reports: &[(String, RunReport)]) -> Vec<Metric> {
    let measured: Vec<(&str, &EffectReport)> = reports
        .iter()
        .filter_map(|(repo, report)| Some((repo.as_str(), report.effect.as_ref()?)))
        .collect();
    let mut verdicts = Vec::new();
    let mut still = Vec::new();
    let mut raises = Vec::new();
    let mut pull_requests = Vec::new();
    for (repo, effect) in measured {
        let mut by_verdict: Vec<(&'static str, i64)> = Vec::new();
        for lesson in &effect.lessons {
            let verdict = lesson.ratio.verdict.as_str();
            match by_verdict.iter_mut().find(|(name, _)| *name == verdict) {
                Some((_, n)) => *n += 1,
                None => by_verdict.push((verdict, 1)),
            }
        }
        by_verdict.sort_unstable();
        verdicts.extend(by_verdict.into_iter().map(|(verdict, n)| Count {
            labels: vec![("repo", repo.to_string()), ("verdict", verdict.to_string())],
            value: n,
        }));
        still.push(Count {
            labels: vec![("repo", repo.to_string())],
            value: effect.lessons.iter().filter(|l| l.still_repeated).count() as i64,
        });
        let Some(summary) = &effect.summary else {
            continue;
        };
        let groups: [(&str, &str, Window); 4] = [
            ("lessons", "before", summary.before),
            ("lessons", "since", summary.since),
            ("unpublished", "before", summary.control_before),
            ("unpublished", "since", summary.control_since),
        ];
        for (group, window, figures) in groups {
            let labels = vec![
                ("repo", repo.to_string()),
                ("group", group.to_string()),
                ("window", window.to_string()),
            ];
            raises.push(Count {
                labels: labels.clone(),
                value: figures.raised as i64,
            });
            pull_requests.push(Count {
                labels,
                value: figures.pull_requests as i64,
            });
        }
    }
    vec![
        Metric {
            name: "gitlore_lessons_by_effect",
            help: "Published lessons by what their repeats say since publication (too_early, fewer, no_effect, more).",
            values: verdicts,
        },
        Metric {
            name: "gitlore_lessons_still_repeated",
            help: "Published lessons still raised at the same rate: to be reworded or dismissed.",
            values: still,
        },
        Metric {
            name: "gitlore_lesson_raises",
            help: "Pull requests raising a measured lesson (or an unpublished theme), pooled, before and since publication.",
            values: raises,
        },
        Metric {
            name: "gitlore_lesson_pull_requests",
            help: "Pull requests touching measured lessons' paths (for unpublished themes: reviewed ones), pooled, before and since publication.",
            values: pull_requests,
        },
    ]
}
