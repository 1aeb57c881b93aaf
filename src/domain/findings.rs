//! The finding (behaviour §3.3): the unit the team reads, backed by evidence that cites real sources.
//!
//! Synthesizers produce findings; the store keeps them (with their first-seen date and a
//! maintainer's dismissal) across runs; the renderers publish them.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use anyhow::{Error, bail};

use crate::domain::classification::Label;
use crate::domain::is_pr_author;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Convention,
    CodePattern,
    Architecture,
    Landmine,
    FragileArea,
    Tooling,
    Testing,
    /// What particular reviewers consistently care about, in aggregate.
    ReviewerFocus,
}

impl Category {
    /// Every category, in the order the findings issue lists them.
    pub const ALL: [Category; 8] = [
        Category::Landmine,
        Category::FragileArea,
        Category::Architecture,
        Category::CodePattern,
        Category::Convention,
        Category::Testing,
        Category::Tooling,
        Category::ReviewerFocus,
    ];

    /// The name used in XML, JSON, config and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Convention => "convention",
            Category::CodePattern => "code_pattern",
            Category::Architecture => "architecture",
            Category::Landmine => "landmine",
            Category::FragileArea => "fragile_area",
            Category::Tooling => "tooling",
            Category::Testing => "testing",
            Category::ReviewerFocus => "reviewer_focus",
        }
    }
}

/// How much a newcomer should care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    High,
    Medium,
    Low,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

/// What a piece of evidence cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvidenceKind {
    /// A stored review comment; `id` is its store id (`comments.id`) in decimal.
    Comment,
    /// A commit; `id` is its full sha.
    Commit,
    /// A file; `id` is its path at the analysed head.
    File,
    /// An analyzer figure; `id` names it (e.g. `hotspot:src/x.rs`), `text` states it.
    Stat,
}

impl EvidenceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Comment => "comment",
            EvidenceKind::Commit => "commit",
            EvidenceKind::File => "file",
            EvidenceKind::Stat => "stat",
        }
    }
}

/// One cited source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub id: String,
    /// A short human-readable statement of what it shows (an excerpt, a commit subject, a figure).
    pub text: String,
}

/// Where a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Active,
    /// A maintainer ticked its box; it stays dismissed across runs.
    Dismissed,
    /// Its files are gone or its evidence aged out of the window.
    Resolved,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Dismissed => "dismissed",
            Status::Resolved => "resolved",
        }
    }
}

/// A lesson, with the evidence behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Stable across runs: `f-` + the theme id it came from, or a hash of what a history-only
    /// finding is about.
    pub id: String,
    pub category: Category,
    pub severity: Severity,
    /// One line a senior engineer would write down for a newcomer.
    pub title: String,
    /// A few sentences: what, where, how often, why it matters.
    pub insight: String,
    pub evidence: Vec<Evidence>,
    /// Paths (at the analysed head) it applies to; directories end with `/`.
    pub files: Vec<String>,
    /// Unix seconds.
    pub first_seen: i64,
    /// Unix seconds.
    pub last_seen: i64,
    pub status: Status,
}

macro_rules! parse_from_names {
    ($type:ty, $all:expr, $what:literal) => {
        impl FromStr for $type {
            type Err = Error;
            fn from_str(name: &str) -> Result<Self, Error> {
                match $all.into_iter().find(|value| value.as_str() == name) {
                    Some(value) => Ok(value),
                    None => bail!(concat!("unknown ", $what, " `{}`"), name),
                }
            }
        }
        impl fmt::Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

parse_from_names!(Category, Category::ALL, "category");
parse_from_names!(
    Severity,
    [Severity::High, Severity::Medium, Severity::Low],
    "severity"
);
parse_from_names!(
    EvidenceKind,
    [
        EvidenceKind::Comment,
        EvidenceKind::Commit,
        EvidenceKind::File,
        EvidenceKind::Stat
    ],
    "evidence kind"
);
parse_from_names!(
    Status,
    [Status::Active, Status::Dismissed, Status::Resolved],
    "status"
);

/// What makes a finding stale (behaviour §3.3): its files are gone from the default branch's head, or
/// all its review evidence aged out of the window.
#[derive(Debug, Clone, Default)]
pub struct Staleness {
    /// Paths at the analysed head; `None` when no head is known (files are then not checked).
    pub files_at_head: Option<HashSet<String>>,
    /// Store ids of the comments inside the window.
    pub comments_in_window: HashSet<i64>,
}

impl Staleness {
    /// Why `finding` is stale, or `None` when it is not.
    pub fn reason(&self, finding: &Finding) -> Option<&'static str> {
        if let Some(head) = &self.files_at_head
            && !finding.files.is_empty()
            && !finding.files.iter().any(|file| exists_at(head, file))
        {
            return Some("its files no longer exist at the head");
        }
        let mut comments = finding
            .evidence
            .iter()
            .filter(|e| e.kind == EvidenceKind::Comment)
            .peekable();
        if comments.peek().is_some()
            && !comments.any(|e| {
                e.id.parse::<i64>()
                    .is_ok_and(|id| self.comments_in_window.contains(&id))
            })
        {
            return Some("its review evidence aged out of the window");
        }
        None
    }

    /// Keeps the findings that are not stale; what is dropped is resolved by the store's next
    /// `save_run`.
    pub fn retain_fresh(&self, findings: &mut Vec<Finding>) {
        findings.retain(|finding| self.reason(finding).is_none());
    }
}

/// A review comment as findings cite it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceComment {
    /// Store id (`comments.id`).
    pub id: i64,
    pub body: String,
    pub author: String,
    pub pr_number: i64,
    /// The login of who opened the pull request, when known.
    pub pr_author: Option<String>,
    /// The file, for inline comments.
    pub path: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Whether its review thread is resolved (inline comments only).
    pub resolved: bool,
    /// Its page on GitHub, when stored.
    pub url: Option<String>,
    /// The built-in classifier's labels, most confident first (empty when unclassified).
    pub labels: Vec<Label>,
    /// The diff it was written on, for inline comments.
    pub diff_hunk: Option<String>,
}

impl SourceComment {
    /// Whether the pull request's author wrote this comment (a reply to the review, not a
    /// reviewer's lesson).
    pub fn by_pr_author(&self) -> bool {
        is_pr_author(&self.author, self.pr_author.as_deref())
    }

    /// Whether it can back a lesson: a reviewer's comment (not the PR author's reply) with a
    /// label other than a question or praise.
    pub fn teaches(&self) -> bool {
        !self.by_pr_author() && self.labels.iter().any(|label| label.teaches())
    }
}

/// Whether `file` (a path, or a directory ending with `/`) exists among `head`'s paths.
pub fn exists_at(head: &HashSet<String>, file: &str) -> bool {
    if file.ends_with('/') {
        head.iter().any(|path| path.starts_with(file))
    } else {
        head.contains(file)
    }
}
