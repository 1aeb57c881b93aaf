//! A repository's comments as `gitlore analyze` reports them: every stored comment with its
//! kind and GitHub id (to map back to the input's ids), its built-in labels and its noise class.

use super::sql::{Connection, params};
use anyhow::{Context, Result};

use crate::domain::classification::{BUILTIN_NAME, Classification, LLM_NAME};
use crate::domain::{CommentKind, RepoId, is_pr_author};

/// One stored comment of the input.
#[derive(Debug, Clone, PartialEq)]
pub struct InputComment {
    /// Store id (`comments.id`).
    pub id: i64,
    pub kind: CommentKind,
    pub github_id: i64,
    pub author_login: String,
    /// The login of who opened the pull request, when known.
    pub pr_author: Option<String>,
    /// The built-in classifier's labels, most confident first.
    pub labels: Vec<String>,
    /// `own`, `bot` or `trivial` when the noise filter set it aside.
    pub noise: Option<String>,
    /// The latest LLM verdict on its current body, and the model's tag: its labels, none when it
    /// called the comment noise.
    pub llm: Option<(String, Vec<String>)>,
}

impl InputComment {
    /// The verdict an analysis with the model uses: the model's labels (none and `trivial` for its
    /// noise verdict) where it judged the comment, else the filter's and the built-in
    /// classifier's; and who gave it (`builtin`, or the model's tag).
    pub fn verdict(&self) -> (Vec<String>, Option<String>, String) {
        match &self.llm {
            Some((tag, labels)) if self.noise.as_deref().is_none_or(|n| n == "trivial") => {
                let noise = labels.is_empty().then(|| "trivial".to_string());
                (labels.clone(), noise, tag.clone())
            }
            _ => (
                self.labels.clone(),
                self.noise.clone(),
                BUILTIN_NAME.to_string(),
            ),
        }
    }

    /// Whether the pull request's author wrote this comment.
    pub fn by_pr_author(&self) -> bool {
        is_pr_author(&self.author_login, self.pr_author.as_deref())
    }
}

/// The comments of `repo_id` that are not deleted, ordered by (created, GitHub id).
pub fn list(conn: &Connection, repo_id: RepoId) -> Result<Vec<InputComment>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, c.kind, c.github_id, c.noise, k.labels, c.author_login, p.author_login,
                lc.body_hash, lc.labels
           FROM comments c
           LEFT JOIN classifications k ON k.comment_id = c.id AND k.classifier = ?2
           LEFT JOIN classifications lc ON lc.comment_id = c.id AND lc.classifier = ?3
            AND substr(lc.body_hash, length(lc.body_hash) - 63) = c.body_hash
           LEFT JOIN pull_requests p ON p.repo_id = c.repo_id AND p.number = c.pr_number
          WHERE c.repo_id = ?1 AND c.deleted = 0
          ORDER BY coalesce(c.created_at, c.updated_at), c.github_id",
    )?;
    let rows = stmt.query_map(params![repo_id, BUILTIN_NAME, LLM_NAME], |row| {
        Ok((
            (
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, Option<String>>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, String>(5)?,
                row.get::<_, Option<String>>(6)?,
            ),
            (
                row.get::<_, Option<String>>(7)?,
                row.get::<_, Option<String>>(8)?,
            ),
        ))
    })?;
    let mut comments = Vec::new();
    for row in rows {
        let ((id, kind, github_id, noise, labels, author_login, pr_author), (llm_key, llm_labels)) =
            row.with_context(|| format!("Cannot read the comments of repository {repo_id}"))?;
        let llm = match (llm_key, llm_labels) {
            (Some(key), Some(json)) => {
                let scored: Classification = serde_json::from_str(&json).with_context(|| {
                    format!("The LLM labels of comment {id} are not valid JSON")
                })?;
                let tag = key
                    .rsplit_once(':')
                    .map_or(key.as_str(), |(tag, _)| tag)
                    .to_string();
                Some((
                    tag,
                    scored
                        .iter()
                        .map(|s| s.label.as_str().to_string())
                        .collect(),
                ))
            }
            _ => None,
        };
        let labels: Classification = match labels {
            Some(json) => serde_json::from_str(&json)
                .with_context(|| format!("The labels of comment {id} are not valid JSON"))?,
            None => Vec::new(),
        };
        comments.push(InputComment {
            id,
            kind: kind_from(&kind).with_context(|| format!("Comment {id} has kind `{kind}`"))?,
            github_id,
            author_login,
            pr_author,
            labels: labels
                .iter()
                .map(|s| s.label.as_str().to_string())
                .collect(),
            noise,
            llm,
        });
    }
    Ok(comments)
}

/// Unix seconds of the newest comment of `repo_id` (created, or updated when undated).
pub fn newest_comment_at(conn: &Connection, repo_id: RepoId) -> Result<Option<i64>> {
    conn.query_row(
        "SELECT max(coalesce(created_at, updated_at)) FROM comments
          WHERE repo_id = ?1 AND deleted = 0",
        [repo_id],
        |row| row.get(0),
    )
    .with_context(|| format!("Cannot read the newest comment of repository {repo_id}"))
}

fn kind_from(name: &str) -> Option<CommentKind> {
    [
        CommentKind::Inline,
        CommentKind::Review,
        CommentKind::Conversation,
    ]
    .into_iter()
    .find(|kind| kind.as_str() == name)
}
