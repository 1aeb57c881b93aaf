//! The redelivery sweep: GitHub does not retry a webhook delivery that failed (gitlore down, an
//! answer slower than 10 s), so on start and every period, as GitHub's documentation advises,
//! gitlore lists the App's recent deliveries (since the last sweep, with some overlap), finds
//! those GitHub records as failed that the store does not hold, and asks GitHub to deliver them
//! again, at most [`SweepSettings::max_redeliveries`] per sweep, remembering what it asked so that
//! it never asks twice. Failed deliveries the store holds (GitHub gave up on an answer that came
//! late) are counted, never asked for. One sweep runs at a time, whatever the replicas: a lease
//! row in the store. The counts go to the logs and `/metrics`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use tokio::sync::watch;

use crate::clock::Clock;
use crate::domain::UnixMs;
use crate::github::client::GitHub;
use crate::github::error::Error;
use crate::github::ops::deliveries::HookDelivery;
use crate::store::Store;
use crate::store::redeliveries::{self, Known, SweepCounts};

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// GitHub keeps an App's deliveries for three days: the furthest a sweep can look back.
const GITHUB_KEEPS: Duration = Duration::from_secs(3 * 24 * 60 * 60);

/// How a sweep works.
#[derive(Debug, Clone)]
pub struct SweepSettings {
    /// Time between sweeps (the first runs at start).
    pub period: Duration,
    /// Most deliveries asked for again per sweep; the rest wait for the next.
    pub max_redeliveries: usize,
    /// Most pages of 100 deliveries listed per sweep.
    pub max_pages: usize,
    /// How far before the last sweep's start the next one lists again: a delivery GitHub
    /// records late (a 10 s timeout) is still seen.
    pub overlap: Duration,
    /// How long a sweep holds the lease; one that dies holds it no longer.
    pub lease: Duration,
}

impl Default for SweepSettings {
    fn default() -> SweepSettings {
        SweepSettings {
            period: Duration::from_secs(10 * 60),
            max_redeliveries: 100,
            max_pages: 50,
            overlap: Duration::from_secs(10 * 60),
            lease: Duration::from_secs(30 * 60),
        }
    }
}

/// Sweeps at once and then every period until `stop` turns true. A failing sweep is logged and
/// the next one tries again; a sweep cut short by `stop` lets its lease go.
pub async fn run(
    store: Arc<Store>,
    github: Arc<GitHub>,
    clock: Arc<dyn Clock>,
    settings: SweepSettings,
    mut stop: watch::Receiver<bool>,
) {
    let owner = format!("sweep-{}-{:x}", std::process::id(), clock.now().0);
    while !*stop.borrow() {
        let swept = sweep(&store, &github, clock.as_ref(), &owner, &settings);
        let outcome = tokio::select! {
            outcome = swept => outcome,
            _ = stop.wait_for(|stopped| *stopped) => {
                if let Err(error) = store.write(|tx| redeliveries::release(tx, &owner)) {
                    tracing::warn!(error = %format!("{error:#}"), "cannot release the sweep's lease");
                }
                return;
            }
        };
        match outcome {
            Ok(Some(counts)) => tracing::info!(
                failed = counts.failed,
                redelivered = counts.redelivered,
                already_stored = counts.already_stored,
                "redelivery sweep done"
            ),
            Ok(None) => tracing::debug!("another redelivery sweep is running"),
            Err(error) => {
                tracing::warn!(error = %format!("{error:#}"), "the redelivery sweep failed")
            }
        }
        let _ = tokio::time::timeout(settings.period, stop.changed()).await;
    }
}

/// One sweep as `owner`; `None` when another holds the lease.
pub async fn sweep(
    store: &Store,
    github: &GitHub,
    clock: &dyn Clock,
    owner: &str,
    settings: &SweepSettings,
) -> Result<Option<SweepCounts>> {
    let now = clock.now();
    if !store.write(|tx| redeliveries::lease(tx, owner, now, settings.lease))? {
        return Ok(None);
    }
    let swept = sweep_leased(store, github, clock, owner, settings, now).await;
    if swept.is_err() {
        store.write(|tx| redeliveries::release(tx, owner))?;
    }
    swept.map(Some)
}

async fn sweep_leased(
    store: &Store,
    github: &GitHub,
    clock: &dyn Clock,
    owner: &str,
    settings: &SweepSettings,
    now: UnixMs,
) -> Result<SweepCounts> {
    let oldest = now - GITHUB_KEEPS;
    let since = redeliveries::list_since(&store.reader()?)?
        .unwrap_or(oldest)
        .max(oldest);
    let listing = github
        .hook_deliveries_since(since, settings.max_pages)
        .await?;
    let failed = failed_deliveries(&listing.deliveries);
    let known: Vec<Known> = {
        let conn = store.reader()?;
        failed
            .iter()
            .map(|delivery| redeliveries::known(&conn, &delivery.guid))
            .collect::<Result<_>>()?
    };
    let mut counts = SweepCounts {
        failed: failed.len() as i64,
        ..SweepCounts::default()
    };
    let mut cut_short = !listing.complete;
    for (delivery, known) in failed.iter().zip(known) {
        match known {
            Known::Stored => counts.already_stored += 1,
            Known::Asked => {}
            Known::Unknown if counts.redelivered as usize >= settings.max_redeliveries => {
                cut_short = true;
            }
            Known::Unknown => match github.redeliver(delivery.id).await {
                Ok(()) => {
                    store.write(|tx| {
                        redeliveries::record_request(
                            tx,
                            &delivery.guid,
                            delivery.id,
                            &delivery.event,
                            clock.now(),
                        )
                    })?;
                    counts.redelivered += 1;
                }
                Err(error @ Error::RateLimited { .. }) => {
                    tracing::warn!(%error, "redelivery sweep stopped by GitHub's rate limit");
                    cut_short = true;
                    break;
                }
                Err(error) => {
                    tracing::warn!(delivery = %delivery.guid, %error, "cannot ask for a redelivery");
                    cut_short = true;
                }
            },
        }
    }
    // A sweep that saw everything moves the window on; one cut short lists the same again.
    let next_since = if cut_short {
        since
    } else {
        now - settings.overlap
    };
    store.write(|tx| {
        redeliveries::prune_requests(tx, now - GITHUB_KEEPS - DAY)?;
        if !redeliveries::finish(tx, owner, counts, Some(next_since), clock.now())? {
            anyhow::bail!("the redelivery sweep's lease was taken over");
        }
        Ok(())
    })?;
    Ok(counts)
}

/// The deliveries no attempt of which succeeded, oldest first, each as its latest attempt.
fn failed_deliveries(newest_first: &[HookDelivery]) -> Vec<&HookDelivery> {
    let mut succeeded: HashMap<&str, bool> = HashMap::new();
    for delivery in newest_first {
        *succeeded.entry(&delivery.guid).or_default() |= delivery.succeeded();
    }
    let mut failed: Vec<&HookDelivery> = Vec::new();
    for delivery in newest_first {
        if succeeded.remove(delivery.guid.as_str()) == Some(false) {
            failed.push(delivery);
        }
    }
    failed.reverse();
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(id: i64, guid: &str, status: &str) -> HookDelivery {
        HookDelivery {
            id,
            guid: guid.into(),
            delivered_at: UnixMs(id),
            redelivery: false,
            status: status.into(),
            event: "issues".into(),
        }
    }

    #[test]
    fn a_delivery_failed_when_none_of_its_attempts_succeeded_and_is_asked_as_its_latest() {
        let newest_first = [
            attempt(5, "c", "Invalid HTTP Response: 503"),
            attempt(4, "b", "OK"),
            attempt(3, "a", "timed out"),
            attempt(2, "b", "Invalid HTTP Response: 502"),
            attempt(1, "a", "Invalid HTTP Response: 503"),
        ];
        let failed: Vec<(i64, &str)> = failed_deliveries(&newest_first)
            .iter()
            .map(|d| (d.id, d.guid.as_str()))
            .collect();
        assert_eq!(failed, [(3, "a"), (5, "c")]);
    }
}
