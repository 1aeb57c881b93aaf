//! Events arrive out of order and more than once; the store converges to the same state (behaviour §1).

mod common;

use common::{TestApp, conversation_comment, review_comment, thread};
use gitlore::domain::CommentKind;
use gitlore::store::{comments, jobs};

fn inline(app: &TestApp, id: i64) -> comments::StoredComment {
    comments::get(&app.db(), CommentKind::Inline, id)
        .unwrap()
        .expect("comment stored")
}

#[tokio::test]
async fn edit_before_create_keeps_the_edit() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &review_comment("edited", 1, "second version", 5),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "first version", 0),
    )
    .await;
    app.drain();
    assert_eq!(inline(&app, 1).body, "second version");
}

#[tokio::test]
async fn an_edit_older_than_the_stored_version_is_ignored() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "v1", 0),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("edited", 1, "v3", 9),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("edited", 1, "v2", 4),
    )
    .await;
    app.drain();
    let c = inline(&app, 1);
    assert_eq!(
        (c.body.as_str(), c.updated_at),
        ("v3", common::START_MS / 1000 + 9 * 60)
    );
}

#[tokio::test]
async fn delete_before_create_leaves_a_tombstone_nothing_revives() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &review_comment("deleted", 1, "gone", 3),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "gone", 0),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("edited", 1, "still gone", 8),
    )
    .await;
    app.drain();
    let c = inline(&app, 1);
    assert!(c.deleted);
    assert_eq!(c.body, "");
    assert_eq!(app.count("SELECT count(*) FROM comments"), 1);
}

#[tokio::test]
async fn a_duplicate_delivery_id_is_processed_once() {
    let app = TestApp::new();
    let created = review_comment("created", 1, "please add a test for the empty input", 0);
    app.send_as("dup", "pull_request_review_comment", &created)
        .await;
    app.send_as(
        "dup",
        "pull_request_review_comment",
        &review_comment("deleted", 1, "x", 2),
    )
    .await;
    app.drain();
    assert!(
        !inline(&app, 1).deleted,
        "the second payload reused a delivery id: GitHub's redelivery"
    );
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
    let snapshot = |app: &TestApp| {
        comments::list_for_repo(&app.db(), "codertocat/hello-world")
            .unwrap()
            .into_iter()
            .map(|c| {
                (
                    c.github_id,
                    c.body,
                    c.resolved,
                    c.deleted,
                    c.labels,
                    c.updated_at,
                )
            })
            .collect::<Vec<_>>()
    };
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
    assert_eq!(snapshot(&forward), snapshot(&backward));
    assert_eq!(
        forward.count("SELECT count(*) FROM comments WHERE resolved = 1"),
        2
    );
}

#[tokio::test]
async fn applying_a_delivery_twice_changes_nothing() {
    // As after a crash between a delivery's effects and its "done" mark: the same event applied
    // twice must leave the same rows (effects are idempotent on their own).
    let app = TestApp::new();
    let comment = conversation_comment(
        "created",
        5,
        "/gitlore refresh\nAlso this needs a test.",
        "alice",
    );
    app.send("issue_comment", &comment).await;
    app.drain();
    let dump = |app: &TestApp| {
        let db = app.db();
        let mut stmt = db.prepare("SELECT kind, github_id, body, noise, resolved, deleted, updated_at FROM comments ORDER BY id").unwrap();
        let rows: Vec<String> = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{:?}",
                    (
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                        r.get::<_, i64>(6)?
                    )
                ))
            })
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        (
            rows,
            jobs::list(&db).unwrap(),
            app.count("SELECT count(*) FROM classifications"),
        )
    };
    let before = dump(&app);
    let event =
        gitlore::events::parse("issue_comment", &serde_json::to_vec(&comment).unwrap()).unwrap();
    let rules =
        gitlore::knowledge::filter::NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    app.store
        .write(|tx| gitlore::ingest::apply(tx, &rules, &event, "delivery-1", common::START_MS))
        .unwrap();
    assert_eq!(dump(&app), before);
    assert_eq!(before.1.len(), 1, "one pending refresh command");
}

#[tokio::test]
async fn a_comment_edited_from_trivial_to_substantive_is_reclassified() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "LGTM", 0),
    )
    .await;
    app.drain();
    let before = inline(&app, 1);
    assert_eq!(before.noise.as_deref(), Some("trivial"));
    let hash_before: String = app
        .db()
        .query_row("SELECT body_hash FROM classifications", [], |r| r.get(0))
        .unwrap();
    app.send(
        "pull_request_review_comment",
        &review_comment(
            "edited",
            1,
            "This unwrap panics when the header is missing; return an error instead.",
            2,
        ),
    )
    .await;
    app.drain();
    let after = inline(&app, 1);
    assert_eq!(after.noise, None);
    let hash_after: String = app
        .db()
        .query_row("SELECT body_hash FROM classifications", [], |r| r.get(0))
        .unwrap();
    assert_ne!(
        hash_before, hash_after,
        "classification recomputed for the new body"
    );
    let version = gitlore::knowledge::classify::builtin::version();
    assert_eq!(
        hash_after,
        format!("{version}:{}", gitlore::domain::body_hash(&after.body)),
        "the key is the classifier's version and the body's hash"
    );
}

#[tokio::test]
async fn an_unchanged_body_is_not_reclassified() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "Consider a HashSet here.", 0),
    )
    .await;
    app.drain();
    // Tamper with the stored labels: a re-classification would overwrite them.
    let writer = rusqlite::Connection::open(app.path().join("gitlore.db")).unwrap();
    writer
        .execute("UPDATE classifications SET labels = '[\"sentinel\"]'", [])
        .unwrap();
    app.send(
        "pull_request_review_comment",
        &review_comment("edited", 1, "Consider a HashSet here.", 3),
    )
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
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "Missing bounds check.", 0),
    )
    .await;
    app.drain();
    assert!(inline(&app, 1).resolved);
}

#[tokio::test]
async fn commands_are_recorded_once_and_only_from_people() {
    let app = TestApp::new();
    app.send(
        "issue_comment",
        &conversation_comment("created", 1, "/gitlore refresh", "maintainer"),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment(
            "created",
            2,
            "> /gitlore refresh\nwhy did this run?",
            "alice",
        ),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment("created", 3, "/gitlore refresh", "renovate[bot]"),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment("created", 4, "/gitlore refresh", "gitlore[bot]"),
    )
    .await;
    let mut edited = conversation_comment(
        "edited",
        1,
        "/gitlore refresh\n\n(edited for typo)",
        "maintainer",
    );
    edited["comment"]["updated_at"] = serde_json::json!(common::at(5));
    edited["changes"] = serde_json::json!({ "body": { "from": "/gitlore refresh" } });
    app.send("issue_comment", &edited).await;
    let mut added = conversation_comment("edited", 5, "thoughts?\n/gitlore help", "bob");
    added["comment"]["updated_at"] = serde_json::json!(common::at(5));
    added["changes"] = serde_json::json!({ "body": { "from": "thoughts?" } });
    app.send("issue_comment", &added).await;
    app.drain();
    let queued: Vec<(String, String)> = jobs::list(&app.db())
        .unwrap()
        .into_iter()
        .map(|j| {
            (
                j.payload["command"].as_str().unwrap().to_string(),
                j.payload["author"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        queued,
        vec![
            ("refresh".to_string(), "maintainer".to_string()),
            ("help".to_string(), "bob".to_string())
        ]
    );
}

#[tokio::test]
async fn bots_and_own_comments_are_stored_as_noise() {
    let app = TestApp::new();
    app.send(
        "issue_comment",
        &conversation_comment("created", 1, "Coverage decreased by 2%", "codecov[bot]"),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment("created", 2, "## gitlore findings", "gitlore[bot]"),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment("created", 3, "Thanks!", "alice"),
    )
    .await;
    app.send(
        "issue_comment",
        &conversation_comment(
            "created",
            4,
            "The retry loop never gives up; cap it.",
            "alice",
        ),
    )
    .await;
    app.drain();
    let noise: Vec<Option<String>> = comments::list_for_repo(&app.db(), "codertocat/hello-world")
        .unwrap()
        .into_iter()
        .map(|c| c.noise)
        .collect();
    assert_eq!(
        noise,
        vec![
            Some("bot".into()),
            Some("own".into()),
            Some("trivial".into()),
            None
        ]
    );
}
