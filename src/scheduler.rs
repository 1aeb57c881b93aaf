//! The scheduler (behaviour §6): decides which repositories to analyse again and queues their
//! analysis job, jittered. A repository is due when enough new comments arrived and its last run
//! is at least an hour old, or when its last run is older than its interval and anything changed.
//!
//! All state is in the store (the last run and what it read), so a restart loses nothing; the
//! job queue runs one job per repository at a time, with bounded concurrency across repositories.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use tokio::sync::watch;

use crate::analysis::mirror_sync;
use crate::clock::Clock;
use crate::domain::UnixMs;
use crate::domain::job::{Analysis, AnalysisReason, Job};

use crate::repo_config::Schedule;
use crate::store::Store;
use crate::store::jobs;
use crate::store::publications::{self, RepoActivity};

/// The shortest time between two scheduled runs of a repository.
const MIN_INTERVAL: Duration = Duration::from_secs(60 * 60);
/// The longest delay added to a due run, so that many repositories do not start together.
pub const MAX_JITTER: Duration = Duration::from_secs(5 * 60);

/// Whether `repo` should be analysed again at `now`.
pub fn is_due(repo: &RepoActivity, now: UnixMs) -> bool {
    let defaults = Schedule::default();
    let min_new = i64::from(repo.min_new_comments.unwrap_or(defaults.min_new_comments));
    let interval = Duration::from_secs(
        u64::from(repo.interval_hours.unwrap_or(defaults.interval_hours)) * 60 * 60,
    );
    let Some(last) = repo.last_run_at else {
        return repo.changed;
    };
    let age = now.since(last);
    (repo.new_comments >= min_new && age >= MIN_INTERVAL)
        || (repo.changed && age >= interval.max(MIN_INTERVAL))
}

/// A delay in `0..MAX_JITTER` that is the same for a repository's run whatever the restart,
/// and different across repositories.
fn jitter(repo: &RepoActivity) -> Duration {
    let last_run_at = repo.last_run_at.unwrap_or(UnixMs::EPOCH);
    let seed = repo
        .repo_id
        .0
        .wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as i64)
        ^ last_run_at.0;
    let max_ms = MAX_JITTER.as_millis() as i64;
    Duration::from_millis(seed.rem_euclid(max_ms).unsigned_abs())
}

/// Queues the analysis of every due repository. Returns how many were queued.
pub fn tick(store: &Store, now: UnixMs) -> Result<usize> {
    let activity = publications::activity(&store.reader()?)?;
    let due: Vec<&RepoActivity> = activity.iter().filter(|r| is_due(r, now)).collect();
    if due.is_empty() {
        return Ok(0);
    }
    store.write_derived(|tx| {
        for repo in &due {
            let job = Job::Analysis(Analysis {
                reason: AnalysisReason::Schedule,
            });
            jobs::enqueue_again(tx, repo.repo_id, &job, now + jitter(repo))?;
        }
        Ok(())
    })?;
    Ok(due.len())
}

/// Ticks every `period` with the time of `clock` until `stop` turns true. A failing tick is
/// logged and the next one tries again. Each tick also deletes the mirrors under `data_dir` of
/// repositories that are gone (removed or uninstalled).
pub async fn run(
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
    period: Duration,
    data_dir: PathBuf,
    mut stop: watch::Receiver<bool>,
) {
    while !*stop.borrow() {
        match tick(&store, clock.now()) {
            Ok(0) => {}
            Ok(queued) => tracing::info!(queued, "scheduled analyses queued"),
            Err(error) => {
                tracing::error!(error = %format!("{error:#}"), "the scheduler tick failed")
            }
        }
        match mirror_sync::remove_orphans(&data_dir, &store) {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "mirrors of removed repositories deleted"),
            Err(error) => {
                tracing::warn!(error = %format!("{error:#}"), "cannot delete an orphaned mirror")
            }
        }
        let _ = tokio::time::timeout(period, stop.changed()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::RepoId;

    const HOUR: Duration = Duration::from_secs(60 * 60);

    fn repo(last_run_at: Option<UnixMs>, new_comments: i64, changed: bool) -> RepoActivity {
        RepoActivity {
            repo_id: RepoId(1),
            last_run_at,
            new_comments,
            changed,
            interval_hours: None,
            min_new_comments: None,
        }
    }

    #[test]
    fn thresholds_of_spec_section_6() {
        let now = UnixMs::EPOCH + 100 * HOUR;
        assert!(
            !is_due(&repo(None, 0, false), now),
            "nothing to analyse yet"
        );
        assert!(is_due(&repo(None, 1, true), now), "never analysed");
        assert!(is_due(&repo(Some(now - HOUR), 20, true), now));
        assert!(
            !is_due(
                &repo(Some(now - HOUR + Duration::from_millis(1)), 20, true),
                now
            ),
            "ran < 1 h ago"
        );
        assert!(
            !is_due(&repo(Some(now - 2 * HOUR), 19, true), now),
            "too few, too recent"
        );
        assert!(
            is_due(&repo(Some(now - 24 * HOUR), 1, true), now),
            "a day old and changed"
        );
        assert!(
            !is_due(&repo(Some(now - 48 * HOUR), 0, false), now),
            "nothing changed"
        );
    }

    #[test]
    fn the_repo_config_schedule_is_honoured() {
        let now = UnixMs::EPOCH + 100 * HOUR;
        let mut custom = repo(Some(now - 2 * HOUR), 5, true);
        custom.min_new_comments = Some(5);
        assert!(is_due(&custom, now));
        custom.min_new_comments = Some(50);
        custom.interval_hours = Some(2);
        assert!(is_due(&custom, now), "its 2-hour interval is up");
        custom.interval_hours = Some(0);
        custom.last_run_at = Some(now - HOUR / 2);
        assert!(!is_due(&custom, now), "never more often than hourly");
    }

    #[test]
    fn jitter_is_bounded_and_spreads_repositories() {
        let delays: Vec<Duration> = (1..=50)
            .map(|id| {
                jitter(&RepoActivity {
                    repo_id: RepoId(id),
                    ..repo(Some(UnixMs(7)), 0, true)
                })
            })
            .collect();
        assert!(delays.iter().all(|d| *d < MAX_JITTER));
        let distinct: std::collections::HashSet<_> = delays.iter().collect();
        assert!(distinct.len() > 40, "{delays:?}");
    }
}
