//! Whether a lesson helps (behaviour §3.4): what the measurement reads — reviewed pull requests,
//! when each theme was raised, when each lesson was published — and what it reports per lesson
//! and per repository. The statistics are `knowledge::effect`'s; the store reads the data.

use serde::{Deserialize, Serialize};

/// Pull requests touching a lesson's paths each window (before and since publication) needs
/// before its figures say anything: below it, "too early to tell". Ten keeps one busy week from
/// deciding a lesson's fate.
pub const MIN_PULL_REQUESTS: u64 = 10;

/// A pull request as the measurement sees it: when it was first reviewed and the files its
/// inline review comments are on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewedPull {
    pub number: i64,
    /// Unix seconds of its first stored review comment (noise included).
    pub first_review_at: i64,
    /// Paths of its inline comments (noise included), each once.
    pub paths: Vec<String>,
}

/// When a theme's members were written: each raise is a pull request and the date of the
/// theme's first comment in it (one long discussion is one raise, not several).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeRaises {
    pub theme_id: String,
    /// `(pull request, unix seconds)`, one per pull request, oldest first.
    pub raises: Vec<(i64, i64)>,
}

/// Everything the store holds that the measurement reads, for one repository.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReviewActivity {
    /// Unix seconds of the newest stored review comment that is not noise: where "since" ends,
    /// so that the figures change only when the reviews do.
    pub as_of: i64,
    /// Unix seconds of the analysis window's start: themes hold no older comment, so no window
    /// starts before it.
    pub themes_from: i64,
    pub pulls: Vec<ReviewedPull>,
    /// The active themes' raises.
    pub themes: Vec<ThemeRaises>,
}

/// A published lesson to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lesson {
    pub finding_id: String,
    pub theme_id: String,
    /// The finding's paths; directories end with `/`.
    pub files: Vec<String>,
    /// Unix seconds it was first shown in the findings issue.
    pub published_at: i64,
    /// Whether the hold-back kept it out of the issue for its first weeks.
    pub held_back: bool,
}

/// Raises and reviewed pull requests in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Window {
    /// Whole days it spans.
    pub days: i64,
    /// Pull requests in which the theme was raised.
    pub raised: u64,
    /// Pull requests touching the lesson's paths (for a control group: every reviewed one).
    pub pull_requests: u64,
}

impl Window {
    /// Raises per 100 pull requests; `None` without pull requests.
    pub fn per_hundred(&self) -> Option<f64> {
        (self.pull_requests > 0).then(|| 100.0 * self.raised as f64 / self.pull_requests as f64)
    }
}

/// What a ratio of "since" to "before" says, at 90 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Fewer pull requests since than [`MIN_PULL_REQUESTS`] in either window.
    TooEarly,
    /// The interval lies below 1.
    Fewer,
    /// The interval holds 1: no effect shown.
    NoEffect,
    /// The interval lies above 1.
    More,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::TooEarly => "too_early",
            Verdict::Fewer => "fewer",
            Verdict::NoEffect => "no_effect",
            Verdict::More => "more",
        }
    }
}

/// A ratio of rates with its 90 % interval and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// `None` when the "before" rate is zero.
    pub estimate: Option<f64>,
    pub low: f64,
    /// `None`: unbounded.
    pub high: Option<f64>,
    pub verdict: Verdict,
}

/// One lesson's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LessonEffect {
    pub finding_id: String,
    /// Unix seconds it was first published.
    pub published_at: i64,
    /// The window before publication, as long as the one since, at most a year.
    pub before: Window,
    pub since: Window,
    /// The rate since over the rate before.
    pub ratio: Ratio,
    /// The unpublished recurring themes in the same windows (every reviewed pull request).
    pub control_before: Window,
    pub control_since: Window,
    /// Raised at the same rate as before, and still raised: to be reworded or dismissed.
    pub still_repeated: bool,
    /// What the line "touching …" names: the lesson's directories.
    pub scope: Vec<String>,
    pub held_back: bool,
}

/// A repository's figures: the lessons pooled against the unpublished themes, and the hold-back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectSummary {
    /// Lessons measured (not too early).
    pub lessons: usize,
    /// Lessons too early to tell.
    pub too_early: usize,
    /// Pooled over the measured lessons.
    pub before: Window,
    pub since: Window,
    /// The unpublished themes in the same windows, pooled.
    pub control_before: Window,
    pub control_since: Window,
    /// The lessons' ratio over the control's (difference in differences).
    pub relative: Ratio,
    /// Published over held-back lessons, in their first weeks; `None` without a hold-back.
    pub holdback: Option<HoldBackComparison>,
}

/// The randomised comparison: raises in the hold-back weeks of lessons shown at once and of
/// lessons held back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoldBackComparison {
    pub published: Window,
    pub held_back: Window,
    /// Published over held back.
    pub ratio: Ratio,
}

/// The measurement of one repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct EffectReport {
    pub lessons: Vec<LessonEffect>,
    /// `None` when there is no lesson to measure.
    pub summary: Option<EffectSummary>,
}

impl EffectReport {
    /// The figures of finding `id`, if it is measured.
    pub fn of(&self, id: &str) -> Option<&LessonEffect> {
        self.lessons.iter().find(|lesson| lesson.finding_id == id)
    }
}
