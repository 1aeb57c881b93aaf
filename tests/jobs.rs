//! The job queue: leases, one job per repository at a time, retries, re-arming, and rows that
//! do not read.

mod common;

use std::time::Duration;

use common::store::TestStore;
use gitlore::domain::job::{Analysis, AnalysisReason, Backfill, CheckRun, Job, JobKind, Occasion};
use gitlore::domain::{PrNumber, RepoId, UnixMs};
use gitlore::store::jobs::{self, ClaimedJob};

fn analysis(reason: AnalysisReason) -> Job {
    Job::Analysis(Analysis { reason })
}

fn check_run(pr: i64) -> Job {
    Job::CheckRun(CheckRun {
        pr: PrNumber(pr),
        head_sha: "abc".into(),
    })
}

/// Repositories 1 and 2, no jobs yet.
fn queue() -> TestStore {
    TestStore::with_repos(&[(1, "o/r1"), (2, "o/r2")], None)
}

/// Queues `job` for `repo` once, due at `run_after`; whether it was queued.
fn enqueue(db: &TestStore, repo: i64, job: &Job, run_after: i64) -> bool {
    db.write(|tx| jobs::enqueue(tx, RepoId(repo), job, Occasion::Once, UnixMs(run_after)))
}

/// What worker `owner` claims at `now` with a lease of 1 s.
fn claim(db: &TestStore, owner: &str, now: i64) -> Option<ClaimedJob> {
    db.write(|tx| jobs::claim(tx, owner, UnixMs(now), Duration::from_secs(1)))
}

#[test]
fn a_repository_runs_one_job_at_a_time_and_leases_expire() {
    let db = queue();
    enqueue(&db, 1, &analysis(AnalysisReason::Schedule), 10);
    enqueue(&db, 1, &check_run(1), 20);
    enqueue(&db, 2, &analysis(AnalysisReason::Schedule), 30);
    enqueue(&db, 2, &check_run(2), 5_000);
    let first = claim(&db, "w1", 100).unwrap();
    let expected = (analysis(AnalysisReason::Schedule), Some(RepoId(1)), 1);
    assert_eq!((first.job, first.repo_id, first.attempts), expected);
    // Repo 1 is busy, so the next claim skips its check run for repo 2's job.
    assert_eq!(claim(&db, "w2", 100).unwrap().repo_id, Some(RepoId(2)));
    let busy = "both repositories are busy; `later` is not due";
    assert!(claim(&db, "w3", 100).is_none(), "{busy}");
    // w1's lease expires: the same job is claimed again, with a second attempt.
    let again = claim(&db, "w3", 1_200).unwrap();
    assert_eq!((again.id, again.attempts), (first.id, 2));
    db.write(|tx| jobs::complete(tx, again.id));
    assert_eq!(claim(&db, "w3", 1_200).unwrap().job, check_run(1));
}

#[test]
fn failed_work_can_be_queued_again_and_a_pending_job_is_left_alone() {
    let db = queue();
    enqueue(&db, 1, &analysis(AnalysisReason::Backfill), 0);
    let job = claim(&db, "w", 0).unwrap();
    db.write(|tx| jobs::fail(tx, job.id, "gave up"));
    // A deduplicated enqueue does nothing; enqueue_again re-arms it with the new fields.
    let schedule = analysis(AnalysisReason::Schedule);
    assert!(!enqueue(&db, 1, &schedule, 0));
    db.write(|tx| jobs::enqueue_again(tx, RepoId(1), &schedule, UnixMs(20_000)));
    assert!(claim(&db, "w", 19_999).is_none());
    let job = claim(&db, "w", 20_000).unwrap();
    assert_eq!((&job.job, job.attempts), (&schedule, 1));
    // Re-arming a job that is pending (here: leased) leaves it alone.
    let backfill = analysis(AnalysisReason::Backfill);
    db.write(|tx| jobs::enqueue_again(tx, RepoId(1), &backfill, UnixMs(0)));
    assert_eq!(db.read(jobs::list)[0].payload["reason"], "schedule");
}

#[test]
fn hastening_brings_a_pending_job_forward_and_never_back() {
    let db = queue();
    enqueue(&db, 1, &analysis(AnalysisReason::Schedule), 0);
    db.write(|tx| jobs::retry_later(tx, 1, "jitter", UnixMs(300_000)));
    db.write(|tx| jobs::hasten(tx, "analysis:1", UnixMs(900_000)));
    let early = claim(&db, "w", 299_999);
    assert!(early.is_none(), "a later time changes nothing");
    db.write(|tx| jobs::hasten(tx, "analysis:1", UnixMs(10)));
    assert!(claim(&db, "w", 10).is_some());
}

#[test]
fn a_lease_is_extended_only_by_its_holder() {
    let db = queue();
    let backfill = Job::Backfill(Backfill {
        repo: "o/r1".into(),
    });
    enqueue(&db, 1, &backfill, 0);
    let job = claim(&db, "a", 0).unwrap();
    assert!(!db.write(|tx| jobs::extend_lease(tx, job.id, "b", UnixMs(9_000))));
    assert!(db.write(|tx| jobs::extend_lease(tx, job.id, "a", UnixMs(5_000))));
    assert!(claim(&db, "b", 2_000).is_none());
    assert!(claim(&db, "b", 5_000).is_some());
}

#[test]
fn a_row_that_does_not_read_fails_for_good_and_the_next_job_is_claimed() {
    let db = queue();
    db.write(|tx| {
        let broken = "INSERT INTO jobs (kind, repo_id, dedupe_key, payload, run_after, created_at)
                      VALUES ('check_run', 1, 'broken', '{\"pr\": 1}', 0, 0)";
        Ok(tx.execute(broken, [])?)
    });
    enqueue(&db, 2, &check_run(2), 0);
    assert_eq!(claim(&db, "w", 0).unwrap().job, check_run(2));
    let rows = db.read(jobs::list);
    assert_eq!(rows[0].state, "failed");
    assert_eq!(rows[0].kind, JobKind::CheckRun.as_str());
}

#[test]
fn retries_wait_and_failures_stay() {
    let db = queue();
    enqueue(&db, 1, &analysis(AnalysisReason::Backfill), 0);
    let job = claim(&db, "w", 0).unwrap();
    db.write(|tx| jobs::retry_later(tx, job.id, "GitHub answered 502", UnixMs(500)));
    assert!(claim(&db, "w", 400).is_none());
    let job = claim(&db, "w", 500).unwrap();
    db.write(|tx| jobs::fail(tx, job.id, "gave up"));
    assert!(claim(&db, "w", 10_000).is_none());
    assert_eq!(db.read(jobs::list)[0].state, "failed");
}
