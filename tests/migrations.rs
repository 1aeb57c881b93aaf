//! Every migration applies to a database holding realistic rows of the version before it, and
//! keeps them. Rows are written at each older version through the real ingestion path (parse and
//! apply real payloads); when a migration changes what ingestion writes, give that version its own
//! row-writing step here.

mod common;

use common::{conversation_comment, fixture, review_comment, thread};
use gitlore::events;
use gitlore::ingest;
use gitlore::knowledge::classify::Label;
use gitlore::knowledge::classify::Scored;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::deliveries::{self, NewDelivery};
use gitlore::store::llm_cache::{self, CacheKey};
use gitlore::store::{SCHEMA_VERSION, Store};

const TABLES: &[&str] = &[
    "deliveries",
    "delivery_bodies",
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

/// Real payloads covering every table ingestion writes.
fn realistic_deliveries() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("installation", fixture("installation.created.1.json")),
        ("pull_request", fixture("pull_request.opened.12.json")),
        (
            "pull_request_review_comment",
            review_comment("created", 1, "Prefer `?` over unwrap here.", 0),
        ),
        (
            "pull_request_review_comment",
            review_comment("deleted", 2, "x", 0),
        ),
        ("pull_request_review_thread", thread("resolved", 1)),
        (
            "issue_comment",
            conversation_comment("created", 3, "/gitlore refresh", "maintainer"),
        ),
        (
            "issue_comment",
            conversation_comment(
                "created",
                4,
                "This should not live in the handler.",
                "alice",
            ),
        ),
    ]
}

#[test]
fn each_migration_keeps_the_rows_of_the_version_before() {
    let rules = NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    for version in 1..SCHEMA_VERSION {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.db");
        let mut conn = Store::connection_at_version(&path, version).unwrap();
        let tx = conn.transaction().unwrap();
        for (n, (event, payload)) in realistic_deliveries().into_iter().enumerate() {
            let body = serde_json::to_vec(&payload).unwrap();
            let delivery = NewDelivery::new(format!("d{n}"), event.to_string(), &body);
            deliveries::insert(&tx, &[delivery], common::START_MS).unwrap();
            let parsed = events::parse(event, &body).unwrap();
            ingest::apply(&tx, &rules, &parsed, &format!("d{n}"), common::START_MS).unwrap();
        }
        tx.commit().unwrap();
        let before = counts(&conn);
        assert!(
            before.iter().all(|n| *n > 0),
            "version {version}: every table holds rows: {before:?}"
        );
        drop(conn);

        let store = Store::open(&path).unwrap();
        let db = store.reader().unwrap();
        let migrated: i64 = db
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(migrated as usize, SCHEMA_VERSION);
        assert_eq!(
            counts(&db),
            before,
            "version {version} → {SCHEMA_VERSION} kept every row"
        );
    }
}

#[test]
fn the_latest_schema_is_usable_after_migrating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gitlore.db");
    drop(Store::connection_at_version(&path, 1).unwrap());
    let store = Store::open(&path).unwrap();
    let key = CacheKey {
        provider: "openai".into(),
        model: "m".into(),
        prompt_version: "v".into(),
        body_hash: "h".into(),
    };
    let labels = vec![Scored {
        label: Label::Bug,
        confidence: 0.9,
    }];
    store.write(|tx| llm_cache::put(tx, &key, &labels)).unwrap();
    assert_eq!(
        llm_cache::get(&store.reader().unwrap(), &key).unwrap(),
        Some(labels)
    );
}
