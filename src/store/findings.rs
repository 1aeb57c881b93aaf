//! The `findings` and `finding_runs` tables, and the comments findings cite.
//!
//! A synthesis run saves its findings in one write: each is upserted (keeping `first_seen`, and a
//! dismissal: a dismissed finding that comes back stays dismissed), and every active finding the
//! run did not produce becomes resolved at that run. A resolved finding is listed once, by the run
//! that resolved it, then only kept so that it keeps its `first_seen` if it ever comes back.

use std::collections::{BTreeMap, HashSet};

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::domain::RepoId;
use crate::domain::classification::{BUILTIN_NAME, Classification, LLM_NAME, LlmVerdicts};
use crate::domain::findings::{
    Category, Evidence, EvidenceKind, Finding, Severity, SourceComment, Status,
};

/// The comments of `repo_id` a synthesis may cite: not deleted, not noise, created at or after
/// `since` (unix s), by store id. With LLM `verdicts`, a comment the model judged is noise or
/// not as it said, and carries its labels.
pub fn load_source_comments(
    conn: &Connection,
    repo_id: RepoId,
    since: i64,
    verdicts: LlmVerdicts<'_>,
) -> Result<BTreeMap<i64, SourceComment>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT c.id, c.body, c.author_login, c.pr_number, c.path,
                coalesce(c.created_at, c.updated_at), c.resolved, c.html_url, p.author_login,
                coalesce(lc.labels, cl.labels), c.diff_hunk
           FROM comments c
           LEFT JOIN pull_requests p ON p.repo_id = c.repo_id AND p.number = c.pr_number
           LEFT JOIN classifications cl
             ON cl.comment_id = c.id AND cl.classifier = '{BUILTIN_NAME}'
            AND substr(cl.body_hash, length(cl.body_hash) - 63) = c.body_hash
           LEFT JOIN classifications lc
             ON lc.comment_id = c.id AND lc.classifier = '{LLM_NAME}' AND {}
          WHERE c.repo_id = ?1 AND c.deleted = 0
            AND CASE WHEN lc.labels IS NULL THEN c.noise IS NULL
                     ELSE lc.labels <> '[]' AND c.noise IS DISTINCT FROM 'bot' AND c.noise IS DISTINCT FROM 'own' END
            AND coalesce(c.created_at, c.updated_at) >= ?2",
        verdicts.join_condition()
    ))?;
    let tag = verdicts.tag();
    let mut bound: Vec<&dyn super::sql::ToSql> = vec![&repo_id, &since];
    if matches!(verdicts, LlmVerdicts::Of(_)) {
        bound.push(&tag);
    }
    let rows = stmt.query_map(bound.as_slice(), |row| {
        Ok(SourceComment {
            id: row.get(0)?,
            body: row.get(1)?,
            author: row.get(2)?,
            pr_number: row.get(3)?,
            pr_author: row.get(8)?,
            path: row.get(4)?,
            created_at: row.get(5)?,
            resolved: row.get(6)?,
            url: row.get(7)?,
            labels: row
                .get::<_, Option<String>>(9)?
                .and_then(|json| serde_json::from_str::<Classification>(&json).ok())
                .map(|scored| scored.into_iter().map(|s| s.label).collect())
                .unwrap_or_default(),
            diff_hunk: row.get(10)?,
        })
    })?;
    rows.map(|row| row.map(|c| (c.id, c)))
        .collect::<super::sql::Result<_>>()
        .with_context(|| format!("Cannot read the comments of repository {repo_id}"))
}

/// Review comments of `repo_id` (not noise, not deleted) written before `before` (unix s): what
/// a window starting there leaves out.
pub fn count_source_comments_before(
    conn: &Connection,
    repo_id: RepoId,
    before: i64,
) -> Result<usize> {
    let count: i64 = conn
        .query_row(
            "SELECT count(*) FROM comments
              WHERE repo_id = ?1 AND deleted = 0 AND noise IS NULL
                AND coalesce(created_at, updated_at) < ?2",
            params![repo_id, before],
            |row| row.get(0),
        )
        .with_context(|| format!("Cannot count the comments of repository {repo_id}"))?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Evidence as stored in the `evidence` JSON column.
#[derive(Serialize, Deserialize)]
struct StoredEvidence {
    kind: String,
    id: String,
    text: String,
}

/// Saves one synthesis run of `repo_id` at `now` (unix s): upserts `findings` (a new one is first
/// seen at its `first_seen`, an existing one keeps its own; a dismissed one stays dismissed, a
/// resolved one is active again), resolves every active finding absent from the run, and records
/// the run.
pub fn save_run(conn: &Connection, repo_id: RepoId, now: i64, findings: &[Finding]) -> Result<()> {
    let mut upsert = conn.prepare_cached(
        "INSERT INTO findings (repo_id, id, category, severity, title, insight, evidence, files,
                               first_seen, last_seen, status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'active')
         ON CONFLICT (repo_id, id) DO UPDATE
            SET category = excluded.category, severity = excluded.severity,
                title = excluded.title, insight = excluded.insight,
                evidence = excluded.evidence, files = excluded.files,
                last_seen = excluded.last_seen,
                status = CASE findings.status WHEN 'dismissed' THEN 'dismissed' ELSE 'active' END,
                resolved_at = NULL",
    )?;
    for finding in findings {
        let evidence: Vec<StoredEvidence> = finding
            .evidence
            .iter()
            .map(|e| StoredEvidence {
                kind: e.kind.as_str().to_string(),
                id: e.id.clone(),
                text: e.text.clone(),
            })
            .collect();
        upsert
            .execute(params![
                repo_id,
                finding.id,
                finding.category.as_str(),
                finding.severity.as_str(),
                finding.title,
                finding.insight,
                serde_json::to_string(&evidence)?,
                serde_json::to_string(&finding.files)?,
                finding.first_seen.min(now),
                now,
            ])
            .with_context(|| {
                format!("Cannot save finding {} of repository {repo_id}", finding.id)
            })?;
    }
    let produced: HashSet<&str> = findings.iter().map(|f| f.id.as_str()).collect();
    let active: Vec<String> = conn
        .prepare_cached("SELECT id FROM findings WHERE repo_id = ?1 AND status = 'active'")?
        .query_map([repo_id], |row| row.get(0))?
        .collect::<super::sql::Result<_>>()?;
    let mut resolve = conn.prepare_cached(
        "UPDATE findings SET status = 'resolved', resolved_at = ?3 WHERE repo_id = ?1 AND id = ?2",
    )?;
    for id in active.iter().filter(|id| !produced.contains(id.as_str())) {
        resolve.execute(params![repo_id, id, now])?;
    }
    conn.prepare_cached(
        "INSERT INTO finding_runs (repo_id, run_at) VALUES (?1, ?2)
         ON CONFLICT (repo_id) DO UPDATE SET run_at = excluded.run_at",
    )?
    .execute(params![repo_id, now])?;
    Ok(())
}

/// Dismisses finding `finding_id` of `repo_id`, by `by` (a login) at `now` (unix s). Returns
/// whether the finding exists; dismissing a dismissed finding keeps the first dismissal.
pub fn dismiss(
    conn: &Connection,
    repo_id: RepoId,
    finding_id: &str,
    by: &str,
    now: i64,
) -> Result<bool> {
    let exists = conn
        .prepare_cached("SELECT 1 FROM findings WHERE repo_id = ?1 AND id = ?2")?
        .query_row(params![repo_id, finding_id], |_| Ok(()))
        .optional()?
        .is_some();
    conn.prepare_cached(
        "UPDATE findings SET status = 'dismissed', dismissed_at = ?3, dismissed_by = ?4
          WHERE repo_id = ?1 AND id = ?2 AND status <> 'dismissed'",
    )?
    .execute(params![repo_id, finding_id, now, by])
    .with_context(|| format!("Cannot dismiss finding {finding_id} of repository {repo_id}"))?;
    Ok(exists)
}

/// A dismissed finding, with who dismissed it and when.
#[derive(Debug, Clone, PartialEq)]
pub struct Dismissed {
    pub finding: Finding,
    /// Login.
    pub by: String,
    /// Unix seconds.
    pub at: i64,
}

/// What a repository's findings listing shows after its last run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Listing {
    /// Category order of [`Category::ALL`], then high severity first, then id.
    pub active: Vec<Finding>,
    /// Resolved by the last run (shown once, in the "Resolved" section).
    pub resolved: Vec<Finding>,
    pub dismissed: Vec<Dismissed>,
}

/// The findings of `repo_id`: active, resolved by the last run, and dismissed.
pub fn load(conn: &Connection, repo_id: RepoId) -> Result<Listing> {
    let run_at: Option<i64> = conn
        .prepare_cached("SELECT run_at FROM finding_runs WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?;
    let mut stmt = conn.prepare_cached(
        "SELECT id, category, severity, title, insight, evidence, files, first_seen, last_seen,
                status, dismissed_by, dismissed_at, resolved_at
           FROM findings WHERE repo_id = ?1",
    )?;
    let mut listing = Listing::default();
    stmt.for_each([repo_id], |row| {
        let id: String = row.get(0)?;
        let finding = read_finding(row).with_context(|| {
            format!("Cannot read finding {id} of repository {repo_id} from the store")
        })?;
        match finding.status {
            Status::Active => listing.active.push(finding),
            Status::Resolved => {
                let resolved_at: Option<i64> = row.get(12)?;
                if resolved_at.is_some() && resolved_at == run_at {
                    listing.resolved.push(finding);
                }
            }
            Status::Dismissed => listing.dismissed.push(Dismissed {
                finding,
                by: row.get::<_, Option<String>>(10)?.unwrap_or_default(),
                at: row.get::<_, Option<i64>>(11)?.unwrap_or_default(),
            }),
        }
        Ok::<_, anyhow::Error>(())
    })?;
    let order = |f: &Finding| {
        let category = Category::ALL.iter().position(|c| *c == f.category);
        (category, f.severity, f.id.clone())
    };
    listing.active.sort_by_key(order);
    listing.resolved.sort_by_key(order);
    listing.dismissed.sort_by_key(|d| order(&d.finding));
    Ok(listing)
}

fn read_finding(row: &super::sql::Row<'_>) -> Result<Finding> {
    let evidence: Vec<StoredEvidence> = serde_json::from_str(&row.get::<_, String>(5)?)?;
    let evidence = evidence
        .into_iter()
        .map(|e| {
            Ok(Evidence {
                kind: e.kind.parse::<EvidenceKind>()?,
                id: e.id,
                text: e.text,
            })
        })
        .collect::<Result<_>>()?;
    Ok(Finding {
        id: row.get(0)?,
        category: row.get::<_, String>(1)?.parse()?,
        severity: row.get::<_, String>(2)?.parse::<Severity>()?,
        title: row.get(3)?,
        insight: row.get(4)?,
        evidence,
        files: serde_json::from_str(&row.get::<_, String>(6)?)?,
        first_seen: row.get(7)?,
        last_seen: row.get(8)?,
        status: row.get::<_, String>(9)?.parse()?,
    })
}
