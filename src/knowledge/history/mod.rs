//! What git history says about a repository (SPEC §3.2): churn hotspots, co-change coupling,
//! revert chains, fix-after chains and commit conventions, read from a local mirror.
//!
//! These types are the analyzers' output, consumed by the synthesizers. Every type derives
//! `Default` so that callers (and tests) can build them with `..Default::default()`.

/// A file that changes often, weighted towards recent changes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hotspot {
    /// Path at the head of the analysed branch (renames followed).
    pub path: String,
    /// Commits that touched it.
    pub commits: usize,
    /// Commits weighted by exp decay with a 180-day half-life, as of the newest commit.
    pub score: f64,
    /// Commits among `commits` that are fixes.
    pub fix_commits: usize,
    /// `fix_commits / commits`.
    pub fix_ratio: f64,
    /// Unix seconds of its newest change.
    pub last_change: i64,
}

/// Two files that change together more often than chance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Coupling {
    /// The pair, `a < b`.
    pub a: String,
    pub b: String,
    /// Commits that changed both, each weighted (large commits weigh less).
    pub support: f64,
    /// The larger of P(b | a) and P(a | b).
    pub confidence: f64,
    /// Confidence over the base rate of the other file.
    pub lift: f64,
    /// Unweighted count of commits that changed both.
    pub commits: usize,
}

/// A revert, possibly of a revert.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Revert {
    /// The reverting commit.
    pub sha: String,
    /// The commit it reverts, when the message names it.
    pub reverted: Option<String>,
    pub subject: String,
    /// Unix seconds.
    pub at: i64,
    /// 1 for a revert, 2 for a revert of a revert, and so on.
    pub depth: usize,
    pub files: Vec<String>,
}

/// How sure a fix-after link is (SPEC §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum FixTier {
    /// Same author, within 30 minutes.
    #[default]
    SameAuthorQuick,
    /// Same author, within 4 hours, with fix words.
    SameAuthorFixWords,
    /// Any author, within 7 days, with a strong fix signal (`fixup!`, `squash!`, …).
    StrongSignal,
}

/// A fix that landed soon after a change to the same files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FixAfter {
    /// The change that needed fixing.
    pub change: String,
    /// The fix.
    pub fix: String,
    pub tier: FixTier,
    /// Files both touched.
    pub files: Vec<String>,
    /// Seconds between the two.
    pub gap_secs: i64,
}

/// The commit-message habits of the repository.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conventions {
    /// Commits examined (merges excluded).
    pub commits: usize,
    /// Share (0..=1) of subjects that follow Conventional Commits.
    pub conventional_share: f64,
    /// The most used Conventional Commits types with their counts, most used first.
    pub conventional_types: Vec<(String, usize)>,
    /// Share of subjects starting with a ticket reference (`ABC-123`, `#123`).
    pub ticket_prefix_share: f64,
    /// Share of subjects in the imperative mood.
    pub imperative_share: f64,
    /// Median subject length in characters.
    pub median_subject_len: usize,
    /// Share of subjects longer than 72 characters.
    pub long_subject_share: f64,
}

/// Everything the analyzers found in one repository's history.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HistoryReport {
    /// The analysed head commit, if the repository has one.
    pub head: Option<String>,
    /// Commits analysed.
    pub commits: usize,
    /// Unix seconds of the newest commit (the "now" of decay and windows).
    pub newest_commit_at: i64,
    /// Highest score first.
    pub hotspots: Vec<Hotspot>,
    /// Highest lift first.
    pub couplings: Vec<Coupling>,
    /// Newest first.
    pub reverts: Vec<Revert>,
    /// Newest fix first.
    pub fix_after: Vec<FixAfter>,
    pub conventions: Conventions,
    /// Paths that exist at `head`.
    pub files_at_head: Vec<String>,
}
