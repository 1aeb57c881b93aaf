//! Whether a lesson helps (behaviour §3.5): for each published lesson, how often reviewers still
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
/// is as long (at most [`MAX_BEFORE_SECS`]) and ends at publication.
pub fn windows(published_at: i64, as_of: i64) -> (Span, Span) {
    let since = Span {
        start: published_at,
        end: (as_of + 1).max(published_at),
    };
    let length = (since.end - since.start).min(MAX_BEFORE_SECS);
    let before = Span {
        start: published_at - length,
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
    let (before_span, since_span) = windows(lesson.published_at, activity.as_of);
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
