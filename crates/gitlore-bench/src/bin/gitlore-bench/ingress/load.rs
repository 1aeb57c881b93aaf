//! The two tests: a closed loop of keep-alive connections for the peak, and an open loop on a
//! fixed schedule for latency at a given rate.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::client::Connection;
use super::{EVENT, Plan};

/// GitHub gives up on a delivery after 10 s, so a slower answer is a failure anyway.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Hard cap on the requests of one test, whatever the flags, so that every loop is bounded in
/// count as well as in time: 100 s at 100,000 req/s, far beyond what 2 cores serve.
const MAX_REQUESTS_PER_TEST: u64 = 10_000_000;
/// Open loop: requests beyond this many in flight are shed and counted, not queued without
/// bound; 1024 is far beyond what half the peak rate needs (a handful).
const MAX_IN_FLIGHT: usize = 1024;
/// Open loop: a pooled connection idle this long is closed rather than reused, as the server
/// may be closing it (Node's default keep-alive timeout is 5 s).
const POOL_IDLE_LIMIT: Duration = Duration::from_secs(2);
/// Open loop: lead time between building the schedule and its first send.
const SCHEDULE_LEAD: Duration = Duration::from_millis(20);

/// Where and what to send; cheap to clone into every request task.
#[derive(Clone)]
pub(super) struct Target {
    pub(super) addr: SocketAddr,
    /// Request line and headers up to the delivery id, which differs for every request.
    head_start: Arc<str>,
    body: &'static [u8],
    nonce: u32,
    /// Delivery ids are numbered so that every request of the run carries its own.
    next_id: Arc<AtomicU64>,
    answered_2xx: Arc<AtomicU64>,
    /// Open loop: idle keep-alive connections, with the time each went idle.
    idle: Arc<Mutex<Vec<(Connection, Instant)>>>,
}

enum Outcome {
    Ok,
    Status(u16),
    Failed(String),
}

impl Target {
    pub(super) fn new(
        port: u16,
        path: &str,
        body: &'static [u8],
        signature: &str,
        nonce: u32,
    ) -> Self {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let head_start = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nX-GitHub-Event: {EVENT}\r\n\
             X-Hub-Signature-256: {signature}\r\nX-GitHub-Delivery: ",
            body.len()
        );
        Self {
            addr,
            head_start: head_start.into(),
            body,
            nonce,
            next_id: Arc::new(AtomicU64::new(0)),
            answered_2xx: Arc::new(AtomicU64::new(0)),
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// 2xx answers so far.
    pub(super) fn answered(&self) -> u64 {
        self.answered_2xx.load(Ordering::Relaxed)
    }

    /// Sends one delivery on `slot`'s connection, opening one when it is empty and emptying
    /// it when the connection cannot be reused.
    async fn send_on(&self, slot: &mut Option<Connection>, head: &mut Vec<u8>) -> Outcome {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        head.clear();
        head.extend_from_slice(self.head_start.as_bytes());
        head.extend_from_slice(
            format!("{:08x}-0000-4000-8000-{n:012x}\r\n\r\n", self.nonce).as_bytes(),
        );
        let conn = match slot {
            Some(conn) => conn,
            None => match Connection::open(self.addr).await {
                Ok(conn) => slot.insert(conn),
                Err(e) => return Outcome::Failed(format!("connecting: {e}")),
            },
        };
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, conn.exchange(head, self.body)).await;
        if !conn.reusable() {
            *slot = None;
        }
        match answer {
            Ok(Ok(status)) if (200..300).contains(&status) => {
                self.answered_2xx.fetch_add(1, Ordering::Relaxed);
                Outcome::Ok
            }
            Ok(Ok(status)) => Outcome::Status(status),
            Ok(Err(e)) => Outcome::Failed(e.to_string()),
            Err(_) => Outcome::Failed(format!("no answer within {REQUEST_TIMEOUT:?}")),
        }
    }

    /// Sends one delivery on an idle pooled connection, or a new one when none is idle.
    async fn send_pooled(&self) -> Outcome {
        let mut slot = self.check_out();
        let outcome = self.send_on(&mut slot, &mut Vec::new()).await;
        if let Some(conn) = slot
            && let Ok(mut idle) = self.idle.lock()
        {
            idle.push((conn, Instant::now()));
        }
        outcome
    }

    fn check_out(&self) -> Option<Connection> {
        let mut idle = self.idle.lock().ok()?;
        while let Some((conn, since)) = idle.pop() {
            if since.elapsed() < POOL_IDLE_LIMIT {
                return Some(conn);
            }
        }
        None
    }
}

/// Results of one test.
#[derive(Default)]
pub(super) struct Tally {
    ok: u64,
    rejected: u64,
    failed: u64,
    shed: u64,
    first_problem: Option<String>,
    latencies_us: Vec<u32>,
    first_scheduled: Option<Instant>,
    last_done: Option<Instant>,
}

impl Tally {
    fn record(&mut self, outcome: Outcome, latency: Duration, done: Instant) {
        match outcome {
            Outcome::Ok => self.ok += 1,
            Outcome::Status(code) => {
                self.rejected += 1;
                self.first_problem
                    .get_or_insert_with(|| format!("HTTP {code}"));
            }
            Outcome::Failed(e) => {
                self.failed += 1;
                self.first_problem.get_or_insert(e);
            }
        }
        self.latencies_us
            .push(u32::try_from(latency.as_micros()).unwrap_or(u32::MAX));
        self.last_done = Some(self.last_done.map_or(done, |last| last.max(done)));
    }

    fn merge(&mut self, other: Tally) {
        self.ok += other.ok;
        self.rejected += other.rejected;
        self.failed += other.failed;
        self.shed += other.shed;
        if self.first_problem.is_none() {
            self.first_problem = other.first_problem;
        }
        self.latencies_us.extend(other.latencies_us);
        self.last_done = self.last_done.max(other.last_done);
    }

    pub(super) fn summarize(mut self) -> Figures {
        self.latencies_us.sort_unstable();
        let percentile = |p: f64| -> f64 {
            let n = self.latencies_us.len();
            if n == 0 {
                return f64::NAN;
            }
            // Nearest rank.
            let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
            f64::from(self.latencies_us[rank - 1]) / 1000.0
        };
        let elapsed = match (self.first_scheduled, self.last_done) {
            (Some(from), Some(to)) => to.saturating_duration_since(from).as_secs_f64(),
            _ => 0.0,
        };
        Figures {
            rate: if elapsed > 0.0 {
                self.ok as f64 / elapsed
            } else {
                0.0
            },
            p50_ms: percentile(0.50),
            p99_ms: percentile(0.99),
            ok: self.ok,
            rejected: self.rejected,
            failed: self.failed,
            shed: self.shed,
            first_problem: self.first_problem,
        }
    }
}

/// Summary of one test. `rate` counts 2xx answers per second of the measured window.
pub(super) struct Figures {
    pub(super) rate: f64,
    pub(super) p50_ms: f64,
    pub(super) p99_ms: f64,
    pub(super) ok: u64,
    pub(super) rejected: u64,
    pub(super) failed: u64,
    pub(super) shed: u64,
    pub(super) first_problem: Option<String>,
}

/// `plan.connections` tasks each send back to back on their own keep-alive connection; only
/// requests started after the warm-up are measured.
pub(super) async fn closed_loop(target: &Target, plan: &Plan) -> Tally {
    let measure_from = Instant::now() + plan.warmup;
    let end = measure_from + plan.duration;
    let started = Arc::new(AtomicU64::new(0));
    let mut tasks = JoinSet::new();
    for _ in 0..plan.connections {
        let target = target.clone();
        let started = Arc::clone(&started);
        tasks.spawn(async move {
            let mut tally = Tally::default();
            let mut conn = None;
            let mut head = Vec::new();
            while Instant::now() < end
                && started.fetch_add(1, Ordering::Relaxed) < MAX_REQUESTS_PER_TEST
            {
                let sent = Instant::now();
                let outcome = target.send_on(&mut conn, &mut head).await;
                let done = Instant::now();
                if sent >= measure_from {
                    tally.record(outcome, done - sent, done);
                }
            }
            // Handed on warm to the open loop that follows.
            if let Some(conn) = conn
                && let Ok(mut idle) = target.idle.lock()
            {
                idle.push((conn, Instant::now()));
            }
            tally
        });
    }
    let mut total = Tally {
        first_scheduled: Some(measure_from),
        ..Tally::default()
    };
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(tally) => total.merge(tally),
            Err(e) => {
                total.failed += 1;
                total.first_problem.get_or_insert(format!("load task: {e}"));
            }
        }
    }
    total
}

/// Sends at `rate` per second on a fixed schedule for `duration`, each request on whatever
/// pooled connection is free (a new one when none is); latency runs from the scheduled time.
pub(super) async fn open_loop(target: &Target, rate: f64, duration: Duration) -> Tally {
    let count = ((rate * duration.as_secs_f64()).round() as u64).min(MAX_REQUESTS_PER_TEST);
    let first = Instant::now() + SCHEDULE_LEAD;
    let mut total = Tally {
        first_scheduled: Some(first),
        ..Tally::default()
    };
    if count == 0 || !rate.is_finite() {
        return total;
    }
    // A plain thread keeps the schedule: its sleep is accurate to tens of µs where tokio's timer
    // rounds up to whole milliseconds, which would add up to 1 ms to every measured latency.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let ticker = std::thread::spawn(move || {
        for i in 0..count {
            let at = first + Duration::from_secs_f64(i as f64 / rate);
            let now = Instant::now();
            if at > now {
                std::thread::sleep(at - now);
            }
            if tx.send(at).is_err() {
                break;
            }
        }
    });
    let mut tasks = JoinSet::new();
    let take = |total: &mut Tally, joined: Result<(Outcome, Instant, Instant), _>| match joined {
        Ok((outcome, at, done)) => total.record(outcome, done.saturating_duration_since(at), done),
        Err(e) => {
            total.failed += 1;
            total.first_problem.get_or_insert(format!("load task: {e}"));
        }
    };
    while let Some(at) = rx.recv().await {
        while let Some(joined) = tasks.try_join_next() {
            take(&mut total, joined);
        }
        if tasks.len() >= MAX_IN_FLIGHT {
            total.shed += 1;
            continue;
        }
        let target = target.clone();
        tasks.spawn(async move {
            let outcome = target.send_pooled().await;
            (outcome, at, Instant::now())
        });
    }
    while let Some(joined) = tasks.join_next().await {
        take(&mut total, joined);
    }
    if ticker.join().is_err() {
        total
            .first_problem
            .get_or_insert_with(|| "schedule thread panicked".to_owned());
    }
    total
}
