//! What readers of a repository's report look up besides its findings and themes: which stored
//! repositories have been analysed, and when.

use super::sql::{Connection, OptionalExtension};
use anyhow::{Context, Result};

use crate::domain::RepoId;

/// A repository with at least one findings run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysedRepo {
    pub id: RepoId,
    /// `owner/name`, lower-cased.
    pub full_name: String,
    /// Unix seconds of its last findings run.
    pub run_at: i64,
}

/// Every repository that is not removed and has findings runs, by name.
pub fn analysed_repos(conn: &Connection) -> Result<Vec<AnalysedRepo>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.full_name, f.run_at FROM repos r JOIN finding_runs f ON f.repo_id = r.id
          WHERE r.removed = 0 ORDER BY r.full_name, r.id",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok(AnalysedRepo {
            id: row.get(0)?,
            full_name: row.get(1)?,
            run_at: row.get(2)?,
        })
    })?;
    rows.collect::<super::sql::Result<_>>()
        .context("Cannot read the analysed repositories")
}

/// The GitHub id of each stored comment of `repo_id` (deleted ones included: findings may still
/// cite them), by store id.
pub fn comment_github_ids(
    conn: &Connection,
    repo_id: RepoId,
) -> Result<std::collections::HashMap<i64, i64>> {
    let mut stmt = conn.prepare_cached("SELECT id, github_id FROM comments WHERE repo_id = ?1")?;
    let rows = stmt.query_map([repo_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect::<super::sql::Result<_>>()
        .with_context(|| format!("Cannot read the comment ids of repository {repo_id}"))
}

/// Unix seconds of the last findings run of `repo_id`, if any.
pub fn last_run_at(conn: &Connection, repo_id: RepoId) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT run_at FROM finding_runs WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn only_repositories_with_a_findings_run_are_analysed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        store
            .write(|tx| {
                tx.execute_batch(
                    "INSERT INTO repos (id, full_name) VALUES (1, 'o/b'), (2, 'o/a'), (3, 'o/c');
                     INSERT INTO finding_runs (repo_id, run_at) VALUES (1, 10), (2, 20);
                     UPDATE repos SET removed = 1 WHERE id = 2;",
                )?;
                Ok(())
            })
            .unwrap();
        let conn = store.reader().unwrap();
        let repos = analysed_repos(&conn).unwrap();
        assert_eq!(
            repos,
            [AnalysedRepo {
                id: RepoId(1),
                full_name: "o/b".into(),
                run_at: 10
            }]
        );
        assert_eq!(last_run_at(&conn, RepoId(1)).unwrap(), Some(10));
        assert_eq!(last_run_at(&conn, RepoId(3)).unwrap(), None);
    }
}
