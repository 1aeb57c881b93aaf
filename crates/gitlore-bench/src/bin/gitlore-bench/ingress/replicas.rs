//! `gitlore-bench ingress --database-url URL --replicas N`: N `gitlore serve` processes on one
//! PostgreSQL database, the closed loop's connections split evenly over them (as a load balancer
//! would), all sending at once. Prints the deliveries per second they answered 2xx together, each
//! replica's latencies, and checks that the database holds every delivery answered 2xx.

use std::process::Command;

use anyhow::{Context, bail, ensure};
use gitlore::store::{Database, Store};

use super::load::{Tally, Target, closed_loop};
use super::process::{ChildGuard, TempDir};
use super::{Plan, free_port, wait_healthy};

/// What every replica is started with.
pub(super) struct Replicas<'a> {
    pub(super) count: usize,
    pub(super) url: &'a str,
    pub(super) gitlore_bin: &'a std::path::Path,
    pub(super) private_key: &'a std::path::Path,
    pub(super) secret: &'a str,
    pub(super) body: &'static [u8],
    pub(super) signature: &'a str,
    pub(super) nonce: u32,
}

pub(super) fn run(replicas: &Replicas<'_>, plan: &Plan, scratch: &TempDir) -> anyhow::Result<()> {
    ensure!(replicas.count > 0, "--replicas must be at least 1");
    ensure!(
        plan.connections >= replicas.count,
        "--connections must be at least --replicas"
    );
    let database = Database::Postgres {
        url: replicas.url.to_owned(),
        ca_file: None,
    };
    let store = Store::open_database(&database).context("--database-url")?;
    let before = stored(&store)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut servers = Vec::new();
    let mut targets = Vec::new();
    for replica in 0..replicas.count {
        let data_dir = scratch.path().join(format!("replica-{replica}"));
        std::fs::create_dir(&data_dir)?;
        let port = free_port()?;
        let mut cmd = Command::new(replicas.gitlore_bin);
        cmd.arg("serve")
            .env_clear()
            .current_dir(scratch.path())
            .env("GITLORE_WEBHOOK_SECRET", replicas.secret)
            .env("GITLORE_APP_ID", "1")
            .env("GITLORE_PRIVATE_KEY_PATH", replicas.private_key)
            .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
            .env("GITLORE_DATA_DIR", &data_dir)
            .env("GITLORE_DATABASE_URL", replicas.url)
            .env("GITLORE_LOG", "warn");
        let log = scratch.path().join(format!("replica-{replica}.log"));
        let mut server = ChildGuard::spawn("gitlore", cmd, log)?;
        // Each replica numbers its own delivery ids: none is sent to two replicas.
        let nonce = replicas
            .nonce
            .wrapping_add(u32::try_from(replica)?.wrapping_mul(0x9e37));
        let target = Target::new(port, "/webhook", replicas.body, replicas.signature, nonce);
        runtime.block_on(wait_healthy(&target, &mut server, "/healthz"))?;
        servers.push(server);
        targets.push(target);
    }
    eprintln!(
        "{} replicas up on {}; closed loop…",
        replicas.count,
        store.describe()
    );
    let share = Plan {
        connections: plan.connections / replicas.count,
        warmup: plan.warmup,
        duration: plan.duration,
    };
    let tallies: Vec<Tally> = runtime.block_on(async {
        let mut runs = tokio::task::JoinSet::new();
        for target in &targets {
            let (target, share) = (target.clone(), share.clone());
            runs.spawn(async move { closed_loop(&target, &share).await });
        }
        let mut tallies = Vec::new();
        while let Some(tally) = runs.join_next().await {
            tallies.push(tally?);
        }
        anyhow::Ok(tallies)
    })?;
    for server in &mut servers {
        server.stop();
    }
    let answered: u64 = targets.iter().map(Target::answered).sum();
    let mut total = 0.0;
    println!(
        "{} replicas on PostgreSQL, {} connections each, {} s measured",
        replicas.count,
        share.connections,
        plan.duration.as_secs()
    );
    for (replica, tally) in tallies.into_iter().enumerate() {
        let figures = tally.summarize();
        total += figures.rate;
        println!(
            "  replica {replica}: {:>8.0} deliveries/s  p50 {:>6.2} ms  p99 {:>6.2} ms  (not 2xx: {})",
            figures.rate,
            figures.p50_ms,
            figures.p99_ms,
            figures.rejected + figures.failed
        );
    }
    println!("  together: {total:>8.0} deliveries/s");
    let stored = stored(&store)? - before;
    println!("  stored: {stored} of {answered} answered 2xx");
    if stored < answered {
        bail!("the replicas answered 2xx to {answered} deliveries but stored only {stored}");
    }
    Ok(())
}

fn stored(store: &Store) -> anyhow::Result<u64> {
    let n: i64 = store
        .reader()?
        .query_row("SELECT count(*) FROM deliveries", [], |row| row.get(0))?;
    Ok(u64::try_from(n)?)
}
