//! The fault-injection suite: the real binary under the faults an adversarial test found —
//! log sinks that fail, kill -9 while a job runs, slow and idle clients, unsigned and oversized
//! bodies — each case reporting what was tried and whether the service held. The table
//! "case | tried | held" is printed (run with `--nocapture` to see it) and every case must hold.
//!
//! Not covered here: a full disk under the data directory (needs a small mount, hence root); a
//! log on a full disk is what `/dev/full` simulates (every write fails with ENOSPC).

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{SECRET, review_comment};
use gitlore::domain::{Repo, RepoName};
use gitlore::events::Installation;
use gitlore::server::signature;
use gitlore::store::jobs::{self, JobKind};
use gitlore::store::{self, Store, repos};

/// Where a case sends the server's stdout and stderr.
enum LogSink {
    /// Discarded.
    Null,
    /// `/dev/full`: every write fails with "no space left on device".
    DevFull,
    /// A pipe whose reading end is closed at once: every write fails with EPIPE.
    ClosedPipe,
}

/// How a case starts the server.
struct Launch<'a> {
    data_dir: &'a Path,
    log: LogSink,
    log_level: &'a str,
    /// Extra environment variables.
    env: Vec<(&'a str, String)>,
    /// `ulimit -n` for the server process.
    open_files: Option<u32>,
}

impl<'a> Launch<'a> {
    fn new(data_dir: &'a Path) -> Launch<'a> {
        Launch {
            data_dir,
            log: LogSink::Null,
            log_level: "info",
            env: Vec::new(),
            open_files: None,
        }
    }
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    /// Starts the server and waits until it listens; Err if it exits or never listens.
    fn start(launch: &Launch<'_>) -> Result<Server, String> {
        let port = free_port();
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test-app-key.pem");
        let binary = env!("CARGO_BIN_EXE_gitlore");
        let mut command = match launch.open_files {
            Some(limit) => {
                let mut sh = Command::new("sh");
                sh.args([
                    "-c",
                    &format!("ulimit -n {limit} && exec \"$0\" serve"),
                    binary,
                ]);
                sh
            }
            None => {
                let mut direct = Command::new(binary);
                direct.arg("serve");
                direct
            }
        };
        command
            .env("GITLORE_APP_ID", "4242")
            .env("GITLORE_PRIVATE_KEY_PATH", key)
            .env("GITLORE_WEBHOOK_SECRET", SECRET)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", launch.data_dir)
            .env("GITLORE_LOG", launch.log_level)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        match launch.log {
            LogSink::Null => command.stdout(Stdio::null()).stderr(Stdio::null()),
            LogSink::DevFull => command
                .stdout(File::create("/dev/full").unwrap())
                .stderr(File::create("/dev/full").unwrap()),
            LogSink::ClosedPipe => command.stdout(Stdio::piped()).stderr(Stdio::piped()),
        };
        let mut child = command.spawn().unwrap();
        drop(child.stdout.take());
        drop(child.stderr.take());
        let mut server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = server.exited() {
                return Err(format!("the server exited at start-up ({status})"));
            }
            if Instant::now() > deadline {
                return Err("the server did not listen within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// The exit status, if the process has ended.
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// `GET /healthz`: the status code, or None without an answer within `within`.
    fn healthz(&self, within: Duration) -> Option<u16> {
        let request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        exchange(self.port, request.as_bytes(), within).and_then(|answer| status(&answer))
    }

    /// Posts a signed review-comment delivery; returns the status code.
    fn deliver(&self, n: i64) -> Option<u16> {
        let payload = review_comment("created", n, &format!("Comment {n}: check the bounds."), 0);
        let body = serde_json::to_vec(&payload).unwrap();
        let head = format!(
            "POST /webhook HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n\
             X-GitHub-Event: pull_request_review_comment\r\nX-GitHub-Delivery: fault-{n}\r\n\
             X-Hub-Signature-256: {}\r\nContent-Length: {}\r\n\r\n",
            signature::sign(SECRET.as_bytes(), &body),
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(&body);
        exchange(self.port, &request, Duration::from_secs(10)).and_then(|answer| status(&answer))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A connection to the server, unless it takes longer than `within` (a full accept queue).
fn connect(port: u16, within: Duration) -> Option<TcpStream> {
    TcpStream::connect_timeout(&std::net::SocketAddr::from(([127, 0, 0, 1], port)), within).ok()
}

/// Sends `request` and reads the answer until the server closes; None on timeout or error.
fn exchange(port: u16, request: &[u8], within: Duration) -> Option<String> {
    let mut stream = connect(port, within)?;
    stream.set_read_timeout(Some(within)).ok()?;
    stream.set_write_timeout(Some(within)).ok()?;
    stream.write_all(request).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    Some(String::from_utf8_lossy(&answer).into_owned())
}

/// The status code of an HTTP answer.
fn status(answer: &str) -> Option<u16> {
    answer.split_whitespace().nth(1)?.parse().ok()
}

fn scalar(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Waits up to `limit` for `done`; returns how long it took, or None.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// One row of the table.
struct Outcome {
    case: &'static str,
    tried: String,
    held: Result<String, String>,
}

impl Outcome {
    fn new(case: &'static str, tried: impl Into<String>, held: Result<String, String>) -> Outcome {
        Outcome {
            case,
            tried: tried.into(),
            held,
        }
    }
}

/// Deliveries sent in the log-sink cases.
const LOG_CASE_DELIVERIES: i64 = 40;

/// The server logs at debug level into a sink that fails: it starts, takes signed deliveries,
/// processes them and stays healthy.
fn log_sink_case(case: &'static str, sink: LogSink, tried: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let mut launch = Launch::new(dir.path());
    launch.log = sink;
    launch.log_level = "debug";
    let held = (|| {
        let mut server = Server::start(&launch)?;
        let accepted = (1..=LOG_CASE_DELIVERIES)
            .filter(|n| server.deliver(*n) == Some(202))
            .count();
        if let Some(status) = server.exited() {
            return Err(format!("the server exited ({status})"));
        }
        if accepted as i64 != LOG_CASE_DELIVERIES {
            return Err(format!(
                "{accepted}/{LOG_CASE_DELIVERIES} deliveries accepted"
            ));
        }
        let db = store::database_path(dir.path());
        let processed = wait_for(Duration::from_secs(30), || {
            scalar(&db, "SELECT count(*) FROM deliveries WHERE state = 'done'")
                == LOG_CASE_DELIVERIES
        });
        if processed.is_none() {
            return Err("deliveries left unprocessed".into());
        }
        match server.healthz(Duration::from_secs(2)) {
            Some(200) => Ok(format!("{accepted} accepted and processed, /healthz 200")),
            other => Err(format!("/healthz answered {other:?}")),
        }
    })();
    Outcome::new(case, tried, held)
}

/// A job leased when the process is killed with SIGKILL runs again soon after a restart, once.
fn kill_during_job_case() -> Outcome {
    const LEASE_SECS: i64 = 3;
    let dir = tempfile::tempdir().unwrap();
    let db = store::database_path(dir.path());
    seed_job(&db);
    // GitHub is a black hole: the job's first request never gets an answer, so it runs on.
    let black_hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let github = format!("http://{}", black_hole.local_addr().unwrap());
    let mut launch = Launch::new(dir.path());
    launch.env = vec![
        ("GITLORE_GITHUB_API_URL", github),
        ("GITLORE_JOB_LEASE_SECS", LEASE_SECS.to_string()),
    ];
    let attempts = || scalar(&db, "SELECT attempts FROM jobs");
    let tried = format!("kill -9 while a job runs (lease {LEASE_SECS} s), restart");
    let mut server = match Server::start(&launch) {
        Ok(server) => server,
        Err(why) => return Outcome::new("kill -9 during a job", tried, Err(why)),
    };
    if wait_for(Duration::from_secs(20), || attempts() == 1).is_none() {
        return Outcome::new(
            "kill -9 during a job",
            tried,
            Err("job never started".into()),
        );
    }
    // Longer than the lease: the running job keeps it by renewing.
    std::thread::sleep(Duration::from_secs(LEASE_SECS as u64 * 2));
    let running = "SELECT count(*) FROM jobs WHERE lease_owner IS NOT NULL AND last_error IS NULL";
    if scalar(&db, running) != 1 {
        return Outcome::new(
            "kill -9 during a job",
            tried,
            Err("the job stopped running".into()),
        );
    }
    if attempts() != 1 {
        return Outcome::new(
            "kill -9 during a job",
            tried,
            Err("the running job was claimed a second time".into()),
        );
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let _server = match Server::start(&launch) {
        Ok(server) => server,
        Err(why) => return Outcome::new("kill -9 during a job", tried, Err(why)),
    };
    let held = match wait_for(Duration::from_secs(120), || attempts() == 2) {
        Some(after) if after <= Duration::from_secs(LEASE_SECS as u64 + 5) => Ok(format!(
            "job resumed {:.1} s after the restart",
            after.as_secs_f64()
        )),
        Some(after) => Err(format!("job resumed only after {after:?}")),
        None => Err("job not resumed within 120 s".into()),
    };
    Outcome::new("kill -9 during a job", tried, held)
}

/// An installed repository with one queued analysis job.
fn seed_job(db: &Path) {
    let store = Store::open(db).unwrap();
    let installation = Installation {
        id: 1,
        account_login: Some("octo".into()),
        account_type: None,
    };
    let repo = Repo {
        id: 7,
        name: RepoName::parse("octo/app").unwrap(),
        default_branch: Some("main".into()),
        private: false,
    };
    store
        .write(|tx| {
            repos::upsert_installation(tx, &installation, false)?;
            repos::upsert_repo(tx, &repo, Some(1), true)?;
            jobs::enqueue(
                tx,
                JobKind::CheckRun,
                7,
                "check:7:abc",
                &serde_json::json!({"head_sha": "abc", "pr": 1}),
                0,
            )
            .map(drop)
        })
        .unwrap();
}

/// Slow and stalled clients, unsigned and oversized bodies, against one server.
fn slow_client_cases() -> Vec<Outcome> {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&Launch::new(dir.path())).unwrap();
    let port = server.port;
    let slow_headers = std::thread::spawn(move || {
        let mut stream = connect(port, Duration::from_secs(5)).unwrap();
        let start = Instant::now();
        let head = b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-Padding: ";
        let mut sent = 0;
        while start.elapsed() < Duration::from_secs(40) {
            let byte = head.get(sent).copied().unwrap_or(b'a');
            if stream.write_all(&[byte]).is_err() {
                return Ok(format!(
                    "closed after {:.1} s",
                    start.elapsed().as_secs_f64()
                ));
            }
            sent += 1;
            std::thread::sleep(Duration::from_millis(200));
        }
        Err("still open after 40 s of headers sent byte by byte".to_string())
    });
    let stalled_body = std::thread::spawn(move || {
        let body = b"{\"zen\": \"x\"}".repeat(100);
        let head = format!(
            "POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: stall\r\n\
             X-Hub-Signature-256: {}\r\nContent-Length: {}\r\n\r\n",
            signature::sign(SECRET.as_bytes(), &body),
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(&body[..10]);
        let start = Instant::now();
        match exchange(port, &request, Duration::from_secs(40)) {
            Some(answer) => Ok(format!(
                "answered {:?} after {:.1} s",
                status(&answer),
                start.elapsed().as_secs_f64()
            )),
            None => Err("no answer within 40 s".to_string()),
        }
    });
    let unsigned = {
        let request = "POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\n\
                       X-GitHub-Delivery: u\r\nContent-Length: 1000000\r\n\r\n{";
        let start = Instant::now();
        match exchange(port, request.as_bytes(), Duration::from_secs(5)) {
            Some(answer) if status(&answer) == Some(401) => Ok(format!(
                "401 after {} ms, body unread",
                start.elapsed().as_millis()
            )),
            other => Err(format!(
                "{:?} instead of an early 401",
                other.as_deref().and_then(status)
            )),
        }
    };
    let oversized = {
        let request = "POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\n\
                       X-GitHub-Delivery: big\r\nX-Hub-Signature-256: sha256=00\r\n\
                       Content-Length: 1073741824\r\n\r\n{";
        let start = Instant::now();
        match exchange(port, request.as_bytes(), Duration::from_secs(5)) {
            Some(answer) if status(&answer) == Some(413) => {
                Ok(format!("413 after {} ms", start.elapsed().as_millis()))
            }
            other => Err(format!(
                "{:?} instead of an early 413",
                other.as_deref().and_then(status)
            )),
        }
    };
    let healthy_meanwhile = match server.healthz(Duration::from_secs(2)) {
        Some(200) => Ok("/healthz 200 while they stall".to_string()),
        other => Err(format!("/healthz answered {other:?}")),
    };
    vec![
        Outcome::new(
            "unsigned body",
            "1 MB Content-Length, no signature, body never sent",
            unsigned,
        ),
        Outcome::new("oversized body", "Content-Length 1 GiB", oversized),
        Outcome::new(
            "slow client health",
            "/healthz while slow clients hold connections",
            healthy_meanwhile,
        ),
        Outcome::new(
            "slow headers",
            "headers sent one byte per 200 ms",
            slow_headers.join().unwrap(),
        ),
        Outcome::new(
            "stalled body",
            "signed headers, 10 of 1,200 body bytes, then nothing",
            stalled_body.join().unwrap(),
        ),
    ]
}

/// Opens `count` connections at once and keeps those that connect within a few seconds.
fn open_idle(port: u16, count: usize) -> Vec<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut connecting = tokio::task::JoinSet::new();
        for _ in 0..count {
            connecting.spawn(tokio::time::timeout(
                Duration::from_secs(3),
                tokio::net::TcpStream::connect(("127.0.0.1", port)),
            ));
        }
        let mut open = Vec::new();
        while let Some(done) = connecting.join_next().await {
            if let Ok(Ok(Ok(stream))) = done {
                open.extend(stream.into_std().ok());
            }
        }
        open
    })
}

/// Idle connections beyond the open-files limit: `/healthz` and deliveries still answer.
fn idle_connections_case() -> Outcome {
    const OPEN_FILES: u32 = 256;
    const IDLE: usize = 600;
    let dir = tempfile::tempdir().unwrap();
    let mut launch = Launch::new(dir.path());
    launch.open_files = Some(OPEN_FILES);
    let server = match Server::start(&launch) {
        Ok(server) => server,
        Err(why) => return Outcome::new("idle connections", "start", Err(why)),
    };
    let idle = open_idle(server.port, IDLE);
    std::thread::sleep(Duration::from_millis(500));
    let tried = format!(
        "{IDLE} idle connections at once ({} connected), ulimit -n {OPEN_FILES}",
        idle.len()
    );
    let start = Instant::now();
    let health = server.healthz(Duration::from_secs(3));
    let health_ms = start.elapsed().as_millis();
    let delivery = server.deliver(1);
    let held = match (health, delivery) {
        (Some(200), Some(202)) => Ok(format!("/healthz 200 in {health_ms} ms, delivery 202")),
        other => Err(format!("/healthz and a delivery answered {other:?}")),
    };
    drop(idle);
    Outcome::new("idle connections", tried, held)
}

#[test]
fn fault_injection_suite() {
    let cases: Vec<std::thread::JoinHandle<Vec<Outcome>>> = vec![
        std::thread::spawn(|| {
            vec![log_sink_case(
                "log on a full disk",
                LogSink::DevFull,
                "stdout and stderr on /dev/full, debug level",
            )]
        }),
        std::thread::spawn(|| {
            vec![log_sink_case(
                "log pipe closed",
                LogSink::ClosedPipe,
                "stdout and stderr pipes closed by the reader, debug level",
            )]
        }),
        std::thread::spawn(|| vec![kill_during_job_case()]),
        std::thread::spawn(slow_client_cases),
        std::thread::spawn(|| vec![idle_connections_case()]),
    ];
    let outcomes: Vec<Outcome> = cases
        .into_iter()
        .flat_map(|case| case.join().unwrap())
        .collect();
    println!("case | tried | held");
    println!("--- | --- | ---");
    for outcome in &outcomes {
        let held = match &outcome.held {
            Ok(how) => format!("yes: {how}"),
            Err(why) => format!("NO: {why}"),
        };
        println!("{} | {} | {held}", outcome.case, outcome.tried);
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|outcome| outcome.held.is_err())
        .map(|outcome| outcome.case)
        .collect();
    assert!(failed.is_empty(), "cases that did not hold: {failed:?}");
}
