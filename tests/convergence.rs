//! Events arrive out of order and more than once; the store converges to the same state (behaviour §1).

mod common;

use common::{TestApp, conversation_comment, review_comment, thread};
use gitlore::domain::{CommentKind, UnixMs};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::{comments, jobs};

fn inline(app: &TestApp, id: i64) -> comments::StoredComment {
    comments::get(&app.db(), CommentKind::Inline, id)
        .unwrap()
        .expect("comment stored")
}

#[tokio::test]
async fn edit_before_create_keeps_the_edit() {
    let app = TestApp::new();
    app.send_review_comment("edited", 1, "second version", 5)
        .await;
    app.send_review_comment("created", 1, "first version", 0)
        .await;
    app.drain();
    assert_eq!(inline(&app, 1).body, "second version");
}

#[tokio::test]
async fn an_edit_older_than_the_stored_version_is_ignored() {
    let app = TestApp::new();
    app.send_review_comment("created", 1, "v1", 0).await;
    app.send_review_comment("edited", 1, "v3", 9).await;
    app.send_review_comment("edited", 1, "v2", 4).await;
    app.drain();
    let c = inline(&app, 1);
    let nine_minutes_in = common::START_MS / 1000 + 9 * 60;
    assert_eq!((c.body.as_str(), c.updated_at), ("v3", nine_minutes_in));
}

#[tokio::test]
async fn delete_before_create_leaves_a_tombstone_nothing_revives() {
    let app = TestApp::new();
    app.send_review_comment("deleted", 1, "gone", 3).await;
    app.send_review_comment("created", 1, "gone", 0).await;
    app.send_review_comment("edited", 1, "still gone", 8).await;
    app.drain();
    let c = inline(&app, 1);
    assert!(c.deleted);
    assert_eq!(c.body, "");
    assert_eq!(comments::counts(&app.db()).unwrap().0, 1);
}

#[tokio::test]
async fn a_duplicate_delivery_id_is_processed_once() {
    let app = TestApp::new();
    let created = review_comment("created", 1, "please add a test for the empty input", 0);
    let deleted = review_comment("deleted", 1, "x", 2);
    app.send_as("dup", "pull_request_review_comment", &created)
        .await;
    app.send_as("dup", "pull_request_review_comment", &deleted)
        .await;
    app.drain();
    let redelivery = "the second payload reused a delivery id: GitHub's redelivery";
    assert!(!inline(&app, 1).deleted, "{redelivery}");
}

/// Every stored comment of the fixtures' repository, as the fields convergence is about.
fn rows(app: &TestApp) -> Vec<String> {
    let stored = comments::list_for_repo(&app.db(), "codertocat/hello-world").unwrap();
    stored
        .into_iter()
        .map(|c| {
            let fields = (c.kind, c.github_id, c.body, c.noise, c.resolved, c.deleted);
            format!("{fields:?} {:?} {}", c.labels, c.updated_at)
        })
        .collect()
}

#[tokio::test]
async fn any_order_of_the_same_events_gives_the_same_rows() {
    let events = [
        (
            "pull_request_review_comment",
            review_comment("created", 1, "root: this allocates per call", 0),
        ),
        (
            "pull_request_review_comment",
            common::reply(2, 1, "reply: fixed in next commit"),
        ),
        (
            "pull_request_review_comment",
            review_comment("edited", 1, "root: this allocates on every call", 4),
        ),
        ("pull_request_review_thread", thread("resolved", 1)),
        (
            "pull_request_review_comment",
            review_comment("created", 3, "unrelated: name this `parse_header`", 0),
        ),
        (
            "pull_request_review_comment",
            review_comment("deleted", 3, "x", 6),
        ),
    ];
    let forward = TestApp::new();
    for (event, payload) in &events {
        forward.send(event, payload).await;
    }
    forward.drain();
    let backward = TestApp::new();
    for (event, payload) in events.iter().rev() {
        backward.send(event, payload).await;
        backward.drain(); // one at a time, so the order really is reversed
    }
    assert_eq!(rows(&forward), rows(&backward));
    let stored = comments::list_for_repo(&forward.db(), "codertocat/hello-world").unwrap();
    assert_eq!(stored.iter().filter(|c| c.resolved).count(), 2);
}

#[tokio::test]
async fn applying_a_delivery_twice_changes_nothing() {
    // As after a crash between a delivery's effects and its "done" mark: the same event applied
    // twice must leave the same rows (effects are idempotent on their own).
    let app = TestApp::new();
    let body = "/gitlore refresh\nAlso this needs a test.";
    let comment = conversation_comment("created", 5, body, "alice");
    app.send("issue_comment", &comment).await;
    app.drain();
    // The classifications no store function counts.
    let dump = |app: &TestApp| {
        let classified = app.count("SELECT count(*) FROM classifications");
        (rows(app), jobs::list(&app.db()).unwrap(), classified)
    };
    let before = dump(&app);
    let event = gitlore::events::parse("issue_comment", &serde_json::to_vec(&comment).unwrap());
    let event = event.unwrap();
    let rules = NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    let (delivery, now) = ("delivery-1", common::START_MS);
    app.store
        .write(|tx| gitlore::ingest::apply(tx, &rules, &event, delivery, UnixMs(now)))
        .unwrap();
    assert_eq!(dump(&app), before);
    assert_eq!(before.1.len(), 1, "one pending refresh command");
}

#[tokio::test]
async fn a_comment_edited_from_trivial_to_substantive_is_reclassified() {
    let app = TestApp::new();
    app.send_review_comment("created", 1, "LGTM", 0).await;
    app.drain();
    assert_eq!(inline(&app, 1).noise.as_deref(), Some("trivial"));
    let hash_before = classification_key(&app);
    let body = "This unwrap panics when the header is missing; return an error instead.";
    app.send_review_comment("edited", 1, body, 2).await;
    app.drain();
    let after = inline(&app, 1);
    assert_eq!(after.noise, None);
    let hash_after = classification_key(&app);
    assert_ne!(
        hash_before, hash_after,
        "classification recomputed for the new body"
    );
    let classifier = gitlore::knowledge::classify::builtin::version();
    let filter = gitlore::knowledge::filter::revision();
    let expected = format!(
        "{classifier}-{filter}:{}",
        gitlore::domain::body_hash(&after.body)
    );
    assert_eq!(
        hash_after, expected,
        "the key is the classifier's and the filter's versions and the body's hash"
    );
}

/// The one classification's key (no store function reads it back).
fn classification_key(app: &TestApp) -> String {
    let sql = "SELECT body_hash FROM classifications";
    app.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn an_unchanged_body_is_not_reclassified() {
    let app = TestApp::new();
    app.send_review_comment("created", 1, "Consider a HashSet here.", 0)
        .await;
    app.drain();
    // Tamper with the stored labels: a re-classification would overwrite them.
    let sentinel = "UPDATE classifications SET labels = '[\"sentinel\"]'";
    app.write(|tx| Ok(tx.execute(sentinel, [])?));
    app.send_review_comment("edited", 1, "Consider a HashSet here.", 3)
        .await;
    app.drain();
    assert_eq!(inline(&app, 1).labels.as_deref(), Some("[\"sentinel\"]"));
}

#[tokio::test]
async fn resolution_before_the_comment_still_applies() {
    let app = TestApp::new();
    app.send("pull_request_review_thread", &thread("resolved", 1))
        .await;
    app.drain();
    app.send_review_comment("created", 1, "Missing bounds check.", 0)
        .await;
    app.drain();
    assert!(inline(&app, 1).resolved);
}

/// `login` edits conversation comment `id` from `from` to `body`, five minutes in.
fn edited(id: i64, from: &str, body: &str, login: &str) -> serde_json::Value {
    let mut edited = conversation_comment("edited", id, body, login);
    edited["comment"]["updated_at"] = serde_json::json!(common::at(5));
    edited["changes"] = serde_json::json!({ "body": { "from": from } });
    edited
}

#[tokio::test]
async fn commands_are_recorded_once_and_only_from_people() {
    let app = TestApp::new();
    app.send_conversation_comment("created", 1, "/gitlore refresh", "maintainer")
        .await;
    app.send_conversation_comment(
        "created",
        2,
        "> /gitlore refresh\nwhy did this run?",
        "alice",
    )
    .await;
    app.send_conversation_comment("created", 3, "/gitlore refresh", "renovate[bot]")
        .await;
    app.send_conversation_comment("created", 4, "/gitlore refresh", "gitlore[bot]")
        .await;
    let typo = edited(
        1,
        "/gitlore refresh",
        "/gitlore refresh\n\n(edited for typo)",
        "maintainer",
    );
    app.send("issue_comment", &typo).await;
    let added = edited(5, "thoughts?", "thoughts?\n/gitlore help", "bob");
    app.send("issue_comment", &added).await;
    app.drain();
    let queued: Vec<String> = jobs::list(&app.db())
        .unwrap()
        .into_iter()
        .map(|j| format!("{} by {}", j.payload["command"], j.payload["author"]))
        .collect();
    assert_eq!(
        queued,
        ["\"refresh\" by \"maintainer\"", "\"help\" by \"bob\""]
    );
}

#[tokio::test]
async fn bots_and_own_comments_are_stored_as_noise() {
    let app = TestApp::new();
    let comments = [
        ("Coverage decreased by 2%", "codecov[bot]"),
        ("## gitlore findings", "gitlore[bot]"),
        ("Thanks!", "alice"),
        ("The retry loop never gives up; cap it.", "alice"),
    ];
    for (id, (body, login)) in (1..).zip(comments) {
        app.send_conversation_comment("created", id, body, login)
            .await;
    }
    app.drain();
    let stored = comments::list_for_repo(&app.db(), "codertocat/hello-world").unwrap();
    let noise: Vec<Option<String>> = stored.into_iter().map(|c| c.noise).collect();
    let expected = [Some("bot"), Some("own"), Some("trivial"), None];
    assert_eq!(noise, expected.map(|n| n.map(String::from)));
}
