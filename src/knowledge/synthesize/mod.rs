//! Synthesis (behaviour §3.3): themes, review comments and git history turned into findings, by the
//! built-in synthesizer (default, offline, deterministic) or the LLM agent, behind one interface.
//!
//! Whichever runs, its findings go through the same final pass: the evidence rule (at least two
//! review comments from distinct PRs, or one review comment and a git signal), the categories the
//! repository shows, and text that mentions nobody (`@login` loses its `@`). The LLM synthesizer
//! falls back to the built-in one on any failure and says why in the notes.

pub mod answer;
pub mod builtin;
pub mod check;
pub mod figures;
pub mod llm;
pub mod title;
pub mod tools;
pub mod validate;
pub mod wording;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::domain::findings::SourceComment;
use crate::domain::findings::{Category, Evidence, EvidenceKind, Finding};
use crate::domain::themes::ThemeRun;
use crate::knowledge::history::HistoryReport;

pub use llm::{Limits, LlmSynthesizer};

/// What a synthesis may use besides its inputs.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Unix seconds: the start of the review window (0 for everything).
    pub window_start: i64,
    /// Unix seconds: the run's time (first seen of new findings, "how recent").
    pub now: i64,
    /// Logins that opted out of reviewer-focus findings (case-insensitive).
    pub reviewer_opt_out: Vec<String>,
    /// Categories to show; empty means all.
    pub categories: Vec<Category>,
    /// The title cuts switched off (`[analysis] title-cuts-off`).
    pub title_cuts: title::CutSwitches,
}

/// Everything a synthesizer reads.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// `owner/name`.
    pub repo: &'a str,
    pub themes: &'a ThemeRun,
    /// The comments of the window, by store id (every theme member and singleton among them).
    pub comments: &'a BTreeMap<i64, SourceComment>,
    pub history: &'a HistoryReport,
    /// A local clone or mirror for the LLM's git tools and evidence checks; `None` without one.
    pub repo_path: Option<&'a Path>,
    pub settings: &'a Settings,
}

/// What a synthesis produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Synthesis {
    /// Ordered by category (as [`Category::ALL`]), severity, id.
    pub findings: Vec<Finding>,
    /// What fell back and why (empty when nothing did).
    pub notes: Vec<String>,
}

/// One of the two synthesizers.
pub enum Synthesizer<'a> {
    BuiltIn,
    Llm(LlmSynthesizer<'a>),
}

impl Synthesizer<'_> {
    /// Synthesizes the findings of `input`. Never fails: the LLM's failures fall back to the
    /// built-in result, reported in the notes.
    pub async fn run(&self, input: &Input<'_>) -> Synthesis {
        match self {
            Synthesizer::BuiltIn => builtin::synthesize(input),
            Synthesizer::Llm(agent) => agent.synthesize(input).await,
        }
    }
}

/// Whether `finding` has the evidence behaviour §3.3 asks for: review comments (that exist in
/// `comments`) from at least two distinct PRs, or one review comment and a git signal (a commit
/// or an analyzer figure).
pub fn meets_evidence_rule(finding: &Finding, comments: &BTreeMap<i64, SourceComment>) -> bool {
    let prs: HashSet<i64> = finding
        .evidence
        .iter()
        .filter(|e| e.kind == EvidenceKind::Comment)
        .filter_map(|e| comments.get(&e.id.parse::<i64>().ok()?))
        .filter(|c| !c.by_pr_author())
        .map(|c| c.pr_number)
        .collect();
    let git_signal = finding
        .evidence
        .iter()
        .any(|e| matches!(e.kind, EvidenceKind::Commit | EvidenceKind::Stat));
    prs.len() >= 2 || (prs.len() == 1 && git_signal)
}

/// The final pass every synthesis goes through: the evidence rule, the categories shown, quiet
/// text, one finding per id, and a stable order.
pub fn finalize(findings: Vec<Finding>, input: &Input<'_>) -> Vec<Finding> {
    let shown = &input.settings.categories;
    let mut seen = HashSet::new();
    let mut out: Vec<Finding> = findings
        .into_iter()
        .filter(|f| shown.is_empty() || shown.contains(&f.category))
        .map(|mut f| {
            f.evidence = citable(f.evidence, input.comments);
            f
        })
        .filter(|f| meets_evidence_rule(f, input.comments))
        .filter(|f| seen.insert(f.id.clone()))
        .map(|mut f| {
            f.title = wording::quiet(&f.title);
            f.insight = wording::quiet(&f.insight);
            for evidence in &mut f.evidence {
                evidence.text = wording::quiet(&evidence.text);
            }
            f
        })
        .collect();
    out.sort_by_key(|f| {
        let category = Category::ALL.iter().position(|c| *c == f.category);
        (category, f.severity, f.id.clone())
    });
    out
}

/// The evidence without repeats and without comments that cannot back a lesson: unknown ids
/// (not in the window, or noise) and the PR author's own replies.
pub(super) fn citable(
    evidence: Vec<Evidence>,
    comments: &BTreeMap<i64, SourceComment>,
) -> Vec<Evidence> {
    let mut seen = HashSet::new();
    evidence
        .into_iter()
        .filter(|e| seen.insert((e.kind, e.id.clone())))
        .filter(|e| {
            e.kind != EvidenceKind::Comment
                || e.id
                    .parse::<i64>()
                    .ok()
                    .and_then(|id| comments.get(&id))
                    .is_some_and(|c| !c.by_pr_author())
        })
        .collect()
}

/// A stable id for a finding that is about `subject` rather than a theme: `f-` + 10 hex digits
/// of its sha256.
pub fn subject_id(subject: &str) -> String {
    let digest = hex::encode(Sha256::digest(subject.as_bytes()));
    format!("f-{}", &digest[..10])
}

/// The id of the finding a theme gives: `f-` + the theme id.
pub fn theme_finding_id(theme_id: &str) -> String {
    format!("f-{theme_id}")
}
