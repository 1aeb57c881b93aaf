//! The ingestion benchmark: stores N `pull_request_review_comment` deliveries built from a real
//! payload (each a distinct comment with a realistic body), then times the worker draining them.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use gitlore::clock::{Clock, SystemClock};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::Store;
use gitlore::store::deliveries::{self, NewDelivery};
use gitlore::worker::{Worker, WorkerSettings};

/// The real payload the deliveries are built from (about 28 KB, as GitHub sends them).
const TEMPLATE: &str = include_str!(
    "../../../../../tests/fixtures/webhooks/pull_request_review_comment.created.1.json"
);

/// Review remarks of the kinds the classifier sees, cycled through with a number to keep each
/// body distinct.
const REMARKS: &[&str] = &[
    "This unwrap will panic when the header is missing; return an error instead.",
    "nit: rename `tmp` to something that says what it holds.",
    "Can we add a test for the empty input case?",
    "This clones the whole vector inside the loop, which is O(n^2) for large inputs.",
    "The SQL here is built with string formatting: use bound parameters to avoid injection.",
    "Should this live in the storage layer rather than the HTTP handler?",
    "Please document why the retry count is 5.",
    "Nice, this is much easier to read now!",
    "Why do we need a mutex here if the value is only read after startup?",
    "We usually put constants at the top of the module with their unit.",
];

#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// How many deliveries to process.
    #[arg(long, default_value_t = 50_000)]
    events: usize,
    /// Deliveries per worker transaction.
    #[arg(long, default_value_t = WorkerSettings::default().batch)]
    batch: usize,
}

pub fn run(args: IngestArgs) -> Result<()> {
    let dir = tempfile_dir()?;
    let store = Arc::new(Store::open(&dir.join("gitlore.db"))?);
    let template: Value = serde_json::from_str(TEMPLATE).context("the template payload")?;
    let clock = SystemClock;
    let (mut bytes, mut stored) = (0, 0);
    for chunk_start in (0..args.events).step_by(1_000) {
        let (sizes, chunk): (Vec<usize>, Vec<NewDelivery>) = (chunk_start
            ..(chunk_start + 1_000).min(args.events))
            .map(|n| delivery(&template, n))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        bytes += sizes.iter().sum::<usize>();
        stored += chunk.iter().map(NewDelivery::stored_size).sum::<usize>();
        let now = clock.now();
        store.write(|tx| deliveries::insert(tx, &chunk, now))?;
    }
    let settings = WorkerSettings {
        batch: args.batch,
        ..WorkerSettings::default()
    };
    let worker = Worker::new(
        store.clone(),
        Arc::new(SystemClock),
        NoiseRules::new(None, None, &[]),
        settings,
    );
    let started = Instant::now();
    let stats = worker.drain()?;
    let elapsed = started.elapsed().as_secs_f64();
    anyhow::ensure!(
        stats.done == args.events,
        "expected {} processed, got {stats:?}",
        args.events
    );
    let comments: i64 = store
        .reader()?
        .query_row("SELECT count(*) FROM comments", [], |row| row.get(0))?;
    anyhow::ensure!(
        comments as usize == args.events,
        "expected {} comments, found {comments}",
        args.events
    );
    println!(
        "ingest: {} review-comment deliveries ({:.1} KB each on average, {:.1} KB stored compressed)",
        args.events,
        bytes as f64 / args.events as f64 / 1024.0,
        stored as f64 / args.events as f64 / 1024.0
    );
    println!(
        "ingest: processed in {elapsed:.2} s = {:.0} events/s (parse + noise + classify + store, batch {})",
        args.events as f64 / elapsed,
        args.batch
    );
    println!("ingest: target (behaviour §9) >= 20000 events/s");
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

/// A delivery and its body's size before compression.
fn delivery(template: &Value, n: usize) -> Result<(usize, NewDelivery)> {
    let mut payload = template.clone();
    let remark = REMARKS[n % REMARKS.len()];
    payload["comment"]["id"] = json!(1_000_000 + n);
    payload["comment"]["body"] = json!(format!("{remark} (see case {n})"));
    payload["pull_request"]["number"] = json!(1 + n / 40);
    let body = serde_json::to_vec(&payload)?;
    Ok((
        body.len(),
        NewDelivery::new(
            format!("bench-{n}"),
            "pull_request_review_comment".into(),
            &body,
        ),
    ))
}

/// A fresh directory under the system temp dir for the benchmark's database.
fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("gitlore-bench-ingest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("Cannot create {}", dir.display()))?;
    Ok(dir)
}
