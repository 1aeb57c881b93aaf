//! The `backfills` table: one row per repository with the backfill's window, the cursor of the
//! last committed pull-request page, its counts and its state.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use crate::domain::{RepoId, UnixMs};

/// Where a repository's backfill stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackfillStatus {
    Running,
    Done,
    Failed,
}

impl BackfillStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BackfillStatus::Running => "running",
            BackfillStatus::Done => "done",
            BackfillStatus::Failed => "failed",
        }
    }

    fn parse(text: &str) -> BackfillStatus {
        match text {
            "done" => BackfillStatus::Done,
            "failed" => BackfillStatus::Failed,
            _ => BackfillStatus::Running,
        }
    }
}

/// A repository's backfill state as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackfillState {
    pub repo_id: RepoId,
    /// Unix seconds: pull requests updated before are not read.
    pub window_start: i64,
    /// `endCursor` of the last committed pull-request page; `None` before the first.
    pub cursor: Option<String>,
    pub prs_done: i64,
    pub comments_done: i64,
    pub status: BackfillStatus,
    pub last_error: Option<String>,
    /// When it last changed.
    pub updated_at: UnixMs,
}

/// The backfill state of the repository named `full_name` (`owner/name`), if it has one.
pub fn find_by_name(conn: &Connection, full_name: &str) -> Result<Option<BackfillState>> {
    Ok(conn
        .prepare_cached(
            "SELECT b.repo_id, b.window_start, b.cursor, b.prs_done, b.comments_done, b.state,
                    b.last_error, b.updated_at
               FROM backfills b JOIN repos r ON r.id = b.repo_id
              WHERE r.full_name = ?1 AND r.removed = 0",
        )?
        .query_row([full_name.to_ascii_lowercase()], |row| {
            let status: String = row.get(5)?;
            Ok(BackfillState {
                repo_id: row.get(0)?,
                window_start: row.get(1)?,
                cursor: row.get(2)?,
                prs_done: row.get(3)?,
                comments_done: row.get(4)?,
                status: BackfillStatus::parse(&status),
                last_error: row.get(6)?,
                updated_at: row.get(7)?,
            })
        })
        .optional()?)
}

/// Writes a repository's backfill state (the repository must be registered).
pub fn save(conn: &Connection, state: &BackfillState) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO backfills (repo_id, window_start, cursor, prs_done, comments_done, state,
                last_error, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (repo_id) DO UPDATE SET
            window_start = excluded.window_start, cursor = excluded.cursor,
            prs_done = excluded.prs_done, comments_done = excluded.comments_done,
            state = excluded.state, last_error = excluded.last_error,
            updated_at = excluded.updated_at",
    )?
    .execute(params![
        state.repo_id,
        state.window_start,
        state.cursor,
        state.prs_done,
        state.comments_done,
        state.status.as_str(),
        state.last_error,
        state.updated_at,
    ])?;
    Ok(())
}

/// Records that a repository's backfill failed, keeping its cursor for the next attempt.
pub fn mark_failed(conn: &Connection, repo_id: RepoId, error: &str, now: UnixMs) -> Result<()> {
    conn.prepare_cached(
        "UPDATE backfills SET state = 'failed', last_error = ?2, updated_at = ?3
          WHERE repo_id = ?1",
    )?
    .execute(params![repo_id, error, now])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_saved_state_is_found_by_name_and_a_failure_keeps_the_cursor() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        let state = BackfillState {
            repo_id: RepoId(5),
            window_start: 1_000,
            cursor: Some("c2".into()),
            prs_done: 50,
            comments_done: 700,
            status: BackfillStatus::Running,
            last_error: None,
            updated_at: UnixMs(9),
        };
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO repos (id, full_name) VALUES (5, 'acme/widgets')",
                    [],
                )?;
                save(tx, &state)?;
                mark_failed(tx, RepoId(5), "GitHub answered 502", UnixMs(10))
            })
            .unwrap();
        let found = find_by_name(&store.reader().unwrap(), "Acme/Widgets")
            .unwrap()
            .unwrap();
        assert_eq!(
            found,
            BackfillState {
                status: BackfillStatus::Failed,
                last_error: Some("GitHub answered 502".into()),
                updated_at: UnixMs(10),
                ..state
            }
        );
        assert!(
            find_by_name(&store.reader().unwrap(), "acme/other")
                .unwrap()
                .is_none()
        );
    }
}
