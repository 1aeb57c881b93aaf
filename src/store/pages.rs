//! What the web pages read: the installed repositories, a theme's comments and a repository's
//! history figures.

use std::collections::HashMap;

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result};

use crate::domain::{PrNumber, RepoId, UnixMs};

/// An installed repository as the pages list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoEntry {
    pub id: RepoId,
    /// `owner/name`, lower-cased.
    pub full_name: String,
    pub private: bool,
    /// When it was last analysed, if ever.
    pub last_run_at: Option<UnixMs>,
    /// Active findings.
    pub findings: i64,
}

const ENTRY_SELECT: &str = "SELECT r.id, r.full_name, r.private, a.last_run_at,
        (SELECT count(*) FROM findings f WHERE f.repo_id = r.id AND f.status = 'active')
   FROM repos r
   JOIN installations i ON i.id = r.installation_id
   LEFT JOIN analysis_runs a ON a.repo_id = r.id
  WHERE r.removed = 0 AND i.deleted = 0";

fn entry(row: &super::sql::Row<'_>) -> super::sql::Result<RepoEntry> {
    Ok(RepoEntry {
        id: row.get(0)?,
        full_name: row.get(1)?,
        private: row.get(2)?,
        last_run_at: row.get(3)?,
        findings: row.get(4)?,
    })
}

/// Every installed repository that is not removed, by name.
pub fn repos(conn: &Connection) -> Result<Vec<RepoEntry>> {
    let mut stmt = conn.prepare_cached(&format!("{ENTRY_SELECT} ORDER BY r.full_name"))?;
    let rows = stmt.query_map([], entry)?;
    rows.collect::<super::sql::Result<_>>()
        .context("Cannot list the repositories")
}

/// The installed repository named `full_name` (any case), if any.
pub fn repo(conn: &Connection, full_name: &str) -> Result<Option<RepoEntry>> {
    Ok(conn
        .prepare_cached(&format!("{ENTRY_SELECT} AND r.full_name = lower(?1)"))?
        .query_row([full_name], entry)
        .optional()?)
}

/// A comment of a theme, as its page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeComment {
    pub author: String,
    pub body: String,
    pub pr_number: PrNumber,
    pub path: Option<String>,
    /// Its page on GitHub, when stored.
    pub url: Option<String>,
}

/// Up to `per_theme` comments of each active theme of `repo_id` (newest first), by theme id.
pub fn theme_comments(
    conn: &Connection,
    repo_id: RepoId,
    per_theme: usize,
) -> Result<HashMap<String, Vec<ThemeComment>>> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.theme_id, c.author_login, c.body, c.pr_number, c.path, c.html_url
           FROM themes t
           JOIN theme_members m ON m.theme_id = t.id
           JOIN comments c ON c.id = m.comment_id
          WHERE t.repo_id = ?1 AND t.active = 1 AND c.deleted = 0
          ORDER BY m.theme_id, coalesce(c.created_at, c.updated_at) DESC, c.id DESC",
    )?;
    let mut by_theme: HashMap<String, Vec<ThemeComment>> = HashMap::new();
    stmt.for_each(params![repo_id], |row| {
        let list = by_theme.entry(row.get(0)?).or_default();
        if list.len() < per_theme {
            list.push(ThemeComment {
                author: row.get(1)?,
                body: row.get(2)?,
                pr_number: row.get(3)?,
                path: row.get(4)?,
                url: row.get(5)?,
            });
        }
        Ok::<_, super::sql::Error>(())
    })?;
    Ok(by_theme)
}

/// What the stored git history of a repository amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistoryFigures {
    pub commits: i64,
    /// Distinct author e-mail addresses.
    pub authors: i64,
    /// Distinct paths changed.
    pub files: i64,
    /// Unix seconds of the oldest and newest commit, when there are any.
    pub first_commit_at: Option<i64>,
    pub last_commit_at: Option<i64>,
}

/// The figures of `repo_id`'s stored history.
pub fn history_figures(conn: &Connection, repo_id: RepoId) -> Result<HistoryFigures> {
    let (commits, authors, first_commit_at, last_commit_at) = conn
        .prepare_cached(
            "SELECT count(*), count(DISTINCT author_email), min(committed_at), max(committed_at)
               FROM commits WHERE repo_id = ?1",
        )?
        .query_row([repo_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
    let files = conn
        .prepare_cached("SELECT count(DISTINCT path) FROM commit_files WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))?;
    Ok(HistoryFigures {
        commits,
        authors,
        files,
        first_commit_at,
        last_commit_at,
    })
}

/// A review comment a finding cites: its pull request, and its own page when stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CitedComment {
    pub pr_number: PrNumber,
    pub url: Option<String>,
}

/// Where each of `ids` (store ids of `repo_id`'s comments) was written.
pub fn cited_comments(
    conn: &Connection,
    repo_id: RepoId,
    ids: &[i64],
) -> Result<HashMap<i64, CitedComment>> {
    let mut stmt = conn.prepare_cached(
        "SELECT pr_number, html_url FROM comments WHERE id = ?1 AND repo_id = ?2",
    )?;
    let mut cited = HashMap::new();
    for id in ids {
        if let Some(comment) = stmt
            .query_row(params![id, repo_id], |row| {
                Ok(CitedComment {
                    pr_number: row.get(0)?,
                    url: row.get(1)?,
                })
            })
            .optional()?
        {
            cited.insert(*id, comment);
        }
    }
    Ok(cited)
}
