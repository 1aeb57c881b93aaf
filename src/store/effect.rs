//! What the lesson-effect measurement reads (behaviour §3.4): each reviewed pull request's first
//! review date and commented paths, and when each active theme was raised in which pull request;
//! and the last analyses' figures for `/metrics`. Computed from existing rows: no table of its own.

use std::collections::HashMap;

use super::sql::Connection;
use anyhow::{Context, Result};

use crate::domain::RepoId;
use crate::domain::effect::{ReviewActivity, ReviewedPull, ThemeRaises};
use crate::store::run_reports::RunReport;

/// The review activity of `repo_id`: stored comments that are not deleted (noise included, as
/// a pull request with only an approval was reviewed too) and the active themes' members, whose
/// analysis window started at `themes_from` (unix s).
pub fn review_activity(
    conn: &Connection,
    repo_id: RepoId,
    themes_from: i64,
) -> Result<ReviewActivity> {
    let context = || format!("Cannot read the review activity of repository {repo_id}");
    let mut pulls: Vec<ReviewedPull> = conn
        .prepare_cached(
            "SELECT pr_number, min(created_at) FROM comments
              WHERE repo_id = ?1 AND deleted = 0 AND created_at IS NOT NULL
              GROUP BY pr_number ORDER BY pr_number",
        )?
        .query_map([repo_id], |row| {
            Ok(ReviewedPull {
                number: row.get(0)?,
                first_review_at: row.get(1)?,
                paths: Vec::new(),
            })
        })?
        .collect::<Result<_, _>>()
        .with_context(context)?;
    let commented: Vec<(i64, String)> = conn
        .prepare_cached(
            "SELECT DISTINCT pr_number, path FROM comments
              WHERE repo_id = ?1 AND deleted = 0 AND path IS NOT NULL
              ORDER BY pr_number, path",
        )?
        .query_map([repo_id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()
        .with_context(context)?;
    let mut paths: HashMap<i64, Vec<String>> = HashMap::new();
    for (pull, path) in commented {
        paths.entry(pull).or_default().push(path);
    }
    for pull in &mut pulls {
        pull.paths = paths.remove(&pull.number).unwrap_or_default();
    }
    let raises: Vec<(String, i64, i64)> = conn
        .prepare_cached(
            "SELECT m.theme_id, c.pr_number, min(c.created_at) FROM theme_members m
               JOIN themes t ON t.id = m.theme_id
               JOIN comments c ON c.id = m.comment_id
              WHERE t.repo_id = ?1 AND t.active = 1 AND c.deleted = 0 AND c.created_at IS NOT NULL
              GROUP BY m.theme_id, c.pr_number
              ORDER BY m.theme_id, min(c.created_at), c.pr_number",
        )?
        .query_map([repo_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()
        .with_context(context)?;
    let mut themes: Vec<ThemeRaises> = Vec::new();
    for (theme_id, pull, at) in raises {
        match themes.last_mut() {
            Some(last) if last.theme_id == theme_id => last.raises.push((pull, at)),
            _ => themes.push(ThemeRaises {
                theme_id,
                raises: vec![(pull, at)],
            }),
        }
    }
    Ok(ReviewActivity {
        as_of: newest_comment_at(conn, repo_id)?.unwrap_or(0),
        themes_from,
        pulls,
        themes,
    })
}

/// Unix seconds of `repo_id`'s newest stored review comment that is neither deleted nor noise:
/// a bot's remark or an approval moves no window.
fn newest_comment_at(conn: &Connection, repo_id: RepoId) -> Result<Option<i64>> {
    conn.prepare_cached("SELECT max(created_at) FROM comments WHERE repo_id = ?1 AND deleted = 0")?
        .query_row([repo_id], |row| row.get(0))
        .with_context(|| format!("Cannot read the newest comment of repository {repo_id}"))
}

/// The last run report of every repository that is not removed (for `/metrics`); reports that
/// do not read are left out.
pub fn last_reports(conn: &Connection) -> Result<Vec<RunReport>> {
    let texts: Vec<String> = conn
        .prepare_cached(
            "SELECT a.report FROM analysis_runs a JOIN repos r ON r.id = a.repo_id
              WHERE r.removed = 0 AND a.report IS NOT NULL ORDER BY r.id",
        )?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()
        .context("Cannot read the run reports")?;
    Ok(texts
        .iter()
        .filter_map(|text| serde_json::from_str::<RunReport>(text).ok())
        .collect())
}
