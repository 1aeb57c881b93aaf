//! The redelivery sweep end to end: the real `gitlore serve` process against the fake GitHub,
//! which sends the App's webhooks to it, records each attempt as GitHub does, lists them and
//! sends one again when asked. Deliveries that failed while `serve` was stopped are asked for
//! and stored by the first sweep after it starts; nothing is asked twice, and nothing the store
//! holds is asked for. A sweep asks for at most its bound, and one runs at a time.

mod common;
mod fake_github;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::pause::NoPause;
use common::port::spare_port;
use common::wait::{now_ms, wait_for};
use common::{APP_ID, SECRET, review_comment};
use fake_github::FakeGitHub;
use fake_github::hooks::HookAttempt;
use fake_github::webhooks::Webhook;
use gitlore::clock::{Clock, SystemClock};
use gitlore::domain::Secret;
use gitlore::github::auth::AppKey;
use gitlore::github::client::GitHub;
use gitlore::redelivery::{self, SweepSettings};
use gitlore::store::{Store, deliveries, redeliveries};

/// `gitlore serve` as its own process, logging JSON to a file.
struct Serve {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Serve {
    /// Starts `serve` on `data_dir` against `gh`, sweeping every `sweep_secs`, and waits until
    /// it listens.
    fn start(gh: &FakeGitHub, data_dir: &Path, port: u16, sweep_secs: u64, log: &str) -> Serve {
        // The fake's clock is GitHub's: it checks the App's JWT against it.
        gh.set_now_ms(now_ms());
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join(fake_github::TEST_PRIVATE_KEY_PATH);
        let log = data_dir.join(log);
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_gitlore"))
            .arg("serve")
            .env_clear()
            .env("GITLORE_APP_ID", APP_ID.to_string())
            .env("GITLORE_PRIVATE_KEY_PATH", key)
            .env("GITLORE_WEBHOOK_SECRET", SECRET)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", data_dir)
            .env("GITLORE_GITHUB_API_URL", gh.base_url())
            .env("GITLORE_REDELIVERY_SWEEP_SECS", sweep_secs.to_string())
            .env("GITLORE_LOG", "info")
            .env("GITLORE_LOG_FORMAT", "json")
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let serve = Serve { child, port, log };
        let listening = wait_for(Duration::from_secs(30), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(listening, "serve did not listen within 30 s");
        serve
    }

    /// Stops it as a deployment does (SIGTERM) and waits for it to end.
    fn stop(mut self) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: a plain system call on a child of this process.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        assert!(self.child.wait().unwrap().success());
    }

    /// `(failed, redelivered, already_stored)` of every sweep it logged, in order.
    fn sweeps(&self) -> Vec<(i64, i64, i64)> {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        log.lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|line| line["fields"]["message"] == "redelivery sweep done")
            .map(|line| {
                let count = |name: &str| line["fields"][name].as_i64().unwrap();
                (
                    count("failed"),
                    count("redelivered"),
                    count("already_stored"),
                )
            })
            .collect()
    }

    /// `GET /metrics`.
    async fn metrics(&self) -> String {
        let url = format!("http://127.0.0.1:{}/metrics", self.port);
        reqwest::get(url).await.unwrap().text().await.unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Review comment `n` as GitHub would deliver it.
fn comment(n: i64) -> Webhook {
    Webhook {
        event: "pull_request_review_comment",
        payload: review_comment("created", n, &format!("Comment {n}: check the bounds."), 0),
    }
}

/// Which of `attempts` the store holds, by GUID.
fn stored(data_dir: &Path, attempts: &[HookAttempt]) -> usize {
    let db = gitlore::store::database_path(data_dir);
    let conn = gitlore::store::Connection::sqlite(
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap(),
    );
    attempts
        .iter()
        .filter(|a| deliveries::state_of(&conn, &a.guid).unwrap().is_some())
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_that_failed_while_serve_was_stopped_are_redelivered_and_stored_by_one_sweep() {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    let dir = tempfile::tempdir().unwrap();
    let port = spare_port();
    gh.set_hook_target(&format!("http://127.0.0.1:{port}/webhook"), SECRET);

    let first = Serve::start(&gh, dir.path(), port, 3600, "first.log");
    let mut taken = Vec::new();
    for n in 0..5 {
        let attempt = gh.deliver_hook(&comment(n)).await;
        assert!(attempt.succeeded(), "{attempt:?}");
        taken.push(attempt);
    }
    // GitHub gave up waiting on two of them, which were stored all the same.
    gh.seed(|m| {
        for attempt in &mut m.hooks.attempts[..2] {
            (attempt.status, attempt.status_code) = ("timed out".into(), 0);
        }
    });
    first.stop();

    let mut missed = Vec::new();
    for n in 5..55 {
        let attempt = gh.deliver_hook(&comment(n)).await;
        assert_eq!(attempt.status, "failed to connect to host");
        missed.push(attempt);
    }
    assert_eq!(stored(dir.path(), &missed), 0);

    let again = Serve::start(&gh, dir.path(), port, 4, "again.log");
    let all_stored = wait_for(Duration::from_secs(60), || {
        stored(dir.path(), &missed) == missed.len()
    });
    assert!(all_stored, "{} of 50 stored", stored(dir.path(), &missed));
    let two_sweeps = wait_for(Duration::from_secs(60), || again.sweeps().len() >= 2);
    assert!(two_sweeps, "sweeps logged: {:?}", again.sweeps());

    let sweeps = again.sweeps();
    assert_eq!(
        sweeps[0],
        (52, 50, 2),
        "the first sweep finds the 50 missed and the 2 stored, and asks for the 50"
    );
    assert_eq!(sweeps[1].1, 0, "the second asks for nothing: {sweeps:?}");
    let asked: BTreeSet<i64> = gh.redelivery_requests().into_iter().collect();
    let missed_ids: BTreeSet<i64> = missed.iter().map(|a| a.id).collect();
    assert_eq!(gh.redelivery_requests().len(), 50, "each asked once");
    assert_eq!(asked, missed_ids, "the missed ones, never the stored ones");
    assert_eq!(stored(dir.path(), &taken), 5);
    let metrics = again.metrics().await;
    for line in [
        "gitlore_redelivery_last_sweep{found=\"redelivered\"} 0",
        "gitlore_redelivery_last_sweep{found=\"already_stored\"} 2",
        "gitlore_redelivery_requests{state=\"requested\"} 50",
    ] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
    again.stop();
}

/// A store, and the App's client against `gh`, on the system clock.
fn sweeper(gh: &FakeGitHub, dir: &Path) -> (Store, GitHub) {
    let store = Store::open(&gitlore::store::database_path(dir)).unwrap();
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let github = GitHub::new(
        &gh.base_url(),
        key,
        Arc::new(SystemClock),
        Arc::new(NoPause),
    );
    (store, github.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_asks_for_at_most_its_bound_and_the_next_takes_up_the_rest_one_sweep_at_a_time() {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    gh.set_now_ms(now_ms());
    let nobody_listens = spare_port();
    gh.set_hook_target(
        &format!("http://127.0.0.1:{nobody_listens}/webhook"),
        SECRET,
    );
    for n in 0..50 {
        gh.deliver_hook(&comment(n)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let (store, github) = sweeper(&gh, dir.path());
    let settings = SweepSettings {
        max_redeliveries: 20,
        ..SweepSettings::default()
    };
    store
        .write(|tx| redeliveries::lease(tx, "other replica", SystemClock.now(), settings.lease))
        .unwrap();
    let busy = redelivery::sweep(&store, &github, &SystemClock, "this one", &settings).await;
    assert_eq!(busy.unwrap(), None, "another replica's sweep is running");
    store
        .write(|tx| redeliveries::release(tx, "other replica"))
        .unwrap();
    let mut asked = Vec::new();
    for _ in 0..4 {
        let counts = redelivery::sweep(&store, &github, &SystemClock, "this one", &settings)
            .await
            .unwrap()
            .expect("the lease was free");
        asked.push(counts.redelivered);
    }
    assert_eq!(asked, [20, 20, 10, 0]);
    let distinct: BTreeSet<i64> = gh.redelivery_requests().into_iter().collect();
    assert_eq!(distinct.len(), 50, "each asked once");
}
