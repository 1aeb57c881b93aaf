//! The check-run job: the findings that apply to a pull request's head commit.

use anyhow::Result;

use super::RepoJob;
use crate::analysis::window_start;
use crate::domain::PrNumber;
use crate::domain::classification::LlmVerdicts;
use crate::domain::job::CheckRun;
use crate::publish::check_run::{self, CheckRunInput, CheckRunOutcome};
use crate::publish::{self, commit_link_base};
use crate::render::check_run::PastComment;
use crate::repo_config::RepoConfig;
use crate::store::{comments, findings, repos, run_reports};

/// Most pull requests open at the installation that get a check run, the newest first.
pub const OPEN_PULLS_CHECKED: usize = 30;

impl RepoJob<'_> {
    /// The pull requests open now (the newest [`OPEN_PULLS_CHECKED`]) get the check run of their
    /// head commit: those opened before the installation never had one. A head that has one
    /// keeps it (updated if need be, never a second).
    pub(super) async fn check_open_pull_requests(&self, config: &RepoConfig) -> Result<()> {
        if !config.publish.check_run {
            return Ok(());
        }
        let open = self.github.open_pull_requests(OPEN_PULLS_CHECKED).await?;
        for pr in &open {
            let store = &self.runner.store;
            store.write_derived(|tx| repos::upsert_pull_request(tx, self.repo_id, pr))?;
            if let Some(sha) = &pr.head_sha {
                self.publish_check_run(config, pr.number, sha, None).await?;
            }
        }
        tracing::info!(repo = %self.repo, open = open.len(), "open pull requests checked");
        Ok(())
    }

    /// A pull request was opened, pushed to or reopened: its head commit gets a check run,
    /// unless a newer commit has replaced it since.
    pub(super) async fn check_run(&self, job: &CheckRun) -> Result<()> {
        let (pr, sha) = (job.pr, job.head_sha.as_str());
        let stored = repos::pull_request_head(&self.runner.store.reader()?, self.repo_id, pr)?;
        if stored.as_deref().is_some_and(|head| head != sha) {
            tracing::info!(repo = %self.repo, %pr, sha, "not the pull request's head any more: no check run");
            return Ok(());
        }
        let resolved = self.repo_config().await?;
        self.publish_check_run(&resolved.config, pr, sha, None)
            .await
    }

    /// Publishes the check run of `sha` (the head of pull request `pr`) when the config wants it,
    /// with `note` above its summary.
    pub(super) async fn publish_check_run(
        &self,
        config: &RepoConfig,
        pr: PrNumber,
        sha: &str,
        note: Option<&str>,
    ) -> Result<()> {
        if !config.publish.check_run {
            return Ok(());
        }
        let runner = self.runner;
        let store = &runner.store;
        let (listing, past, sources) = {
            let reader = store.reader()?;
            let since = window_start(runner.now_secs(), config.analysis.window_months);
            let mut listing = findings::load(&reader, self.repo_id)?;
            if let Some(report) = run_reports::load(&reader, self.repo_id)? {
                listing.active.retain(|finding| report.shows(&finding.id));
            }
            (
                listing,
                comments::inline_comments(&reader, self.repo_id)?,
                findings::load_source_comments(&reader, self.repo_id, since, LlmVerdicts::Latest)?,
            )
        };
        let past: Vec<PastComment> = past
            .into_iter()
            .map(|c| PastComment {
                path: c.path,
                line: c.line,
                excerpt: c.body,
            })
            .collect();
        let issue_url =
            publish::findings_issue_url(store, &runner.links, self.repo_id, &self.repo)?;
        let web_page = runner
            .settings
            .public_url
            .as_deref()
            .map(|base| format!("{}/repos/{}", base.trim_end_matches('/'), self.repo));
        let input = CheckRunInput {
            pr_number: pr,
            head_sha: sha,
            findings: &listing.active,
            past_comments: &past,
            comment_links: &publish::comment_links(&sources),
            commit_link_base: &commit_link_base(&runner.links, &self.repo),
            issue_url: issue_url.as_deref(),
            links: &runner.links,
            details_url: web_page.as_deref(),
            note,
        };
        let outcome = check_run::publish(
            &self.github,
            store,
            self.repo_id,
            &input,
            runner.clock.now(),
        )
        .await?;
        if let CheckRunOutcome::Published { id, applicable } = outcome {
            tracing::info!(repo = %self.repo, %pr, sha, check_run = id, applicable, "check run published");
        }
        Ok(())
    }
}
