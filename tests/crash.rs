//! A crash test with the real binary: deliveries flow in, the process is killed with SIGKILL while
//! the worker is busy, and after a restart every acknowledged delivery is there and was applied
//! exactly once.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::port::spare_port;
use common::{SECRET, review_comment, scalar};
use gitlore::server::signature;

/// Deliveries sent in all; the process is killed after `KILL_AFTER` of them are acknowledged.
const TOTAL: i64 = 1_000;
const KILL_AFTER: usize = 500;

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(data_dir: &Path) -> Server {
        let port = spare_port();
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test-app-key.pem");
        let child = Command::new(env!("CARGO_BIN_EXE_gitlore"))
            .arg("serve")
            .env("GITLORE_APP_ID", "4242")
            .env("GITLORE_PRIVATE_KEY_PATH", key)
            .env("GITLORE_WEBHOOK_SECRET", SECRET)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", data_dir)
            .env("GITLORE_WORKER_LEASE_SECS", "1")
            .env("GITLORE_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_loses_nothing_acknowledged_and_applies_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gitlore.db");
    let mut server = Server::start(dir.path());
    let client = reqwest::Client::new();

    let bodies: Vec<(String, Vec<u8>)> = (1..=TOTAL)
        .map(|n| {
            let payload = review_comment(
                "created",
                n,
                &format!("Comment {n}: this path skips validation of the header."),
                0,
            );
            (format!("crash-{n}"), serde_json::to_vec(&payload).unwrap())
        })
        .collect();
    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut sent = 0;
    let mut killed_pending = None;
    for chunk in bodies.chunks(50) {
        let url = format!("http://127.0.0.1:{}/webhook", server.port);
        let requests = chunk.iter().map(|(id, body)| {
            let (client, url, acknowledged) = (client.clone(), url.clone(), acknowledged.clone());
            let (id, body) = (id.clone(), body.clone());
            async move {
                let response = client
                    .post(&url)
                    .header("x-github-event", "pull_request_review_comment")
                    .header("x-github-delivery", &id)
                    .header(
                        "x-hub-signature-256",
                        signature::sign(SECRET.as_bytes(), &body),
                    )
                    .body(body)
                    .send()
                    .await;
                if response.is_ok_and(|r| r.status().is_success()) {
                    acknowledged.lock().unwrap().push(id);
                }
            }
        });
        futures_join_all(requests).await;
        sent += chunk.len();
        if killed_pending.is_none() && acknowledged.lock().unwrap().len() >= KILL_AFTER {
            server.child.kill().unwrap(); // SIGKILL: no shutdown code runs
            server.child.wait().unwrap();
            killed_pending = Some(scalar(
                &db,
                "SELECT count(*) FROM deliveries WHERE state = 'pending'",
            ));
            server = Server::start(dir.path());
        }
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    println!(
        "sent {sent}, acknowledged {}, pending at the kill: {killed_pending:?}",
        acknowledged.len()
    );
    assert!(killed_pending.is_some(), "the server was killed mid-run");
    assert!(
        acknowledged.len() as i64 >= TOTAL - 50,
        "the restarted server took the rest"
    );

    let deadline = Instant::now() + Duration::from_secs(60);
    while scalar(
        &db,
        "SELECT count(*) FROM deliveries WHERE state = 'pending'",
    ) > 0
    {
        assert!(
            Instant::now() < deadline,
            "deliveries left unprocessed after the restart"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    for id in &acknowledged {
        let state: String = conn
            .query_row("SELECT state FROM deliveries WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(state, "done", "{id}");
    }
    let stored = scalar(&db, "SELECT count(*) FROM deliveries");
    assert!(stored >= acknowledged.len() as i64);
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM comments"),
        stored,
        "one comment per stored delivery"
    );
    assert_eq!(scalar(&db, "SELECT count(*) FROM classifications"), stored);
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM deliveries WHERE state <> 'done'"),
        0
    );
}

/// Runs futures concurrently to completion.
async fn futures_join_all<F: std::future::Future<Output = ()> + Send + 'static>(
    futures: impl Iterator<Item = F>,
) {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    for handle in handles {
        handle.await.unwrap();
    }
}
