//! Backfill: reads a repository's merged and closed-unmerged pull requests of the window through
//! GraphQL
//! (`fetch`), converts them to the domain types the webhooks produce (`nodes`) and writes them
//! through the webhooks' own ingest path, so a comment seen both ways is one row.
//!
//! Resumable: each page's rows and the advanced cursor (`store::backfills`) commit in one
//! transaction, so after a crash the next run starts after the last committed page, with no gap
//! and no duplicate. A finished backfill is not redone unless forced.

mod fetch;
mod nodes;

use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use chrono::{DateTime, Months};

use crate::clock::Clock;
use crate::domain::{InstallationId, RepoId, RepoName, UnixMs};
use crate::events::{Event, Origin};
use crate::github::client::{As, GitHub};
use crate::ingest::{self, Applied, Memo};
use crate::knowledge::filter::NoiseRules;
use crate::store::Store;
use crate::store::backfills::{self, BackfillState, BackfillStatus};
use crate::store::repos::{self, RepoStatus};

pub use fetch::PULL_REQUESTS_PER_PAGE;
use fetch::{Fetcher, PullRequestPage};

/// What to backfill, as whom.
#[derive(Debug, Clone)]
pub struct BackfillRequest {
    pub repo: RepoName,
    /// Who the GraphQL requests are made as: an installation, or a personal token.
    pub who: As,
    /// How far back a fresh backfill reads (pull requests updated since); 0 for the whole
    /// history.
    pub window_months: u32,
    /// Start again from the newest page even when a backfill finished or is under way.
    pub force: bool,
}

/// How far a backfill has come.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Pull requests read and stored (since the backfill started, across resumptions).
    pub prs_done: i64,
    /// Comments written (since the backfill started, across resumptions).
    pub comments_written: i64,
    /// GraphQL requests made by this run.
    pub requests: u64,
    /// GitHub's GraphQL points left, when known.
    pub rate_limit_remaining: Option<i64>,
}

/// What a backfill run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The backfill had finished before and was not redone.
    pub already_done: bool,
    pub progress: Progress,
}

/// Runs backfills into a store. Cheap to clone.
#[derive(Clone)]
pub struct Backfiller {
    pub client: Arc<GitHub>,
    pub store: Arc<Store>,
    pub rules: Arc<NoiseRules>,
    pub clock: Arc<dyn Clock>,
}

impl Backfiller {
    /// Backfills `request.repo`, resuming a run that was interrupted, and reports progress after
    /// each committed page. A failure is recorded in the backfill's state and returned.
    pub async fn run(
        &self,
        request: &BackfillRequest,
        mut on_progress: impl FnMut(&Progress) + Send,
    ) -> Result<Summary> {
        let stored = self
            .blocking({
                let name = request.repo.to_string();
                move |store| backfills::find_by_name(&store.reader()?, &name)
            })
            .await?;
        let window_start = window_start(self.clock.now(), request.window_months)?;
        let mut state = match stored {
            // A finished backfill of a shorter window is read again over the longer one.
            Some(state)
                if state.status == BackfillStatus::Done
                    && !request.force
                    && state.window_start <= window_start =>
            {
                return Ok(Summary {
                    already_done: true,
                    progress: Progress {
                        prs_done: state.prs_done,
                        comments_written: state.comments_done,
                        ..Progress::default()
                    },
                });
            }
            Some(state) if state.status != BackfillStatus::Done && !request.force => {
                tracing::info!(repo = %request.repo, prs_done = state.prs_done, "resuming the backfill");
                state
            }
            _ => BackfillState {
                repo_id: RepoId(0),
                window_start,
                cursor: None,
                prs_done: 0,
                comments_done: 0,
                status: BackfillStatus::Running,
                last_error: None,
                updated_at: self.clock.now(),
            },
        };
        let mut fetcher = Fetcher::new(&self.client, request.who);
        let outcome = self
            .pages(request, &mut state, &mut fetcher, &mut on_progress)
            .await;
        let progress = progress(&state, &fetcher);
        match outcome {
            Ok(()) => Ok(Summary {
                already_done: false,
                progress,
            }),
            Err(error) => {
                if state.repo_id != RepoId(0) {
                    let (repo_id, message, now) =
                        (state.repo_id, format!("{error:#}"), self.clock.now());
                    let recorded = self
                        .blocking(move |store| {
                            store.write_derived(|tx| {
                                backfills::mark_failed(tx, repo_id, &message, now)
                            })
                        })
                        .await;
                    if let Err(record_error) = recorded {
                        tracing::warn!(%record_error, "cannot record the backfill's failure");
                    }
                }
                Err(error.context(format!("The backfill of {} failed", request.repo)))
            }
        }
    }

    /// Reads and commits pages until the window or the history ends.
    async fn pages(
        &self,
        request: &BackfillRequest,
        state: &mut BackfillState,
        fetcher: &mut Fetcher<'_>,
        on_progress: &mut (impl FnMut(&Progress) + Send),
    ) -> Result<()> {
        let installation_id = match request.who {
            As::Installation(id) => Some(id),
            As::App | As::Token | As::Nobody => None,
        };
        loop {
            let page = fetcher
                .page(&request.repo, state.cursor.as_deref(), state.window_start)
                .await?;
            let more = page.more;
            let mut next = state.clone();
            next.repo_id = page.repo.id;
            next.cursor = page.end_cursor.clone().or(next.cursor);
            next.prs_done += page.pull_requests.len() as i64;
            next.status = if more {
                BackfillStatus::Running
            } else {
                BackfillStatus::Done
            };
            next.last_error = None;
            next.updated_at = self.clock.now();
            let rules = self.rules.clone();
            *state = self
                .blocking(move |store| write_page(&store, &rules, installation_id, page, next))
                .await?;
            let progress = progress(state, fetcher);
            tracing::info!(
                repo = %request.repo,
                prs_done = progress.prs_done,
                comments_written = progress.comments_written,
                requests = progress.requests,
                rate_limit_remaining = progress.rate_limit_remaining,
                "backfill page committed"
            );
            on_progress(&progress);
            if !more {
                return Ok(());
            }
        }
    }

    /// Runs store work off the async threads.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(Arc<Store>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || work(store))
            .await
            .map_err(|e| anyhow!("the backfill's store task stopped: {e}"))?
    }
}

fn progress(state: &BackfillState, fetcher: &Fetcher<'_>) -> Progress {
    Progress {
        prs_done: state.prs_done,
        comments_written: state.comments_done,
        requests: fetcher.requests,
        rate_limit_remaining: fetcher.rate_limit_remaining,
    }
}

/// Unix seconds `months` before `now`; 0 (the whole history) when `months` is 0.
fn window_start(now: UnixMs, months: u32) -> Result<i64> {
    if months == 0 {
        return Ok(0);
    }
    DateTime::from_timestamp_millis(now.0)
        .and_then(|now| now.checked_sub_months(Months::new(months)))
        .map(|start| start.timestamp())
        .ok_or_else(|| anyhow!("a window of {months} months is out of range"))
}

/// Writes one page's pull requests, comments and thread resolutions through the ingest path,
/// and the advanced state, in one transaction. Returns the state as committed.
fn write_page(
    store: &Store,
    rules: &NoiseRules,
    installation_id: Option<InstallationId>,
    page: PullRequestPage,
    mut state: BackfillState,
) -> Result<BackfillState> {
    let origin = Origin {
        installation_id,
        repo: page.repo,
    };
    store.write_derived(|tx| {
        let tx: &crate::store::Connection = tx;
        let (uninstalled, status) = repos::origin_status(tx, installation_id, origin.repo.id)?;
        if uninstalled || status == RepoStatus::Removed {
            bail!(
                "{} was uninstalled or removed from gitlore during the backfill",
                origin.repo.name
            );
        }
        repos::upsert_repo(tx, &origin.repo, installation_id, false)?;
        let now = state.updated_at;
        let mut memo = Memo::default();
        let mut apply = |event: Event| -> Result<bool> {
            let applied = ingest::apply_backfilled(tx, rules, &event, now, &mut memo)?;
            Ok(matches!(applied, Applied::Done(_)))
        };
        let mut written = 0i64;
        for history in page.pull_requests {
            let pr = history.pr;
            apply(Event::PullRequestChanged {
                origin: origin.clone(),
                pr: pr.clone(),
                wants_check_run: false,
            })?;
            let comments = history
                .threads
                .iter()
                .flat_map(|thread| &thread.comments)
                .chain(&history.reviews)
                .chain(&history.conversation);
            for comment in comments {
                let event = Event::CommentUpserted {
                    origin: origin.clone(),
                    pr: pr.clone(),
                    comment: comment.clone(),
                    is_edit: false,
                    previous_body: None,
                };
                written += i64::from(apply(event)?);
            }
            for thread in &history.threads {
                let Some(first) = thread.comments.first() else {
                    continue;
                };
                apply(Event::ThreadResolution {
                    origin: origin.clone(),
                    pr: pr.clone(),
                    root_id: first.in_reply_to.unwrap_or(first.github_id),
                    node_id: Some(thread.node_id.clone()),
                    resolved: thread.resolved,
                })?;
            }
        }
        state.comments_done += written;
        backfills::save(tx, &state)?;
        Ok(state)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_starts_calendar_months_back() {
        // 2024-03-31T00:00:00Z minus one month is 2024-02-29 (clamped to the month's end).
        let start = window_start(UnixMs(1_711_843_200_000), 1).unwrap();
        assert_eq!(start, 1_709_164_800);
    }
}
