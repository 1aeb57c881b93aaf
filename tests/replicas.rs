//! Several replicas on one PostgreSQL database: three real `gitlore serve` processes against the
//! fake GitHub, any of them taking any webhook. A burst of deliveries spread over the three (some
//! sent to two of them, some sent again as GitHub redelivers them), one replica killed with
//! SIGKILL in the middle of it and another while it holds the analysis: every delivery is stored
//! once, the analysis finishes on a survivor once the lease runs out, and what gitlore publishes
//! is published once (one findings issue, one check run per head commit, one reply per command).
//!
//! `GITLORE_REPLICAS_DELIVERIES` sets the burst's size (1,200 by default; the closing figures use
//! 20,000).

mod common;
mod fake_github;
#[path = "common/story.rs"]
mod story;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::backend::empty_postgres;
use common::port::spare_port;
use common::wait::{now_ms, wait_for};
use common::{APP_ID, SECRET};
use fake_github::webhooks::Webhook;
use fake_github::{FakeGitHub, Fault, Target};
use gitlore::domain::markers;
use gitlore::server::signature;
use gitlore::store::{Database, Store, deliveries};
use story::{PATHS, REPO};

/// How long a job's lease lasts: a killed replica's analysis is taken over after this.
const JOB_LEASE_SECS: u64 = 4;

/// `gitlore serve` on the shared database, logging JSON to a file.
struct Replica {
    child: Child,
    port: u16,
}

impl Replica {
    fn start(gh: &FakeGitHub, url: &str, data_dir: &Path) -> Replica {
        let port = spare_port();
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join(fake_github::TEST_PRIVATE_KEY_PATH);
        std::fs::create_dir_all(data_dir).unwrap();
        let log = std::fs::File::create(data_dir.join("serve.log")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_gitlore"))
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GITLORE_APP_ID", APP_ID.to_string())
            .env("GITLORE_PRIVATE_KEY_PATH", key)
            .env("GITLORE_WEBHOOK_SECRET", SECRET)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", data_dir)
            .env("GITLORE_DATABASE_URL", url)
            .env("GITLORE_GITHUB_API_URL", gh.base_url())
            .env("GITLORE_JOB_LEASE_SECS", JOB_LEASE_SECS.to_string())
            .env("GITLORE_LOG", "info")
            .env("GITLORE_LOG_FORMAT", "json")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let replica = Replica { child, port };
        let listening = wait_for(Duration::from_secs(60), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(listening, "a replica did not listen within 60 s");
        replica
    }

    fn kill9(&mut self) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: a plain system call on a child of this process.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
        self.child.wait().unwrap();
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Posts `hook` signed, as delivery `guid`; whether the replica took it (2xx).
async fn post(client: &reqwest::Client, port: u16, guid: &str, hook: &Webhook) -> bool {
    let body = serde_json::to_vec(&hook.payload).unwrap();
    let sent = client
        .post(format!("http://127.0.0.1:{port}/webhook"))
        .header("content-type", "application/json")
        .header("x-github-event", hook.event)
        .header("x-github-delivery", guid)
        .header(
            "x-hub-signature-256",
            signature::sign(SECRET.as_bytes(), &body),
        )
        .body(body)
        .send()
        .await;
    sent.is_ok_and(|response| response.status().is_success())
}

/// Delivers `hook` as GitHub would: to the first replica that takes it, trying the others as
/// GitHub's redelivery does when one is down.
async fn deliver(
    client: &reqwest::Client,
    ports: &[u16],
    first: usize,
    guid: &str,
    hook: &Webhook,
) {
    for turn in 0..ports.len() * 20 {
        if post(client, ports[(first + turn) % ports.len()], guid, hook).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no replica took delivery {guid}");
}

/// Whether another replica holds the analysis that `owner` held, or finished it.
fn taken_over(store: &Store, owner: &str) -> bool {
    store
        .reader()
        .unwrap()
        .query_row(
            "SELECT count(*) FROM jobs WHERE kind = 'analysis'
                AND (state = 'done' OR (lease_owner IS NOT NULL AND lease_owner <> ?1))",
            [owner],
            |row| row.get::<_, i64>(0),
        )
        .unwrap()
        > 0
}

/// The replicas' logs, for a failure's message.
fn logs(data: &[PathBuf]) -> String {
    data.iter()
        .map(|d| std::fs::read_to_string(d.join("serve.log")).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n----\n")
}

fn count(store: &Store, sql: &str) -> i64 {
    store
        .reader()
        .unwrap()
        .query_row(sql, [], |row| row.get(0))
        .unwrap()
}

/// The findings issues on the fake.
fn findings_issues(gh: &FakeGitHub) -> usize {
    gh.inspect(|m| {
        m.repo(REPO)
            .issues
            .values()
            .filter(|i| i.labels.iter().any(|l| l == markers::DEFAULT_ISSUE_LABEL))
            .count()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_store_each_delivery_once_and_publish_once() {
    let Some((database, _schema)) = empty_postgres() else {
        return;
    };
    let Database::Postgres { url, .. } = &database else {
        unreachable!("empty_postgres gives a PostgreSQL database")
    };
    let burst: usize = std::env::var("GITLORE_REPLICAS_DELIVERIES")
        .map_or(1_200, |n| n.parse().expect("a number of deliveries"));
    let gh = FakeGitHub::start().await;
    story::seed_reviews(&gh, now_ms() - 10 * 24 * story::HOUR_MS, false);
    gh.set_now_ms(now_ms());
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<PathBuf> = (0..3).map(|i| dir.path().join(format!("r{i}"))).collect();
    let mut replicas: Vec<Replica> = data.iter().map(|d| Replica::start(&gh, url, d)).collect();
    let ports: Vec<u16> = replicas.iter().map(|r| r.port).collect();
    let store = Store::open_database(&database).unwrap();
    let client = reqwest::Client::new();
    let mut guids = BTreeSet::new();

    // The installation, taken by two replicas (GitHub's retry after a timeout): one backfill,
    // one analysis. Publishing is slowed so that the analysis is caught holding its lease.
    let publish = Target::rest("POST", &format!("/repos/{REPO}/issues"));
    gh.inject(publish, Fault::Delay(Duration::from_secs(5)), 1);
    let install = gh.installation_event("created", story::INSTALLATION);
    for first in [0, 1] {
        deliver(&client, &ports, first, "install", &install).await;
    }
    guids.insert("install".to_string());
    let analysing = wait_for(Duration::from_secs(60), || {
        count(
            &store,
            "SELECT count(*) FROM jobs WHERE kind = 'analysis' AND lease_owner IS NOT NULL",
        ) == 1
    });
    assert!(analysing, "the analysis started\n{}", logs(&data));
    let owner: String = store
        .reader()
        .unwrap()
        .query_row(
            "SELECT lease_owner FROM jobs WHERE kind = 'analysis'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    let analyst = replicas
        .iter()
        .position(|r| owner.starts_with(&format!("runner-{}-", r.pid())))
        .expect("a replica holds the analysis");
    replicas[analyst].kill9();
    let killed_at = Instant::now();
    let mut taken_over_in = None;

    // The burst, spread over the replicas that live; a tenth of it sent twice; the next replica
    // killed a third of the way in.
    let alive: Vec<usize> = (0..3).filter(|i| *i != analyst).collect();
    let mut live_ports: Vec<u16> = alive.iter().map(|i| ports[*i]).collect();
    let pulls: Vec<(u64, String, Webhook)> = (0..3)
        .map(|_| gh.act_open_pull(REPO, "erin", &[PATHS[0][0]]))
        .collect();
    for (n, (number, _, hook)) in pulls.iter().enumerate() {
        let guid = format!("pull-{number}");
        for first in [n, n + 1] {
            deliver(&client, &live_ports, first, &guid, hook).await;
        }
        guids.insert(guid);
    }
    let victim = alive[1];
    for n in 0..burst {
        if n % 20 == 0 && taken_over_in.is_none() && taken_over(&store, &owner) {
            taken_over_in = Some(killed_at.elapsed());
        }
        if n == burst / 3 {
            replicas[victim].kill9();
            live_ports = vec![ports[alive[0]]];
        }
        let (number, _, _) = &pulls[n % pulls.len()];
        let (_, hook) = gh.act_review_comment(
            REPO,
            *number,
            "alice",
            PATHS[0][0],
            1 + n as u64,
            &format!("Comment {n}: check the bounds here."),
        );
        let guid = format!("comment-{n}");
        deliver(&client, &live_ports, n, &guid, &hook).await;
        if n % 10 == 0 {
            deliver(&client, &live_ports, n + 1, &guid, &hook).await;
        }
        guids.insert(guid);
    }
    // Two commands, each delivered twice.
    let mut commands = Vec::new();
    for (number, _, _) in &pulls[..2] {
        let (id, hook) = gh.act_comment(REPO, *number, "maria", "/gitlore refresh");
        let guid = format!("command-{id}");
        for first in [0, 1] {
            deliver(&client, &live_ports, first, &guid, &hook).await;
        }
        guids.insert(guid);
        commands.push((*number, id));
    }

    // Everything stored once and processed; the analysis done by a survivor.
    let mut analysis_done_in = None;
    let settled = wait_for(Duration::from_secs(600), || {
        if taken_over_in.is_none() && taken_over(&store, &owner) {
            taken_over_in = Some(killed_at.elapsed());
        }
        if analysis_done_in.is_none()
            && count(
                &store,
                "SELECT count(*) FROM jobs WHERE kind = 'analysis' AND state = 'done'",
            ) > 0
        {
            analysis_done_in = Some(killed_at.elapsed());
        }
        count(
            &store,
            "SELECT count(*) FROM deliveries WHERE state = 'pending'",
        ) == 0
            && count(&store, "SELECT count(*) FROM deliveries") == guids.len() as i64
            && count(&store, "SELECT count(*) FROM jobs WHERE state = 'pending'") == 0
    });
    let reader = store.reader().unwrap();
    let states = deliveries::count_by_state(&reader).unwrap();
    assert!(settled, "settled: {states:?} of {} deliveries", guids.len());
    let stored: BTreeSet<String> = reader
        .prepare("SELECT id FROM deliveries")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap();
    assert_eq!(stored, guids, "0 lost, 0 stored twice");
    assert_eq!(states[3], ("failed", 0), "{states:?}");
    let comments = count(
        &store,
        "SELECT count(*) FROM comments WHERE body LIKE 'Comment %'",
    );
    assert_eq!(comments, burst as i64, "each comment once");
    let analysis_done_in = analysis_done_in.expect("the killed replica's analysis finished");
    let taken_over_in = taken_over_in.expect("a survivor took the analysis over");
    eprintln!(
        "{} deliveries over 3 replicas; the analysis of the replica killed holding it was taken \
         over {taken_over_in:?} after the kill and finished {analysis_done_in:?} after it",
        guids.len()
    );
    assert!(
        taken_over_in < Duration::from_secs(3 * JOB_LEASE_SECS),
        "taken over within its lease (and the runner's next look): {taken_over_in:?}"
    );
    assert_eq!(findings_issues(&gh), 1, "one findings issue");
    for (_, sha, _) in &pulls {
        let runs = gh.inspect(|m| {
            m.repo(REPO)
                .check_runs
                .iter()
                .filter(|r| &r.head_sha == sha)
                .count()
        });
        assert_eq!(runs, 1, "one check run for {sha}");
    }
    // One answer per command: the refresh that ran is marked 👀 then 🚀; the one inside the
    // cooldown gets one reply.
    for (number, id) in &commands {
        let marker = markers::reply_marker(*id);
        let (reactions, replies) = gh.inspect(|m| {
            let comments = &m.repo(REPO).issue_comments;
            let reactions: Vec<String> = comments
                .iter()
                .filter(|c| c.id == *id)
                .flat_map(|c| c.reactions.iter().map(|r| r.content.clone()))
                .collect();
            let replies = comments
                .iter()
                .filter(|c| c.issue_number == *number && c.body.contains(&marker))
                .count();
            (reactions, replies)
        });
        let answered = (reactions == ["eyes", "rocket"] && replies == 0)
            || (reactions.is_empty() && replies == 1);
        assert!(
            answered,
            "command {id}: reactions {reactions:?}, {replies} replies"
        );
    }
}
