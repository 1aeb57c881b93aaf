//! Migrations apply to a database holding realistic rows, and re-opening is a no-op that keeps
//! every row. When a migration is added, this test keeps the rows of the version before it.

mod common;

use common::{TestApp, conversation_comment, fixture, review_comment, thread};
use gitlore::store::Store;

const TABLES: &[&str] = &[
    "deliveries",
    "installations",
    "repos",
    "pull_requests",
    "comments",
    "review_threads",
    "classifications",
    "jobs",
];

fn counts(db: &rusqlite::Connection) -> Vec<i64> {
    TABLES
        .iter()
        .map(|t| {
            db.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                .unwrap()
        })
        .collect()
}

#[tokio::test]
async fn reopening_a_populated_database_keeps_every_row() {
    let app = TestApp::new();
    app.send("installation", &fixture("installation.created.1.json"))
        .await;
    app.send("pull_request", &fixture("pull_request.opened.12.json"))
        .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("created", 1, "Prefer `?` over unwrap here.", 0),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &review_comment("deleted", 2, "x", 0),
    )
    .await;
    app.send("pull_request_review_thread", &thread("resolved", 1))
        .await;
    app.send(
        "issue_comment",
        &conversation_comment("created", 3, "/gitlore refresh", "maintainer"),
    )
    .await;
    app.drain();
    let db_path = app.path().join("gitlore.db");
    let before = counts(&app.db());
    assert!(
        before.iter().all(|n| *n > 0),
        "every table holds rows: {before:?}"
    );

    let version: i64 = app
        .db()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 1, "one migration so far");
    let reopened = Store::open(&db_path).unwrap();
    assert_eq!(counts(&reopened.reader().unwrap()), before);
}
