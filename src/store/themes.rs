//! The `themes` and `theme_members` tables, and the corpus a theme analysis reads.
//!
//! A run reads the repo's analysable comments and the themes of earlier runs, computes new ones
//! outside any transaction (`analysis::theme_run`), then saves them in one derived write: every
//! theme it found is upserted (a continued theme keeps its `first_seen`) with its members replaced,
//! and every other theme of the repo is marked inactive, keeping its last members so that it can
//! be recognised if it comes back.

use std::collections::HashMap;

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result, ensure};

use crate::domain::classification::{BUILTIN_NAME, Classification};
use crate::domain::{RepoId, is_pr_author};

/// The diff hunks of the comments `ids` that have one, by store id: only the LLM classifier reads
/// them, so the corpus does not carry them.
pub fn diff_hunks(conn: &Connection, ids: &[i64]) -> Result<HashMap<i64, String>> {
    let mut stmt = conn
        .prepare_cached("SELECT diff_hunk FROM comments WHERE id = ?1 AND diff_hunk IS NOT NULL")?;
    let mut hunks = HashMap::new();
    for &id in ids {
        if let Some(hunk) = stmt
            .query_row(params![id], |row| row.get::<_, String>(0))
            .optional()?
        {
            hunks.insert(id, hunk);
        }
    }
    Ok(hunks)
}

/// A comment as theme analysis sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusComment {
    /// Store id (`comments.id`).
    pub id: i64,
    /// `inline`, `review` or `conversation`.
    pub kind: String,
    pub github_id: i64,
    pub pr_number: i64,
    pub author_login: String,
    /// The login of who opened the pull request, when known.
    pub pr_author: Option<String>,
    /// The file, for inline comments.
    pub path: Option<String>,
    pub body: String,
    /// Unix seconds (the last update when GitHub gave no creation time).
    pub created_at: i64,
    /// Whether its review thread is resolved (inline comments only).
    pub resolved: bool,
    /// The built-in classifier's labels for the current body; empty when unclassified.
    pub labels: Classification,
    /// Whether the noise filter called it trivial (loaded only for a model to judge again).
    pub trivial: bool,
}

impl CorpusComment {
    /// Whether the pull request's author wrote this comment.
    pub fn by_pr_author(&self) -> bool {
        is_pr_author(&self.author_login, self.pr_author.as_deref())
    }
}

/// The comments of `repo_id` to analyse: not deleted, not noise (or, `with_trivial`, noise the
/// filter called trivial, for a model to judge again), created at or after `since` (unix s),
/// ordered by kind and GitHub id (an order that does not depend on insertion order). Labels count
/// when they were made for the current body (the key ends with its hash).
pub fn load_corpus(
    conn: &Connection,
    repo_id: RepoId,
    since: i64,
    with_trivial: bool,
) -> Result<Vec<CorpusComment>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT c.id, c.kind, c.github_id, c.pr_number, c.author_login, c.path, c.body,
                coalesce(c.created_at, c.updated_at), c.resolved, cl.labels, p.author_login,
                c.noise IS NOT NULL
           FROM comments c
           LEFT JOIN classifications cl
             ON cl.comment_id = c.id AND cl.classifier = '{BUILTIN_NAME}'
            AND substr(cl.body_hash, length(cl.body_hash) - 63) = c.body_hash
           LEFT JOIN pull_requests p ON p.repo_id = c.repo_id AND p.number = c.pr_number
          WHERE c.repo_id = ?1 AND c.deleted = 0
            AND (c.noise IS NULL OR (?3 AND c.noise = 'trivial'))
            AND coalesce(c.created_at, c.updated_at) >= ?2
          ORDER BY c.kind, c.github_id"
    ))?;
    let rows = stmt.query_map(params![repo_id, since, with_trivial], |row| {
        let labels: Option<String> = row.get(9)?;
        Ok(CorpusComment {
            id: row.get(0)?,
            kind: row.get(1)?,
            github_id: row.get(2)?,
            pr_number: row.get(3)?,
            author_login: row.get(4)?,
            pr_author: row.get(10)?,
            path: row.get(5)?,
            body: row.get(6)?,
            created_at: row.get(7)?,
            resolved: row.get(8)?,
            trivial: row.get(11)?,
            // Labels that no longer parse (a label renamed) count as unclassified, as in the
            // LLM cache: the comment is still analysed, only its label counts are missing.
            labels: labels
                .and_then(|json| serde_json::from_str(&json).ok())
                .unwrap_or_default(),
        })
    })?;
    rows.collect::<super::sql::Result<Vec<_>>>()
        .with_context(|| format!("Cannot read the comments of repository {repo_id}"))
}

/// A theme as stored by an earlier run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTheme {
    pub id: String,
    pub label: String,
    pub terms: Vec<String>,
    /// Unix seconds.
    pub first_seen: i64,
    /// Unix seconds.
    pub last_seen: i64,
    /// Whether the last run found it.
    pub active: bool,
    /// Store ids of its comments as its last run found them, ascending.
    pub members: Vec<i64>,
}

/// Every theme of `repo_id`, active or not, by id.
pub fn load_themes(conn: &Connection, repo_id: RepoId) -> Result<Vec<StoredTheme>> {
    let mut members: HashMap<String, Vec<i64>> = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT m.theme_id, m.comment_id FROM theme_members m JOIN themes t ON t.id = m.theme_id
          WHERE t.repo_id = ?1 ORDER BY m.theme_id, m.comment_id",
    )?;
    stmt.for_each([repo_id], |row| {
        members.entry(row.get(0)?).or_default().push(row.get(1)?);
        Ok::<_, super::sql::Error>(())
    })?;
    let mut stmt = conn.prepare(
        "SELECT id, label, terms, first_seen, last_seen, active FROM themes
          WHERE repo_id = ?1 ORDER BY id",
    )?;
    let themes = stmt.query_map([repo_id], |row| {
        let id: String = row.get(0)?;
        let terms: String = row.get(2)?;
        Ok(StoredTheme {
            members: members.remove(&id).unwrap_or_default(),
            id,
            label: row.get(1)?,
            // Written by `save_run` from a `Vec<String>`; anything else reads as no terms.
            terms: serde_json::from_str(&terms).unwrap_or_default(),
            first_seen: row.get(3)?,
            last_seen: row.get(4)?,
            active: row.get(5)?,
        })
    })?;
    themes
        .collect::<super::sql::Result<Vec<_>>>()
        .with_context(|| format!("Cannot read the themes of repository {repo_id}"))
}

/// Whether a theme with this id exists, in any repository.
pub fn id_taken(conn: &Connection, id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM themes WHERE id = ?1")?
        .query_row([id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// A theme as a run saves it.
#[derive(Debug, Clone, Copy)]
pub struct SavedTheme<'a> {
    pub id: &'a str,
    pub label: &'a str,
    pub terms: &'a [String],
    /// Unix seconds; kept as stored when the theme exists already.
    pub first_seen: i64,
    /// Store ids of its comments.
    pub members: &'a [i64],
}

/// Saves one run's themes of `repo_id`, found at `now` (unix s): upserts them as active with
/// their members replaced, and marks every other theme of the repo inactive. Members whose
/// comment was purged since the run read it are skipped.
pub fn save_run(
    conn: &Connection,
    repo_id: RepoId,
    now: i64,
    themes: &[SavedTheme<'_>],
) -> Result<()> {
    conn.prepare_cached("UPDATE themes SET active = 0 WHERE repo_id = ?1 AND active = 1")?
        .execute([repo_id])?;
    for theme in themes {
        let terms = serde_json::to_string(theme.terms)?;
        let written = conn
            .prepare_cached(
                "INSERT INTO themes (id, repo_id, label, terms, first_seen, last_seen, active)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)
                 ON CONFLICT (id) DO UPDATE
                    SET label = excluded.label, terms = excluded.terms,
                        last_seen = excluded.last_seen, active = 1
                  WHERE themes.repo_id = excluded.repo_id",
            )?
            .execute(params![
                theme.id,
                repo_id,
                theme.label,
                terms,
                theme.first_seen,
                now
            ])?;
        ensure!(
            written == 1,
            "Theme id {} of repository {repo_id} belongs to another repository",
            theme.id
        );
        conn.prepare_cached("DELETE FROM theme_members WHERE theme_id = ?1")?
            .execute([theme.id])?;
        let mut insert = conn.prepare_cached(
            "INSERT INTO theme_members (theme_id, comment_id)
             SELECT ?1, id FROM comments WHERE id = ?2",
        )?;
        for member in theme.members {
            insert.execute(params![theme.id, member])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_theme_id_held_by_another_repository_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        let theme = SavedTheme {
            id: "t-0123456789",
            label: "unwrap, panic",
            terms: &["unwrap".to_string(), "panic".to_string()],
            first_seen: 100,
            members: &[],
        };
        let saved = store.write(|tx| {
            tx.execute(
                "INSERT INTO repos (id, full_name) VALUES (1, 'o/a'), (2, 'o/b')",
                [],
            )?;
            save_run(tx, RepoId(1), 100, &[theme])
        });
        assert!(saved.is_ok(), "{saved:?}");
        let stolen = store.write(|tx| save_run(tx, RepoId(2), 200, &[theme]));
        assert!(stolen.is_err());
        let conn = store.reader().unwrap();
        let kept = load_themes(&conn, RepoId(1)).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].last_seen, kept[0].active), (100, true));
        assert_eq!(kept[0].terms, ["unwrap", "panic"]);
        assert!(load_themes(&conn, RepoId(2)).unwrap().is_empty());
    }
}
