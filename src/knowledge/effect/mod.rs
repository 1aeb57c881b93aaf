//! Whether a lesson helps (behaviour §3.4): for each published lesson, how often reviewers still
//! raise its theme per pull request touching its paths, before publication and since, against
//! the recurring themes that were not published. Pure: it reads [`ReviewActivity`] and costs no
//! model tokens.

pub mod holdback;
pub mod ratio;
pub mod simulate;

use std::collections::HashSet;

use crate::domain::effect::{
    EffectReport, EffectSummary, HoldBackComparison, Lesson, LessonEffect, MIN_PULL_REQUESTS,
    ReviewActivity, ReviewedPull, ThemeRaises, Verdict, Window,
};
use ratio::{rate_ratio, ratio_of_ratios};

/// The longest "before" window: a year, in seconds.
pub const MAX_BEFORE_SECS: i64 = 365 * DAY_SECS;
/// Raises since publication, at an unchanged rate, that flag a lesson as still repeated.
pub const STILL_REPEATED_RAISES: u64 = 2;
const DAY_SECS: i64 = 86_400;

/// A span of unix seconds, start included, end excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: i64,
    pub end: i64,
}

impl Span {
    fn contains(&self, at: i64) -> bool {
        self.start <= at && at < self.end
    }

    fn days(&self) -> i64 {
        (self.end - self.start) / DAY_SECS
    }
}

/// The windows of a lesson published at `published_at`: since runs to just after `as_of`, before
/// is as long (at most [`MAX_BEFORE_SECS`]) and ends at publication, but starts no earlier than
/// `themes_from`, before which themes hold no comments (the rates are per pull request, so the
/// windows need not be equally long).
pub fn windows(published_at: i64, as_of: i64, themes_from: i64) -> (Span, Span) {
    let since = Span {
        start: published_at,
        end: (as_of + 1).max(published_at),
    };
    let length = (since.end - since.start).min(MAX_BEFORE_SECS);
    let before = Span {
        start: (published_at - length).max(themes_from).min(published_at),
        end: published_at,
    };
    (before, since)
}

/// What a lesson is about, as pull requests touch it: the directory of each of its files (a
/// file at the root stands for itself), each once. Empty: the whole repository.
pub fn scope(files: &[String]) -> Vec<String> {
    let mut scope: Vec<String> = Vec::new();
    for file in files {
        let entry = if file.ends_with('/') {
            file.clone()
        } else {
            match file.rfind('/') {
                Some(at) => file[..=at].to_string(),
                None => file.clone(),
            }
        };
        if !scope.contains(&entry) {
            scope.push(entry);
        }
    }
    scope
}

/// Whether `pull` touches `scope` (any pull request when the scope is empty).
fn touches(pull: &ReviewedPull, scope: &[String]) -> bool {
    scope.is_empty()
        || pull.paths.iter().any(|path| {
            scope
                .iter()
                .any(|entry| path == entry || (entry.ends_with('/') && path.starts_with(entry)))
        })
}

/// Raises of `themes` and pull requests touching `scope` within `span`.
fn count(
    activity: &ReviewActivity,
    themes: &[&ThemeRaises],
    scope: &[String],
    span: Span,
) -> Window {
    let raised: HashSet<(usize, i64)> = themes
        .iter()
        .enumerate()
        .flat_map(|(index, theme)| {
            theme
                .raises
                .iter()
                .filter(|(_, at)| span.contains(*at))
                .map(move |(pull, _)| (index, *pull))
        })
        .collect();
    let pull_requests = activity
        .pulls
        .iter()
        .filter(|pull| span.contains(pull.first_review_at) && touches(pull, scope))
        .count();
    Window {
        days: span.days(),
        raised: raised.len() as u64,
        pull_requests: pull_requests as u64,
    }
}

/// The figures of `lessons` against the active themes no lesson stands for; `holdback_secs`: the
/// hold-back's delay when the repository has one.
pub fn measure(
    activity: &ReviewActivity,
    lessons: &[Lesson],
    holdback_secs: Option<i64>,
) -> EffectReport {
    let published: HashSet<&str> = lessons.iter().map(|l| l.theme_id.as_str()).collect();
    let control: Vec<&ThemeRaises> = activity
        .themes
        .iter()
        .filter(|theme| !published.contains(theme.theme_id.as_str()))
        .collect();
    let effects: Vec<LessonEffect> = lessons
        .iter()
        .filter_map(|lesson| {
            let theme = activity
                .themes
                .iter()
                .find(|theme| theme.theme_id == lesson.theme_id)?;
            Some(lesson_effect(activity, lesson, theme, &control))
        })
        .collect();
    let holdback = holdback_secs.map(|delay| holdback_comparison(activity, lessons, delay));
    EffectReport {
        summary: summary(&effects, holdback),
        lessons: effects,
    }
}

fn lesson_effect(
    activity: &ReviewActivity,
    lesson: &Lesson,
    theme: &ThemeRaises,
    control: &[&ThemeRaises],
) -> LessonEffect {
    let scope = scope(&lesson.files);
    let (before_span, since_span) =
        windows(lesson.published_at, activity.as_of, activity.themes_from);
    let before = count(activity, &[theme], &scope, before_span);
    let since = count(activity, &[theme], &scope, since_span);
    let ratio = rate_ratio(since, before, MIN_PULL_REQUESTS);
    LessonEffect {
        finding_id: lesson.finding_id.clone(),
        published_at: lesson.published_at,
        before,
        since,
        still_repeated: ratio.verdict == Verdict::NoEffect && since.raised >= STILL_REPEATED_RAISES,
        ratio,
        control_before: count(activity, control, &[], before_span),
        control_since: count(activity, control, &[], since_span),
        scope,
        held_back: lesson.held_back,
    }
}

/// Sums of windows.
fn add(a: Window, b: Window) -> Window {
    Window {
        days: a.days.max(b.days),
        raised: a.raised + b.raised,
        pull_requests: a.pull_requests + b.pull_requests,
    }
}

/// The measured lessons pooled, divided by the control pooled over the same windows. The
/// control's counts are summed once per lesson over overlapping windows, so their variance is
/// taken as that of their mean.
fn summary(
    effects: &[LessonEffect],
    holdback: Option<HoldBackComparison>,
) -> Option<EffectSummary> {
    if effects.is_empty() {
        return None;
    }
    let measured: Vec<&LessonEffect> = effects
        .iter()
        .filter(|e| e.ratio.verdict != Verdict::TooEarly)
        .collect();
    let pooled = |pick: fn(&LessonEffect) -> Window| {
        measured
            .iter()
            .map(|e| pick(e))
            .fold(Window::default(), add)
    };
    let (before, since) = (pooled(|e| e.before), pooled(|e| e.since));
    let (control_before, control_since) =
        (pooled(|e| e.control_before), pooled(|e| e.control_since));
    let relative = ratio_of_ratios(
        (since, before),
        (control_since, control_before),
        measured.len().max(1) as f64,
        !measured.is_empty(),
    );
    Some(EffectSummary {
        lessons: measured.len(),
        too_early: effects.len() - measured.len(),
        before,
        since,
        control_before,
        control_since,
        relative,
        holdback,
    })
}

/// Raises in the first `delay` seconds after each lesson was first seen, lessons shown at once
/// against lessons held back; only lessons whose hold-back weeks are over count.
fn holdback_comparison(
    activity: &ReviewActivity,
    lessons: &[Lesson],
    delay: i64,
) -> HoldBackComparison {
    let mut published = Window::default();
    let mut held_back = Window::default();
    for lesson in lessons {
        let first_seen = if lesson.held_back {
            lesson.published_at - delay
        } else {
            lesson.published_at
        };
        let span = Span {
            start: first_seen,
            end: first_seen + delay,
        };
        let Some(theme) = activity
            .themes
            .iter()
            .find(|t| t.theme_id == lesson.theme_id)
        else {
            continue;
        };
        if span.end > activity.as_of {
            continue;
        }
        let window = count(activity, &[theme], &scope(&lesson.files), span);
        let group = if lesson.held_back {
            &mut held_back
        } else {
            &mut published
        };
        *group = add(*group, window);
    }
    HoldBackComparison {
        ratio: rate_ratio(published, held_back, MIN_PULL_REQUESTS),
        published,
        held_back,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUBLISHED: i64 = 1_000 * DAY_SECS;

    /// A pull request a day on `src/store/` from 40 days before publication to 39 after, and one
    /// on `docs/` each day; the themes raised in the given ones; the newest review 39 days after.
    fn activity(raised_in: &[i64], control_in: &[i64]) -> ReviewActivity {
        let mut pulls = Vec::new();
        for day in -40..40 {
            let at = PUBLISHED + day * DAY_SECS;
            pulls.push(ReviewedPull {
                number: 2 * (day + 100),
                first_review_at: at,
                paths: vec!["src/store/orders.rs".into()],
            });
            pulls.push(ReviewedPull {
                number: 2 * (day + 100) + 1,
                first_review_at: at,
                paths: vec!["docs/guide.md".into()],
            });
        }
        let raises = |numbers: &[i64]| {
            numbers
                .iter()
                .map(|n| (*n, pulls_at(*n)))
                .collect::<Vec<_>>()
        };
        ReviewActivity {
            as_of: PUBLISHED + 39 * DAY_SECS,
            themes_from: 0,
            themes: vec![
                ThemeRaises {
                    theme_id: "t-lesson".into(),
                    raises: raises(raised_in),
                },
                ThemeRaises {
                    theme_id: "t-other".into(),
                    raises: raises(control_in),
                },
            ],
            pulls,
        }
    }

    fn pulls_at(number: i64) -> i64 {
        PUBLISHED + (number / 2 - 100) * DAY_SECS
    }

    fn lesson() -> Lesson {
        Lesson {
            finding_id: "f-t-lesson".into(),
            theme_id: "t-lesson".into(),
            files: vec!["src/store/orders.rs".into()],
            published_at: PUBLISHED,
            held_back: false,
        }
    }

    /// Pull requests on `src/store/` `days` after publication (negative: before).
    fn store_pulls(days: impl Iterator<Item = i64>) -> Vec<i64> {
        days.map(|day| 2 * (day + 100)).collect()
    }

    #[test]
    fn a_lesson_raised_often_before_and_rarely_since_is_fewer() {
        let raised = [store_pulls(-40..-20), store_pulls(0..2)].concat();
        let report = measure(&activity(&raised, &[]), &[lesson()], None);
        let effect = report.of("f-t-lesson").unwrap();
        assert_eq!(effect.scope, vec!["src/store/"]);
        // Since runs 39 days and a second to the newest review; before is as long, so the
        // pull request 40 days before publication is outside it.
        assert_eq!((effect.before.raised, effect.since.raised), (19, 2));
        assert_eq!(
            (effect.before.pull_requests, effect.since.pull_requests),
            (39, 40)
        );
        assert_eq!((effect.before.days, effect.since.days), (39, 39));
        assert_eq!(effect.ratio.verdict, Verdict::Fewer);
        assert!(!effect.still_repeated);
    }

    #[test]
    fn a_lesson_raised_as_often_since_is_flagged_as_still_repeated() {
        let raised = [store_pulls(-10..-5), store_pulls(5..10)].concat();
        let report = measure(&activity(&raised, &[]), &[lesson()], None);
        let effect = report.of("f-t-lesson").unwrap();
        assert_eq!(effect.ratio.verdict, Verdict::NoEffect);
        assert!(effect.still_repeated);
    }

    #[test]
    fn the_same_drop_in_the_unpublished_themes_is_no_effect_of_the_lessons() {
        let raised = [store_pulls(-40..-20), store_pulls(0..2)].concat();
        let control = [store_pulls(-40..-10), store_pulls(0..3)].concat();
        let report = measure(&activity(&raised, &control), &[lesson()], None);
        let summary = report.summary.unwrap();
        assert_eq!(summary.lessons, 1);
        assert_eq!(
            (summary.control_before.raised, summary.control_since.raised),
            (29, 3)
        );
        assert_eq!(summary.relative.verdict, Verdict::NoEffect);
    }

    #[test]
    fn a_lesson_published_a_few_days_ago_is_too_early() {
        let mut data = activity(&store_pulls(-40..-20), &[]);
        data.as_of = PUBLISHED + 3 * DAY_SECS;
        let report = measure(&data, &[lesson()], None);
        assert_eq!(
            report.of("f-t-lesson").unwrap().ratio.verdict,
            Verdict::TooEarly
        );
        assert_eq!(report.summary.unwrap().too_early, 1);
    }

    #[test]
    fn the_holdback_compares_the_first_weeks_of_both_groups() {
        let raised = [store_pulls(-40..-20), store_pulls(0..2)].concat();
        let data = activity(&raised, &store_pulls(0..20));
        let held = Lesson {
            finding_id: "f-t-other".into(),
            theme_id: "t-other".into(),
            published_at: PUBLISHED + 20 * DAY_SECS,
            held_back: true,
            ..lesson()
        };
        let report = measure(&data, &[lesson(), held], Some(20 * DAY_SECS));
        let holdback = report.summary.unwrap().holdback.unwrap();
        assert_eq!(
            (holdback.published.raised, holdback.held_back.raised),
            (2, 20)
        );
        assert_eq!(holdback.ratio.verdict, Verdict::Fewer);
    }

    #[test]
    fn before_starts_no_earlier_than_the_themes_comments() {
        let raised = [store_pulls(-40..-20), store_pulls(0..2)].concat();
        let mut data = activity(&raised, &[]);
        data.themes_from = PUBLISHED - 30 * DAY_SECS;
        let effect = measure(&data, &[lesson()], None).lessons.remove(0);
        assert_eq!((effect.before.days, effect.before.pull_requests), (30, 30));
        assert_eq!(effect.before.raised, 10);
    }

    #[test]
    fn scope_is_each_files_directory_and_a_root_file_itself() {
        let files = ["src/a.rs", "src/b.rs", "docs/", "Makefile"].map(String::from);
        assert_eq!(scope(&files), vec!["src/", "docs/", "Makefile"]);
    }
}
