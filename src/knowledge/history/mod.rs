//! What git history says about a repository: churn hotspots, co-change coupling, revert chains,
//! fix-after chains and commit conventions, read from a local mirror.
//!
//! The analysed line is the head's first-parent history: the commits that landed on the branch,
//! a merge counted as the whole change it brought (against its first parent) and titled by its
//! pull request. Commits of merged branches are not analysed, so every commit a figure cites is
//! on the branch as its readers see it in `git log --first-parent`.
//!
//! These types are the analyzers' output, consumed by the synthesizers. Every type derives
//! `Default` so that callers (and tests) can build them with `..Default::default()`.
//!
//! [`analyze`] computes the report from commits; `analysis::history` runs it incrementally over
//! the commits the store keeps.

pub mod conventions;
pub mod coupling;
pub mod file_kind;
pub mod fix_after;
mod git;
pub mod hotspots;
pub mod log;
pub mod mirror;
pub mod renames;
pub mod reverts;
pub mod words;

use std::collections::{HashMap, HashSet};

use crate::domain::history::{Commit, Coupling};

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

/// How sure a fix-after link is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum FixTier {
    /// Same author, within 30 minutes, the later commit not a pull request of its own.
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
    /// Commits examined (merges without a title of their own excluded).
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
    /// Commits read from git by this run; the others came from the store.
    pub commits_read: usize,
    /// Commits whose renames could not be detected (a blob they need is missing).
    pub commits_without_renames: usize,
    /// Unix seconds of the newest commit (the "now" of decay and windows).
    pub newest_commit_at: i64,
    /// Highest score first.
    pub hotspots: Vec<Hotspot>,
    /// Strongest first: weighted support times confidence.
    pub couplings: Vec<Coupling>,
    /// Newest first.
    pub reverts: Vec<Revert>,
    /// Newest fix first.
    pub fix_after: Vec<FixAfter>,
    pub conventions: Conventions,
    /// Paths that exist at `head`.
    pub files_at_head: Vec<String>,
}

/// The commits with what the analyzers share: current paths and the head's files.
pub struct Prepared<'a> {
    /// Oldest first.
    pub commits: &'a [Commit],
    /// The index of each commit by its sha.
    pub by_sha: HashMap<&'a str, usize>,
    /// Per commit, the paths it touched under their names at the head (renames followed).
    pub paths: Vec<Vec<String>>,
    /// Paths at the head; `None` when unknown (then every path counts as existing).
    pub at_head: Option<HashSet<String>>,
    /// Unix seconds of the newest commit (committer time).
    pub newest_commit_at: i64,
}

impl Prepared<'_> {
    /// Whether the path exists at the head (a deleted file is no hotspot and couples nothing).
    pub fn exists(&self, path: &str) -> bool {
        self.at_head
            .as_ref()
            .is_none_or(|files| files.contains(path))
    }

    /// The index of the analysed commit that `sha` (full or abbreviated) names, if any.
    pub fn index_of(&self, sha: &str) -> Option<usize> {
        self.by_sha.get(sha).copied().or_else(|| {
            let mut named = self
                .commits
                .iter()
                .enumerate()
                .filter(|(_, c)| c.sha.starts_with(sha));
            match (named.next(), named.next()) {
                (Some((index, _)), None) => Some(index),
                _ => None,
            }
        })
    }
}

/// Runs every analyzer over `commits` (oldest first).
pub fn analyze(
    commits: &[Commit],
    head: Option<String>,
    files_at_head: Vec<String>,
) -> HistoryReport {
    let prepared = Prepared {
        commits,
        by_sha: commits
            .iter()
            .enumerate()
            .map(|(index, commit)| (commit.sha.as_str(), index))
            .collect(),
        paths: renames::current_paths(commits),
        at_head: head
            .is_some()
            .then(|| files_at_head.iter().cloned().collect()),
        newest_commit_at: commits.iter().map(|c| c.committer_time).max().unwrap_or(0),
    };
    // Two threads: the analyzers are independent, and a cold run waits on them.
    let ((hotspots, couplings, conventions), (reverts, fix_after)) = std::thread::scope(|scope| {
        let chains = scope.spawn(|| (reverts::reverts(&prepared), fix_after::fix_after(&prepared)));
        let files = (
            hotspots::hotspots(&prepared),
            coupling::couplings(&prepared),
            conventions::conventions(&prepared),
        );
        (files, joined(chains.join()))
    });
    HistoryReport {
        head,
        commits: commits.len(),
        commits_read: 0,
        commits_without_renames: commits.iter().filter(|c| !c.complete).count(),
        newest_commit_at: prepared.newest_commit_at,
        hotspots,
        couplings,
        reverts,
        fix_after,
        conventions,
        files_at_head,
    }
}

/// A scoped thread's result; its panic goes on in the caller.
pub fn joined<T>(result: std::thread::Result<T>) -> T {
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
