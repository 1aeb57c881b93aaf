//! The worker retries failures with backoff, keeps the last error of a delivery that failed for
//! good, lets `retry` re-queue it, and takes over deliveries whose lease expired.

mod common;

use std::time::Duration;

use common::{TestApp, review_comment};
use gitlore::clock::Clock;
use gitlore::domain::CommentKind;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::{comments, deliveries, repos};
use gitlore::worker::{Worker, WorkerSettings};

const EVENT: &str = "pull_request_review_comment";

/// Makes every comment insert fail, as a full disk or a broken database would.
fn break_comment_inserts(app: &TestApp) -> rusqlite::Connection {
    let writer = rusqlite::Connection::open(app.path().join("gitlore.db")).unwrap();
    writer
        .execute_batch("CREATE TRIGGER broken BEFORE INSERT ON comments BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;")
        .unwrap();
    writer
}

/// Three attempts, the first retry after 1 s.
fn app_with_three_attempts() -> TestApp {
    TestApp::with_settings(WorkerSettings {
        max_attempts: 3,
        first_backoff: Duration::from_secs(1),
        ..WorkerSettings::default()
    })
}

/// How many comments the store holds.
fn comments_stored(app: &TestApp) -> i64 {
    comments::counts(&app.db()).unwrap().0
}

/// Delivers a new inline comment `id` as delivery `delivery`.
async fn send_comment(app: &TestApp, delivery: &str, id: i64, body: &str) {
    let payload = review_comment("created", id, body, 0);
    assert!(app.send_as(delivery, EVENT, &payload).await.is_success());
}

#[tokio::test]
async fn failures_back_off_then_fail_for_good_with_the_error() {
    let app = app_with_three_attempts();
    let _broken = break_comment_inserts(&app);
    send_comment(&app, "d1", 1, "Needs a lock here.").await;
    fail_three_times(&app);
    let failed = deliveries::list_failed(&app.db()).unwrap();
    assert_eq!((failed[0].id.as_str(), failed[0].attempts), ("d1", 3));
    let error = failed[0].last_error.as_deref().unwrap();
    assert!(error.contains("disk on fire"), "{error}");
    assert_eq!(comments_stored(&app), 0, "effects rolled back");
    let repos = repos::live_repo_ids(&app.db()).unwrap();
    assert!(repos.is_empty(), "all of the delivery's effects: {repos:?}");
}

/// Drains through the three attempts of a delivery that keeps failing, checking the backoff.
fn fail_three_times(app: &TestApp) {
    assert_eq!(app.drain().retried, 1);
    assert_eq!(app.drain().total(), 0, "not due before its backoff");
    app.clock.advance(Duration::from_millis(999));
    assert_eq!(app.drain().total(), 0);
    app.clock.advance(Duration::from_millis(1));
    assert_eq!(app.drain().retried, 1, "second attempt after 1 s");
    app.clock.advance(Duration::from_millis(3_999));
    assert_eq!(app.drain().total(), 0, "third attempt waits 4 s");
    app.clock.advance(Duration::from_millis(1));
    assert_eq!(app.drain().failed, 1);
}

#[tokio::test]
async fn one_bad_delivery_does_not_hold_back_the_others() {
    let app = app_with_three_attempts();
    let mut broken = review_comment("created", 1, "x", 0);
    broken["comment"]["created_at"] = serde_json::json!(42);
    app.send(EVENT, &broken).await;
    send_comment(&app, "d2", 2, "Fine comment about naming.").await;
    let stats = app.drain();
    assert_eq!((stats.failed, stats.done), (1, 1));
    assert!(comments::exists(&app.db(), CommentKind::Inline, 2).unwrap());
}

#[tokio::test]
async fn an_expired_lease_is_taken_over() {
    let app = TestApp::new();
    send_comment(&app, "d1", 1, "Off by one in the loop bound.").await;
    // A worker claims the delivery, then its process dies before processing it.
    let now = app.clock.now();
    let claimed = app.write(|tx| deliveries::claim(tx, "dead", now, Duration::from_secs(30), 10));
    assert_eq!(claimed.len(), 1);
    let seq = claimed[0].seq;
    assert_eq!(app.drain().total(), 0, "leased to the dead worker");
    app.clock.advance(Duration::from_millis(30_000));
    assert_eq!(app.drain().done, 1);
    // The attempts no store function reads back.
    assert_eq!(app.count("SELECT attempts FROM deliveries"), 2);
    // The dead worker cannot complete it afterwards.
    let late = app.write(|tx| deliveries::complete(tx, seq, "dead", false, "late", now));
    assert!(!late);
}

#[tokio::test]
async fn two_workers_never_process_the_same_delivery() {
    let app = TestApp::new();
    for id in 0..300 {
        send_comment(&app, &format!("d{id}"), id, "Handle the timeout case.").await;
    }
    let small = WorkerSettings {
        batch: 7,
        ..WorkerSettings::default()
    };
    let rules = NoiseRules::new(None, None, &[]);
    let worker = || {
        Worker::new(
            app.store.clone(),
            app.clock.clone(),
            rules.clone(),
            small.clone(),
        )
    };
    let (a, b) = (worker(), worker());
    let ha = std::thread::spawn(move || a.drain().unwrap());
    let hb = std::thread::spawn(move || b.drain().unwrap());
    let done = ha.join().unwrap().done + hb.join().unwrap().done;
    assert_eq!(done, 300);
    let once = "SELECT count(*) FROM deliveries WHERE attempts = 1 AND state = 'done'";
    assert_eq!(
        app.count(once),
        300,
        "each processed once, at its first attempt"
    );
}

#[tokio::test]
async fn old_processed_deliveries_are_pruned_failed_ones_kept() {
    let app = app_with_three_attempts();
    send_comment(&app, "ok", 1, "Leak on the error path.").await;
    let broken = serde_json::json!({ "action": "created" });
    app.send_as("bad", EVENT, &broken).await;
    app.drain();
    let day = Duration::from_secs(86_400);
    let prune = || {
        let cutoff = app.clock.now() - 14 * day;
        app.write(|tx| deliveries::prune(tx, cutoff))
    };
    app.clock.advance(13 * day);
    assert_eq!(prune(), 0, "too recent");
    app.clock.advance(2 * day);
    assert_eq!(prune(), 1);
    let state_of = |id| deliveries::state_of(&app.db(), id).unwrap();
    assert_eq!(state_of("ok"), None);
    assert_eq!(state_of("bad").as_deref(), Some("failed"));
    // The raw bodies no store function counts.
    assert_eq!(app.count("SELECT count(*) FROM delivery_bodies"), 1);
    assert_eq!(comments_stored(&app), 1, "the comment stays");
}

#[tokio::test]
async fn a_failed_delivery_retried_by_an_operator_is_processed_once() {
    let app = app_with_three_attempts();
    let broken = break_comment_inserts(&app);
    send_comment(&app, "d1", 1, "Needs a lock here.").await;
    fail_three_times(&app);
    broken.execute_batch("DROP TRIGGER broken;").unwrap(); // fixed
    let now = app.clock.now();
    let requeued = app.write(|tx| deliveries::retry_failed(tx, &[], now));
    assert_eq!(requeued, 1);
    assert_eq!(app.drain().done, 1);
    assert_eq!(comments_stored(&app), 1);
    let state = deliveries::state_of(&app.db(), "d1").unwrap();
    assert_eq!(state.as_deref(), Some("done"));
}
