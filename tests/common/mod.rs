//! A test harness: the real router, ingress writer, store and worker over a temp database, with
//! webhooks signed as GitHub signs them and payloads built from real fixtures ([`TestApp`]).
//! `story.rs` builds the end-to-end stories on it with the fake GitHub (declared by the test
//! file, as it needs `mod fake_github`); `store.rs` is a bare store, `snapshot.rs` helps inline
//! snapshots, `pause.rs` and `logs.rs` stand in for sleeping and logging, `port.rs` hands out
//! ports for server processes, `wait.rs` polls what they do.
#![allow(dead_code)] // each test file uses a different part of the harness

pub mod backend;
pub mod cli;
pub mod corpus;
pub mod findings;
pub mod git;
pub mod logs;
pub mod pause;
pub mod port;
pub mod snapshot;
pub mod store;
pub mod wait;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;

use gitlore::clock::{Clock, ManualClock};
use gitlore::domain::{Secret, UnixMs};
use gitlore::health::Health;
use gitlore::ingress::Ingress;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::server::{self, AppState, signature};
use gitlore::store::Store;
use gitlore::worker::{BatchStats, Signal, Worker, WorkerSettings};

pub const SECRET: &str = "It's a Secret to Everybody";
/// The App id the harness runs as.
pub const APP_ID: i64 = 4242;
/// 2024-01-01T00:00:00Z in ms: the harness clock's start.
pub const START_MS: i64 = 1_704_067_200_000;

pub struct TestApp {
    pub dir: tempfile::TempDir,
    pub store: Arc<Store>,
    /// Where the store lives (a SQLite file, or a PostgreSQL schema dropped with the app).
    pub database: backend::TestDatabase,
    pub clock: Arc<ManualClock>,
    pub router: axum::Router,
    pub worker: Worker,
    /// The parts' liveness `/healthz` reports.
    pub health: Arc<Health>,
    next_delivery: std::sync::atomic::AtomicU64,
}

impl TestApp {
    pub fn new() -> TestApp {
        TestApp::with_settings(WorkerSettings::default())
    }

    pub fn with_settings(settings: WorkerSettings) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let database = backend::fresh_store(dir.path());
        TestApp::on(dir, database, settings)
    }

    /// An app on `database`, with `dir` for its files.
    pub fn on(
        dir: tempfile::TempDir,
        database: backend::TestDatabase,
        settings: WorkerSettings,
    ) -> TestApp {
        let store = database.store.clone();
        let clock = Arc::new(ManualClock::new(UnixMs(START_MS)));
        let signal = Arc::new(Signal::default());
        let health = Arc::new(Health::default());
        let vigil = health.watch("ingress writer");
        let (ingress, _thread) =
            Ingress::start(store.clone(), clock.clone(), signal, vigil).unwrap();
        let state = AppState {
            webhook_secret: Arc::new(Secret::new(SECRET)),
            ingress,
            store: store.clone(),
            health: health.clone(),
        };
        let router = server::router(state, "/webhook");
        let rules = NoiseRules::new(Some(APP_ID), Some("gitlore"), &[]);
        let worker = Worker::new(
            store.clone(),
            clock.clone() as Arc<dyn Clock>,
            rules,
            settings,
        );
        TestApp {
            dir,
            store,
            database,
            clock,
            router,
            worker,
            health,
            next_delivery: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// Sends a correctly signed delivery with a fresh delivery id.
    pub async fn send(&self, event: &str, payload: &Value) -> StatusCode {
        let n = self
            .next_delivery
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.send_as(&format!("delivery-{n}"), event, payload).await
    }

    /// Sends [`review_comment`]`(action, id, body, updated_minutes)` as a
    /// `pull_request_review_comment` delivery.
    pub async fn send_review_comment(
        &self,
        action: &str,
        id: i64,
        body: &str,
        updated_minutes: i64,
    ) -> StatusCode {
        let payload = review_comment(action, id, body, updated_minutes);
        self.send("pull_request_review_comment", &payload).await
    }

    /// Sends [`conversation_comment`]`(action, id, body, login)` as an `issue_comment` delivery.
    pub async fn send_conversation_comment(
        &self,
        action: &str,
        id: i64,
        body: &str,
        login: &str,
    ) -> StatusCode {
        let payload = conversation_comment(action, id, body, login);
        self.send("issue_comment", &payload).await
    }

    /// Sends a correctly signed delivery with the given delivery id.
    pub async fn send_as(&self, delivery: &str, event: &str, payload: &Value) -> StatusCode {
        let body = serde_json::to_vec(payload).unwrap();
        let headers = [
            ("x-github-event", event.to_string()),
            ("x-github-delivery", delivery.to_string()),
            (
                "x-hub-signature-256",
                signature::sign(SECRET.as_bytes(), &body),
            ),
        ];
        self.post(&headers, body).await
    }

    /// Posts raw bytes with exactly these headers.
    pub async fn post(&self, headers: &[(&str, String)], body: Vec<u8>) -> StatusCode {
        let mut request = Request::post("/webhook").header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        self.router
            .clone()
            .oneshot(request.body(Body::from(body)).unwrap())
            .await
            .unwrap()
            .status()
    }

    /// Posts `body` with the event and delivery headers and, when given, `signature` as
    /// `X-Hub-Signature-256`.
    pub async fn post_signed_as(
        &self,
        event: &str,
        delivery: &str,
        signature: Option<String>,
        body: Vec<u8>,
    ) -> StatusCode {
        let mut headers = vec![
            ("x-github-event", event.to_string()),
            ("x-github-delivery", delivery.to_string()),
        ];
        headers.extend(signature.map(|s| ("x-hub-signature-256", s)));
        self.post(&headers, body).await
    }

    /// `GET path` on the router: the status, the content type and the body.
    pub async fn get(&self, path: &str) -> (StatusCode, String, String) {
        use http_body_util::BodyExt;
        let request = Request::get(path).body(Body::empty()).unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            content_type,
            String::from_utf8_lossy(&body).into_owned(),
        )
    }

    /// How many deliveries the store holds, in any state.
    pub fn deliveries(&self) -> i64 {
        let states = gitlore::store::deliveries::count_by_state(&self.db()).unwrap();
        states.iter().map(|(_, n)| n).sum()
    }

    /// Processes everything due.
    pub fn drain(&self) -> BatchStats {
        self.worker.drain().unwrap()
    }

    /// Runs `f` in a write transaction of the store, unwrapped.
    pub fn write<T>(
        &self,
        f: impl FnOnce(&mut gitlore::store::Transaction<'_>) -> anyhow::Result<T>,
    ) -> T {
        self.store.write(f).unwrap()
    }

    pub fn db(&self) -> gitlore::store::Connection<'static> {
        self.store.reader().unwrap()
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |row| row.get(0)).unwrap()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// (state, attempts, last error) of the one job of `kind`: the retry bookkeeping no store
    /// function reads back.
    pub fn job_attempts(&self, kind: &str) -> (String, i64, String) {
        self.db()
            .query_row(
                "SELECT state, attempts, coalesce(last_error, '') FROM jobs WHERE kind = ?1",
                [kind],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .unwrap()
    }

    /// How many comments of `repo` (`owner/name`) the store holds, deleted ones included.
    pub fn stored_comments(&self, repo: &str) -> usize {
        gitlore::store::comments::list_for_repo(&self.db(), repo)
            .unwrap()
            .len()
    }
}

/// One number from the database file `db` (opened on its own, as another process would).
pub fn scalar(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhooks")
}

/// A real payload from `tests/fixtures/webhooks`.
pub fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures_dir().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// RFC 3339 for `2024-01-01T00:00:00Z` plus `minutes`.
pub fn at(minutes: i64) -> String {
    let t = chrono::DateTime::from_timestamp(START_MS / 1000 + minutes * 60, 0).unwrap();
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// An inline review comment event on PR 1 of Codertocat/Hello-World, installation 1.
pub fn review_comment(action: &str, id: i64, body: &str, updated_minutes: i64) -> Value {
    let mut p = fixture("pull_request_review_comment.created.1.json");
    p["action"] = json!(action);
    let c = &mut p["comment"];
    c["id"] = json!(id);
    c["body"] = json!(body);
    c["created_at"] = json!(at(0));
    c["updated_at"] = json!(at(updated_minutes));
    c["in_reply_to_id"] = Value::Null;
    p["installation"] = json!({ "id": 1, "node_id": "x" });
    p
}

/// A reply in the thread of `root`.
pub fn reply(id: i64, root: i64, body: &str) -> Value {
    let mut p = review_comment("created", id, body, 1);
    p["comment"]["in_reply_to_id"] = json!(root);
    p
}

/// A PR conversation comment event (an issue comment on a pull request).
pub fn conversation_comment(action: &str, id: i64, body: &str, login: &str) -> Value {
    let mut p = fixture("issue_comment.created.0.json");
    p["action"] = json!(action);
    p["issue"]["pull_request"] = json!({ "url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1", "merged_at": null });
    p["issue"]["number"] = json!(1);
    let c = &mut p["comment"];
    c["id"] = json!(id);
    c["body"] = json!(body);
    c["user"]["login"] = json!(login);
    c["created_at"] = json!(at(0));
    c["updated_at"] = json!(at(1));
    p["installation"] = json!({ "id": 1, "node_id": "x" });
    p
}

/// A thread resolution event for a thread whose first comment is `root`.
pub fn thread(action: &str, root: i64) -> Value {
    let mut p = fixture("pull_request_review_thread.resolved.1.json");
    p["action"] = json!(action);
    p["thread"]["node_id"] = json!(format!("PRRT_{root}"));
    p["thread"]["comments"] = json!([{ "id": root, "in_reply_to_id": null }]);
    p["installation"] = json!({ "id": 1, "node_id": "x" });
    p
}
