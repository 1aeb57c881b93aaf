//! Installations, repositories and pull requests: registration, state, and data removal.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use crate::domain::{InstallationId, PrNumber, PullRequest, Repo, RepoId, UnixMs};
use crate::events::Installation;

/// Registers (or updates) an installation and clears any earlier uninstall tombstone.
pub fn upsert_installation(
    conn: &Connection,
    installation: &Installation,
    suspended: bool,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO installations (id, account_login, account_type, suspended, deleted)
         VALUES (?1, ?2, ?3, ?4, 0)
         ON CONFLICT (id) DO UPDATE SET
            account_login = coalesce(excluded.account_login, installations.account_login),
            account_type = coalesce(excluded.account_type, installations.account_type),
            suspended = excluded.suspended, deleted = 0",
    )?
    .execute(params![
        installation.id,
        installation.account_login,
        installation.account_type,
        suspended,
    ])?;
    Ok(())
}

/// Removes every repository of an installation with its data, and leaves tombstones.
pub fn delete_installation(conn: &Connection, installation_id: InstallationId) -> Result<usize> {
    let repo_ids: Vec<RepoId> = conn
        .prepare("SELECT id FROM repos WHERE installation_id = ?1")?
        .query_map([installation_id], |row| row.get(0))?
        .collect::<super::sql::Result<_>>()?;
    for repo_id in &repo_ids {
        remove_repo(conn, *repo_id)?;
    }
    conn.execute(
        "INSERT INTO installations (id, deleted) VALUES (?1, 1)
         ON CONFLICT (id) DO UPDATE SET deleted = 1",
        [installation_id],
    )?;
    Ok(repo_ids.len())
}

/// Whether events of this origin are to be ignored: the installation was uninstalled, or the
/// repository removed. One query, as it runs for every delivery.
pub fn origin_status(
    conn: &Connection,
    installation_id: Option<InstallationId>,
    repo_id: RepoId,
) -> Result<(bool, RepoStatus)> {
    let (deleted, removed): (Option<bool>, Option<bool>) = conn
        .prepare_cached(
            "SELECT (SELECT deleted FROM installations WHERE id = ?1),
                    (SELECT removed FROM repos WHERE id = ?2)",
        )?
        .query_row(params![installation_id, repo_id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
    Ok((deleted.unwrap_or(false), status(removed)))
}

/// How a repository stands in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoStatus {
    Unknown,
    Active,
    /// Removed from the installation: its data is gone and its events are ignored.
    Removed,
}

fn status(removed: Option<bool>) -> RepoStatus {
    match removed {
        None => RepoStatus::Unknown,
        Some(false) => RepoStatus::Active,
        Some(true) => RepoStatus::Removed,
    }
}

/// Registers a repository or refreshes its name and settings. `revive` lifts a removal
/// tombstone (the repository was added to the installation again).
pub fn upsert_repo(
    conn: &Connection,
    repo: &Repo,
    installation_id: Option<InstallationId>,
    revive: bool,
) -> Result<()> {
    if let Some(id) = installation_id {
        conn.prepare_cached("INSERT INTO installations (id) VALUES (?1) ON CONFLICT DO NOTHING")?
            .execute([id])?;
    }
    conn.prepare_cached(
        "INSERT INTO repos (id, installation_id, full_name, default_branch, private)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (id) DO UPDATE SET
            installation_id = coalesce(excluded.installation_id, repos.installation_id),
            full_name = excluded.full_name,
            default_branch = coalesce(excluded.default_branch, repos.default_branch),
            private = excluded.private,
            removed = CASE WHEN ?6 = 1 THEN 0 ELSE repos.removed END
         WHERE repos.full_name IS DISTINCT FROM excluded.full_name OR repos.private IS DISTINCT FROM excluded.private
            OR (repos.removed = 1 AND ?6 = 1)
            OR (excluded.installation_id IS NOT NULL AND repos.installation_id IS DISTINCT FROM excluded.installation_id)
            OR (excluded.default_branch IS NOT NULL AND repos.default_branch IS DISTINCT FROM excluded.default_branch)",
    )?
    .execute(params![
        repo.id,
        installation_id,
        repo.name.as_str(),
        repo.default_branch,
        repo.private,
        revive,
    ])?;
    Ok(())
}

/// Deletes a repository's data (comments with their classifications and theme memberships,
/// threads, pull requests, jobs, themes, backfill state, findings, publication state) and marks
/// it removed.
pub fn remove_repo(conn: &Connection, repo_id: RepoId) -> Result<()> {
    for table in [
        "comments",
        "review_threads",
        "pull_requests",
        "jobs",
        "themes",
        "backfills",
        "findings_issues",
        "check_runs",
        "analysis_runs",
        "couplings",
        "findings",
        "finding_runs",
    ] {
        conn.execute(
            &format!("DELETE FROM {table} WHERE repo_id = ?1"),
            [repo_id],
        )?;
    }
    super::history::delete(conn, repo_id)?;
    conn.execute("UPDATE repos SET removed = 1 WHERE id = ?1", [repo_id])?;
    Ok(())
}

/// The names of the repositories the store holds (not removed), in order.
pub fn names(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT full_name FROM repos WHERE removed = 0 ORDER BY full_name")?;
    let names = stmt.query_map([], |row| row.get(0))?;
    Ok(names.collect::<super::sql::Result<_>>()?)
}

/// The ids of the repositories that are installed and not removed.
pub fn live_repo_ids(conn: &Connection) -> Result<std::collections::HashSet<RepoId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id FROM repos r JOIN installations i ON i.id = r.installation_id
          WHERE r.removed = 0 AND i.deleted = 0",
    )?;
    let ids = stmt.query_map([], |row| row.get(0))?;
    Ok(ids.collect::<super::sql::Result<_>>()?)
}

/// The repository's default branch, when known.
pub fn default_branch(conn: &Connection, repo_id: RepoId) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT default_branch FROM repos WHERE id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?
        .flatten())
}

/// Marks the repository's git mirror as needing a fetch before the next analysis.
/// Records a push to the repository's default branch at `now`: its mirror is stale, and the
/// scheduler counts it as a change.
pub fn record_default_branch_push(conn: &Connection, repo_id: RepoId, now: UnixMs) -> Result<()> {
    conn.prepare_cached("UPDATE repos SET mirror_stale = 1, pushed_at = ?2 WHERE id = ?1")?
        .execute(params![repo_id, now])?;
    Ok(())
}

pub fn mark_mirror_stale(conn: &Connection, repo_id: RepoId) -> Result<()> {
    conn.prepare_cached("UPDATE repos SET mirror_stale = 1 WHERE id = ?1")?
        .execute([repo_id])?;
    Ok(())
}

/// Stores a pull request's state unless a newer snapshot is already stored. A snapshot without a
/// head sha (from an issue comment) keeps the stored one, and one without an author keeps the
/// stored author. Who opened a pull request never changes, so even an older snapshot fills an
/// author the row lacks (a row stored before authors were recorded).
pub fn upsert_pull_request(conn: &Connection, repo_id: RepoId, pr: &PullRequest) -> Result<()> {
    let changed = conn
        .prepare_cached(
            "INSERT INTO pull_requests
                    (repo_id, number, title, state, merged, head_sha, updated_at, author_login)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (repo_id, number) DO UPDATE SET
                title = excluded.title, state = excluded.state, merged = excluded.merged,
                head_sha = coalesce(excluded.head_sha, pull_requests.head_sha), updated_at = excluded.updated_at,
                author_login = coalesce(excluded.author_login, pull_requests.author_login)
             WHERE excluded.updated_at > pull_requests.updated_at
                OR (excluded.updated_at = pull_requests.updated_at
                    AND (pull_requests.title IS DISTINCT FROM excluded.title OR pull_requests.state IS DISTINCT FROM excluded.state
                         OR pull_requests.merged IS DISTINCT FROM excluded.merged
                         OR (excluded.head_sha IS NOT NULL AND pull_requests.head_sha IS DISTINCT FROM excluded.head_sha)
                         OR (excluded.author_login IS NOT NULL
                             AND pull_requests.author_login IS DISTINCT FROM excluded.author_login)))",
        )?
        .execute(params![
            repo_id,
            pr.number,
            pr.title,
            pr.state,
            pr.merged,
            pr.head_sha,
            pr.updated_at,
            pr.author,
        ])?;
    if changed == 0
        && let Some(author) = &pr.author
    {
        conn.prepare_cached(
            "UPDATE pull_requests SET author_login = ?3
              WHERE repo_id = ?1 AND number = ?2 AND author_login IS NULL",
        )?
        .execute(params![repo_id, pr.number, author])?;
    }
    Ok(())
}

/// The login of who opened pull request `number`, when known.
pub fn pull_request_author(
    conn: &Connection,
    repo_id: RepoId,
    number: PrNumber,
) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached(
            "SELECT author_login FROM pull_requests WHERE repo_id = ?1 AND number = ?2",
        )?
        .query_row(params![repo_id, number], |row| row.get(0))
        .optional()?
        .flatten())
}

/// An installed repository as the job runner needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledRepo {
    pub installation_id: InstallationId,
    /// `owner/name`, lower-cased.
    pub full_name: String,
}

/// The installation and name of `repo_id`, unless it is removed, uninstalled or unknown.
pub fn installed_repo(conn: &Connection, repo_id: RepoId) -> Result<Option<InstalledRepo>> {
    Ok(conn
        .prepare_cached(
            "SELECT r.installation_id, r.full_name FROM repos r
               JOIN installations i ON i.id = r.installation_id
              WHERE r.id = ?1 AND r.removed = 0 AND i.deleted = 0 AND i.suspended = 0",
        )?
        .query_row([repo_id], |row| {
            Ok(InstalledRepo {
                installation_id: row.get(0)?,
                full_name: row.get(1)?,
            })
        })
        .optional()?)
}

/// The stored head commit of pull request `number`, when known.
pub fn pull_request_head(
    conn: &Connection,
    repo_id: RepoId,
    number: PrNumber,
) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT head_sha FROM pull_requests WHERE repo_id = ?1 AND number = ?2")?
        .query_row(params![repo_id, number], |row| row.get(0))
        .optional()?
        .flatten())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn snapshot(updated_at: i64, title: &str, author: Option<&str>) -> PullRequest {
        PullRequest {
            number: PrNumber(7),
            title: title.into(),
            state: "open".into(),
            merged: false,
            head_sha: None,
            updated_at,
            author: author.map(String::from),
        }
    }

    /// Stores each snapshot in turn; then the stored (title, author).
    fn after(snapshots: &[PullRequest]) -> (String, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        store
            .write(|tx| {
                tx.execute("INSERT INTO repos (id, full_name) VALUES (5, 'o/r')", [])?;
                snapshots
                    .iter()
                    .try_for_each(|pr| upsert_pull_request(tx, RepoId(5), pr))
            })
            .unwrap();
        let conn = store.reader().unwrap();
        let title = conn
            .query_row("SELECT title FROM pull_requests", [], |row| row.get(0))
            .unwrap();
        (
            title,
            pull_request_author(&conn, RepoId(5), PrNumber(7)).unwrap(),
        )
    }

    #[test]
    fn the_author_is_kept_by_a_snapshot_without_one_and_filled_by_any_with_one() {
        let ana = || Some("ana".to_string());
        // A newer snapshot without an author (none given) keeps the stored one.
        assert_eq!(
            after(&[snapshot(10, "a", Some("ana")), snapshot(20, "b", None)]),
            ("b".into(), ana())
        );
        // An older snapshot changes nothing but fills an author the row lacks.
        assert_eq!(
            after(&[snapshot(20, "b", None), snapshot(10, "a", Some("ana"))]),
            ("b".into(), ana())
        );
        assert_eq!(
            after(&[
                snapshot(20, "b", Some("ana")),
                snapshot(10, "a", Some("bo"))
            ]),
            ("b".into(), ana())
        );
        // So does a snapshot of the same time.
        assert_eq!(
            after(&[snapshot(10, "a", None), snapshot(10, "a", Some("ana"))]),
            ("a".into(), ana())
        );
        // A newer snapshot's author wins (an account renamed).
        assert_eq!(
            after(&[
                snapshot(10, "a", Some("ana")),
                snapshot(20, "a", Some("ana2"))
            ]),
            ("a".into(), Some("ana2".into()))
        );
        assert_eq!(after(&[snapshot(10, "a", None)]), ("a".into(), None));
    }
}
