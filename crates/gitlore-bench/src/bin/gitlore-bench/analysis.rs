//! `gitlore-bench analysis`: embedding and clustering time and peak memory for synthetic review
//! comments (behaviour §9: 10,000 comments in under 2 s, 100,000 in under 30 s, under 500 MB).
//!
//! The comments are generated deterministically: a dozen themes, each a bank of phrasings mixed
//! with shared filler words, identifiers and paths, plus a share of unrelated comments.

use std::time::Instant;

use anyhow::{Context, Result};
use gitlore::knowledge::cluster::{Params, cluster};
use gitlore::knowledge::embed::builtin::TfIdf;
use gitlore::knowledge::embed::{Prepared, prepare};

/// Share (per mille) of generated comments that belong to no theme.
const NOISE_PER_MILLE: usize = 150;
/// Seed of the generator; fixed so every run measures the same comments.
const SEED: u64 = 0x5eed_0fc0_11ec;

/// Per theme: phrasings (one or two are picked per comment) and the directory it lives in.
const THEMES: &[(&[&str], &str)] = &[
    (
        &[
            "this unwrap will panic on bad input",
            "return an error instead of panicking",
            "propagate the error with context",
            "avoid unwrap in the request handler",
            "expect panics in production too",
        ],
        "src/server",
    ),
    (
        &[
            "please add a unit test for the empty case",
            "the error path has no test",
            "add a regression test for this bug",
            "this branch is not covered by tests",
            "the test only checks the happy path",
        ],
        "tests",
    ),
    (
        &[
            "this runs a query per row inside the loop",
            "classic n+1 query against the database",
            "batch these queries into one round trip",
            "load the rows with a single join",
            "the loop hits the database every iteration",
        ],
        "src/store",
    ),
    (
        &[
            "rename this to snake_case",
            "camelCase names break our naming convention",
            "function names are snake_case here",
            "follow the naming used in the rest of the module",
            "the variable name does not say what it holds",
        ],
        "src/knowledge",
    ),
    (
        &[
            "add a doc comment on this public function",
            "document what the function returns",
            "the docs do not mention this option",
            "update the readme with the new flag",
            "explain the unit of this constant in its doc",
        ],
        "docs",
    ),
    (
        &[
            "this clones the whole vector on every call",
            "avoid the allocation in the hot loop",
            "borrow instead of cloning the string",
            "preallocate the buffer with the known capacity",
            "this allocates a new string per token",
        ],
        "src/knowledge/embed",
    ),
    (
        &[
            "the webhook secret must not be logged",
            "sanitize the path before joining it",
            "this query is open to sql injection",
            "escape the html before rendering it",
            "never put the token in the url",
        ],
        "src/server/ingress",
    ),
    (
        &[
            "the handler should not talk to sqlite directly",
            "keep the store behind its facade",
            "this couples rendering to the database layer",
            "move this logic into the service layer",
            "the dependency goes the wrong direction",
        ],
        "src/render",
    ),
    (
        &[
            "hold the lock for less time",
            "this mutex is held across an await",
            "the guard is dropped too late and blocks other tasks",
            "use a channel instead of sharing the mutex",
            "deadlock risk when both locks are taken",
        ],
        "src/worker",
    ),
    (
        &[
            "the retry has no backoff and hammers github",
            "add jitter to the retry delay",
            "respect the rate limit headers before retrying",
            "cap the number of retries",
            "a 5xx should be retried but not a 4xx",
        ],
        "src/github",
    ),
    (
        &[
            "the migration drops data on existing databases",
            "migrations must be append only",
            "add a default for the new not null column",
            "test the migration on a database with rows",
            "this schema change needs a backfill",
        ],
        "migrations",
    ),
    (
        &[
            "the timestamp is parsed as local time",
            "store times in utc",
            "the timezone offset is lost here",
            "compare instants rather than formatted dates",
            "daylight saving breaks this schedule",
        ],
        "src/scheduler",
    ),
];

/// Words that any comment may use, themed or not.
const FILLER: &[&str] = &[
    "i think",
    "here",
    "also",
    "maybe",
    "for now",
    "in this pr",
    "as discussed",
    "again",
    "nit",
    "please",
    "looks like",
    "not sure",
    "same as above",
    "before merging",
    "in general",
    "btw",
];

/// Vocabulary of unrelated comments.
const SCATTER: &[&str] = &[
    "rollout",
    "meeting",
    "screenshot",
    "colour",
    "weekend",
    "owner",
    "roadmap",
    "invoice",
    "design",
    "review",
    "tomorrow",
    "holiday",
    "customer",
    "latency",
    "dashboard",
    "release",
    "ticket",
    "flag",
    "budget",
    "sprint",
    "linux",
    "windows",
    "docker",
    "browser",
    "mobile",
    "font",
    "chart",
    "email",
    "calendar",
    "label",
    "branch",
    "merge",
    "vendor",
    "license",
    "survey",
    "feedback",
    "beta",
    "demo",
];

/// Measures embedding and clustering for each corpus size and prints the figures.
pub fn run(sizes: &[usize]) -> Result<()> {
    println!("size      embed_s  cluster_s  total_s  clusters  noise  peak_rss_mb");
    for &size in sizes {
        let comments = generate(size);
        let start = Instant::now();
        let prepared: Vec<Prepared> = comments
            .iter()
            .map(|(body, path)| prepare(body, Some(path)))
            .collect();
        let vectors = TfIdf::fit(&prepared).vectors();
        let embedded = start.elapsed();
        let keys: Vec<usize> = (0..size).collect();
        let result = cluster(&keys, &vectors, Params::default());
        let total = start.elapsed();
        println!(
            "{size:<9} {:>7.3}  {:>9.3}  {:>7.3}  {:>8}  {:>5}  {:>11.1}",
            embedded.as_secs_f64(),
            (total - embedded).as_secs_f64(),
            total.as_secs_f64(),
            result.clusters.len(),
            result.noise.len(),
            peak_memory_mb()?,
        );
    }
    Ok(())
}

/// `size` synthetic (body, path) comments.
fn generate(size: usize) -> Vec<(String, String)> {
    let mut rng = SplitMix(SEED);
    (0..size)
        .map(|_| {
            let mut body = String::new();
            if rng.below(1000) < NOISE_PER_MILLE {
                for _ in 0..6 + rng.below(10) {
                    body.push_str(SCATTER[rng.below(SCATTER.len() as u64)]);
                    body.push(' ');
                }
                (body, format!("src/misc{}/file.rs", rng.below(40)))
            } else {
                let (phrases, directory) = THEMES[rng.below(THEMES.len() as u64)];
                for _ in 0..1 + rng.below(2) {
                    body.push_str(FILLER[rng.below(FILLER.len() as u64)]);
                    body.push_str(", ");
                    body.push_str(phrases[rng.below(phrases.len() as u64)]);
                    body.push_str(". ");
                }
                let item = rng.below(5000);
                let word = SCATTER[rng.below(SCATTER.len() as u64)];
                body.push_str(&format!("See `item_{item}` and `{word}`."));
                (body, format!("{directory}/file_{}.rs", rng.below(30)))
            }
        })
        .collect()
}

/// Peak resident memory of this process so far (VmHWM), in MB.
fn peak_memory_mb() -> Result<f64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("Cannot read /proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .context("No VmHWM in /proc/self/status")?;
    let kb: f64 = line
        .split_whitespace()
        .nth(1)
        .context("Malformed VmHWM line")?
        .parse()
        .context("Malformed VmHWM value")?;
    Ok(kb / 1024.0)
}

/// SplitMix64: a small deterministic generator.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn below(&mut self, bound: u64) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % bound) as usize
    }
}
