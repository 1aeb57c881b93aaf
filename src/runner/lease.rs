//! Keeps a running job's lease short and alive: a thread of its own renews it every quarter of
//! the lease while the job runs, so that a job of a process that died (kill -9, power cut) is
//! claimed again within one lease, and a long job keeps its lease even when the async workers
//! are busy. Should the lease be lost — taken over, or not renewable before it runs out — the
//! keeper says so and the runner abandons the job, so that no job ever runs twice at once.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::watch;

use crate::clock::Clock;
use crate::store::Store;
use crate::store::jobs;

/// Renews one job's lease until dropped.
pub struct LeaseKeeper {
    /// Dropping it ends the keeper's thread.
    _stop: mpsc::Sender<()>,
    lost: watch::Receiver<bool>,
}

impl LeaseKeeper {
    /// Starts renewing the lease `owner` holds on job `id` for `lease` at a time.
    pub fn start(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        id: i64,
        owner: String,
        lease: Duration,
    ) -> Result<LeaseKeeper> {
        let (stop, stopped) = mpsc::channel::<()>();
        let (lost_sender, lost) = watch::channel(false);
        let period = (lease / 4).max(Duration::from_millis(1));
        let mut held_until = clock.now() + lease;
        std::thread::Builder::new()
            .name(format!("lease-job-{id}"))
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                    let now = clock.now();
                    let until = now + lease;
                    let renewed = store.write_derived(|tx| jobs::extend_lease(tx, id, &owner, until));
                    let lost = match renewed {
                        Ok(true) => {
                            held_until = until;
                            false
                        }
                        Ok(false) => true,
                        // Another try comes in one period: too late if the lease runs out first.
                        Err(error) => {
                            tracing::warn!(job = id, error = %format!("{error:#}"), "cannot renew the job's lease");
                            now + period >= held_until
                        }
                    };
                    if lost {
                        let _ = lost_sender.send(true);
                        return;
                    }
                }
            })
            .context("Cannot start the thread that renews a job's lease")?;
        Ok(LeaseKeeper { _stop: stop, lost })
    }

    /// Resolves when the lease is lost; never while it is held.
    pub async fn lost(&mut self) {
        if self.lost.wait_for(|lost| *lost).await.is_err() {
            // The keeper ended without losing the lease (it was stopped): it stays held.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::domain::job::{Analysis, AnalysisReason, Job, Occasion};
    use crate::domain::{Repo, RepoId, RepoName, UnixMs};
    use crate::store::repos;

    fn store_with_claimed_job(dir: &tempfile::TempDir, owner: &str, lease: Duration) -> Arc<Store> {
        let store = Arc::new(Store::open(&dir.path().join("gitlore.db")).unwrap());
        let now = SystemClock.now();
        store
            .write(|tx| {
                let repo = Repo {
                    id: RepoId(1),
                    name: RepoName::parse("o/r").unwrap(),
                    default_branch: None,
                    private: false,
                };
                repos::upsert_repo(tx, &repo, None, true)?;
                let job = Job::Analysis(Analysis {
                    reason: AnalysisReason::Schedule,
                });
                jobs::enqueue(tx, RepoId(1), &job, Occasion::Once, now)?;
                jobs::claim(tx, owner, now, lease).map(drop)
            })
            .unwrap();
        store
    }

    fn lease_expiry(store: &Store) -> UnixMs {
        store
            .reader()
            .unwrap()
            .query_row("SELECT lease_expires_at FROM jobs", [], |row| row.get(0))
            .unwrap()
    }

    /// `a`'s keeper of job 1's 200 ms lease.
    fn keeper_of(store: &Arc<Store>) -> LeaseKeeper {
        LeaseKeeper::start(
            store.clone(),
            Arc::new(SystemClock),
            1,
            "a".into(),
            Duration::from_millis(200),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn a_running_job_keeps_its_short_lease_past_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_claimed_job(&dir, "a", Duration::from_millis(200));
        let mut keeper = keeper_of(&store);
        let outlived = tokio::time::timeout(Duration::from_millis(700), keeper.lost()).await;
        assert!(outlived.is_err(), "the lease was held");
        assert!(lease_expiry(&store) > SystemClock.now());
        let id: Option<i64> = store
            .write(|tx| {
                jobs::claim(tx, "b", SystemClock.now(), Duration::from_millis(200))
                    .map(|job| job.map(|j| j.id))
            })
            .unwrap();
        assert_eq!(id, None, "nobody else can claim it meanwhile");
    }

    #[tokio::test]
    async fn a_lease_taken_over_is_reported_lost() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_claimed_job(&dir, "a", Duration::from_millis(200));
        let mut keeper = keeper_of(&store);
        store
            .write(|tx| {
                tx.execute("UPDATE jobs SET lease_owner = 'b'", [])?;
                Ok(())
            })
            .unwrap();
        tokio::time::timeout(Duration::from_secs(2), keeper.lost())
            .await
            .expect("the loss is reported within a renewal period");
    }
}
