//! The job queue: leases, one job per repository at a time, retries, re-arming, and rows that
//! do not read.

use gitlore::domain::job::{Analysis, AnalysisReason, Backfill, CheckRun, Job, JobKind, Occasion};
use gitlore::domain::{Repo, RepoName};
use gitlore::store::Store;
use gitlore::store::jobs;
use gitlore::store::repos;

fn analysis(reason: AnalysisReason) -> Job {
    Job::Analysis(Analysis { reason })
}

fn check_run(pr: i64) -> Job {
    Job::CheckRun(CheckRun {
        pr,
        head_sha: "abc".into(),
    })
}

fn store_with_repos(dir: &tempfile::TempDir) -> Store {
    let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
    store
        .write(|tx| {
            for id in [1, 2] {
                let repo = Repo {
                    id,
                    name: RepoName::parse(&format!("o/r{id}")).unwrap(),
                    default_branch: Some("main".into()),
                    private: false,
                };
                repos::upsert_repo(tx, &repo, None, true)?;
            }
            Ok(())
        })
        .unwrap();
    store
}

#[test]
fn a_repository_runs_one_job_at_a_time_and_leases_expire() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repos(&dir);
    store
        .write(|tx| {
            jobs::enqueue(
                tx,
                1,
                &analysis(AnalysisReason::Schedule),
                Occasion::Once,
                10,
            )?;
            jobs::enqueue(tx, 1, &check_run(1), Occasion::Once, 20)?;
            jobs::enqueue(
                tx,
                2,
                &analysis(AnalysisReason::Schedule),
                Occasion::Once,
                30,
            )?;
            jobs::enqueue(tx, 2, &check_run(2), Occasion::Once, 5_000)?;
            Ok(())
        })
        .unwrap();
    let claim = |owner: &str, now: i64| {
        store
            .write(|tx| jobs::claim(tx, owner, now, 1_000))
            .unwrap()
    };
    let first = claim("w1", 100).unwrap();
    assert_eq!(
        (first.job, first.repo_id, first.attempts),
        (analysis(AnalysisReason::Schedule), Some(1), 1)
    );
    // Repo 1 is busy, so the next claim skips its check run for repo 2's job.
    let second = claim("w2", 100).unwrap();
    assert_eq!(second.repo_id, Some(2));
    assert!(
        claim("w3", 100).is_none(),
        "both repositories are busy; `later` is not due"
    );
    // w1's lease expires: the same job is claimed again, with a second attempt.
    let again = claim("w3", 1_200).unwrap();
    assert_eq!((again.id, again.attempts), (first.id, 2));
    store.write(|tx| jobs::complete(tx, again.id)).unwrap();
    let check_run = claim("w3", 1_200).unwrap();
    assert_eq!(check_run.job, self::check_run(1));
}

#[test]
fn retries_wait_failures_stay_and_finished_work_can_be_queued_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repos(&dir);
    store
        .write(|tx| {
            let job = analysis(AnalysisReason::Backfill);
            jobs::enqueue(tx, 1, &job, Occasion::Once, 0).map(drop)
        })
        .unwrap();
    let claim = |now: i64| store.write(|tx| jobs::claim(tx, "w", now, 1_000)).unwrap();
    let job = claim(0).unwrap();
    store
        .write(|tx| jobs::retry_later(tx, job.id, "GitHub answered 502", 500))
        .unwrap();
    assert!(claim(400).is_none());
    let job = claim(500).unwrap();
    store.write(|tx| jobs::fail(tx, job.id, "gave up")).unwrap();
    assert!(claim(10_000).is_none());
    let rows = store.write(|tx| jobs::list(tx)).unwrap();
    assert_eq!(rows[0].state, "failed");
    // A deduplicated enqueue does nothing; enqueue_again re-arms it with the new fields.
    let schedule = analysis(AnalysisReason::Schedule);
    assert!(
        !store
            .write(|tx| jobs::enqueue(tx, 1, &schedule, Occasion::Once, 0))
            .unwrap()
    );
    store
        .write(|tx| jobs::enqueue_again(tx, 1, &schedule, 20_000))
        .unwrap();
    assert!(claim(19_999).is_none());
    let job = claim(20_000).unwrap();
    assert_eq!((&job.job, job.attempts), (&schedule, 1));
    // Re-arming a job that is pending (here: leased) leaves it alone.
    store
        .write(|tx| jobs::enqueue_again(tx, 1, &analysis(AnalysisReason::Backfill), 0))
        .unwrap();
    let rows = store.write(|tx| jobs::list(tx)).unwrap();
    assert_eq!(rows[0].payload["reason"], "schedule");
}

#[test]
fn hastening_brings_a_pending_job_forward_and_never_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repos(&dir);
    store
        .write(|tx| {
            jobs::enqueue(
                tx,
                1,
                &analysis(AnalysisReason::Schedule),
                Occasion::Once,
                0,
            )?;
            jobs::retry_later(tx, 1, "jitter", 300_000)
        })
        .unwrap();
    let claim = |now: i64| store.write(|tx| jobs::claim(tx, "w", now, 1_000)).unwrap();
    store
        .write(|tx| jobs::hasten(tx, "analysis:1", 900_000))
        .unwrap();
    assert!(claim(299_999).is_none(), "a later time changes nothing");
    store
        .write(|tx| jobs::hasten(tx, "analysis:1", 10))
        .unwrap();
    assert!(claim(10).is_some());
}

#[test]
fn a_lease_is_extended_only_by_its_holder() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repos(&dir);
    store
        .write(|tx| {
            let job = Job::Backfill(Backfill {
                repo: "o/r1".into(),
            });
            jobs::enqueue(tx, 1, &job, Occasion::Once, 0).map(drop)
        })
        .unwrap();
    let job = store
        .write(|tx| jobs::claim(tx, "a", 0, 1_000))
        .unwrap()
        .unwrap();
    assert!(
        !store
            .write(|tx| jobs::extend_lease(tx, job.id, "b", 9_000))
            .unwrap()
    );
    assert!(
        store
            .write(|tx| jobs::extend_lease(tx, job.id, "a", 5_000))
            .unwrap()
    );
    assert!(
        store
            .write(|tx| jobs::claim(tx, "b", 2_000, 1_000))
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .write(|tx| jobs::claim(tx, "b", 5_000, 1_000))
            .unwrap()
            .is_some()
    );
}

#[test]
fn a_row_that_does_not_read_fails_for_good_and_the_next_job_is_claimed() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repos(&dir);
    store
        .write(|tx| {
            tx.execute(
                "INSERT INTO jobs (kind, repo_id, dedupe_key, payload, run_after, created_at)
                 VALUES ('check_run', 1, 'broken', '{\"pr\": 1}', 0, 0)",
                [],
            )?;
            jobs::enqueue(tx, 2, &check_run(2), Occasion::Once, 0).map(drop)
        })
        .unwrap();
    let claimed = store
        .write(|tx| jobs::claim(tx, "w", 0, 1_000))
        .unwrap()
        .unwrap();
    assert_eq!(claimed.job, check_run(2));
    let rows = store.write(|tx| jobs::list(tx)).unwrap();
    assert_eq!(rows[0].state, "failed");
    assert_eq!(rows[0].kind, JobKind::CheckRun.as_str());
}
