//! Every migration applies to a database holding realistic rows of the version before it, and
//! keeps them. Rows are written at each older version through the real ingestion path (parse and
//! apply real payloads); when a migration changes what ingestion writes, give that version its own
//! row-writing step here.

mod common;

use common::{conversation_comment, fixture, review_comment, thread};
use gitlore::domain::UnixMs;
use gitlore::domain::cache::CacheKey;
use gitlore::domain::classification::Label;
use gitlore::domain::classification::Scored;
use gitlore::events;
use gitlore::ingest;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::deliveries::{self, NewDelivery};
use gitlore::store::llm_cache;
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

fn counts(db: &gitlore::store::Connection<'_>) -> Vec<i64> {
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

/// The first schema version today's ingestion writes to as it is: 0008 added
/// `pull_requests.author_login`, which ingestion fills.
const INGESTION_FITS_FROM: usize = 8;

/// Writes the realistic deliveries through the real ingestion path, in one transaction.
fn ingest_realistic(conn: &mut rusqlite::Connection) {
    let rules = NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    let raw = conn.transaction().unwrap();
    let tx = gitlore::store::Connection::sqlite_borrowed(&raw);
    for (n, (event, payload)) in realistic_deliveries().into_iter().enumerate() {
        let body = serde_json::to_vec(&payload).unwrap();
        let delivery = NewDelivery::new(format!("d{n}"), event.to_string(), &body);
        deliveries::insert(&tx, &[delivery], UnixMs(common::START_MS)).unwrap();
        let parsed = events::parse(event, &body).unwrap();
        ingest::apply(
            &tx,
            &rules,
            &parsed,
            &format!("d{n}"),
            UnixMs(common::START_MS),
        )
        .unwrap();
    }
    drop(tx);
    raw.commit().unwrap();
}

/// The rows of a version older than [`INGESTION_FITS_FROM`]: what ingestion writes today at the
/// latest version (in a scratch database beside `old`), in the columns both versions have.
fn ingest_realistic_projected(old: &rusqlite::Connection, scratch: &std::path::Path) {
    let mut latest = Store::connection_at_version(scratch, SCHEMA_VERSION).unwrap();
    ingest_realistic(&mut latest);
    drop(latest);
    old.execute("ATTACH DATABASE ?1 AS latest", [scratch.to_str().unwrap()])
        .unwrap();
    // In creation order, so that a referenced row is copied before the rows referencing it.
    let tables: Vec<String> = old
        .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for table in tables {
        // The columns both versions have: one the latest dropped (0012: `commit_files`' line
        // counts) stays NULL.
        let columns: Vec<String> = old
            .prepare(
                "SELECT name FROM pragma_table_info(?1, 'main')
                  WHERE name IN (SELECT name FROM pragma_table_info(?1, 'latest'))",
            )
            .unwrap()
            .query_map([&table], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let columns = columns.join(", ");
        old.execute(
            &format!("INSERT INTO main.{table} ({columns}) SELECT {columns} FROM latest.{table}"),
            [],
        )
        .unwrap();
    }
    old.execute("DETACH DATABASE latest", []).unwrap();
}

#[test]
fn each_migration_keeps_the_rows_of_the_version_before() {
    for version in 1..SCHEMA_VERSION {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.db");
        let mut conn = Store::connection_at_version(&path, version).unwrap();
        if version >= INGESTION_FITS_FROM {
            ingest_realistic(&mut conn);
        } else {
            ingest_realistic_projected(&conn, &dir.path().join("scratch.db"));
        }
        let before = counts(&gitlore::store::Connection::sqlite_borrowed(&conn));
        assert!(
            before.iter().all(|n| *n > 0),
            "version {version}: every table holds rows: {before:?}"
        );
        drop(conn);

        let store = Store::open(&path).unwrap();
        let db = store.reader().unwrap();
        let migrated: i64 = db
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(migrated as usize, SCHEMA_VERSION);
        assert_eq!(
            counts(&db),
            before,
            "version {version} → {SCHEMA_VERSION} kept every row"
        );
        if version < INGESTION_FITS_FROM {
            // Pull requests stored before 0008 have no known author until a snapshot names one.
            let authors: i64 = db
                .query_row("SELECT count(author_login) FROM pull_requests", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(authors, 0, "version {version}");
        }
    }
}

#[test]
fn a_pull_request_stored_before_authors_gets_its_author_from_the_next_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gitlore.db");
    let conn = Store::connection_at_version(&path, INGESTION_FITS_FROM - 1).unwrap();
    ingest_realistic_projected(&conn, &dir.path().join("scratch.db"));
    drop(conn);
    let store = Store::open(&path).unwrap();
    let rules = NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    // The same snapshot again (same `updated_at`), now read with its author.
    let body = serde_json::to_vec(&fixture("pull_request.opened.12.json")).unwrap();
    let parsed = events::parse("pull_request", &body).unwrap();
    store
        .write(|tx| ingest::apply(tx, &rules, &parsed, "again", UnixMs(common::START_MS)).map(drop))
        .unwrap();
    let authors: Vec<(i64, Option<String>)> = store
        .reader()
        .unwrap()
        .prepare("SELECT number, author_login FROM pull_requests ORDER BY number")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap();
    assert!(
        authors.contains(&(2, Some("Codertocat".to_string()))),
        "{authors:?}"
    );
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
        content_hash: "h".into(),
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
