//! The `deliveries` table: the durable inbox of verified webhooks and its lease-based claiming.

use std::time::Duration;

use super::sql::{Connection, Dialect, OptionalExtension, params};
use anyhow::Result;

use crate::domain::{InstallationId, UnixMs};

/// A verified webhook delivery as received, its body compressed for storage.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    /// `X-GitHub-Delivery`.
    pub id: String,
    /// `X-GitHub-Event`.
    pub event: String,
    /// The body exactly as signed, LZ4-compressed (JSON payloads shrink about 4×, and so does
    /// what every delivery costs the disk).
    compressed_body: Vec<u8>,
}

impl NewDelivery {
    /// Compresses `body`: on the caller's thread, so the single writer thread only writes.
    pub fn new(id: String, event: String, body: &[u8]) -> NewDelivery {
        NewDelivery {
            id,
            event,
            compressed_body: lz4_flex::compress_prepend_size(body),
        }
    }

    /// How many bytes the body takes in the store.
    pub fn stored_size(&self) -> usize {
        self.compressed_body.len()
    }
}

/// Whether an insert stored a new delivery or found its id already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    New,
    Duplicate,
}

/// A delivery claimed by a worker.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub seq: i64,
    pub id: String,
    pub event: String,
    /// The body as stored; [`decompress`] gives it back as signed.
    pub compressed_body: Vec<u8>,
    /// Attempts so far, this one included.
    pub attempts: i64,
}

/// One row of `gitlore deliveries`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRow {
    pub id: String,
    pub event: String,
    pub state: String,
    pub attempts: i64,
    pub received_at: UnixMs,
    pub last_error: Option<String>,
}

/// Stores deliveries, ignoring ids already present. Call inside one transaction for group commit.
pub fn insert(conn: &Connection, deliveries: &[NewDelivery], now: UnixMs) -> Result<Vec<Inserted>> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO deliveries (id, event, received_at, next_attempt_at)
         VALUES (?1, ?2, ?3, ?3) ON CONFLICT (id) DO NOTHING RETURNING seq",
    )?;
    let mut insert_body =
        conn.prepare_cached("INSERT INTO delivery_bodies (seq, body) VALUES (?1, ?2)")?;
    deliveries
        .iter()
        .map(|d| {
            let seq: Option<i64> = insert
                .query_row(params![d.id, d.event, now], |row| row.get(0))
                .optional()?;
            let Some(seq) = seq else {
                return Ok(Inserted::Duplicate);
            };
            insert_body.execute(params![seq, d.compressed_body])?;
            Ok(Inserted::New)
        })
        .collect()
}

/// Leases up to `limit` due pending deliveries, oldest first, and counts the attempt.
///
/// The attempt is counted at claim time so that a delivery that crashes the process is still
/// given up on after the last attempt instead of crash-looping forever.
pub fn claim(
    conn: &Connection,
    owner: &str,
    now: UnixMs,
    lease: Duration,
    limit: usize,
) -> Result<Vec<Claimed>> {
    // Replicas on one PostgreSQL database claim at the same time: each skips the rows another
    // is claiming. (SQLite has one writer: nothing to skip.)
    let skip_locked = match conn.dialect() {
        Dialect::Sqlite => "",
        Dialect::Postgres => "FOR UPDATE SKIP LOCKED",
    };
    let mut stmt = conn.prepare_cached(&format!(
        "UPDATE deliveries
            SET lease_owner = ?1, lease_expires_at = ?2, attempts = attempts + 1
          WHERE seq IN (SELECT seq FROM deliveries
                         WHERE state = 'pending' AND next_attempt_at <= ?3
                           AND (lease_expires_at IS NULL OR lease_expires_at <= ?3)
                         ORDER BY seq LIMIT ?4 {skip_locked})
      RETURNING seq, id, event, attempts",
    ))?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut claimed = stmt
        .query_map(params![owner, now + lease, now, limit], |row| {
            Ok(Claimed {
                seq: row.get(0)?,
                id: row.get(1)?,
                event: row.get(2)?,
                compressed_body: Vec::new(),
                attempts: row.get(3)?,
            })
        })?
        .collect::<super::sql::Result<Vec<_>>>()?;
    claimed.sort_by_key(|c| c.seq);
    let mut body = conn.prepare_cached("SELECT body FROM delivery_bodies WHERE seq = ?1")?;
    for delivery in &mut claimed {
        delivery.compressed_body = body
            .query_row([delivery.seq], |row| row.get(0))
            .optional()?
            .unwrap_or_default();
    }
    Ok(claimed)
}

/// A stored body as it was signed.
pub fn decompress(stored: &[u8]) -> Result<Vec<u8>, String> {
    lz4_flex::decompress_size_prepended(stored)
        .map_err(|error| format!("the stored body cannot be read: {error}"))
}

/// Records the installation a claimed delivery came through.
pub fn record_installation(
    conn: &Connection,
    seq: i64,
    installation_id: InstallationId,
) -> Result<()> {
    conn.prepare_cached("UPDATE deliveries SET installation_id = ?1 WHERE seq = ?2")?
        .execute(params![installation_id, seq])?;
    Ok(())
}

/// Deletes the raw bodies of every delivery an installation sent (their rows stay, for the
/// counts); returns how many.
pub fn delete_installation_bodies(
    conn: &Connection,
    installation_id: InstallationId,
) -> Result<usize> {
    Ok(conn.execute(
        "DELETE FROM delivery_bodies WHERE seq IN (SELECT seq FROM deliveries
          WHERE installation_id = ?1)",
        [installation_id],
    )?)
}

/// Marks a claimed delivery processed (`done` or `ignored`). Returns false when the lease was
/// lost to another worker, in which case the caller must roll back its effects.
pub fn complete(
    conn: &Connection,
    seq: i64,
    owner: &str,
    ignored: bool,
    outcome: &str,
    now: UnixMs,
) -> Result<bool> {
    let state = if ignored { "ignored" } else { "done" };
    let changed = conn
        .prepare_cached(
            "UPDATE deliveries
                SET state = ?1, outcome = ?2, processed_at = ?3, last_error = NULL,
                    lease_owner = NULL, lease_expires_at = NULL
              WHERE seq = ?4 AND lease_owner = ?5 AND state = 'pending'",
        )?
        .execute(params![state, outcome, now, seq, owner])?;
    Ok(changed == 1)
}

/// Records a failed attempt: back to `pending` at `retry_at`, or `failed` for good when
/// `retry_at` is `None`. The error text is kept either way.
pub fn fail(
    conn: &Connection,
    seq: i64,
    owner: &str,
    error: &str,
    retry_at: Option<UnixMs>,
    now: UnixMs,
) -> Result<()> {
    let (state, next) = match retry_at {
        Some(at) => ("pending", at),
        None => ("failed", now),
    };
    conn.prepare_cached(
        "UPDATE deliveries
            SET state = ?1, next_attempt_at = ?2, last_error = ?3, processed_at = ?4,
                lease_owner = NULL, lease_expires_at = NULL
          WHERE seq = ?5 AND lease_owner = ?6",
    )?
    .execute(params![state, next, error, now, seq, owner])?;
    Ok(())
}

/// Failed deliveries, oldest first.
pub fn list_failed(conn: &Connection) -> Result<Vec<DeliveryRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, event, state, attempts, received_at, last_error
           FROM deliveries WHERE state = 'failed' ORDER BY seq",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok(DeliveryRow {
            id: row.get(0)?,
            event: row.get(1)?,
            state: row.get(2)?,
            attempts: row.get(3)?,
            received_at: row.get(4)?,
            last_error: row.get(5)?,
        })
    })?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}

/// How many deliveries are in each state, in a fixed order: pending, done, ignored, failed.
pub fn count_by_state(conn: &Connection) -> Result<[(&'static str, i64); 4]> {
    let mut counts = [("pending", 0), ("done", 0), ("ignored", 0), ("failed", 0)];
    for (state, count) in &mut counts {
        *count = conn
            .prepare_cached("SELECT count(*) FROM deliveries WHERE state = ?1")?
            .query_row([*state], |row| row.get(0))?;
    }
    Ok(counts)
}

/// Puts failed deliveries back in the queue with a fresh attempt budget: the ones named, or all
/// of them when `ids` is empty. Returns how many were re-queued.
pub fn retry_failed(conn: &Connection, ids: &[String], now: UnixMs) -> Result<usize> {
    const REQUEUE: &str = "UPDATE deliveries
            SET state = 'pending', attempts = 0, next_attempt_at = ?1,
                lease_owner = NULL, lease_expires_at = NULL
          WHERE state = 'failed'";
    if ids.is_empty() {
        return Ok(conn.execute(REQUEUE, [now])?);
    }
    let mut stmt = conn.prepare(&format!("{REQUEUE} AND id = ?2"))?;
    let mut total = 0;
    for id in ids {
        total += stmt.execute(params![now, id])?;
    }
    Ok(total)
}

/// Deletes deliveries processed (done or ignored) before `cutoff`, with their bodies.
pub fn prune(conn: &Connection, cutoff: UnixMs) -> Result<usize> {
    conn.execute(
        "DELETE FROM delivery_bodies WHERE seq IN (SELECT seq FROM deliveries
          WHERE state IN ('done', 'ignored') AND processed_at < ?1)",
        [cutoff],
    )?;
    Ok(conn.execute(
        "DELETE FROM deliveries WHERE state IN ('done', 'ignored') AND processed_at < ?1",
        [cutoff],
    )?)
}

/// The state of one delivery, if it exists.
pub fn state_of(conn: &Connection, id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT state FROM deliveries WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .optional()?)
}
