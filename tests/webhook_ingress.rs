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
    // Only the legacy SHA-1 header, even a correct one, is not enough.
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
async fn required_headers_and_size_limit() {
    let app = TestApp::new();
    let body = b"{}".to_vec();
    let sig = signature::sign(SECRET.as_bytes(), &body);
    let no_event = [
        ("x-github-delivery", "x".to_string()),
        ("x-hub-signature-256", sig.clone()),
    ];
    assert_eq!(
        app.post(&no_event, body.clone()).await,
        StatusCode::BAD_REQUEST
    );
    let no_delivery = [
        ("x-github-event", "ping".to_string()),
        ("x-hub-signature-256", sig),
    ];
    assert_eq!(app.post(&no_delivery, body).await, StatusCode::BAD_REQUEST);
    let huge = vec![b' '; gitlore::server::MAX_BODY_BYTES + 1];
    let too_big = app.post_signed_as("ping", "big", signed(&huge), huge).await;
    assert_eq!(too_big, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(app.deliveries(), 0);
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
    let app = TestApp::new();
    let event = "pull_request_review_comment";
    let mut bad_time = fixture("pull_request_review_comment.created.1.json");
    bad_time["comment"]["updated_at"] = json!("yesterday");
    assert_eq!(
        app.send_as("bad-time", event, &bad_time).await,
        StatusCode::ACCEPTED
    );
    let not_json = b"{not json".to_vec();
    let sent = app.post_signed_as("issue_comment", "bad-json", signed(&not_json), not_json);
    assert_eq!(sent.await, StatusCode::ACCEPTED);
    let mut dotted = fixture("pull_request_review_comment.created.1.json");
    dotted["repository"]["full_name"] = json!("acme/..");
    assert_eq!(
        app.send_as("dot-dot", event, &dotted).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(app.drain().failed, 3);
    let failed = deliveries::list_failed(&app.db()).unwrap();
    let errors: Vec<_> = failed
        .iter()
        .map(|d| d.last_error.clone().unwrap())
        .collect();
    assert!(
        errors[0].contains("`yesterday` is not an RFC 3339 time"),
        "{errors:?}"
    );
    let not_json = "not valid JSON for a `issue_comment` event";
    assert!(errors[1].contains(not_json), "{errors:?}");
    assert!(errors[2].contains("acme/.."), "{errors:?}");
}

#[tokio::test]
async fn metrics_count_by_state_and_name_no_repository() {
    let app = TestApp::new();
    let mut payload = fixture("pull_request_review_comment.created.0.json");
    payload["repository"]["full_name"] = json!("acme/secret-project");
    let sent = app.send("pull_request_review_comment", &payload).await;
    assert_eq!(sent, StatusCode::ACCEPTED);
    assert_eq!(
        app.send("ping", &json!({"zen": "hi"})).await,
        StatusCode::ACCEPTED
    );
    app.drain();
    let (status, content_type, text) = app.get("/metrics").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    for line in [
        "# TYPE gitlore_deliveries gauge",
        "gitlore_deliveries{state=\"done\"} 2",
        "gitlore_comments{kind=\"inline\"} 1",
        "gitlore_repositories{state=\"live\"} 1",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert!(
        !text.contains("secret-project") && !text.contains("acme"),
        "{text}"
    );
}

#[tokio::test]
async fn uninstalling_deletes_the_installations_raw_bodies() {
    let app = TestApp::new();
    let comment = fixture("pull_request_review_comment.created.1.json");
    let mut other = comment.clone();
    other["installation"]["id"] = json!(9);
    other["comment"]["id"] = json!(424242);
    for (id, payload) in [("ours", &comment), ("theirs", &other)] {
        let sent = app.send_as(id, "pull_request_review_comment", payload);
        assert_eq!(sent.await, StatusCode::ACCEPTED);
    }
    let mut uninstall = fixture("installation.deleted.0.json");
    uninstall["installation"]["id"] = comment["installation"]["id"].clone();
    assert_eq!(
        app.send_as("bye", "installation", &uninstall).await,
        StatusCode::ACCEPTED
    );
    app.drain();
    // Which raw bodies remain: no store function reads them back.
    let body_of = |id: &str| {
        app.count(&format!(
            "SELECT count(*) FROM delivery_bodies JOIN deliveries USING (seq) WHERE id = '{id}'"
        ))
    };
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
