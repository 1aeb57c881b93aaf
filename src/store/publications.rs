//! The `findings_issues`, `check_runs`, `analysis_runs` and `couplings` tables: what was published where, and
//! when each repository was last analysed or refreshed, and the couplings that analysis found.

use std::time::Duration;

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use crate::domain::history::Coupling;
use crate::domain::{PrNumber, RepoId, UnixMs};
use crate::repo_config::Schedule;

/// A repository's findings issue as last published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedIssue {
    pub number: i64,
    pub node_id: Option<String>,
    /// The body last written.
    pub body: String,
    pub pinned: bool,
}

/// The findings issue of `repo_id`, if one is known.
pub fn findings_issue(conn: &Connection, repo_id: RepoId) -> Result<Option<PublishedIssue>> {
    Ok(conn
        .prepare_cached(
            "SELECT number, node_id, body, pinned FROM findings_issues WHERE repo_id = ?1",
        )?
        .query_row([repo_id], |row| {
            Ok(PublishedIssue {
                number: row.get(0)?,
                node_id: row.get(1)?,
                body: row.get(2)?,
                pinned: row.get(3)?,
            })
        })
        .optional()?)
}

/// Records the findings issue of `repo_id` as published at `now`.
pub fn save_findings_issue(
    conn: &Connection,
    repo_id: RepoId,
    issue: &PublishedIssue,
    now: UnixMs,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO findings_issues (repo_id, number, node_id, body, pinned, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (repo_id) DO UPDATE SET number = excluded.number, node_id = excluded.node_id,
            body = excluded.body, pinned = excluded.pinned, updated_at = excluded.updated_at",
    )?
    .execute(params![
        repo_id,
        issue.number,
        issue.node_id,
        issue.body,
        issue.pinned,
        now
    ])?;
    Ok(())
}

/// Forgets the findings issue of `repo_id` (it was deleted on GitHub).
pub fn forget_findings_issue(conn: &Connection, repo_id: RepoId) -> Result<()> {
    conn.prepare_cached("DELETE FROM findings_issues WHERE repo_id = ?1")?
        .execute([repo_id])?;
    Ok(())
}

/// A check run as last published: its id and a hash of its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedCheckRun {
    pub check_run_id: i64,
    pub output_hash: String,
}

/// The check run of `head_sha` in `repo_id`, if one was published.
pub fn check_run(
    conn: &Connection,
    repo_id: RepoId,
    head_sha: &str,
) -> Result<Option<PublishedCheckRun>> {
    Ok(conn
        .prepare_cached(
            "SELECT check_run_id, output_hash FROM check_runs WHERE repo_id = ?1 AND head_sha = ?2",
        )?
        .query_row(params![repo_id, head_sha], |row| {
            Ok(PublishedCheckRun {
                check_run_id: row.get(0)?,
                output_hash: row.get(1)?,
            })
        })
        .optional()?)
}

/// Records the check run of `head_sha` (pull request `pr_number`) as published at `now`.
pub fn save_check_run(
    conn: &Connection,
    repo_id: RepoId,
    head_sha: &str,
    pr_number: PrNumber,
    published: &PublishedCheckRun,
    now: UnixMs,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO check_runs (repo_id, head_sha, pr_number, check_run_id, output_hash, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (repo_id, head_sha) DO UPDATE SET check_run_id = excluded.check_run_id,
            output_hash = excluded.output_hash, updated_at = excluded.updated_at",
    )?
    .execute(params![
        repo_id,
        head_sha,
        pr_number,
        published.check_run_id,
        published.output_hash,
        now
    ])?;
    Ok(())
}

/// What the scheduler knows of a repository's activity since its last analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoActivity {
    pub repo_id: RepoId,
    /// `None` before the first analysis.
    pub last_run_at: Option<UnixMs>,
    /// Analysable comments stored since the last analysis.
    pub new_comments: i64,
    /// Whether any comment was stored, edited or deleted, or the default branch pushed to,
    /// since the last analysis.
    pub changed: bool,
    /// The repo config's schedule as the last analysis read it; `None` for the defaults.
    pub interval_hours: Option<u32>,
    pub min_new_comments: Option<u32>,
}

/// The activity of every installed repository that is not removed.
pub fn activity(conn: &Connection) -> Result<Vec<RepoActivity>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, a.last_run_at,
                (SELECT count(*) FROM comments c
                  WHERE c.repo_id = r.id AND c.id > coalesce(a.last_comment_id, 0)
                    AND c.deleted = 0 AND c.noise IS NULL),
                coalesce(r.pushed_at > a.last_run_at, r.pushed_at IS NOT NULL)
                OR EXISTS (SELECT 1 FROM comments c
                            WHERE c.repo_id = r.id
                              AND (c.id > coalesce(a.last_comment_id, 0)
                                   OR c.updated_at * 1000 > coalesce(a.last_run_at, 0))),
                a.interval_hours, a.min_new_comments
           FROM repos r LEFT JOIN analysis_runs a ON a.repo_id = r.id
          WHERE r.removed = 0 AND r.installation_id IS NOT NULL
          ORDER BY r.id",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok(RepoActivity {
            repo_id: row.get(0)?,
            last_run_at: row.get(1)?,
            new_comments: row.get(2)?,
            changed: row.get(3)?,
            interval_hours: row.get(4)?,
            min_new_comments: row.get(5)?,
        })
    })?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}

/// Records an analysis of `repo_id` at `now` that read the comments up to store id
/// `last_comment_id`, under the repo config's `schedule`.
pub fn record_analysis(
    conn: &Connection,
    repo_id: RepoId,
    now: UnixMs,
    last_comment_id: i64,
    schedule: &Schedule,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO analysis_runs
                (repo_id, last_run_at, last_comment_id, interval_hours, min_new_comments)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (repo_id) DO UPDATE SET last_run_at = excluded.last_run_at,
            last_comment_id = excluded.last_comment_id,
            interval_hours = excluded.interval_hours, min_new_comments = excluded.min_new_comments",
    )?
    .execute(params![
        repo_id,
        now,
        last_comment_id,
        schedule.interval_hours,
        schedule.min_new_comments
    ])?;
    Ok(())
}

/// Takes the refresh slot of `repo_id` for job `job_id` at `now`, unless another job took it
/// less than `cooldown` ago. The job that holds the slot keeps it when retried (its time is
/// not moved). Returns whether the job has the slot.
pub fn take_refresh_slot(
    conn: &Connection,
    repo_id: RepoId,
    job_id: i64,
    now: UnixMs,
    cooldown: Duration,
) -> Result<bool> {
    let changed = conn
        .prepare_cached(
            "INSERT INTO analysis_runs (repo_id, last_refresh_at, refresh_job_id) VALUES (?1, ?2, ?4)
             ON CONFLICT (repo_id) DO UPDATE
                SET last_refresh_at = CASE WHEN analysis_runs.refresh_job_id IS NOT DISTINCT FROM excluded.refresh_job_id
                                           THEN analysis_runs.last_refresh_at
                                           ELSE excluded.last_refresh_at END,
                    refresh_job_id = excluded.refresh_job_id
              WHERE analysis_runs.refresh_job_id IS NOT DISTINCT FROM excluded.refresh_job_id
                 OR analysis_runs.last_refresh_at IS NULL
                 OR analysis_runs.last_refresh_at <= ?3",
        )?
        .execute(params![repo_id, now, now - cooldown, job_id])?;
    Ok(changed == 1)
}

/// Replaces the couplings of `repo_id` with those of its latest analysis.
pub fn save_couplings(conn: &Connection, repo_id: RepoId, couplings: &[Coupling]) -> Result<()> {
    conn.prepare_cached("DELETE FROM couplings WHERE repo_id = ?1")?
        .execute([repo_id])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO couplings (repo_id, a, b, support, confidence, lift, commits)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (repo_id, a, b) DO UPDATE SET support = excluded.support,
            confidence = excluded.confidence, lift = excluded.lift, commits = excluded.commits",
    )?;
    for c in couplings {
        let commits = i64::try_from(c.commits).unwrap_or(i64::MAX);
        insert.execute(params![
            repo_id,
            c.a,
            c.b,
            c.support,
            c.confidence,
            c.lift,
            commits
        ])?;
    }
    Ok(())
}

/// The couplings of `repo_id`'s latest analysis, strongest first (as the analysis ranks them:
/// weighted support times confidence).
pub fn couplings(conn: &Connection, repo_id: RepoId) -> Result<Vec<Coupling>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a, b, support, confidence, lift, commits FROM couplings
          WHERE repo_id = ?1 ORDER BY support * confidence DESC, lift DESC, a, b",
    )?;
    let rows = stmt.query_map([repo_id], |row| {
        Ok(Coupling {
            a: row.get(0)?,
            b: row.get(1)?,
            support: row.get(2)?,
            confidence: row.get(3)?,
            lift: row.get(4)?,
            commits: usize::try_from(row.get::<_, i64>(5)?).unwrap_or(0),
        })
    })?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}

/// When the refresh slot of `repo_id` was last taken (unix ms), if ever.
pub fn last_refresh_at(conn: &Connection, repo_id: RepoId) -> Result<Option<UnixMs>> {
    Ok(conn
        .prepare_cached("SELECT last_refresh_at FROM analysis_runs WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?
        .flatten())
}
