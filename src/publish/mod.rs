//! What gitlore publishes on GitHub (behaviour §5): the findings issue (`issue`) and the check run of
//! a pull request's head commit (`check_run`). This module builds what they show from an
//! analysis and the store: the issue's view (summary figures, links, notices) and the link style.

pub mod check_run;
pub mod issue;

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;

use crate::analysis::Outcome;
use crate::domain::findings::SourceComment;
use crate::domain::github_web::web_url;
use crate::domain::job::JobKind;
use crate::domain::{RepoId, RepoName};
use crate::render::addresses::withhold_addresses;
use crate::render::issue::{BackfillProgress, IssueView, Summary};
use crate::render::links::LinkStyle;
use crate::render::wording::ReviewWindow;
use crate::repo_config::{ConfigProblem, RepoConfig};
use crate::store::backfills::{self, BackfillStatus};
use crate::store::jobs;
use crate::store::run_reports::RunReport;
use crate::store::{Store, publications};

/// GitHub's own redirector, which records no "mentioned this" event for the pages it links.
const GITHUB_REDIRECT: &str = "https://redirect.github.com";
/// The API host of github.com.
const GITHUB_API: &str = "https://api.github.com";

/// How links are written for the GitHub at `api_url`: github.com goes through
/// `redirect.github.com`; another host (GitHub Enterprise Server) has its web host derived from
/// the API URL and no redirector unless `redirect` names one.
pub fn link_style(api_url: &str, redirect: Option<&str>) -> LinkStyle {
    let api = api_url.trim_end_matches('/');
    let default_redirect = (api == GITHUB_API).then_some(GITHUB_REDIRECT);
    LinkStyle {
        web_base: web_url(api),
        redirect_base: redirect.or(default_redirect).map(str::to_string),
    }
}

/// The web page of a repository, e.g. `https://github.com/acme/widgets`.
pub fn repo_web_url(links: &LinkStyle, repo: &RepoName) -> String {
    format!("{}/{repo}", links.web_base.trim_end_matches('/'))
}

/// Where a commit's sha is appended to link it.
pub fn commit_link_base(links: &LinkStyle, repo: &RepoName) -> String {
    format!("{}/commit/", repo_web_url(links, repo))
}

/// The web page of the repository's findings issue, when one is published.
pub fn findings_issue_url(
    store: &Store,
    links: &LinkStyle,
    repo_id: RepoId,
    repo: &RepoName,
) -> Result<Option<String>> {
    let known = publications::findings_issue(&store.reader()?, repo_id)?;
    Ok(known.map(|issue| format!("{}/issues/{}", repo_web_url(links, repo), issue.number)))
}

/// The web URL of each comment that has one, by store id.
pub fn comment_links(
    comments: &std::collections::BTreeMap<i64, SourceComment>,
) -> HashMap<i64, String> {
    comments
        .iter()
        .filter_map(|(id, comment)| comment.url.clone().map(|url| (*id, url)))
        .collect()
}

/// How far the repository's backfill has read, while it has not finished (or has not stored
/// its first page yet).
pub fn backfill_progress(
    store: &Store,
    repo_id: RepoId,
    repo: &RepoName,
) -> Result<Option<BackfillProgress>> {
    let reader = store.reader()?;
    let read = match backfills::find_by_name(&reader, repo.as_str())? {
        Some(state) if state.status == BackfillStatus::Done => return Ok(None),
        Some(state) => usize::try_from(state.prs_done).unwrap_or(0),
        None if jobs::has_pending(&reader, JobKind::Backfill, repo_id)? => 0,
        None => return Ok(None),
    };
    Ok(Some(BackfillProgress {
        pull_requests_read: read,
        pull_requests_total: None,
    }))
}

/// What the findings issue is built from, besides the analysis.
pub struct IssueContext<'a> {
    pub repo: &'a RepoName,
    /// The review window's length (the repo config's `analysis.window-months`).
    pub window_months: u32,
    pub problems: &'a [ConfigProblem],
    /// The analysed head commit of the default branch, if any.
    pub head: Option<&'a str>,
    pub backfill: Option<BackfillProgress>,
    /// How links are written; `None` for a repository with no known web page (`gitlore
    /// analyze` of a clone without a GitHub remote): commits are then not linked.
    pub links: Option<&'a LinkStyle>,
    /// Unix seconds of this update.
    pub now: i64,
    /// Notes shown after the analysis's own.
    pub notes: Vec<String>,
}

/// The findings issue's view of an analysis: what the bot publishes and what `gitlore analyze`
/// prints.
pub fn issue_view(outcome: &Outcome, context: &IssueContext<'_>) -> IssueView {
    let comments = outcome.comments.values();
    let reviewers: BTreeSet<&str> = comments.clone().map(|c| c.author.as_str()).collect();
    let pull_requests: BTreeSet<i64> = comments.map(|c| c.pr_number).collect();
    IssueView {
        repo: context.repo.clone(),
        findings: outcome.listing.active.clone(),
        resolved: outcome.listing.resolved.clone(),
        new_ids: outcome.new_ids.clone(),
        summary: Summary {
            comments: outcome.comments.len(),
            reviewers: reviewers.len(),
            pull_requests: pull_requests.len(),
            window: ReviewWindow {
                months: context.window_months,
                start: outcome.window.start,
                left_out: outcome.window.left_out,
            },
            updated_at: context.now,
            head: context.head.map(str::to_string),
        },
        comment_links: comment_links(&outcome.comments),
        commit_link_base: context
            .links
            .map(|links| commit_link_base(links, context.repo))
            .unwrap_or_default(),
        config_problems: context.problems.to_vec(),
        backfill: context.backfill,
        notes: outcome
            .notes
            .iter()
            .chain(&context.notes)
            .cloned()
            .collect(),
        links: context
            .links
            .map_or_else(LinkStyle::github_com, Clone::clone),
        dashboard_url: None,
        effect: outcome.effect.report.clone(),
    }
}

/// The report of an analysis the repository's web page shows: its figures, the repo config's
/// problems and the analysis' notes (their addresses withheld: the page may be public).
pub fn run_report(
    outcome: &Outcome,
    config: &RepoConfig,
    problems: &[ConfigProblem],
    head: Option<&str>,
    now: i64,
) -> RunReport {
    let comments = outcome.comments.values();
    let reviewers: BTreeSet<&str> = comments.clone().map(|c| c.author.as_str()).collect();
    let pull_requests: BTreeSet<i64> = comments.map(|c| c.pr_number).collect();
    RunReport {
        run_at: now,
        comments: outcome.comments.len(),
        reviewers: reviewers.len(),
        pull_requests: pull_requests.len(),
        window_months: config.analysis.window_months,
        head: head.map(str::to_string),
        config_problems: problems.iter().map(ToString::to_string).collect(),
        notes: outcome
            .notes
            .iter()
            .map(|note| withhold_addresses(note))
            .collect(),
        config: Some(config.clone()),
        model_labels: outcome.themes.model_labels.clone(),
        effect: Some(outcome.effect.report.clone()),
        held_back: outcome.effect.held_back.iter().cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_com_links_go_through_the_redirector() {
        let style = link_style("https://api.github.com/", None);
        assert_eq!(style, LinkStyle::github_com());
    }

    #[test]
    fn an_enterprise_host_keeps_its_links_unless_a_redirector_is_configured() {
        let style = link_style("https://ghe.example.com/api/v3", None);
        assert_eq!(style.web_base, "https://ghe.example.com");
        assert_eq!(style.redirect_base, None);
        let style = link_style(
            "https://ghe.example.com/api/v3",
            Some("https://redirect.example.com"),
        );
        assert_eq!(
            style.redirect_base.as_deref(),
            Some("https://redirect.example.com")
        );
    }
}
