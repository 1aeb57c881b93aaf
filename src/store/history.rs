//! Stored git history: each commit's changes once per repository (`commits`, `commit_files`)
//! and the head they lead to, so that an analysis reads only new commits from git.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result};

use crate::domain::RepoId;
use crate::domain::history::{Commit, FileChange};

/// The head the stored commits lead to, if any were stored.
pub fn stored_head(conn: &Connection, repo_id: RepoId) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT head FROM history_heads WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?)
}

/// Adds `commits` (oldest first) after the stored ones and records `head`.
/// With `replace`, the stored history is dropped first (the old head is gone: a force-push).
pub fn append(
    conn: &Connection,
    repo_id: RepoId,
    commits: &[Commit],
    head: &str,
    replace: bool,
) -> Result<()> {
    if replace {
        delete(conn, repo_id)?;
    }
    let next: i64 = conn
        .prepare_cached("SELECT coalesce(max(seq) + 1, 0) FROM commits WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))?;
    let mut insert_commit = conn.prepare_cached(
        "INSERT INTO commits (repo_id, seq, sha, parents, author_name, author_email,
                              authored_at, committed_at, subject, body, complete)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (repo_id, sha) DO NOTHING",
    )?;
    let mut insert_file = conn.prepare_cached(
        "INSERT INTO commit_files (repo_id, seq, path, old_path)
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
    )?;
    let mut seq = next;
    for commit in commits {
        let inserted = insert_commit.execute(params![
            repo_id,
            seq,
            commit.sha,
            commit.parents.join(" "),
            commit.author_name,
            commit.author_email,
            commit.author_time,
            commit.committer_time,
            commit.subject,
            commit.body,
            commit.complete,
        ])?;
        if inserted == 0 {
            continue;
        }
        for file in &commit.files {
            insert_file.execute(params![repo_id, seq, file.path, file.old_path])?;
        }
        seq += 1;
    }
    conn.prepare_cached(
        "INSERT INTO history_heads (repo_id, head) VALUES (?1, ?2)
         ON CONFLICT (repo_id) DO UPDATE SET head = excluded.head",
    )?
    .execute(params![repo_id, head])?;
    Ok(())
}

/// Every stored commit of the repository with its files, oldest first.
pub fn commits(conn: &Connection, repo_id: RepoId) -> Result<Vec<Commit>> {
    let mut commits: Vec<(i64, Commit)> = conn
        .prepare_cached(
            "SELECT seq, sha, parents, author_name, author_email, authored_at, committed_at,
                    subject, body, complete
             FROM commits WHERE repo_id = ?1 ORDER BY seq",
        )?
        .query_map([repo_id], |row| {
            let parents: String = row.get(2)?;
            Ok((
                row.get(0)?,
                Commit {
                    sha: row.get(1)?,
                    parents: parents.split_whitespace().map(str::to_owned).collect(),
                    author_name: row.get(3)?,
                    author_email: row.get(4)?,
                    author_time: row.get(5)?,
                    committer_time: row.get(6)?,
                    subject: row.get(7)?,
                    body: row.get(8)?,
                    files: Vec::new(),
                    complete: row.get(9)?,
                },
            ))
        })?
        .collect::<super::sql::Result<_>>()
        .context("Cannot read the stored commits")?;
    let mut statement = conn.prepare_cached(
        "SELECT seq, path, old_path FROM commit_files
         WHERE repo_id = ?1 ORDER BY seq",
    )?;
    let mut index = 0;
    statement.for_each([repo_id], |row| {
        let seq: i64 = row.get(0)?;
        while commits
            .get(index)
            .is_some_and(|(commit_seq, _)| *commit_seq < seq)
        {
            index += 1;
        }
        if let Some((_, commit)) = commits.get_mut(index).filter(|(s, _)| *s == seq) {
            commit.files.push(FileChange {
                path: row.get(1)?,
                old_path: row.get(2)?,
            });
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(commits.into_iter().map(|(_, commit)| commit).collect())
}

/// Forgets the repository's stored history (a force-push, or the repository's removal).
pub fn delete(conn: &Connection, repo_id: RepoId) -> Result<()> {
    for table in ["commit_files", "commits", "history_heads"] {
        conn.prepare_cached(&format!("DELETE FROM {table} WHERE repo_id = ?1"))?
            .execute([repo_id])?;
    }
    Ok(())
}

/// Whether the repository's mirror was marked stale (a push to its default branch); clears the
/// mark, so a push during the fetch that follows marks it again.
pub fn take_mirror_stale(conn: &Connection, repo_id: RepoId) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "UPDATE repos SET mirror_stale = 0 WHERE id = ?1 AND mirror_stale = 1
             RETURNING 1",
        )?
        .query_row([repo_id], |_| Ok(()))
        .optional()?
        .is_some())
}
