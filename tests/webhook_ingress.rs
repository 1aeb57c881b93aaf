//! `POST /webhook`: signature checks before anything, required headers, size limit, dedupe.

mod common;

use axum::http::StatusCode;
use common::{SECRET, TestApp, fixture};
use gitlore::server::signature;
use hmac::{Hmac, Mac};

fn headers(event: &str, delivery: &str, sig: Option<String>) -> Vec<(&'static str, String)> {
    let mut h = vec![
        ("x-github-event", event.to_string()),
        ("x-github-delivery", delivery.to_string()),
    ];
    if let Some(sig) = sig {
        h.push(("x-hub-signature-256", sig));
    }
    h
}

#[tokio::test]
async fn bad_signatures_are_refused_and_store_nothing() {
    let app = TestApp::new();
    let body = serde_json::to_vec(&fixture("ping.none.0.json")).unwrap();
    let wrong_secret = signature::sign(b"not the secret", &body);
    assert_eq!(
        app.post(&headers("ping", "a", Some(wrong_secret)), body.clone())
            .await,
        StatusCode::UNAUTHORIZED
    );

    let mut tampered = body.clone();
    let good = signature::sign(SECRET.as_bytes(), &body);
    tampered.push(b' ');
    assert_eq!(
        app.post(&headers("ping", "b", Some(good)), tampered).await,
        StatusCode::UNAUTHORIZED
    );

    assert_eq!(
        app.post(&headers("ping", "c", None), body.clone()).await,
        StatusCode::UNAUTHORIZED
    );

    // Only the legacy SHA-1 header, even a correct one, is not enough.
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(&body);
    let legacy = format!("sha1={}", hex::encode(mac.finalize().into_bytes()));
    let mut only_legacy = headers("ping", "d", None);
    only_legacy.push(("x-hub-signature", legacy));
    assert_eq!(app.post(&only_legacy, body).await, StatusCode::UNAUTHORIZED);

    assert_eq!(app.count("SELECT count(*) FROM deliveries"), 0);
}

#[tokio::test]
async fn required_headers_and_size_limit() {
    let app = TestApp::new();
    let body = b"{}".to_vec();
    let sig = signature::sign(SECRET.as_bytes(), &body);
    let no_event = vec![
        ("x-github-delivery", "x".to_string()),
        ("x-hub-signature-256", sig.clone()),
    ];
    assert_eq!(
        app.post(&no_event, body.clone()).await,
        StatusCode::BAD_REQUEST
    );
    let no_delivery = vec![
        ("x-github-event", "ping".to_string()),
        ("x-hub-signature-256", sig),
    ];
    assert_eq!(app.post(&no_delivery, body).await, StatusCode::BAD_REQUEST);

    let huge = vec![b' '; gitlore::server::MAX_BODY_BYTES + 1];
    let sig = signature::sign(SECRET.as_bytes(), &huge);
    assert_eq!(
        app.post(&headers("ping", "big", Some(sig)), huge).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(app.count("SELECT count(*) FROM deliveries"), 0);
}

#[tokio::test]
async fn a_delivery_is_stored_once_whatever_the_redeliveries() {
    let app = TestApp::new();
    let payload = fixture("ping.none.0.json");
    assert_eq!(
        app.send_as("same-id", "ping", &payload).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.send_as("same-id", "ping", &payload).await,
        StatusCode::OK
    );
    assert_eq!(
        app.count("SELECT count(*) FROM deliveries WHERE id = 'same-id'"),
        1
    );
    let stats = app.drain();
    assert_eq!((stats.done, stats.total()), (1, 1));
    // Redelivered after processing: still acknowledged, still one row, nothing reprocessed.
    assert_eq!(
        app.send_as("same-id", "ping", &payload).await,
        StatusCode::OK
    );
    assert_eq!(app.drain().total(), 0);
}

#[tokio::test]
async fn unknown_events_are_stored_acknowledged_and_ignored() {
    let app = TestApp::new();
    let payload = serde_json::json!({ "action": "teleported", "whatever": [1, 2, 3] });
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
    let mut broken = fixture("pull_request_review_comment.created.1.json");
    broken["comment"]["updated_at"] = serde_json::json!("yesterday");
    assert_eq!(
        app.send_as("bad-time", "pull_request_review_comment", &broken)
            .await,
        StatusCode::ACCEPTED
    );
    let body = b"{not json".to_vec();
    let sig = signature::sign(SECRET.as_bytes(), &body);
    assert_eq!(
        app.post(&headers("issue_comment", "bad-json", Some(sig)), body)
            .await,
        StatusCode::ACCEPTED
    );
    let mut dotted = fixture("pull_request_review_comment.created.1.json");
    dotted["repository"]["full_name"] = serde_json::json!("acme/..");
    assert_eq!(
        app.send_as("dot-dot", "pull_request_review_comment", &dotted)
            .await,
        StatusCode::ACCEPTED
    );
    assert_eq!(app.drain().failed, 3);
    let failed = gitlore::store::deliveries::list_failed(&app.db()).unwrap();
    let errors: Vec<_> = failed
        .iter()
        .map(|d| (d.id.as_str(), d.last_error.clone().unwrap()))
        .collect();
    assert!(
        errors[0].1.contains("`yesterday` is not an RFC 3339 time"),
        "{errors:?}"
    );
    assert!(
        errors[1]
            .1
            .contains("not valid JSON for a `issue_comment` event"),
        "{errors:?}"
    );
    assert!(errors[2].1.contains("acme/.."), "{errors:?}");
}

#[tokio::test]
async fn metrics_count_by_state_and_name_no_repository() {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let app = TestApp::new();
    let mut payload = fixture("pull_request_review_comment.created.0.json");
    payload["repository"]["full_name"] = serde_json::json!("acme/secret-project");
    assert_eq!(
        app.send("pull_request_review_comment", &payload).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        app.send("ping", &serde_json::json!({"zen": "hi"})).await,
        StatusCode::ACCEPTED
    );
    app.drain();
    let response = app
        .router
        .clone()
        .oneshot(
            axum::http::Request::get("/metrics")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = String::from_utf8(
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    )
    .unwrap();
    assert!(text.contains("# TYPE gitlore_deliveries gauge"), "{text}");
    assert!(
        text.contains("gitlore_deliveries{state=\"done\"} 2"),
        "{text}"
    );
    assert!(
        text.contains("gitlore_comments{kind=\"inline\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("gitlore_repositories{state=\"live\"} 1"),
        "{text}"
    );
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
    other["installation"]["id"] = serde_json::json!(9);
    other["comment"]["id"] = serde_json::json!(424242);
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
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    let app = TestApp::new();
    let healthz = || async {
        let response = app
            .router
            .clone()
            .oneshot(Request::get("/healthz").body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    };
    assert_eq!(healthz().await.0, StatusCode::OK);
    let worker = app.health.watch("delivery worker");
    let died = std::thread::spawn(move || {
        let _vigil = worker;
        panic!("the worker's log write failed");
    });
    assert!(died.join().is_err());
    let (status, body) = healthz().await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("delivery worker"), "{body}");
}
