//! Checks the LLM's proposed findings against what exists: every cited comment must be in the
//! input's comment set, every commit in the repository (`git cat-file -e`), every file at the
//! analysed head, every figure among the analyzers' figures. What cites nothing real is dropped;
//! evidence texts come from the sources, never from the model.

use std::collections::{BTreeMap, HashSet};

use super::answer::Proposed;
use super::tools::{commit_subject, resolve_commit};
use super::wording::{cut, excerpt};
use super::{Input, figures, subject_id, theme_finding_id};
use crate::domain::findings::{
    Category, Evidence, EvidenceKind, Finding, Severity, Status, exists_at,
};

/// Characters kept of a model's title and insight.
const TITLE_CHARS: usize = 140;
const INSIGHT_CHARS: usize = 1500;

/// The proposed findings that cite something real, as findings; and why each other one was
/// dropped.
pub fn validate(proposed: Vec<Proposed>, input: &Input<'_>) -> (Vec<Finding>, Vec<String>) {
    let checker = Checker::new(input);
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for finding in proposed {
        match checker.check(finding) {
            Ok(finding) => kept.push(finding),
            Err(reason) => dropped.push(reason),
        }
    }
    (kept, dropped)
}

struct Checker<'a> {
    input: &'a Input<'a>,
    figures: BTreeMap<String, String>,
    /// Paths at head, when a head is known.
    head: Option<HashSet<String>>,
}

impl<'a> Checker<'a> {
    fn new(input: &'a Input<'a>) -> Checker<'a> {
        let head = input
            .history
            .head
            .as_ref()
            .map(|_| input.history.files_at_head.iter().cloned().collect());
        Checker {
            input,
            figures: figures::all(input.history),
            head,
        }
    }

    fn check(&self, proposed: Proposed) -> Result<Finding, String> {
        let name = if proposed.title.is_empty() {
            format!("`{}`", proposed.id)
        } else {
            format!("“{}”", cut(&proposed.title, 60))
        };
        let category: Category = proposed
            .category
            .parse()
            .map_err(|_| format!("the model's finding {name} has an unknown category"))?;
        if proposed.title.is_empty() {
            return Err(format!("the model's finding {name} has no title"));
        }
        let severity: Severity = proposed.severity.parse().unwrap_or(Severity::Medium);
        let evidence: Vec<Evidence> = proposed
            .refs
            .iter()
            .filter_map(|(kind, id)| self.evidence(kind, id))
            .collect();
        if evidence.is_empty() {
            return Err(format!(
                "the model's finding {name} was dropped: it cites nothing that exists"
            ));
        }
        let files: Vec<String> = proposed
            .files
            .iter()
            .filter(|file| self.file_exists(file))
            .cloned()
            .collect();
        let theme = self
            .input
            .themes
            .themes
            .iter()
            .find(|t| theme_finding_id(&t.id) == proposed.id);
        let id = match theme {
            Some(theme) => theme_finding_id(&theme.id),
            None if files.is_empty() => {
                subject_id(&format!("llm:{category}:{}", proposed.title.to_lowercase()))
            }
            None => {
                let mut sorted = files.clone();
                sorted.sort();
                subject_id(&format!("llm:{category}:{}", sorted.join("|")))
            }
        };
        let now = self.input.settings.now;
        Ok(Finding {
            id,
            category,
            severity,
            title: cut(&one_line(&proposed.title), TITLE_CHARS),
            insight: cut(&proposed.insight, INSIGHT_CHARS),
            evidence,
            files,
            first_seen: theme.map_or(now, |t| t.first_seen),
            last_seen: now,
            status: Status::Active,
        })
    }

    /// The evidence a `<ref>` cites, when it exists, with its text from the source.
    fn evidence(&self, kind: &str, id: &str) -> Option<Evidence> {
        let kind: EvidenceKind = kind.parse().ok()?;
        let id = id.trim();
        let (id, text) = match kind {
            EvidenceKind::Comment => {
                let comment = self.input.comments.get(&id.parse::<i64>().ok()?)?;
                (
                    comment.id.to_string(),
                    format!("PR #{}: {}", comment.pr_number, excerpt(&comment.body)),
                )
            }
            EvidenceKind::Commit => {
                let repo = self.input.repo_path?;
                let sha = resolve_commit(repo, id)?;
                let subject = commit_subject(repo, &sha).unwrap_or_default();
                (sha, subject)
            }
            EvidenceKind::File => {
                if !self.head.as_ref().is_some_and(|head| exists_at(head, id)) {
                    return None;
                }
                (id.to_string(), id.to_string())
            }
            EvidenceKind::Stat => (id.to_string(), self.figures.get(id)?.clone()),
        };
        Some(Evidence { kind, id, text })
    }

    /// Whether a finding may list `file`: it exists at head, or (without a known head) a cited
    /// comment of the input is on it.
    fn file_exists(&self, file: &str) -> bool {
        match &self.head {
            Some(head) => exists_at(head, file),
            None => self.input.comments.values().any(|c| {
                c.path
                    .as_deref()
                    .is_some_and(|p| p == file || (file.ends_with('/') && p.starts_with(file)))
            }),
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
