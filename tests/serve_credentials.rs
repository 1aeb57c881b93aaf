//! `gitlore serve` checks its App credentials at start: the real binary against the fake GitHub,
//! once with the App's id and once with a wrong one. A wrong id is one clear log line and a
//! `/healthz` that fails naming GitHub authentication, not a server that looks well; and a job
//! that GitHub refuses so says it loudly, as an authentication problem.

mod common;
mod fake_github;
#[path = "common/story.rs"]
mod story;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::logs::capture_logs;
use common::port::spare_port;
use common::{APP_ID, SECRET};
use fake_github::FakeGitHub;
use story::Story;

/// A `gitlore serve` process and where its log goes.
struct Serve {
    child: Child,
    port: u16,
    log: std::path::PathBuf,
}

impl Serve {
    fn start(dir: &Path, api_url: &str, app_id: i64) -> Serve {
        let port = spare_port();
        let key = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test-app-key.pem");
        let log = dir.join(format!("serve-{app_id}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_gitlore"))
            .arg("serve")
            .env_clear()
            .env("GITLORE_APP_ID", app_id.to_string())
            .env("GITLORE_PRIVATE_KEY_PATH", key)
            .env("GITLORE_WEBHOOK_SECRET", SECRET)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", dir.join(format!("data-{app_id}")))
            .env("GITLORE_GITHUB_API_URL", api_url)
            .env("GITLORE_LOG", "info")
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        Serve { child, port, log }
    }

    /// `GET /healthz`'s status and body, once the server answers.
    fn healthz(&self) -> Option<(u16, String)> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        let request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        stream.write_all(request.as_bytes()).ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        let status = answer.split_whitespace().nth(1)?.parse().ok()?;
        let body = answer.split_once("\r\n\r\n")?.1.to_string();
        Some((status, body))
    }

    /// The `/healthz` answer once `settled` holds for it, within 20 s.
    fn healthz_once(&self, settled: impl Fn(u16, &str) -> bool) -> (u16, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let answer = self.healthz();
            match answer {
                Some((status, body)) if settled(status, &body) => return (status, body),
                last if Instant::now() > deadline => panic!("/healthz: {last:?}"),
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_app_id_is_one_clear_log_line_and_a_failing_healthz() {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore-test");
    let dir = tempfile::tempdir().unwrap();
    let api = gh.base_url();

    let right = Serve::start(dir.path(), &api, APP_ID);
    // Healthy once the check has answered (the log says so).
    let (status, body) = right.healthz_once(|_, _| right.log().contains("App credentials"));
    assert_eq!((status, body.as_str()), (200, "ok\n"), "{}", right.log());
    assert!(
        right
            .log()
            .contains("GitHub accepts the App credentials (App gitlore-test)"),
        "{}",
        right.log()
    );

    let wrong = Serve::start(dir.path(), &api, APP_ID + 1);
    let (status, body) = wrong.healthz_once(|status, _| status != 200);
    assert_eq!(status, 503, "{body}");
    assert!(
        body.starts_with("GitHub authentication fails: GitHub refuses the App credentials"),
        "{body}"
    );
    let log = wrong.log();
    let refused: Vec<&str> = log.lines().filter(|l| l.contains("refuses")).collect();
    assert_eq!(refused.len(), 1, "{log}");
    assert!(
        refused[0].contains("ERROR") && refused[0].contains(&format!("App id {}", APP_ID + 1)),
        "{log}"
    );
    let checks = gh.requests();
    let checks = checks
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/app"));
    assert_eq!(checks.count(), 2, "each server asked GET /app once");
    gh.stop().await;
}

#[tokio::test]
async fn a_job_refused_for_its_credentials_says_so_as_an_error_not_a_config_problem() {
    let logs = capture_logs();
    let story = Story::new().await;
    // The App on GitHub is another one than gitlore's key and id sign for.
    story.gh.with_test_app(APP_ID + 1, "gitlore");
    story.deliver_installation().await;
    assert_eq!(story.run_jobs().await, 1, "the backfill, refused");
    let logs = logs.text();
    assert!(!logs.contains("repo config problem"), "{logs}");
    let refused: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("GitHub refuses the App credentials"))
        .collect();
    assert_eq!(refused.len(), 1, "{logs}");
    assert!(
        refused[0].contains("ERROR") && refused[0].contains("kind=\"backfill\""),
        "{logs}"
    );
    let backfill = &story.jobs()[0];
    assert_eq!(backfill.kind, "backfill");
    assert_eq!(
        backfill.state, "pending",
        "it runs again once the credentials are fixed"
    );
}
