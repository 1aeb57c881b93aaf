//! `gitlore-bench ingress`: the webhook-ingress benchmark of behaviour §9.
//!
//! Drives the real `gitlore serve` and, side by side, a minimal Probot app (`bench/probot/`)
//! with the same signed 24 KiB `pull_request_review_comment` delivery. Each server runs alone
//! (one after the other, same loopback, same cores) through two tests:
//! 1. closed loop: `--connections` keep-alive connections sending back to back, `--warmup-secs`
//!    then `--duration-secs` measured → peak requests/s (2xx answers), p50, p99;
//! 2. open loop at half of that peak on a fixed schedule, each latency measured from the
//!    request's *scheduled* send time, so a stalled server cannot hide its queue (no
//!    coordinated omission) → p50, p99.
//!
//! Afterwards it counts the deliveries in gitlore's SQLite store (after killing the server, so
//! only what was committed counts) and compares that with the number of 2xx answers.
//!
//! The load generator runs on the same 2-core machine (one thread, plus a timer thread in the
//! open loop), so it takes CPU from the server under test: the figures are lower bounds. The
//! report shows the CPU each side spent per request, and how busy other programs kept the
//! machine, which skews everything on a shared one.

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail, ensure};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use load::{Figures, REQUEST_TIMEOUT, Target, closed_loop, open_loop};
use process::{ChildGuard, TempDir, tail};
use report::{CpuSample, CpuUse, print_report};

mod client;
mod load;
mod process;
mod replicas;
mod report;

/// The delivery every request carries, before it is trimmed and padded to [`PAYLOAD_BYTES`].
const FIXTURE: &[u8] = include_bytes!(
    "../../../../../tests/fixtures/webhooks/pull_request_review_comment.created.1.json"
);
/// Payload size named by behaviour §9 ("24 KB"), taken as 24 KiB; the body is padded to exactly this.
const PAYLOAD_BYTES: usize = 24 * 1024;
/// Lists of the fixture emptied, in this order, while it is still larger than [`PAYLOAD_BYTES`]:
/// compacted, the fixture is 25.7 KB. No ingress path reads them.
const TRIMMABLE: [&str; 2] = [
    "/pull_request/requested_reviewers",
    "/pull_request/assignees",
];
/// The event every delivery announces in `X-GitHub-Event`.
const EVENT: &str = "pull_request_review_comment";
/// Probot's default webhook path (`defaultWebhookPath` in probot/lib/server/server.js).
const PROBOT_WEBHOOK_PATH: &str = "/api/github/webhooks";
/// Probot's built-in health route: `GET /ping` answers `PONG`.
const PROBOT_HEALTH_PATH: &str = "/ping";
/// Start-up allowance: gitlore runs its migrations, Node loads Probot's ~100 modules.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a starting server is asked whether it is up.
const HEALTH_POLL: Duration = Duration::from_millis(50);

/// Webhook ingress: gitlore vs a minimal Probot app (behaviour §9).
#[derive(clap::Args, Debug)]
pub struct IngressArgs {
    /// Concurrent keep-alive connections of the closed-loop (peak) test.
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// Warm-up before the closed-loop measurement, in seconds.
    #[arg(long, default_value_t = 2)]
    pub warmup_secs: u64,
    /// Measured duration of each test (closed loop, open loop), in seconds.
    #[arg(long, default_value_t = 10)]
    pub duration_secs: u64,
    /// Do not run the Probot baseline.
    #[arg(long)]
    pub skip_probot: bool,
    /// The gitlore binary [default: `gitlore` next to this binary].
    #[arg(long)]
    pub gitlore_bin: Option<PathBuf>,
    /// The Probot app directory (package.json, package-lock.json, index.js).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/probot"))]
    pub probot_dir: PathBuf,
    /// Run gitlore alone, as `--replicas` processes on this PostgreSQL database (its deliveries
    /// table grows by what they store), instead of side by side with Probot on SQLite.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// How many replicas share the database (with `--database-url`).
    #[arg(long, default_value_t = 1, requires = "database_url")]
    pub replicas: usize,
    /// GitHub App private key handed to both servers (a test key: nothing calls GitHub).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/test-app-key.pem"))]
    pub private_key: PathBuf,
}

/// Runs the benchmark and prints the figures; fails when a server does not start or when
/// gitlore's store holds fewer deliveries than it answered 2xx for.
pub fn run(args: IngressArgs) -> anyhow::Result<()> {
    ensure!(args.connections > 0, "--connections must be at least 1");
    ensure!(args.duration_secs > 0, "--duration-secs must be at least 1");
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build of the load generator; use --release for real figures");
    }
    let private_key = std::fs::canonicalize(&args.private_key)
        .with_context(|| format!("private key {}", args.private_key.display()))?;
    let gitlore_bin = match &args.gitlore_bin {
        Some(path) => path.clone(),
        None => std::env::current_exe()?
            .with_file_name(format!("gitlore{}", std::env::consts::EXE_SUFFIX)),
    };
    ensure!(
        gitlore_bin.is_file(),
        "{} not found: build it first (cargo build --release --bins)",
        gitlore_bin.display()
    );

    let nonce = run_nonce();
    let secret = format!("bench-secret-{nonce:08x}");
    // Leaked once, so that every request task can borrow it for the whole run.
    let body: &'static [u8] = Box::leak(build_payload(FIXTURE, PAYLOAD_BYTES)?.into_boxed_slice());
    let signature = sign(secret.as_bytes(), body);
    let scratch = TempDir::create(nonce)?;
    let plan = Plan {
        connections: args.connections,
        warmup: Duration::from_secs(args.warmup_secs),
        duration: Duration::from_secs(args.duration_secs),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;

    eprintln!(
        "payload: {EVENT}/created, {} bytes; {} connections, {} s warm-up, {} s per test",
        body.len(),
        plan.connections,
        args.warmup_secs,
        args.duration_secs
    );

    if let Some(url) = &args.database_url {
        let replicas = replicas::Replicas {
            count: args.replicas,
            url,
            gitlore_bin: &gitlore_bin,
            private_key: &private_key,
            secret: &secret,
            body,
            signature: &signature,
            nonce,
        };
        return replicas::run(&replicas, &plan, &scratch);
    }

    let data_dir = scratch.path().join("gitlore-data");
    std::fs::create_dir(&data_dir)?;
    let port = free_port()?;
    let mut cmd = Command::new(&gitlore_bin);
    // A clean environment and working directory: no stray GITLORE_*, PRIVATE_KEY or gitlore.toml.
    cmd.arg("serve")
        .env_clear()
        .current_dir(scratch.path())
        .env("GITLORE_WEBHOOK_SECRET", &secret)
        .env("GITLORE_APP_ID", "1")
        .env("GITLORE_PRIVATE_KEY_PATH", &private_key)
        .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
        .env("GITLORE_DATA_DIR", &data_dir)
        .env("GITLORE_LOG", "warn");
    let mut server = ChildGuard::spawn("gitlore", cmd, scratch.path().join("gitlore.log"))?;
    let target = Target::new(port, "/webhook", body, &signature, nonce);
    let gitlore = runtime.block_on(bench_server(&target, &mut server, "/healthz", &plan))?;
    server.stop();
    let stored = count_deliveries(&data_dir);

    let probot = if args.skip_probot {
        Err("--skip-probot".to_owned())
    } else {
        prepare_probot(&args.probot_dir, scratch.path()).and_then(|()| {
            let port = free_port().map_err(|e| e.to_string())?;
            let mut cmd = Command::new("node");
            // A clean environment: no stray WEBHOOK_PATH, WEBHOOK_PROXY_URL, REDIS_URL...
            cmd.arg("index.js")
                .current_dir(&args.probot_dir)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("APP_ID", "1")
                .env("PRIVATE_KEY_PATH", &private_key)
                .env("WEBHOOK_SECRET", &secret)
                .env("HOST", "127.0.0.1")
                .env("PORT", port.to_string())
                .env("LOG_LEVEL", "warn")
                .env("LOG_FORMAT", "json")
                .env("NODE_ENV", "production");
            let mut server = ChildGuard::spawn("probot", cmd, scratch.path().join("probot.log"))
                .map_err(|e| format!("{e:#}"))?;
            let target = Target::new(port, PROBOT_WEBHOOK_PATH, body, &signature, nonce);
            runtime
                .block_on(bench_server(
                    &target,
                    &mut server,
                    PROBOT_HEALTH_PATH,
                    &plan,
                ))
                .map_err(|e| format!("failed: {e:#}"))
        })
    };

    print_report(&plan, body.len(), &gitlore, &probot, &stored);
    match stored {
        Ok(n) if n >= gitlore.answered_2xx => Ok(()),
        Ok(n) => bail!(
            "gitlore answered 2xx to {} deliveries but stored only {n}",
            gitlore.answered_2xx
        ),
        Err(e) => Err(e.context("counting gitlore's stored deliveries")),
    }
}

/// Test parameters shared by both servers.
#[derive(Clone)]
struct Plan {
    connections: usize,
    warmup: Duration,
    duration: Duration,
}

/// One server's figures.
struct ServerFigures {
    peak: Figures,
    half_peak: Figures,
    peak_cpu: CpuUse,
    half_peak_cpu: CpuUse,
    /// 2xx answers over the whole run, warm-up included: each is a delivery it claims stored.
    answered_2xx: u64,
}

async fn bench_server(
    target: &Target,
    server: &mut ChildGuard,
    health_path: &str,
    plan: &Plan,
) -> anyhow::Result<ServerFigures> {
    wait_healthy(target, server, health_path).await?;
    eprintln!("{}: up, closed loop…", server.name);
    let pid = server.pid().to_string();
    let start = CpuSample::take(&pid, target);
    let peak = closed_loop(target, plan).await.summarize();
    let after_peak = CpuSample::take(&pid, target);
    ensure!(
        peak.ok > 0,
        "{} answered no request with 2xx (first problem: {})",
        server.name,
        peak.first_problem.as_deref().unwrap_or("none")
    );
    eprintln!(
        "{}: {:.0} req/s; open loop at {:.0} req/s…",
        server.name,
        peak.rate,
        peak.rate / 2.0
    );
    let half_peak = open_loop(target, peak.rate / 2.0, plan.duration)
        .await
        .summarize();
    let end = CpuSample::take(&pid, target);
    Ok(ServerFigures {
        peak,
        half_peak,
        peak_cpu: CpuUse::between(&start, &after_peak),
        half_peak_cpu: CpuUse::between(&after_peak, &end),
        answered_2xx: target.answered(),
    })
}

async fn wait_healthy(target: &Target, server: &mut ChildGuard, path: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    loop {
        if let Some(status) = server.child.try_wait()? {
            bail!(
                "{} exited ({status}) before answering GET {path}:\n{}",
                server.name,
                server.log_tail()
            );
        }
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, client::get(target.addr, path)).await;
        if let Ok(Ok(200)) = answer {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!(
                "{} did not answer GET {path} with 200 within {STARTUP_TIMEOUT:?}:\n{}",
                server.name,
                server.log_tail()
            );
        }
        tokio::time::sleep(HEALTH_POLL).await;
    }
}

/// The fixture compacted, trimmed of [`TRIMMABLE`] lists while too large, then its comment body
/// padded with ASCII prose (one byte per character in JSON) to exactly `size` bytes.
fn build_payload(fixture: &[u8], size: usize) -> anyhow::Result<Vec<u8>> {
    const FILLER: &str = "Padding so the delivery weighs what targets name. ";
    let mut payload: serde_json::Value = serde_json::from_slice(fixture).context("fixture")?;
    let mut len = serde_json::to_vec(&payload)?.len();
    for pointer in TRIMMABLE {
        if len < size {
            break;
        }
        if let Some(list) = payload.pointer_mut(pointer).and_then(|v| v.as_array_mut()) {
            list.clear();
        }
        len = serde_json::to_vec(&payload)?.len();
    }
    ensure!(
        len < size,
        "fixture is {len} bytes even trimmed, over {size}"
    );
    let body = payload
        .pointer_mut("/comment/body")
        .and_then(|v| v.as_str())
        .context("fixture has no comment.body")?
        .to_owned();
    let padding: String = FILLER.chars().cycle().take(size - len).collect();
    if let Some(slot) = payload.pointer_mut("/comment/body") {
        *slot = serde_json::Value::String(body + &padding);
    }
    let bytes = serde_json::to_vec(&payload)?;
    ensure!(
        bytes.len() == size,
        "payload is {} bytes, not {size}",
        bytes.len()
    );
    Ok(bytes)
}

/// `X-Hub-Signature-256` of `body`: `sha256=` + hex HMAC-SHA256(secret, body).
fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Readies the Probot app: node and npm must exist, and `npm ci` runs when `node_modules` is
/// missing or older than the lock file. `Err` carries why Probot is skipped.
fn prepare_probot(dir: &Path, scratch: &Path) -> Result<(), String> {
    for tool in ["node", "npm"] {
        let found = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Err(format!("`{tool}` not found on PATH"));
        }
    }
    let lock = dir.join("package-lock.json");
    let installed = dir.join("node_modules/.package-lock.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = matches!((modified(&lock), modified(&installed)), (Some(l), Some(i)) if i >= l);
    if fresh {
        return Ok(());
    }
    if modified(&lock).is_none() {
        return Err(format!("{} not found", lock.display()));
    }
    eprintln!("probot: npm ci in {}…", dir.display());
    let log = scratch.join("npm-ci.log");
    let status = File::create(&log).and_then(|out| {
        let err = out.try_clone()?;
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .status()
    });
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("npm ci failed ({s}):\n{}", tail(&log))),
        Err(e) => Err(format!("npm ci could not run: {e}")),
    }
}

/// Counts the rows of `deliveries` in the store of `data_dir`.
fn count_deliveries(data_dir: &Path) -> anyhow::Result<u64> {
    let path = gitlore::store::database_path(data_dir);
    // Read-write (WAL recovery after a kill needs it) but never create: a missing file is an error.
    let db =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
            .with_context(|| format!("opening {}", path.display()))?;
    let n: i64 = db.query_row("SELECT count(*) FROM deliveries", [], |row| row.get(0))?;
    Ok(u64::try_from(n)?)
}

/// Distinguishes this run's delivery ids, secret and scratch directory from any other's.
fn run_nonce() -> u32 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    nanos ^ std::process::id().rotate_left(16)
}

/// A loopback port free right now (the OS picks it; it stays free until a server binds it,
/// barring a race with another program).
fn free_port() -> anyhow::Result<u16> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_exactly_the_size_and_still_the_fixture() {
        let payload = build_payload(FIXTURE, PAYLOAD_BYTES).expect("payload");
        assert_eq!(payload.len(), PAYLOAD_BYTES);
        let value: serde_json::Value = serde_json::from_slice(&payload).expect("json");
        assert_eq!(value["action"], "created");
        let body = value["comment"]["body"].as_str().expect("body");
        assert!(body.starts_with("Maybe you should use more emoji on this line."));
    }

    #[test]
    fn signature_matches_githubs_documented_example() {
        // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
        assert_eq!(
            sign(b"It's a Secret to Everybody", b"Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }
}
