//! The `comments`, `review_threads` and `classifications` tables.
//!
//! Convergence rules (behaviour §1): a version older than the stored one is ignored (`updated_at`),
//! a delete leaves a tombstone that no late create or edit revives, and thread resolution lives in
//! its own table so that it applies to comments whichever arrives first.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result};

use crate::domain::classification::BUILTIN_NAME;
use crate::domain::{Comment, CommentKind, PrNumber, RepoId, is_pr_author};

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upserted {
    /// A new row; `id` is its store id.
    Inserted { id: i64 },
    /// A newer version replaced the stored one; the body changed or not.
    Updated { id: i64, body_changed: bool },
    /// The stored version is as new or newer: nothing changed.
    Stale,
    /// The comment was deleted before: nothing changed.
    Tombstoned,
}

/// What gitlore derives from a comment version, stored with it.
#[derive(Debug, Clone, Copy)]
pub struct Version<'a> {
    /// sha256 of the body, hex.
    pub body_hash: &'a str,
    /// The noise class, if the comment is noise.
    pub noise: Option<&'a str>,
    /// Whether this version replaces one with the same `updated_at` (an edit does: GitHub's times
    /// have one-second resolution).
    pub wins_tie: bool,
}

/// Inserts or updates a comment, unless the stored version is newer or a tombstone.
pub fn upsert(
    conn: &Connection,
    repo_id: RepoId,
    pr_number: PrNumber,
    comment: &Comment,
    version: &Version<'_>,
) -> Result<Upserted> {
    // Most comments arrive once: try the insert first, and read the stored version only when
    // the comment is already there.
    let inserted: Option<i64> = conn
        .prepare_cached(
            "INSERT INTO comments (repo_id, pr_number, kind, github_id, node_id, author_login,
                    author_is_bot, author_association, body, body_hash, path, line, diff_hunk,
                    thread_root_id, in_reply_to, review_id, resolved, review_state, created_at,
                    updated_at, html_url, noise)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                    coalesce((SELECT resolved FROM review_threads
                               WHERE repo_id = ?1 AND root_id = ?14), 0),
                    ?17, ?18, ?19, ?20, ?21)
                 ON CONFLICT (kind, github_id) DO NOTHING
                 RETURNING id",
        )?
        .query_row(
            params![
                repo_id,
                pr_number,
                comment.kind.as_str(),
                comment.github_id,
                comment.node_id,
                comment.author.login,
                comment.author.is_bot_account,
                comment.author.association,
                comment.body,
                version.body_hash,
                comment.path,
                comment.line,
                comment.diff_hunk,
                comment.thread_root(),
                comment.in_reply_to,
                comment.review_id,
                comment.review_state,
                comment.created_at,
                comment.updated_at,
                comment.html_url,
                version.noise,
            ],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = inserted {
        return Ok(Upserted::Inserted { id });
    }
    let (id, stored_at, deleted, stored_hash) = conn
        .prepare_cached(
            "SELECT id, updated_at, deleted, body_hash FROM comments
              WHERE kind = ?1 AND github_id = ?2",
        )?
        .query_row(params![comment.kind.as_str(), comment.github_id], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, bool>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })?;

    if deleted {
        return Ok(Upserted::Tombstoned);
    }
    let newer =
        comment.updated_at > stored_at || (version.wins_tie && comment.updated_at == stored_at);
    if !newer {
        return Ok(Upserted::Stale);
    }
    conn.prepare_cached(
        "UPDATE comments SET body = ?1, body_hash = ?2, path = ?3, line = ?4, diff_hunk = ?5,
            review_state = ?6, updated_at = ?7, html_url = ?8, author_association = ?9,
            node_id = coalesce(?10, node_id), noise = ?11
          WHERE id = ?12",
    )?
    .execute(params![
        comment.body,
        version.body_hash,
        comment.path,
        comment.line,
        comment.diff_hunk,
        comment.review_state,
        comment.updated_at,
        comment.html_url,
        comment.author.association,
        comment.node_id,
        version.noise,
        id,
    ])?;
    Ok(Upserted::Updated {
        id,
        body_changed: stored_hash.as_deref() != Some(version.body_hash),
    })
}

/// Marks a comment deleted, creating a tombstone if it was never seen. The body is dropped: a
/// comment its author deleted is not kept.
pub fn tombstone(
    conn: &Connection,
    repo_id: RepoId,
    pr_number: PrNumber,
    comment: &Comment,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO comments (repo_id, pr_number, kind, github_id, node_id, author_login,
            author_is_bot, updated_at, deleted, created_at, html_url)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?10)
         ON CONFLICT (kind, github_id) DO UPDATE
            SET deleted = 1, body = '', body_hash = NULL, diff_hunk = NULL, noise = NULL,
                updated_at = CASE WHEN excluded.updated_at > comments.updated_at
                                  THEN excluded.updated_at ELSE comments.updated_at END",
    )?
    .execute(params![
        repo_id,
        pr_number,
        comment.kind.as_str(),
        comment.github_id,
        comment.node_id,
        comment.author.login,
        comment.author.is_bot_account,
        comment.updated_at,
        comment.created_at,
        comment.html_url,
    ])?;
    conn.prepare_cached(
        "DELETE FROM classifications WHERE comment_id =
            (SELECT id FROM comments WHERE kind = ?1 AND github_id = ?2)",
    )?
    .execute(params![comment.kind.as_str(), comment.github_id])?;
    Ok(())
}

/// Records a thread's resolution and applies it to the thread's comments already stored.
pub fn set_thread_resolution(
    conn: &Connection,
    repo_id: RepoId,
    root_id: i64,
    node_id: Option<&str>,
    resolved: bool,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO review_threads (repo_id, root_id, node_id, resolved) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (repo_id, root_id) DO UPDATE
            SET resolved = excluded.resolved, node_id = coalesce(excluded.node_id, review_threads.node_id)",
    )?
    .execute(params![repo_id, root_id, node_id, resolved])?;
    conn.prepare_cached(
        "UPDATE comments SET resolved = ?1 WHERE repo_id = ?2 AND thread_root_id = ?3",
    )?
    .execute(params![resolved, repo_id, root_id])?;
    Ok(())
}

/// Stores one classifier's labels (JSON) for a comment's current body.
pub fn set_classification(
    conn: &Connection,
    comment_id: i64,
    classifier: &str,
    body_hash: &str,
    labels_json: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO classifications (comment_id, classifier, body_hash, labels)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (comment_id, classifier) DO UPDATE
            SET body_hash = excluded.body_hash, labels = excluded.labels",
    )?
    .execute(params![comment_id, classifier, body_hash, labels_json])?;
    Ok(())
}

/// A live comment whose stored classification is not of the current classifier (or of an older
/// body): what reclassifying it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Unclassified {
    pub id: i64,
    pub body: String,
    pub body_hash: String,
    pub path: Option<String>,
    pub diff_hunk: Option<String>,
    pub author_login: String,
    pub author_is_bot: bool,
    /// Who opened the pull request, when known.
    pub pr_author: Option<String>,
}

/// The live comments of `repo_id` (not gitlore's own) whose `classifier` row is missing or was
/// made for another key than `{version}:{body_hash}`.
pub fn unclassified(
    conn: &Connection,
    repo_id: RepoId,
    classifier: &str,
    version: &str,
) -> Result<Vec<Unclassified>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.body, c.body_hash, c.path, c.diff_hunk, c.author_login,
                c.author_is_bot, p.author_login
           FROM comments c
           LEFT JOIN pull_requests p ON p.repo_id = c.repo_id AND p.number = c.pr_number
           LEFT JOIN classifications k ON k.comment_id = c.id AND k.classifier = ?2
          WHERE c.repo_id = ?1 AND c.deleted = 0 AND c.body_hash IS NOT NULL
            AND (c.noise IS NULL OR c.noise != 'own')
            AND (k.body_hash IS NULL OR k.body_hash != ?3 || ':' || c.body_hash)",
    )?;
    let rows = stmt.query_map(params![repo_id, classifier, version], |row| {
        Ok(Unclassified {
            id: row.get(0)?,
            body: row.get(1)?,
            body_hash: row.get(2)?,
            path: row.get(3)?,
            diff_hunk: row.get(4)?,
            author_login: row.get(5)?,
            author_is_bot: row.get(6)?,
            pr_author: row.get(7)?,
        })
    })?;
    rows.collect::<super::sql::Result<_>>()
        .with_context(|| format!("Cannot read the comments of repository {repo_id} to reclassify"))
}

/// Sets a comment's noise class.
pub fn set_noise(conn: &Connection, comment_id: i64, noise: Option<&str>) -> Result<()> {
    conn.prepare_cached("UPDATE comments SET noise = ?2 WHERE id = ?1")?
        .execute(params![comment_id, noise])?;
    Ok(())
}

/// A stored comment as tests, the CLI and (later) the analysis read it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredComment {
    pub id: i64,
    pub repo: String,
    pub pr_number: PrNumber,
    pub kind: String,
    pub github_id: i64,
    pub author_login: String,
    pub body: String,
    pub path: Option<String>,
    pub thread_root_id: Option<i64>,
    pub resolved: bool,
    pub review_state: Option<String>,
    pub updated_at: i64,
    pub deleted: bool,
    pub noise: Option<String>,
    /// The built-in classifier's labels as stored (JSON), if classified.
    pub labels: Option<String>,
    pub pr_title: Option<String>,
    pub pr_merged: Option<bool>,
    /// The login of who opened the pull request, when known.
    pub pr_author: Option<String>,
}

impl StoredComment {
    /// Whether the pull request's author wrote this comment.
    pub fn by_pr_author(&self) -> bool {
        is_pr_author(&self.author_login, self.pr_author.as_deref())
    }
}

/// Whether a comment (or its tombstone) is stored.
pub fn exists(conn: &Connection, kind: CommentKind, github_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM comments WHERE kind = ?1 AND github_id = ?2")?
        .query_row(params![kind.as_str(), github_id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Looks up one comment by kind and GitHub id.
pub fn get(conn: &Connection, kind: CommentKind, github_id: i64) -> Result<Option<StoredComment>> {
    Ok(conn
        .prepare_cached(&format!(
            "{} WHERE c.kind = ?1 AND c.github_id = ?2",
            select_comment()
        ))?
        .query_row(params![kind.as_str(), github_id], read_comment)
        .optional()?)
}

/// All comments of a repository (by `owner/name`), in GitHub id order.
pub fn list_for_repo(conn: &Connection, repo: &str) -> Result<Vec<StoredComment>> {
    let mut stmt = conn.prepare(&format!(
        "{} WHERE r.full_name = ?1 ORDER BY c.kind, c.github_id",
        select_comment()
    ))?;
    let rows = stmt.query_map([repo.to_ascii_lowercase()], read_comment)?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}

/// The newest comment id of repository `repo_id` (0 without comments): what an analysis has
/// read, for the scheduler.
pub fn newest_id(conn: &Connection, repo_id: RepoId) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT coalesce(max(id), 0) FROM comments WHERE repo_id = ?1",
        [repo_id],
        |row| row.get(0),
    )?)
}

/// Counts comments: all rows, live (not deleted) rows, and live rows that are not noise.
pub fn counts(conn: &Connection) -> Result<(i64, i64, i64)> {
    Ok(conn.query_row(
        "SELECT count(*), count(*) FILTER (WHERE deleted = 0),
                count(*) FILTER (WHERE deleted = 0 AND noise IS NULL) FROM comments",
        [],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?)
}

/// The query behind [`StoredComment`], to be followed by a `WHERE` clause.
fn select_comment() -> String {
    format!(
        "SELECT c.id, r.full_name, c.pr_number, c.kind, c.github_id,
        c.author_login, c.body, c.path, c.thread_root_id, c.resolved, c.review_state,
        c.updated_at, c.deleted, c.noise, cl.labels, p.title, p.merged, p.author_login
   FROM comments c
   JOIN repos r ON r.id = c.repo_id
   LEFT JOIN classifications cl ON cl.comment_id = c.id AND cl.classifier = '{BUILTIN_NAME}'
   LEFT JOIN pull_requests p ON p.repo_id = c.repo_id AND p.number = c.pr_number"
    )
}

fn read_comment(row: &super::sql::Row<'_>) -> super::sql::Result<StoredComment> {
    Ok(StoredComment {
        id: row.get(0)?,
        repo: row.get(1)?,
        pr_number: row.get(2)?,
        kind: row.get(3)?,
        github_id: row.get(4)?,
        author_login: row.get(5)?,
        body: row.get(6)?,
        path: row.get(7)?,
        thread_root_id: row.get(8)?,
        resolved: row.get(9)?,
        review_state: row.get(10)?,
        updated_at: row.get(11)?,
        deleted: row.get(12)?,
        noise: row.get(13)?,
        labels: row.get(14)?,
        pr_title: row.get(15)?,
        pr_merged: row.get(16)?,
        pr_author: row.get(17)?,
    })
}

/// An inline review comment's place and text, for check-run annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineComment {
    pub path: String,
    pub line: u32,
    pub body: String,
}

/// The inline review comments of `repo_id` that are neither deleted nor noise and have a line.
pub fn inline_comments(conn: &Connection, repo_id: RepoId) -> Result<Vec<InlineComment>> {
    let mut stmt = conn.prepare_cached(
        "SELECT path, line, body FROM comments
          WHERE repo_id = ?1 AND kind = 'inline' AND deleted = 0 AND noise IS NULL
            AND path IS NOT NULL AND line > 0
          ORDER BY path, line, id",
    )?;
    let rows = stmt.query_map([repo_id], |row| {
        Ok(InlineComment {
            path: row.get(0)?,
            line: row.get(1)?,
            body: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<super::sql::Result<Vec<_>>>()?)
}
