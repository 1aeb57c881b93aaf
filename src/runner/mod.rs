//! The job runner: a few workers claim queued jobs (`store::jobs`) with a lease, run them by kind
//! and complete them. A failed job is retried later with backoff (30 s × 4^(n−1)) and fails for
//! good after 5 attempts, its error kept. Every handler is idempotent (publishing compares with
//! what was published, creates are looked up first), so a retry never duplicates anything.
//!
//! One job per repository runs at a time (`jobs::claim`); workers bound the concurrency across
//! repositories.

mod analysis;
mod check_run;
mod commands;
mod dismissals;
pub mod fetch_config;
mod history;
mod lease;
mod permissions;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::clock::Clock;
use crate::domain::job::Job;
use crate::domain::{RepoId, RepoName, UnixMs};
use crate::github::client::GitHub;
use crate::github::repo::RepoClient;
use crate::knowledge::embed::remote::RemoteEmbedder;
use crate::knowledge::filter::NoiseRules;
use crate::llm::LlmClient;
use crate::render::links::LinkStyle;
use crate::store::Store;
use crate::store::jobs::{self, ClaimedJob};
use crate::store::repos;

pub use history::HistorySource;
use lease::LeaseKeeper;
use permissions::PermissionCache;

/// A job's lease: a restart after a crash resumes its repository's work within this long.
pub const DEFAULT_JOB_LEASE: Duration = Duration::from_secs(60);

/// How the runner works.
#[derive(Debug, Clone)]
pub struct RunnerSettings {
    /// Jobs run at once (across repositories).
    pub workers: usize,
    /// How long a claimed job is leased at a time (renewed while it runs): a runner that dies
    /// releases its jobs after this.
    pub lease: Duration,
    /// How often an idle worker looks for due jobs.
    pub poll: Duration,
    /// Attempts before a job fails for good.
    pub max_attempts: i64,
    /// The wait before the first retry; each further retry waits 4 times longer.
    pub first_retry: Duration,
    /// One `/gitlore refresh` per repository per this long.
    pub refresh_cooldown: Duration,
    /// How long a collaborator's permission is trusted without asking GitHub again.
    pub permission_ttl: Duration,
    /// Where the git history comes from; `None` analyses review comments alone.
    pub history: Option<HistorySource>,
    /// The server's public URL (`GITLORE_PUBLIC_URL`): a check run's details link to the
    /// repository's web page there.
    pub public_url: Option<String>,
}

impl Default for RunnerSettings {
    fn default() -> RunnerSettings {
        RunnerSettings {
            workers: 2,
            lease: DEFAULT_JOB_LEASE,
            poll: Duration::from_secs(1),
            max_attempts: 5,
            first_retry: Duration::from_secs(30),
            refresh_cooldown: Duration::from_secs(10 * 60),
            permission_ttl: Duration::from_secs(5 * 60),
            history: None,
            public_url: None,
        }
    }
}

impl RunnerSettings {
    /// When a job that failed its `attempts`-th attempt at `now` runs again.
    fn retry_at(&self, now: UnixMs, attempts: i64) -> UnixMs {
        let exponent = u32::try_from(attempts.clamp(1, 16) - 1).unwrap_or(0);
        now + self
            .first_retry
            .saturating_mul(4_u32.saturating_pow(exponent))
    }
}

/// The models an analysis may use, when configured.
#[derive(Default)]
pub struct Models {
    pub llm: Option<LlmClient>,
    pub embedder: Option<RemoteEmbedder>,
}

/// What the runner needs. Cheap to clone.
#[derive(Clone)]
pub struct Runner {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<Store>,
    github: Arc<GitHub>,
    clock: Arc<dyn Clock>,
    rules: Arc<NoiseRules>,
    links: LinkStyle,
    models: Models,
    settings: RunnerSettings,
    permissions: PermissionCache,
    /// Names this process in job leases.
    owner: String,
}

/// What a handler needs to know about the job's repository.
struct RepoJob<'a> {
    runner: &'a Inner,
    job: &'a ClaimedJob,
    repo_id: RepoId,
    repo: RepoName,
    /// GitHub as the installation sees the repository.
    github: RepoClient<'a>,
}

impl Runner {
    /// A runner over `store` that publishes through `github` with links in `links`.
    pub fn new(
        store: Arc<Store>,
        github: Arc<GitHub>,
        clock: Arc<dyn Clock>,
        rules: Arc<NoiseRules>,
        links: LinkStyle,
        models: Models,
        settings: RunnerSettings,
    ) -> Runner {
        // Unique per process life: a restarted process (in a container, often with the same pid)
        // never mistakes its previous life's leases for its own.
        let owner = format!("runner-{}-{:x}", std::process::id(), clock.now().0);
        let permissions = PermissionCache::new(settings.permission_ttl);
        Runner {
            inner: Arc::new(Inner {
                store,
                github,
                clock,
                rules,
                links,
                models,
                settings,
                permissions,
                owner,
            }),
        }
    }

    /// Runs due jobs with all workers until none is due, and returns how many ran. Jobs queued
    /// meanwhile (a backfill's analysis) run too.
    pub async fn drain(&self) -> Result<usize> {
        let mut workers = JoinSet::new();
        for worker in 0..self.inner.settings.workers.max(1) {
            let runner = self.clone();
            workers.spawn(async move {
                let mut ran = 0;
                while runner.run_one(worker).await? {
                    ran += 1;
                }
                anyhow::Ok(ran)
            });
        }
        let mut total = 0;
        while let Some(result) = workers.join_next().await {
            total += result.context("A runner worker panicked")??;
        }
        Ok(total)
    }

    /// Runs jobs as they fall due until `stop` turns true, then lets each worker finish its job.
    /// A worker's panic ends the others and is resumed here (the caller's vigil reports it).
    pub async fn run(&self, stop: watch::Receiver<bool>) {
        let mut workers = JoinSet::new();
        for worker in 0..self.inner.settings.workers.max(1) {
            let runner = self.clone();
            let mut stop = stop.clone();
            workers.spawn(async move {
                while !*stop.borrow() {
                    match runner.run_one(worker).await {
                        Ok(true) => continue,
                        Ok(false) => {}
                        Err(error) => tracing::error!(error = %format!("{error:#}"), "the job runner cannot reach the store"),
                    }
                    let _ = tokio::time::timeout(runner.inner.settings.poll, stop.changed()).await;
                }
            });
        }
        while let Some(ended) = workers.join_next().await {
            if let Err(error) = ended
                && error.is_panic()
            {
                std::panic::resume_unwind(error.into_panic());
            }
        }
    }

    /// Claims one due job and runs it. Returns whether there was one.
    async fn run_one(&self, worker: usize) -> Result<bool> {
        let inner = &self.inner;
        let owner = format!("{}-{worker}", inner.owner);
        let now = inner.clock.now();
        let claimed = inner
            .store
            .write_derived(|tx| jobs::claim(tx, &owner, now, inner.settings.lease))?;
        let Some(job) = claimed else {
            return Ok(false);
        };
        let Some(outcome) = self.handle_leased(&job, &owner).await? else {
            tracing::warn!(
                job = job.id,
                kind = job.job.kind().as_str(),
                "the job's lease was lost while it ran: abandoned"
            );
            return Ok(true);
        };
        let now = inner.clock.now();
        match outcome {
            Ok(()) => {
                inner.store.write_derived(|tx| jobs::complete(tx, job.id))?;
            }
            Err(error) => {
                let message = format!("{error:#}");
                if job.attempts >= inner.settings.max_attempts {
                    tracing::error!(job = job.id, kind = job.job.kind().as_str(), error = %message, "job failed for good");
                    inner
                        .store
                        .write_derived(|tx| jobs::fail(tx, job.id, &message))?;
                } else {
                    let at = inner.settings.retry_at(now, job.attempts);
                    if refused_credentials(&error) {
                        tracing::error!(job = job.id, kind = job.job.kind().as_str(), attempts = job.attempts, error = %message, "GitHub refuses the App credentials (check GITLORE_APP_ID and the private key): the job runs again later");
                    } else {
                        tracing::warn!(job = job.id, kind = job.job.kind().as_str(), attempts = job.attempts, error = %message, "job failed: retrying later");
                    }
                    inner
                        .store
                        .write_derived(|tx| jobs::retry_later(tx, job.id, &message, at))?;
                }
            }
        }
        Ok(true)
    }
}

/// Whether GitHub refused gitlore's credentials somewhere in `error` (a 401): no retry helps
/// until they change, so it is said as such.
fn refused_credentials(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<crate::github::error::Error>())
        .any(crate::github::error::Error::is_unauthorized)
}

impl Runner {
    /// Runs a claimed job while a [`LeaseKeeper`] renews its lease. Returns the job's outcome,
    /// or None when the lease was lost (the job was abandoned at once: whoever holds the lease
    /// now runs it).
    async fn handle_leased(&self, job: &ClaimedJob, owner: &str) -> Result<Option<Result<()>>> {
        let inner = &self.inner;
        let mut keeper = LeaseKeeper::start(
            inner.store.clone(),
            inner.clock.clone(),
            job.id,
            owner.to_string(),
            inner.settings.lease,
        )?;
        tokio::select! {
            outcome = inner.handle(job) => Ok(Some(outcome)),
            () = keeper.lost() => Ok(None),
        }
    }
}

impl Inner {
    async fn handle(&self, job: &ClaimedJob) -> Result<()> {
        let Some(repo_id) = job.repo_id else {
            tracing::warn!(job = job.id, "a job without a repository: nothing to do");
            return Ok(());
        };
        let installed = repos::installed_repo(&self.store.reader()?, repo_id)?;
        let Some(installed) = installed else {
            tracing::info!(
                job = job.id,
                %repo_id,
                "the repository is no longer installed: job dropped"
            );
            return Ok(());
        };
        let name = match &job.job {
            // The backfill keeps the name as GitHub spells it.
            Job::Backfill(backfill) => &backfill.repo,
            _ => &installed.full_name,
        };
        let repo = RepoName::parse(name)
            .with_context(|| format!("The stored repository name {name:?} is not owner/name"))?;
        let context = RepoJob {
            runner: self,
            job,
            repo_id,
            github: self.github.repo(installed.installation_id, &repo),
            repo,
        };
        match &job.job {
            Job::Backfill(_) => context.backfill().await,
            Job::Analysis(job) => context.analysis(job).await,
            Job::CheckRun(check_run) => context.check_run(check_run).await,
            Job::Command(command) => context.command(command).await,
            Job::Dismissals(dismissals) => context.dismissals(dismissals).await,
        }
    }

    fn now_secs(&self) -> i64 {
        self.clock.now().as_secs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_by_four() {
        let settings = RunnerSettings::default();
        assert_eq!(settings.retry_at(UnixMs(0), 1), UnixMs(30_000));
        assert_eq!(settings.retry_at(UnixMs(0), 2), UnixMs(120_000));
        assert_eq!(settings.retry_at(UnixMs(1_000), 3), UnixMs(481_000));
    }
}
