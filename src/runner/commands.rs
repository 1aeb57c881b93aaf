//! The command job (behaviour §6): `/gitlore help`, unknown words, and `/gitlore refresh` from a
//! comment or from the check run's Refresh button.
//!
//! A reply carries a hidden marker with the command comment's id, so a retried job finds it
//! instead of posting twice; reactions are idempotent on GitHub's side.

use std::time::Duration;

use anyhow::Result;

use super::RepoJob;
use crate::domain::PrNumber;
use crate::domain::job::{Command, CommandJob, CommandSource};
use crate::domain::markers::reply_marker;
use crate::github::ops::comments::{Reaction, ReactionTarget};
use crate::render::wording;
use crate::store::{publications, repos};

impl RepoJob<'_> {
    pub(super) async fn command(&self, job: &CommandJob) -> Result<()> {
        let source = &job.source;
        match (&job.command, source) {
            (Command::Refresh, _) => self.refresh(source, &job.author).await,
            (Command::Help, CommandSource::Comment { .. }) => {
                self.reply(source, &wording::help_text()).await
            }
            (Command::Unknown(word), CommandSource::Comment { .. }) => {
                self.reply(source, &wording::unknown_command(word)).await
            }
            (other, CommandSource::CheckRun { .. }) => {
                tracing::warn!(repo = %self.repo, command = %other, "unknown action from the check run: ignored");
                Ok(())
            }
        }
    }

    /// `/gitlore refresh`: the permission and cooldown checks (a refusal is answered with one
    /// reply and nothing else), then 👀, the analysis with the issue and this pull request's
    /// check run, then 🚀.
    async fn refresh(&self, source: &CommandSource, author: &str) -> Result<()> {
        if !self.can_write(author).await? {
            tracing::info!(repo = %self.repo, author, "refresh refused: no write permission");
            return self.reply(source, &wording::refused_no_permission()).await;
        }
        if !self.take_refresh_slot()? {
            tracing::info!(repo = %self.repo, author, "refresh refused: cooldown");
            let minutes = self.cooldown_minutes_left()?;
            if let CommandSource::CheckRun { .. } = source
                && let Some((pr, sha)) = self.refreshed_head(source).await?
            {
                // The button gets no reply: its check run says why nothing happened.
                let config = self.repo_config().await?.config;
                let note = wording::cooldown_button(minutes);
                return self.publish_check_run(&config, pr, &sha, Some(&note)).await;
            }
            return self.reply(source, &wording::cooldown(minutes)).await;
        }
        self.react(source, Reaction::Eyes).await?;
        let resolved = self.analyse_and_publish(true).await?;
        if let Some((pr, sha)) = self.refreshed_head(source).await? {
            self.publish_check_run(&resolved.config, pr, &sha, None)
                .await?;
        }
        self.react(source, Reaction::Rocket).await
    }

    /// Takes the repository's refresh slot for this job; a retry of the job that took it keeps
    /// it (the store remembers which job did, across restarts).
    fn take_refresh_slot(&self) -> Result<bool> {
        let runner = self.runner;
        let now = runner.clock.now();
        let cooldown = runner.settings.refresh_cooldown;
        runner.store.write_derived(|tx| {
            publications::take_refresh_slot(tx, self.repo_id, self.job.id, now, cooldown)
        })
    }

    /// Whole minutes until the next refresh is allowed (at least 1).
    fn cooldown_minutes_left(&self) -> Result<u64> {
        let runner = self.runner;
        let last = publications::last_refresh_at(&runner.store.reader()?, self.repo_id)?;
        let left = last.map_or(Duration::ZERO, |at| {
            (at + runner.settings.refresh_cooldown).since(runner.clock.now())
        });
        Ok(left
            .as_millis()
            .div_ceil(60_000)
            .try_into()
            .unwrap_or(1)
            .max(1))
    }

    /// The pull request and head commit whose check run a refresh updates: the head of the
    /// commented pull request (stored, or asked of GitHub for one opened before the installation;
    /// none for an issue or a closed pull request), or the button's commit.
    async fn refreshed_head(&self, source: &CommandSource) -> Result<Option<(PrNumber, String)>> {
        match source {
            CommandSource::Comment { pr, .. } => {
                let stored =
                    repos::pull_request_head(&self.runner.store.reader()?, self.repo_id, *pr)?;
                if let Some(sha) = stored {
                    return Ok(Some((*pr, sha)));
                }
                let pull = match self.github.pull_request(*pr).await {
                    Err(error) if error.is_gone() => return Ok(None), // an issue
                    pull => pull?,
                };
                let store = &self.runner.store;
                store.write_derived(|tx| repos::upsert_pull_request(tx, self.repo_id, &pull))?;
                Ok(pull
                    .head_sha
                    .filter(|_| pull.state == "open")
                    .map(|sha| (*pr, sha)))
            }
            CommandSource::CheckRun { head_sha, prs, .. } => {
                Ok(prs.first().map(|pr| (*pr, head_sha.clone())))
            }
        }
    }

    /// Reacts to the command comment; a comment deleted meanwhile (404) is no reason to stop.
    async fn react(&self, source: &CommandSource, reaction: Reaction) -> Result<()> {
        let &CommandSource::Comment { comment_id, .. } = source else {
            return Ok(());
        };
        let on = ReactionTarget::IssueComment(comment_id);
        match self.github.create_reaction(on, reaction).await {
            Err(error) if error.is_gone() => {
                tracing::info!(repo = %self.repo, comment_id, "the command comment is gone: no reaction");
                Ok(())
            }
            other => Ok(other?),
        }
    }

    /// Replies once to the command comment; the Refresh button gets no reply.
    async fn reply(&self, source: &CommandSource, text: &str) -> Result<()> {
        let &CommandSource::Comment { comment_id, pr } = source else {
            return Ok(());
        };
        let marker = reply_marker(comment_id);
        let body = format!("{text}\n\n{marker}");
        self.github.create_issue_comment(pr, &body, &marker).await?;
        Ok(())
    }
}
