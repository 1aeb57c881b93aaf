//! What a repository's page shows, read from the store in one read snapshot: the findings, the
//! active themes with some of their comments, the history figures and strongest couplings, and
//! the last run's report.

use std::collections::HashMap;

use anyhow::Result;

use crate::domain::history::Coupling;
use crate::store::findings::{self, Listing};
use crate::store::pages::{self, CitedComment, HistoryFigures, RepoEntry, ThemeComment};
use crate::store::run_reports::{self, RunReport};
use crate::store::themes::{self, StoredTheme};
use crate::store::{Store, publications};

/// Comments shown per theme.
const COMMENTS_PER_THEME: usize = 5;
/// Couplings shown.
const COUPLINGS_SHOWN: usize = 10;

/// A theme with the comments shown for it.
pub struct ThemeView {
    pub theme: StoredTheme,
    pub comments: Vec<ThemeComment>,
}

/// Everything a repository's page shows.
pub struct RepoView {
    pub repo: RepoEntry,
    pub findings: Listing,
    pub themes: Vec<ThemeView>,
    pub history: HistoryFigures,
    pub couplings: Vec<Coupling>,
    /// Of the last analysis, when there was one.
    pub report: Option<RunReport>,
    /// Where each cited review comment was written, by store id.
    pub cited: HashMap<i64, CitedComment>,
    /// The findings issue's number, once published.
    pub issue_number: Option<i64>,
}

/// Reads `repo`'s page from the store.
pub fn load(store: &Store, repo: RepoEntry) -> Result<RepoView> {
    let conn = store.reader()?;
    let tx = conn.snapshot()?;
    let findings = findings::load(&tx, repo.id)?;
    let mut comments = pages::theme_comments(&tx, repo.id, COMMENTS_PER_THEME)?;
    let mut themes: Vec<ThemeView> = themes::load_themes(&tx, repo.id)?
        .into_iter()
        .filter(|theme| theme.active)
        .map(|theme| ThemeView {
            comments: comments.remove(&theme.id).unwrap_or_default(),
            theme,
        })
        .collect();
    themes.sort_by_key(|view| std::cmp::Reverse(view.theme.members.len()));
    let report = run_reports::load(&tx, repo.id)?;
    let findings = published(findings, report.as_ref());
    let cited: Vec<i64> = findings
        .active
        .iter()
        .flat_map(|finding| &finding.evidence)
        .filter_map(|evidence| evidence.id.parse::<i64>().ok())
        .collect();
    let mut couplings = publications::couplings(&tx, repo.id)?;
    couplings.truncate(COUPLINGS_SHOWN);
    Ok(RepoView {
        cited: pages::cited_comments(&tx, repo.id, &cited)?,
        history: pages::history_figures(&tx, repo.id)?,
        report,
        issue_number: publications::findings_issue(&tx, repo.id)?.map(|issue| issue.number),
        findings,
        themes,
        couplings,
        repo,
    })
}

/// `findings` without the active ones the last analysis held back (behaviour §3.4).
fn published(mut findings: Listing, report: Option<&RunReport>) -> Listing {
    if let Some(report) = report {
        findings.active.retain(|finding| report.shows(&finding.id));
    }
    findings
}
