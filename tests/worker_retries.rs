//! The worker retries failures with backoff, keeps the last error of a delivery that failed for
//! good, lets `retry` re-queue it, and takes over deliveries whose lease expired.

mod common;

use std::sync::Arc;

use common::{TestApp, review_comment};
use gitlore::clock::Clock;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::deliveries;
use gitlore::worker::{Worker, WorkerSettings};

/// Makes every comment insert fail, as a full disk or a broken database would.
fn break_comment_inserts(app: &TestApp) -> rusqlite::Connection {
    let writer = rusqlite::Connection::open(app.path().join("gitlore.db")).unwrap();
    writer
        .execute_batch("CREATE TRIGGER broken BEFORE INSERT ON comments BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;")
        .unwrap();
    writer
}

fn settings() -> WorkerSettings {
    WorkerSettings {
        max_attempts: 3,
        first_backoff_ms: 1_000,
        ..WorkerSettings::default()
    }
}

#[tokio::test]
async fn failures_back_off_then_fail_for_good_with_the_error() {
    let app = TestApp::with_settings(settings());
    let writer = break_comment_inserts(&app);
    app.send_as(
        "d1",
        "pull_request_review_comment",
        &review_comment("created", 1, "Needs a lock here.", 0),
    )
    .await;

    assert_eq!(app.drain().retried, 1);
    assert_eq!(app.drain().total(), 0, "not due before its backoff");
    app.clock.advance_ms(999);
    assert_eq!(app.drain().total(), 0);
    app.clock.advance_ms(1);
    assert_eq!(app.drain().retried, 1, "second attempt after 1 s");
    app.clock.advance_ms(3_999);
    assert_eq!(app.drain().total(), 0, "third attempt waits 4 s");
    app.clock.advance_ms(1);
    assert_eq!(app.drain().failed, 1);

    let failed = deliveries::list_failed(&app.db()).unwrap();
    assert_eq!((failed[0].id.as_str(), failed[0].attempts), ("d1", 3));
    assert!(
        failed[0]
            .last_error
            .as_deref()
            .unwrap()
            .contains("disk on fire")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM comments"),
        0,
        "effects rolled back"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM repos"),
        0,
        "all of the delivery's effects"
    );

    // Fixed, then retried by an operator: processed once.
    writer.execute_batch("DROP TRIGGER broken;").unwrap();
    let requeued = app
        .store
        .write(|tx| deliveries::retry_failed(tx, &[], app.clock.now_ms()))
        .unwrap();
    assert_eq!(requeued, 1);
    assert_eq!(app.drain().done, 1);
    assert_eq!(app.count("SELECT count(*) FROM comments"), 1);
    assert_eq!(
        deliveries::state_of(&app.db(), "d1").unwrap().as_deref(),
        Some("done")
    );
}

#[tokio::test]
async fn one_bad_delivery_does_not_hold_back_the_others() {
    let app = TestApp::with_settings(settings());
    let mut broken = review_comment("created", 1, "x", 0);
    broken["comment"]["created_at"] = serde_json::json!(42);
    app.send("pull_request_review_comment", &broken).await;
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 2, "Fine comment about naming.", 0),
    )
    .await;
    let stats = app.drain();
    assert_eq!((stats.failed, stats.done), (1, 1));
    assert_eq!(
        app.count("SELECT count(*) FROM comments WHERE github_id = 2"),
        1
    );
}

#[tokio::test]
async fn an_expired_lease_is_taken_over() {
    let app = TestApp::new();
    app.send_as(
        "d1",
        "pull_request_review_comment",
        &review_comment("created", 1, "Off by one in the loop bound.", 0),
    )
    .await;
    // A worker claims the delivery, then its process dies before processing it.
    let now = app.clock.now_ms();
    let claimed = app
        .store
        .write(|tx| deliveries::claim(tx, "dead-worker", now, 30_000, 10))
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(app.drain().total(), 0, "leased to the dead worker");
    app.clock.advance_ms(30_000);
    let stats = app.drain();
    assert_eq!(stats.done, 1);
    assert_eq!(app.count("SELECT attempts FROM deliveries"), 2);
    // The dead worker cannot complete it afterwards.
    let late = app
        .store
        .write(|tx| deliveries::complete(tx, claimed[0].seq, "dead-worker", false, "late", now))
        .unwrap();
    assert!(!late);
}

#[tokio::test]
async fn two_workers_never_process_the_same_delivery() {
    let app = TestApp::new();
    for id in 0..300 {
        app.send(
            "pull_request_review_comment",
            &review_comment("created", id, "Handle the timeout case.", 0),
        )
        .await;
    }
    let rules = NoiseRules::new(None, None, &[]);
    let small = WorkerSettings {
        batch: 7,
        ..WorkerSettings::default()
    };
    let a = Arc::new(Worker::new(
        app.store.clone(),
        app.clock.clone(),
        rules.clone(),
        small.clone(),
    ));
    let b = Arc::new(Worker::new(
        app.store.clone(),
        app.clock.clone(),
        rules,
        small,
    ));
    let (ta, tb) = (a.clone(), b.clone());
    let ha = std::thread::spawn(move || ta.drain().unwrap());
    let hb = std::thread::spawn(move || tb.drain().unwrap());
    let (sa, sb) = (ha.join().unwrap(), hb.join().unwrap());
    assert_eq!(sa.done + sb.done, 300);
    assert_eq!(
        app.count("SELECT count(*) FROM deliveries WHERE attempts = 1 AND state = 'done'"),
        300
    );
}

#[tokio::test]
async fn old_processed_deliveries_are_pruned_failed_ones_kept() {
    let app = TestApp::with_settings(settings());
    app.send_as(
        "ok",
        "pull_request_review_comment",
        &review_comment("created", 1, "Leak on the error path.", 0),
    )
    .await;
    app.send_as(
        "bad",
        "pull_request_review_comment",
        &serde_json::json!({ "action": "created" }),
    )
    .await;
    app.drain();
    let day = 86_400_000;
    app.clock.advance_ms(13 * day);
    let cutoff = |app: &TestApp| app.clock.now_ms() - 14 * day;
    assert_eq!(
        app.store
            .write(|tx| deliveries::prune(tx, cutoff(&app)))
            .unwrap(),
        0,
        "too recent"
    );
    app.clock.advance_ms(2 * day);
    assert_eq!(
        app.store
            .write(|tx| deliveries::prune(tx, cutoff(&app)))
            .unwrap(),
        1
    );
    assert_eq!(deliveries::state_of(&app.db(), "ok").unwrap(), None);
    assert_eq!(
        deliveries::state_of(&app.db(), "bad").unwrap().as_deref(),
        Some("failed")
    );
    assert_eq!(app.count("SELECT count(*) FROM delivery_bodies"), 1);
    assert_eq!(
        app.count("SELECT count(*) FROM comments"),
        1,
        "the comment stays"
    );
}
