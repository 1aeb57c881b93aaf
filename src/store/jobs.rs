//! The `jobs` table: work queued by deliveries (and later the scheduler) for after the delivery,
//! deduplicated so that the same work is never queued twice.

use anyhow::Result;
use rusqlite::{Connection, params};

/// A kind of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Read the repository's review history from GitHub.
    Backfill,
    /// Compute the check run of a pull request's head commit.
    CheckRun,
    /// Run a `/gitlore …` command or the check run's Refresh button.
    Command,
    /// Apply ticked "dismiss" boxes of the findings issue.
    Dismissals,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Backfill => "backfill",
            JobKind::CheckRun => "check_run",
            JobKind::Command => "command",
            JobKind::Dismissals => "dismissals",
        }
    }
}

/// Queues a job unless one with the same `dedupe_key` exists. Returns whether it was queued.
pub fn enqueue(
    conn: &Connection,
    kind: JobKind,
    repo_id: i64,
    dedupe_key: &str,
    payload: &serde_json::Value,
    now_ms: i64,
) -> Result<bool> {
    let changed = conn
        .prepare_cached(
            "INSERT INTO jobs (kind, repo_id, dedupe_key, payload, run_after, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (dedupe_key) DO NOTHING",
        )?
        .execute(params![
            kind.as_str(),
            repo_id,
            dedupe_key,
            payload.to_string(),
            now_ms
        ])?;
    Ok(changed == 1)
}

/// A queued job, as tests and the CLI read it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub kind: String,
    pub repo_id: Option<i64>,
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
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
