//! The redelivery sweep's tables: the deliveries it asked GitHub to send again (never asked
//! twice), and its one row of state: a lease (one sweep at a time, across replicas), how far back
//! the next sweep lists, and the last sweep's counts.

use std::time::Duration;

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use crate::domain::UnixMs;

/// What one sweep found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepCounts {
    /// Deliveries GitHub records as failed (no attempt succeeded), in the listed window.
    pub failed: i64,
    /// Of those, the ones GitHub was asked to deliver again (and accepted).
    pub redelivered: i64,
    /// Of those, the ones the store holds all the same (GitHub gave up on the answer, or a
    /// redelivery arrived): never asked for.
    pub already_stored: i64,
}

/// What the store knows of a delivery GUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// The deliveries table holds it.
    Stored,
    /// A sweep asked for it already.
    Asked,
    Unknown,
}

/// Takes the sweep's lease for `owner` until `now + lease`, unless another owner holds it.
/// Returns whether it is held.
pub fn lease(conn: &Connection, owner: &str, now: UnixMs, lease: Duration) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE redelivery_sweep SET lease_owner = ?1, lease_expires_at = ?2
          WHERE id = 1 AND (lease_owner IS NULL OR lease_owner = ?1 OR lease_expires_at <= ?3)",
        params![owner, now + lease, now],
    )?;
    Ok(changed == 1)
}

/// Lets the lease go (a sweep that failed keeps the window it had).
pub fn release(conn: &Connection, owner: &str) -> Result<()> {
    conn.execute(
        "UPDATE redelivery_sweep SET lease_owner = NULL, lease_expires_at = NULL
          WHERE id = 1 AND lease_owner = ?1",
        [owner],
    )?;
    Ok(())
}

/// Where the next sweep starts listing; `None` before the first sweep.
pub fn list_since(conn: &Connection) -> Result<Option<UnixMs>> {
    Ok(conn.query_row(
        "SELECT list_since FROM redelivery_sweep WHERE id = 1",
        [],
        |row| row.get(0),
    )?)
}

/// Records a finished sweep held by `owner`: its counts, the window of the next one (unchanged
/// when `next_since` is `None`), and lets the lease go. Returns false when the lease was lost.
pub fn finish(
    conn: &Connection,
    owner: &str,
    counts: SweepCounts,
    next_since: Option<UnixMs>,
    now: UnixMs,
) -> Result<bool> {
    let changed = conn.execute(
        "UPDATE redelivery_sweep
            SET list_since = coalesce(?1, list_since), finished_at = ?2, sweeps = sweeps + 1,
                failed = ?3, redelivered = ?4, already_stored = ?5,
                lease_owner = NULL, lease_expires_at = NULL
          WHERE id = 1 AND lease_owner = ?6",
        params![
            next_since,
            now,
            counts.failed,
            counts.redelivered,
            counts.already_stored,
            owner
        ],
    )?;
    Ok(changed == 1)
}

/// How many sweeps finished.
pub fn sweeps(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT sweeps FROM redelivery_sweep WHERE id = 1",
        [],
        |row| row.get(0),
    )?)
}

/// Whether the delivery `guid` is stored or was asked for.
pub fn known(conn: &Connection, guid: &str) -> Result<Known> {
    let stored = conn
        .prepare_cached("SELECT 1 FROM deliveries WHERE id = ?1")?
        .query_row([guid], |_| Ok(()))
        .optional()?;
    if stored.is_some() {
        return Ok(Known::Stored);
    }
    let asked = conn
        .prepare_cached("SELECT 1 FROM redelivery_requests WHERE guid = ?1")?
        .query_row([guid], |_| Ok(()))
        .optional()?;
    Ok(if asked.is_some() {
        Known::Asked
    } else {
        Known::Unknown
    })
}

/// Remembers that GitHub was asked to deliver `guid` again (its attempt `attempt_id`).
pub fn record_request(
    conn: &Connection,
    guid: &str,
    attempt_id: i64,
    event: &str,
    now: UnixMs,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO redelivery_requests (guid, attempt_id, event, requested_at)
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (guid) DO NOTHING",
    )?
    .execute(params![guid, attempt_id, event, now])?;
    Ok(())
}

/// Forgets requests made before `cutoff` (GitHub lists no delivery that old any more).
pub fn prune_requests(conn: &Connection, cutoff: UnixMs) -> Result<usize> {
    Ok(conn.execute(
        "DELETE FROM redelivery_requests WHERE requested_at < ?1",
        [cutoff],
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn one_owner_holds_the_lease_until_it_finishes_or_it_runs_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("g.db")).unwrap();
        let minute = Duration::from_secs(60);
        let now = UnixMs(1_000_000);
        let take = |owner: &str, at: UnixMs| store.write(|tx| lease(tx, owner, at, minute));
        assert!(take("a", now).unwrap());
        assert!(!take("b", now).unwrap(), "a holds it");
        assert!(take("b", now + minute).unwrap(), "a's ran out");
        let counts = SweepCounts {
            failed: 3,
            redelivered: 2,
            already_stored: 1,
        };
        let finished = |owner: &str| store.write(|tx| finish(tx, owner, counts, Some(now), now));
        assert!(!finished("a").unwrap(), "a lost it");
        assert!(finished("b").unwrap());
        assert!(take("a", now).unwrap(), "released");
        let conn = store.reader().unwrap();
        assert_eq!(
            (list_since(&conn).unwrap(), sweeps(&conn).unwrap()),
            (Some(now), 1)
        );
    }
}
