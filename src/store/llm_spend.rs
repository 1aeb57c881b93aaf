//! The `llm_spend` table: tokens the LLM spent per repository and UTC day, for the daily budget.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use crate::domain::RepoId;

/// The UTC day (`YYYY-MM-DD`) of `unix_secs`.
pub fn day_of(unix_secs: i64) -> String {
    chrono::DateTime::from_timestamp(unix_secs, 0)
        .unwrap_or_default()
        .format("%Y-%m-%d")
        .to_string()
}

/// Tokens spent on `repo_id` on `day`.
pub fn spent(conn: &Connection, repo_id: RepoId, day: &str) -> Result<u64> {
    let tokens: Option<i64> = conn
        .prepare_cached("SELECT tokens FROM llm_spend WHERE repo_id = ?1 AND day = ?2")?
        .query_row(params![repo_id, day], |row| row.get(0))
        .optional()?;
    Ok(u64::try_from(tokens.unwrap_or(0)).unwrap_or(0))
}

/// Adds `tokens` to what `repo_id` spent on `day`.
pub fn add(conn: &Connection, repo_id: RepoId, day: &str, tokens: u64) -> Result<()> {
    let tokens = i64::try_from(tokens).unwrap_or(i64::MAX);
    conn.prepare_cached(
        "INSERT INTO llm_spend (repo_id, day, tokens) VALUES (?1, ?2, ?3)
         ON CONFLICT (repo_id, day) DO UPDATE SET tokens = llm_spend.tokens + excluded.tokens",
    )?
    .execute(params![repo_id, day, tokens])?;
    Ok(())
}
