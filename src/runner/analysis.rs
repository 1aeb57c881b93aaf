//! The backfill and analysis jobs: read the history, analyse, publish the findings issue.

use anyhow::Result;

use super::{RepoJob, fetch_config};
use crate::analysis::theme_run::Models;
use crate::analysis::{self, Request};
use crate::domain::job::{Analysis, AnalysisReason, Job, analysis_key};
use crate::github::backfill::{BackfillRequest, Backfiller};
use crate::publish::{self, IssueContext, issue};
use crate::render::issue::render_issue;
use crate::render::wording;
use crate::repo_config::{CONFIG_PATH, ConfigProblem, Resolved};
use crate::store::jobs;
use crate::store::run_reports;

impl RepoJob<'_> {
    /// Reads the repository's history of the window its repo config sets (read first) through
    /// GraphQL, then queues its analysis.
    pub(super) async fn backfill(&self) -> Result<()> {
        let runner = self.runner;
        let window_months = self.repo_config().await?.config.analysis.window_months;
        let backfiller = Backfiller {
            client: runner.github.clone(),
            store: runner.store.clone(),
            rules: runner.rules.clone(),
            clock: runner.clock.clone(),
        };
        let request = BackfillRequest {
            repo: self.repo.clone(),
            who: self.github.who(),
            window_months,
            force: false,
        };
        let repo = &self.repo;
        let outcome = backfiller
            .run(&request, |progress| {
                tracing::info!(%repo, prs = progress.prs_done, comments = progress.comments_written, "backfill page stored");
            })
            .await;
        let summary = match outcome {
            Ok(summary) => summary,
            Err(error) => {
                // While the backfill waits for its retry, the issue shows what was read so far
                // and how far it got.
                if let Err(publish_error) = self.analyse_and_publish(false).await {
                    tracing::warn!(%repo, error = %format!("{publish_error:#}"), "cannot publish the backfill's progress");
                }
                return Err(error);
            }
        };
        tracing::info!(%repo, prs = summary.progress.prs_done, already_done = summary.already_done, "backfill finished");
        let now = runner.clock.now();
        runner.store.write_derived(|tx| {
            let job = Job::Analysis(Analysis {
                reason: AnalysisReason::Backfill,
            });
            jobs::enqueue_again(tx, self.repo_id, &job, now)?;
            // One the scheduler queued meanwhile may be waiting out its jitter.
            jobs::hasten(tx, &analysis_key(self.repo_id), now)
        })
    }

    /// The scheduled analysis, or the one after a backfill: that one also gives the pull
    /// requests open at the installation their check runs.
    pub(super) async fn analysis(&self, job: &Analysis) -> Result<()> {
        let resolved = self.analyse_and_publish(false).await?;
        if job.reason == AnalysisReason::Backfill {
            self.check_open_pull_requests(&resolved.config).await?;
        }
        Ok(())
    }

    /// Reads the repo config, analyses, and publishes the findings issue when the config wants
    /// it. `verify` checks an unchanged issue still exists (a refresh). Returns the config read.
    pub(super) async fn analyse_and_publish(&self, verify: bool) -> Result<Resolved> {
        let runner = self.runner;
        let resolved = self.repo_config().await?;
        let config = &resolved.config;
        let history = self.history().await;
        let now = runner.clock.now();
        let request = Request {
            repo_id: self.repo_id,
            repo: self.repo.as_str(),
            config,
            history: &history.report,
            repo_path: history.mirror.as_deref(),
            now,
            window_end: now.as_secs(),
            models: Models {
                llm: runner.models.llm.as_ref(),
                embedder: runner.models.embedder.as_ref(),
            },
            rules: &runner.rules,
        };
        let mut outcome = analysis::run(&runner.store, &request).await?;
        if history.failure.is_some() {
            outcome.notes.push(wording::HISTORY_UNAVAILABLE.to_string());
        }
        let report = publish::run_report(
            &outcome,
            config,
            &resolved.problems,
            history.report.head.as_deref(),
            now.as_secs(),
        );
        runner
            .store
            .write_derived(|tx| run_reports::save(tx, self.repo_id, &report))?;
        if config.publish.issue {
            let context = IssueContext {
                repo: &self.repo,
                window_months: config.analysis.window_months,
                problems: &resolved.problems,
                head: history.report.head.as_deref(),
                backfill: publish::backfill_progress(&runner.store, self.repo_id, &self.repo)?,
                links: Some(&runner.links),
                now: now.as_secs(),
                notes: Vec::new(),
            };
            let body = render_issue(&publish::issue_view(&outcome, &context));
            let target = issue::Target {
                github: &self.github,
                store: &runner.store,
                repo_id: self.repo_id,
                settings: &config.issue,
                now,
            };
            let published = issue::publish(&target, &body, verify).await?;
            tracing::info!(repo = %self.repo, findings = outcome.listing.active.len(), ?published, "analysis published");
        }
        Ok(resolved)
    }

    /// The repo config. GitHub failing to answer for now (a network error, a 5xx, a rate limit)
    /// or refusing gitlore's credentials (401) is an error, so the job runs again later instead
    /// of publishing the defaults for one run;
    /// anything else wrong with the config means the defaults for what could not be used (a bad
    /// key), or the last analysis' configuration for a file unusable as a whole (refused, not
    /// UTF-8, too large, not TOML), and the issue says why. Every problem is logged,
    /// since the issue may be turned off.
    pub(super) async fn repo_config(&self) -> Result<Resolved> {
        let resolved = match fetch_config::fetch(&self.github).await {
            Ok(resolved) => resolved,
            Err(error) if error.is_transient() || error.is_unauthorized() => {
                let error = anyhow::Error::new(error);
                return Err(error.context(format!("Cannot read the repo config of {}", self.repo)));
            }
            Err(error) => Resolved {
                config: Default::default(),
                problems: vec![ConfigProblem {
                    source: format!("{}:{CONFIG_PATH}", self.repo),
                    line: None,
                    reason: format!("could not be read ({error:#})"),
                }],
                repo_file_unused: true,
            },
        };
        let last_good = run_reports::load(&self.runner.store.reader()?, self.repo_id)?
            .and_then(|report| report.config);
        let resolved = match last_good {
            Some(last_good) => resolved.with_last_good(last_good),
            None => resolved,
        };
        for problem in &resolved.problems {
            tracing::warn!(repo = %self.repo, %problem, "repo config problem: using the defaults for what could not be used");
        }
        Ok(resolved)
    }
}
