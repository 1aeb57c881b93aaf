//! `/metrics`' lesson-effect figures (behaviour §3.4), summed over every repository's last run
//! report and naming none: lessons by verdict, lessons still repeated, and the pooled raises and
//! pull requests of the measured lessons and of the unpublished themes, before and since.

use crate::domain::effect::{EffectReport, Verdict, Window};
use crate::store::metrics::{Count, Metric};
use crate::store::run_reports::RunReport;

const VERDICTS: [Verdict; 4] = [
    Verdict::TooEarly,
    Verdict::Fewer,
    Verdict::NoEffect,
    Verdict::More,
];

/// The metrics of the repositories' last run reports.
pub fn effect_metrics(reports: &[RunReport]) -> Vec<Metric> {
    let effects: Vec<&EffectReport> = reports.iter().filter_map(|r| r.effect.as_ref()).collect();
    let lessons = || effects.iter().flat_map(|effect| &effect.lessons);
    let verdicts = VERDICTS
        .iter()
        .map(|verdict| Count {
            labels: vec![("verdict", verdict.as_str().to_string())],
            value: lessons().filter(|l| l.ratio.verdict == *verdict).count() as i64,
        })
        .collect();
    let still = lessons().filter(|l| l.still_repeated).count() as i64;
    let mut pooled = [Window::default(); 4];
    for summary in effects.iter().filter_map(|effect| effect.summary.as_ref()) {
        let windows = [
            summary.before,
            summary.since,
            summary.control_before,
            summary.control_since,
        ];
        for (sum, window) in pooled.iter_mut().zip(windows) {
            sum.raised += window.raised;
            sum.pull_requests += window.pull_requests;
        }
    }
    let names = [
        ("lessons", "before"),
        ("lessons", "since"),
        ("unpublished", "before"),
        ("unpublished", "since"),
    ];
    let count = |value: fn(&Window) -> u64| {
        names
            .iter()
            .zip(&pooled)
            .map(|((group, window), sum)| Count {
                labels: vec![("group", group.to_string()), ("window", window.to_string())],
                value: value(sum) as i64,
            })
            .collect()
    };
    vec![
        Metric {
            name: "gitlore_lessons_by_effect",
            help: "Published lessons by what their repeats say since publication.",
            values: verdicts,
        },
        Metric {
            name: "gitlore_lessons_still_repeated",
            help: "Published lessons still raised at the same rate: to be reworded or dismissed.",
            values: vec![Count {
                labels: Vec::new(),
                value: still,
            }],
        },
        Metric {
            name: "gitlore_lesson_raises",
            help: "Pull requests raising a measured lesson or an unpublished theme, before and since publication.",
            values: count(|w| w.raised),
        },
        Metric {
            name: "gitlore_lesson_pull_requests",
            help: "Pull requests touching measured lessons' paths (unpublished themes: every reviewed one), before and since publication.",
            values: count(|w| w.pull_requests),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::effect::{EffectReport, LessonEffect, Ratio};

    #[test]
    fn lessons_are_counted_by_verdict_over_every_repository() {
        let lesson = |verdict, still_repeated| LessonEffect {
            finding_id: "f-t-1".into(),
            published_at: 0,
            before: Window::default(),
            since: Window::default(),
            ratio: Ratio {
                estimate: None,
                low: 0.0,
                high: None,
                verdict,
            },
            control_before: Window::default(),
            control_since: Window::default(),
            still_repeated,
            scope: Vec::new(),
            held_back: false,
        };
        let report = |lessons| RunReport {
            effect: Some(EffectReport {
                lessons,
                summary: None,
            }),
            ..RunReport::default()
        };
        let reports = [
            report(vec![
                lesson(Verdict::Fewer, false),
                lesson(Verdict::NoEffect, true),
            ]),
            report(vec![lesson(Verdict::Fewer, false)]),
        ];
        let text = crate::store::metrics::prometheus_text(&effect_metrics(&reports));
        assert!(
            text.contains("gitlore_lessons_by_effect{verdict=\"fewer\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("gitlore_lessons_by_effect{verdict=\"more\"} 0\n"),
            "{text}"
        );
        assert!(
            text.contains("gitlore_lessons_still_repeated{} 1\n"),
            "{text}"
        );
        assert!(!text.contains("repo"), "no repository named: {text}");
    }
}
