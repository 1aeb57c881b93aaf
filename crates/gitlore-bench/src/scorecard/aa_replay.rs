//! The A/A replay of the lesson-effect measurement (behaviour §3.4) on the corpus's real review
//! comments: each repository goes through the App's ingestion and analysis, each lesson gets a
//! "publication" date drawn at random (nothing is published, so nothing can have an effect), and
//! the measurement must say "no effect" or "too early" for nearly every repository.

use anyhow::Result;
use sha2::{Digest, Sha256};

use gitlore::analysis::effect::theme_of;
use gitlore::domain::effect::{EffectReport, Lesson, ReviewActivity, Verdict};
use gitlore::domain::findings::Finding;
use gitlore::knowledge::effect::measure;
use gitlore::knowledge::effect::simulate::Rng;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::effect::review_activity;
use gitlore_lab::corpus::Record;

use super::{Setup, analyse, ingest_records};

/// Repositories whose review comments are kept for an independent evaluation: never replayed.
pub const RESERVED: &[&str] = &[
    "django/django",
    "rust-lang/rust",
    "rust-lang/cargo",
    "tinygrad/tinygrad",
    "kubernetes/kubernetes",
];

/// The share of a repository's reviewed pull requests, by date, on either side of which a
/// random publication date is never drawn: each window keeps some reviews.
const EDGE_SHARE: f64 = 0.2;

/// What the replay of one repository measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    pub repo: String,
    /// The repository's verdict: the lessons against the unpublished themes; `None` without a
    /// lesson.
    pub verdict: Option<Verdict>,
    pub report: EffectReport,
}

/// One repository as the App analysed it: its review activity and active findings.
#[derive(Debug, Clone)]
pub struct Analysed {
    pub repo: String,
    activity: ReviewActivity,
    active: Vec<Finding>,
}

/// Runs `records` (one repository's) through the App's ingestion and analysis.
pub fn analyse_repo(records: &[&Record], rules: &NoiseRules) -> Result<Analysed> {
    let ingested = ingest_records(records, rules, None)?;
    let outcome = analyse(&ingested, records, rules, &Setup::default())?;
    Ok(Analysed {
        activity: review_activity(&ingested.store.reader()?, ingested.repo_id, 0)?,
        repo: ingested.name.clone(),
        active: outcome.listing.active,
    })
}

impl Analysed {
    /// One replay: publication dates drawn from `seed` and the repository's name, measured.
    pub fn replay(&self, seed: u64) -> Replayed {
        let mut rng = Rng::new(seed ^ name_seed(&self.repo));
        let lessons = random_lessons(&self.activity, &self.active, &mut rng);
        let report = measure(&self.activity, &lessons, None);
        Replayed {
            repo: self.repo.clone(),
            verdict: report.summary.as_ref().map(|s| s.relative.verdict),
            report,
        }
    }
}

/// Each active finding that stands for a theme, "published" on a date drawn uniformly between
/// the repository's reviewed pull requests at [`EDGE_SHARE`] and `1 - EDGE_SHARE` of their
/// order.
fn random_lessons(activity: &ReviewActivity, active: &[Finding], rng: &mut Rng) -> Vec<Lesson> {
    let mut dates: Vec<i64> = activity.pulls.iter().map(|p| p.first_review_at).collect();
    dates.sort_unstable();
    if dates.is_empty() {
        return Vec::new();
    }
    let at = |share: f64| dates[((dates.len() - 1) as f64 * share) as usize];
    let (first, last) = (at(EDGE_SHARE), at(1.0 - EDGE_SHARE));
    let span = u64::try_from(last - first).unwrap_or(0) + 1;
    let themes: Vec<&str> = activity
        .themes
        .iter()
        .map(|t| t.theme_id.as_str())
        .collect();
    active
        .iter()
        .filter_map(|finding| {
            let theme_id = theme_of(&finding.id, &themes)?;
            Some(Lesson {
                finding_id: finding.id.clone(),
                theme_id: theme_id.to_string(),
                files: finding.files.clone(),
                published_at: first + rng.below(span) as i64,
                held_back: false,
            })
        })
        .collect()
}

fn name_seed(name: &str) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(head)
}
