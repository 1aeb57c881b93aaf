//! The delivery worker: claims stored deliveries in order of arrival (with a lease), parses them,
//! applies their effects and marks them processed in the same transaction, and retries failures
//! with exponential backoff until they fail for good with their error kept.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use tracing::{debug, info_span, warn};

use crate::clock::Clock;
use crate::domain::UnixMs;
use crate::events::{self, Event};
use crate::ingest::{self, Applied, Memo};
use crate::knowledge::filter::NoiseRules;
use crate::store::Store;
use crate::store::deliveries::{self, Claimed};

/// How the worker retries and leases.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// How long a claim holds before another worker may take the delivery over. Long
    /// enough for the slowest batch; short enough that a crashed process's claims come back soon.
    pub lease: Duration,
    /// Attempts before a delivery fails for good.
    pub max_attempts: i64,
    /// Wait before the first retry; each further retry waits four times longer.
    pub first_backoff: Duration,
    /// Deliveries per claim and per transaction: large enough to amortise the commit, small
    /// enough that the ingress writer never waits long for the shared writer connection.
    pub batch: usize,
    /// How long processed deliveries are kept: their ids deduplicate GitHub's redeliveries
    /// (possible for a few days), their bodies allow a `replay`. Failed ones are kept until retried.
    pub retention: Duration,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            lease: Duration::from_secs(30),
            max_attempts: 6,
            first_backoff: Duration::from_secs(5),
            batch: 128,
            retention: 14 * DAY,
        }
    }
}

const DAY: Duration = Duration::from_secs(86_400);

/// How often an idle worker deletes old processed deliveries: hourly is plenty.
const PRUNE_EVERY: Duration = Duration::from_secs(3_600);

/// Longest wait between retries: one hour.
const MAX_BACKOFF: Duration = Duration::from_secs(3_600);

/// Fewer deliveries than this are parsed on one thread: starting threads would cost more.
const PARALLEL_PARSE_MIN: usize = 16;

/// How often an idle worker looks for due retries and expired leases without being woken.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// How long a transaction of the worker keeps the writer connection once a durable write (a
/// webhook being stored) waits for it. Each commit writes every page it touched to the WAL, so
/// ending after each delivery would write the same pages again and again; this bounds what the
/// wait adds to a webhook's answer.
const WRITER_SLICE: Duration = Duration::from_millis(1);

/// What one pass over a batch did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BatchStats {
    pub done: usize,
    pub ignored: usize,
    pub retried: usize,
    pub failed: usize,
}

impl BatchStats {
    pub fn total(&self) -> usize {
        self.done + self.ignored + self.retried + self.failed
    }

    fn count(&mut self, applied: &Applied) {
        match applied {
            Applied::Done(_) => self.done += 1,
            Applied::Ignored(_) => self.ignored += 1,
        }
    }

    fn add(&mut self, other: BatchStats) {
        self.done += other.done;
        self.ignored += other.ignored;
        self.retried += other.retried;
        self.failed += other.failed;
    }
}

/// Wakes the worker when deliveries arrive, and tells it to stop.
#[derive(Debug, Default)]
pub struct Signal {
    pending: Mutex<bool>,
    wake: Condvar,
    stop: AtomicBool,
}

impl Signal {
    /// New work was stored.
    pub fn notify(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        *pending = true;
        self.wake.notify_one();
    }

    /// Ask the worker to stop after its current batch.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.notify();
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn wait(&self, timeout: Duration) {
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let (mut pending, _) = self
            .wake
            .wait_timeout_while(pending, timeout, |pending| !*pending)
            .unwrap_or_else(|p| p.into_inner());
        *pending = false;
    }
}

/// Processes deliveries from the store.
pub struct Worker {
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
    rules: NoiseRules,
    settings: WorkerSettings,
    /// This worker's lease owner name: unique per process and worker.
    owner: String,
}

/// A claimed delivery and what parsing made of it.
struct Parsed {
    claimed: Claimed,
    /// The event, or why the stored body cannot be read as one (which reading again would not
    /// change).
    event: Result<Event, String>,
}

/// Decompresses and parses claimed deliveries on every core: that is most of a delivery's CPU
/// cost, and none of it needs the writer connection.
fn parse_all(claimed: Vec<Claimed>) -> Vec<Parsed> {
    let parse = |claimed: Claimed| Parsed {
        event: deliveries::decompress(&claimed.compressed_body)
            .and_then(|body| events::parse(&claimed.event, &body).map_err(|e| e.to_string())),
        claimed,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || claimed.len() < PARALLEL_PARSE_MIN {
        return claimed.into_iter().map(parse).collect();
    }
    let chunk = claimed.len().div_ceil(threads);
    let mut chunks: Vec<Vec<Claimed>> = Vec::with_capacity(threads);
    let mut rest = claimed.into_iter();
    loop {
        let part: Vec<Claimed> = rest.by_ref().take(chunk).collect();
        if part.is_empty() {
            break;
        }
        chunks.push(part);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(parse).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// Lowers the calling thread's scheduling priority (nice 10), so that while webhooks arrive the
/// cores serve them first and the worker parses its backlog with what is left. Only threads that
/// hold no lock call it: a thread holding the writer connection at low priority would keep the
/// ingress writer waiting. Best effort: where it is refused, the thread runs as before.
fn yield_to_ingress() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads no memory of ours; on Linux, PRIO_PROCESS with the id of a
    // thread sets that thread's nice value.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

impl Worker {
    pub fn new(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        rules: NoiseRules,
        settings: WorkerSettings,
    ) -> Worker {
        static WORKERS: AtomicUsize = AtomicUsize::new(0);
        let number = WORKERS.fetch_add(1, Ordering::Relaxed);
        let owner = format!("{}-{:x}-{number}", std::process::id(), clock.now().0);
        Worker {
            store,
            clock,
            rules,
            settings,
            owner,
        }
    }

    /// Processes until `signal` says stop; sleeps while there is nothing due.
    pub fn run(&self, signal: &Signal) {
        let mut last_prune: Option<UnixMs> = None;
        while !signal.stopped() {
            if let Err(error) = self.process_until_idle(Some(signal)) {
                // Claimed deliveries keep their lease and come back when it expires.
                warn!(error = format!("{error:#}"), "delivery worker pass failed");
            }
            let now = self.clock.now();
            if last_prune.is_none_or(|last| now.since(last) >= PRUNE_EVERY) {
                last_prune = Some(now);
                self.prune(now);
            }
            signal.wait(IDLE_POLL);
        }
    }

    /// Deletes processed deliveries older than the retention; failed ones stay until retried.
    fn prune(&self, now: UnixMs) {
        let cutoff = now - self.settings.retention;
        match self.store.write_derived(|tx| deliveries::prune(tx, cutoff)) {
            Ok(0) => {}
            Ok(pruned) => debug!(pruned, "old processed deliveries deleted"),
            Err(error) => warn!(error = format!("{error:#}"), "cannot prune old deliveries"),
        }
    }

    /// Processes until nothing is due. For `replay`, tests and benchmarks.
    pub fn drain(&self) -> Result<BatchStats> {
        self.process_until_idle(None)
    }

    /// Processes batches until none is due (or `signal` says stop), as a two-stage pipeline: while
    /// one batch is applied to the store, the next is parsed on other threads. Batches are
    /// claimed, and so applied, in order of arrival.
    fn process_until_idle(&self, signal: Option<&Signal>) -> Result<BatchStats> {
        let mut total = BatchStats::default();
        let mut current = parse_all(self.claim()?);
        while !current.is_empty() {
            let stopping = signal.is_some_and(Signal::stopped);
            let next = if stopping { Vec::new() } else { self.claim()? };
            let (stats, next) = std::thread::scope(|scope| {
                let parsing = scope.spawn(|| {
                    yield_to_ingress();
                    parse_all(next)
                });
                let stats = self.apply_batch(&current);
                let next = parsing
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (stats, next)
            });
            total.add(stats?);
            current = next;
        }
        Ok(total)
    }

    /// Leases the next batch of due deliveries.
    fn claim(&self) -> Result<Vec<Claimed>> {
        let now = self.clock.now();
        self.store.write_derived(|tx| {
            deliveries::claim(
                tx,
                &self.owner,
                now,
                self.settings.lease,
                self.settings.batch,
            )
        })
    }

    /// Applies and marks a parsed batch, in as few transactions as the ingress allows: a
    /// transaction ends early, after [`WRITER_SLICE`], when a durable write (a webhook being
    /// stored) waits for the writer connection, and the rest of the batch follows in the next
    /// one. Should a delivery fail, its transaction rolls back and is redone with each delivery
    /// in a savepoint, so the failure stays with the delivery that caused it. (Savepoints cost a sub-journal write per page, so
    /// the common case goes without.)
    fn apply_batch(&self, parsed: &[Parsed]) -> Result<BatchStats> {
        let mut stats = BatchStats::default();
        let mut rest = parsed;
        while !rest.is_empty() {
            let now = self.clock.now();
            let (applied, part) = self
                .store
                .write_derived(|tx| self.apply_some(tx, rest, now, false))
                .or_else(|_| {
                    self.store
                        .write_derived(|tx| self.apply_some(tx, rest, now, true))
                })?;
            stats.add(part);
            rest = &rest[applied..];
        }
        Ok(stats)
    }

    /// Applies deliveries from the front of `items` until all are applied or, after at least
    /// one and [`WRITER_SLICE`], a durable write waits. Returns how many were applied.
    fn apply_some(
        &self,
        tx: &mut crate::store::Transaction<'_>,
        items: &[Parsed],
        now: UnixMs,
        isolate: bool,
    ) -> Result<(usize, BatchStats)> {
        let mut stats = BatchStats::default();
        let mut applied = 0;
        let mut memo = Memo::default();
        let started = Instant::now();
        for item in items {
            if applied > 0
                && started.elapsed() >= WRITER_SLICE
                && self.store.durable_write_waiting()
            {
                break;
            }
            self.process(tx, item, now, &mut stats, &mut memo, isolate)?;
            applied += 1;
        }
        Ok((applied, stats))
    }

    /// Applies one delivery and marks it. With `isolate`, its effects run in a savepoint and a
    /// failure is recorded against it (retry with backoff, or failed for good); without, a
    /// failure is returned and the caller's transaction rolls back.
    fn process(
        &self,
        tx: &mut crate::store::Transaction<'_>,
        item: &Parsed,
        now: UnixMs,
        stats: &mut BatchStats,
        memo: &mut Memo,
        isolate: bool,
    ) -> Result<()> {
        let claimed = &item.claimed;
        let span = info_span!("delivery", delivery = %claimed.id, event = %claimed.event);
        let _entered = span.enter();
        let event = match &item.event {
            Ok(event) => event,
            Err(error) => {
                // Reading the same bytes again gives the same error: fail at once.
                warn!(error = %error, "delivery cannot be parsed; failed for good");
                deliveries::fail(tx, claimed.seq, &self.owner, &error.to_string(), None, now)?;
                stats.failed += 1;
                return Ok(());
            }
        };
        if !isolate {
            let applied = self.apply(tx, claimed, event, now, memo)?;
            stats.count(&applied);
            return Ok(());
        }
        let savepoint = tx.savepoint()?;
        // A savepoint may roll back: its deliveries share no memo.
        match self.apply(&savepoint, claimed, event, now, &mut Memo::default()) {
            Ok(applied) => {
                savepoint.commit()?;
                stats.count(&applied);
            }
            Err(error) => {
                drop(savepoint); // rolls the effects back
                let message = format!("{error:#}");
                let retry_at = (claimed.attempts < self.settings.max_attempts)
                    .then(|| now + self.backoff(claimed.attempts));
                warn!(error = %message, attempts = claimed.attempts, will_retry = retry_at.is_some(), "delivery failed");
                deliveries::fail(tx, claimed.seq, &self.owner, &message, retry_at, now)?;
                if retry_at.is_some() {
                    stats.retried += 1;
                } else {
                    stats.failed += 1;
                }
            }
        }
        Ok(())
    }

    /// The delivery's effects and its "processed" mark.
    fn apply(
        &self,
        conn: &crate::store::Connection,
        claimed: &Claimed,
        event: &Event,
        now: UnixMs,
        memo: &mut Memo,
    ) -> Result<Applied> {
        if let Some(installation) = event.installation_id() {
            deliveries::record_installation(conn, claimed.seq, installation)?;
        }
        let applied = ingest::apply_with_memo(conn, &self.rules, event, &claimed.id, now, memo)?;
        let (ignored, outcome) = match &applied {
            Applied::Done(what) => (false, what.as_str()),
            Applied::Ignored(why) => (true, why.as_str()),
        };
        let kept = deliveries::complete(conn, claimed.seq, &self.owner, ignored, outcome, now)?;
        anyhow::ensure!(
            kept,
            "the lease on this delivery was lost to another worker"
        );
        debug!(?applied, "delivery processed");
        Ok(applied)
    }

    /// Wait before retry number `attempts`: 5 s, 20 s, 80 s, … up to an hour.
    fn backoff(&self, attempts: i64) -> Duration {
        let exponent = u32::try_from(attempts.saturating_sub(1))
            .unwrap_or(u32::MAX)
            .min(16);
        self.settings
            .first_backoff
            .saturating_mul(4_u32.saturating_pow(exponent))
            .min(MAX_BACKOFF)
    }
}
