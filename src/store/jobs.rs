//! The `jobs` table: work queued by deliveries and the scheduler for after the delivery,
//! deduplicated so that the same work is never queued twice, and claimed by runners with a lease
//! (an owner and an expiry), so that several runners can share the queue.

use std::time::Duration;

use super::sql::{Connection, Dialect, OptionalExtension, params};
use anyhow::Result;

use crate::domain::job::{Job, JobKind, Occasion};
use crate::domain::{RepoId, UnixMs};

/// Queues `job` for repository `repo_id` unless the same work is queued already (the same
/// [`Job::dedupe_key`]). Returns whether it was queued.
pub fn enqueue(
    conn: &Connection,
    repo_id: RepoId,
    job: &Job,
    occasion: Occasion<'_>,
    now: UnixMs,
) -> Result<bool> {
    let changed = conn
        .prepare_cached(
            "INSERT INTO jobs (kind, repo_id, dedupe_key, payload, run_after, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (dedupe_key) DO NOTHING",
        )?
        .execute(params![
            job.kind().as_str(),
            repo_id,
            job.dedupe_key(repo_id, occasion),
            job.fields_json()?,
            now
        ])?;
    Ok(changed == 1)
}

/// A queued job, as tests and the CLI read it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub kind: String,
    pub repo_id: Option<RepoId>,
    pub dedupe_key: String,
    pub payload: serde_json::Value,
    pub state: String,
}

/// Every job, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<JobRow>> {
    let mut stmt =
        conn.prepare("SELECT kind, repo_id, dedupe_key, payload, state FROM jobs ORDER BY id")?;
    let rows = stmt.query_map([], |row| {
        let payload: String = row.get(3)?;
        Ok(JobRow {
            kind: row.get(0)?,
            repo_id: row.get(1)?,
            dedupe_key: row.get(2)?,
            payload: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
            state: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}

/// Queues `job`, or puts a finished one with the same dedupe key back in the queue: for
/// recurring work such as a repository's analysis. A pending job keeps its place and payload.
pub fn enqueue_again(
    conn: &Connection,
    repo_id: RepoId,
    job: &Job,
    run_after: UnixMs,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO jobs (kind, repo_id, dedupe_key, payload, run_after, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)
         ON CONFLICT (dedupe_key) DO UPDATE
            SET state = 'pending', payload = excluded.payload, run_after = excluded.run_after,
                attempts = 0, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL
          WHERE jobs.state <> 'pending'",
    )?
    .execute(params![
        job.kind().as_str(),
        repo_id,
        job.dedupe_key(repo_id, Occasion::Once),
        job.fields_json()?,
        run_after
    ])?;
    Ok(())
}

/// Makes the pending job with `dedupe_key` due by `run_after` at the latest (a scheduled
/// analysis waiting out its jitter runs as soon as a finished backfill wants it).
pub fn hasten(conn: &Connection, dedupe_key: &str, run_after: UnixMs) -> Result<()> {
    conn.prepare_cached(
        "UPDATE jobs SET run_after = CASE WHEN ?2 < run_after THEN ?2 ELSE run_after END
          WHERE dedupe_key = ?1 AND state = 'pending'",
    )?
    .execute(params![dedupe_key, run_after])?;
    Ok(())
}

/// Whether a job of `kind` for `repo_id` is queued or running.
pub fn has_pending(conn: &Connection, kind: JobKind, repo_id: RepoId) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM jobs WHERE kind = ?1 AND repo_id = ?2 AND state = 'pending' LIMIT 1",
        )?
        .query_row(params![kind.as_str(), repo_id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// A job a runner holds the lease of.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedJob {
    pub id: i64,
    pub repo_id: Option<RepoId>,
    pub job: Job,
    /// Including this one.
    pub attempts: i64,
}

/// The advisory lock that PostgreSQL replicas take turns under to claim a job.
const CLAIM_LOCK: i64 = 0x6a6f_6273; // "jobs"

/// Leases the oldest due job to `owner` until `now + lease`. A repository runs one job at
/// a time: a job is not claimed while another job of its repository is leased. A job whose
/// stored kind or fields do not read fails for good, with why, and the next one is claimed.
pub fn claim(
    conn: &Connection,
    owner: &str,
    now: UnixMs,
    lease: Duration,
) -> Result<Option<ClaimedJob>> {
    // Replicas on one PostgreSQL database take turns to claim (held to the transaction's end),
    // so that "one job per repository" sees every other replica's claim; claims are rare and
    // short. (SQLite has one writer: its transactions take turns already.)
    let skip_locked = match conn.dialect() {
        Dialect::Sqlite => "",
        Dialect::Postgres => {
            conn.execute_batch(&format!("SELECT pg_advisory_xact_lock({CLAIM_LOCK})"))?;
            "FOR UPDATE OF j SKIP LOCKED"
        }
    };
    let sql = format!(
        "UPDATE jobs SET lease_owner = ?1, lease_expires_at = ?2, attempts = attempts + 1
          WHERE id = (SELECT j.id FROM jobs j
                       WHERE j.state = 'pending' AND j.run_after <= ?3
                         AND (j.lease_expires_at IS NULL OR j.lease_expires_at <= ?3)
                         AND NOT EXISTS (SELECT 1 FROM jobs busy
                                          WHERE busy.repo_id = j.repo_id AND busy.id <> j.id
                                            AND busy.state = 'pending'
                                            AND busy.lease_expires_at > ?3)
                       ORDER BY j.run_after, j.id LIMIT 1 {skip_locked})
      RETURNING id, kind, repo_id, payload, attempts"
    );
    loop {
        let claimed = conn
            .prepare_cached(&sql)?
            .query_row(params![owner, now + lease, now], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<RepoId>>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, i64>(4)?,
                ))
            })
            .optional()?;
        let Some((id, kind, repo_id, payload, attempts)) = claimed else {
            return Ok(None);
        };
        match JobKind::parse(&kind).and_then(|kind| Job::from_stored(kind, &payload)) {
            Ok(job) => {
                return Ok(Some(ClaimedJob {
                    id,
                    repo_id,
                    job,
                    attempts,
                }));
            }
            Err(error) => fail(conn, id, &format!("{error:#}"))?,
        }
    }
}

/// Extends the lease `owner` holds on job `id` to `until`. Returns whether it still held it.
pub fn extend_lease(conn: &Connection, id: i64, owner: &str, until: UnixMs) -> Result<bool> {
    let changed = conn
        .prepare_cached(
            "UPDATE jobs SET lease_expires_at = ?3
              WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending'",
        )?
        .execute(params![id, owner, until])?;
    Ok(changed == 1)
}

/// Marks a leased job done.
pub fn complete(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached(
        "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL,
                last_error = NULL WHERE id = ?1",
    )?
    .execute([id])?;
    Ok(())
}

/// Releases a leased job to run again at `run_after`, keeping `error`.
pub fn retry_later(conn: &Connection, id: i64, error: &str, run_after: UnixMs) -> Result<()> {
    conn.prepare_cached(
        "UPDATE jobs SET run_after = ?2, last_error = ?3, lease_owner = NULL,
                lease_expires_at = NULL WHERE id = ?1",
    )?
    .execute(params![id, run_after, error])?;
    Ok(())
}

/// Marks a leased job failed for good, keeping `error`.
pub fn fail(conn: &Connection, id: i64, error: &str) -> Result<()> {
    conn.prepare_cached(
        "UPDATE jobs SET state = 'failed', last_error = ?2, lease_owner = NULL,
                lease_expires_at = NULL WHERE id = ?1",
    )?
    .execute(params![id, error])?;
    Ok(())
}
