//! `POST /webhook`: signature checks before anything, required headers, size limit, dedupe;
//! and the server's other doors, `/metrics` and `/healthz`.

mod common;

use axum::http::StatusCode;
use common::{SECRET, TestApp, fixture};
use gitlore::server::signature;
use gitlore::store::deliveries;
use hmac::{Hmac, Mac};
use serde_json::json;

/// `body` signed with the webhook secret.
fn signed(body: &[u8]) -> Option<String> {
    Some(signature::sign(SECRET.as_bytes(), body))
}

#[tokio::test]
async fn bad_signatures_are_refused_and_store_nothing() {
    let app = TestApp::new();
    let body = serde_json::to_vec(&fixture("ping.none.0.json")).unwrap();
    let wrong_secret = Some(signature::sign(b"not the secret", &body));
    let refused = app.post_signed_as("ping", "a", wrong_secret, body.clone());
    assert_eq!(refused.await, StatusCode::UNAUTHORIZED);
    let tampered = [body.as_slice(), b" "].concat();
    let refused = app.post_signed_as("ping", "b", signed(&body), tampered);
    assert_eq!(refused.await, StatusCode::UNAUTHORIZED);
    let unsigned = app.post_signed_as("ping", "c", None, body.clone());
    assert_eq!(unsigned.await, StatusCode::UNAUTHORIZED);
    assert_eq!(app.deliveries(), 0);
}

#[tokio::test]
async fn a_delivery_without_its_event_or_id_is_refused() {
    let app = TestApp::new();
    let body = b"{}".to_vec();
    let sig = signature::sign(SECRET.as_bytes(), &body);
    let no_event = [
        ("x-github-delivery", "x".into()),
        ("x-hub-signature-256", sig.clone()),
    ];
    let refused = app.post(&no_event, body.clone()).await;
    assert_eq!(refused, StatusCode::BAD_REQUEST);
    let no_delivery = [
        ("x-github-event", "ping".into()),
        ("x-hub-signature-256", sig),
    ];
    assert_eq!(app.post(&no_delivery, body).await, StatusCode::BAD_REQUEST);
    assert_eq!(app.deliveries(), 0);
}

/// Delivers `payload` as `event`, processes it, and returns the error it failed with.
async fn failure_of(event: &str, body: Vec<u8>) -> String {
    let app = TestApp::new();
    let sent = app.post_signed_as(event, "bad", signed(&body), body).await;
    assert_eq!(sent, StatusCode::ACCEPTED);
    assert_eq!(app.drain().failed, 1);
    let failed = deliveries::list_failed(&app.db()).unwrap();
    assert_eq!(failed.len(), 1);
    failed[0].last_error.clone().unwrap()
}

/// A review comment fixture with `field` (a JSON pointer) set to `value`.
fn review_comment_with(field: &str, value: serde_json::Value) -> Vec<u8> {
    let mut payload = fixture("pull_request_review_comment.created.1.json");
    *payload.pointer_mut(field).unwrap() = value;
    serde_json::to_vec(&payload).unwrap()
}

#[tokio::test]
async fn a_delivery_is_stored_once_whatever_the_redeliveries() {
    let app = TestApp::new();
    let ping = fixture("ping.none.0.json");
    assert_eq!(
        app.send_as("same-id", "ping", &ping).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(app.send_as("same-id", "ping", &ping).await, StatusCode::OK);
    assert_eq!(app.deliveries(), 1);
    let state = deliveries::state_of(&app.db(), "same-id").unwrap();
    assert_eq!(state.as_deref(), Some("pending"));
    let stats = app.drain();
    assert_eq!((stats.done, stats.total()), (1, 1));
    // Redelivered after processing: still acknowledged, still one row, nothing reprocessed.
    assert_eq!(app.send_as("same-id", "ping", &ping).await, StatusCode::OK);
    assert_eq!(app.drain().total(), 0);
    assert_eq!(app.deliveries(), 1);
}

#[tokio::test]
async fn unknown_events_are_stored_acknowledged_and_ignored() {
    let app = TestApp::new();
    let payload = json!({ "action": "teleported", "whatever": [1, 2, 3] });
    assert_eq!(
        app.send("sponsorship", &payload).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.send("pull_request", &payload).await,
        StatusCode::ACCEPTED
    );
    let stats = app.drain();
    assert_eq!((stats.ignored, stats.failed), (2, 0));
}

#[tokio::test]
async fn malformed_payloads_fail_for_good_with_their_error() {
    let event = "pull_request_review_comment";
    let bad_time = review_comment_with("/comment/updated_at", json!("yesterday"));
    let error = failure_of(event, bad_time).await;
    assert!(
        error.contains("`yesterday` is not an RFC 3339 time"),
        "{error}"
    );
    let error = failure_of("issue_comment", b"{not json".to_vec()).await;
    assert!(
        error.contains("not valid JSON for a `issue_comment` event"),
        "{error}"
    );
    let dotted = review_comment_with("/repository/full_name", json!("acme/.."));
    let error = failure_of(event, dotted).await;
    assert!(error.contains("acme/.."), "{error}");
}

#[tokio::test]
async fn metrics_count_by_state_and_name_no_repository() {
    let app = TestApp::new();
    let mut payload = fixture("pull_request_review_comment.created.0.json");
    payload["repository"]["full_name"] = json!("acme/secret-project");
    assert!(
        app.send("pull_request_review_comment", &payload)
            .await
            .is_success()
    );
    assert!(app.send("ping", &json!({"zen": "hi"})).await.is_success());
    app.drain();
    let (status, content_type, text) = app.get("/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let gauges = [
        "# TYPE gitlore_deliveries gauge",
        "gitlore_deliveries{state=\"done\"} 2",
        "gitlore_comments{kind=\"inline\"} 1",
        "gitlore_repositories{state=\"live\"} 1",
    ];
    let missing: Vec<_> = gauges.iter().filter(|g| !text.contains(*g)).collect();
    assert!(missing.is_empty(), "{missing:?} not in {text}");
    assert!(
        !text.contains("secret-project") && !text.contains("acme"),
        "{text}"
    );
}

#[tokio::test]
async fn uninstalling_deletes_the_installations_raw_bodies() {
    let app = TestApp::new();
    let ours = fixture("pull_request_review_comment.created.1.json");
    let mut theirs = ours.clone();
    theirs["installation"]["id"] = json!(9);
    theirs["comment"]["id"] = json!(424242);
    let mut uninstall = fixture("installation.deleted.0.json");
    uninstall["installation"]["id"] = ours["installation"]["id"].clone();
    let event = "pull_request_review_comment";
    app.send_as("ours", event, &ours).await;
    app.send_as("theirs", event, &theirs).await;
    app.send_as("bye", "installation", &uninstall).await;
    assert_eq!(app.drain().done, 3);
    // Which raw bodies remain: no store function reads them back.
    let sql = "SELECT count(*) FROM delivery_bodies JOIN deliveries USING (seq) WHERE id = ";
    let body_of = |id: &str| app.count(&format!("{sql}'{id}'"));
    assert_eq!((body_of("ours"), body_of("bye")), (0, 0));
    assert_eq!(body_of("theirs"), 1, "another installation's body stays");
}

#[tokio::test]
async fn healthz_fails_naming_a_part_that_stopped() {
    let app = TestApp::new();
    assert_eq!(app.get("/healthz").await.0, StatusCode::OK);
    let worker = app.health.watch("delivery worker");
    let died = std::thread::spawn(move || {
        let _vigil = worker;
        panic!("the worker's log write failed");
    });
    assert!(died.join().is_err());
    let (status, _, body) = app.get("/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("delivery worker"), "{body}");
}

#[tokio::test]
async fn a_correct_legacy_sha1_signature_alone_is_refused() {
    let app = TestApp::new();
    let body = serde_json::to_vec(&fixture("ping.none.0.json")).unwrap();
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(&body);
    let legacy = format!("sha1={}", hex::encode(mac.finalize().into_bytes()));
    let only_legacy = [
        ("x-github-event", "ping".to_string()),
        ("x-github-delivery", "d".to_string()),
        ("x-hub-signature", legacy),
    ];
    assert_eq!(app.post(&only_legacy, body).await, StatusCode::UNAUTHORIZED);
    assert_eq!(app.deliveries(), 0);
}

#[tokio::test]
async fn a_body_over_the_size_limit_is_refused() {
    let app = TestApp::new();
    let huge = vec![b' '; gitlore::server::MAX_BODY_BYTES + 1];
    let too_big = app.post_signed_as("ping", "big", signed(&huge), huge).await;
    assert_eq!(too_big, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(app.deliveries(), 0);
}
