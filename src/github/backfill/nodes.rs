//! The GraphQL answers of the backfill documents as typed nodes, and their conversion into the
//! domain types the webhooks produce: REST ids are GraphQL's `databaseId`, times are unix
//! seconds, bots get the `[bot]` suffix REST shows, review states are lower-case, a deleted
//! account is `ghost`. A comment read both ways is then the same row.

use anyhow::{Context, Result};
use chrono::DateTime;
use serde::Deserialize;

use crate::domain::{Author, Comment, CommentKind, DELETED_ACCOUNT, PrNumber, PullRequest, RepoId};

/// A connection page: its nodes and whether more follow.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub page_info: PageInfo,
    /// GitHub types list items as nullable; a `null` item is skipped.
    pub nodes: Vec<Option<T>>,
}

impl<T> Page<T> {
    /// The cursor to read the next page from, when there is one.
    pub fn next(&self) -> Option<&str> {
        self.page_info
            .has_next_page
            .then_some(self.page_info.end_cursor.as_deref())
            .flatten()
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

/// `rateLimit` of any backfill query.
#[derive(Debug, Deserialize)]
pub struct RateLimit {
    pub remaining: i64,
}

/// `author { login __typename }`; `null` for a deleted account.
#[derive(Debug, Deserialize)]
pub struct Actor {
    pub login: String,
    #[serde(rename = "__typename")]
    pub typename: String,
}

/// A `{ databaseId }` reference.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseRef {
    pub database_id: Option<i64>,
}

/// The repository of a `BackfillPullRequests` page.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    pub database_id: RepoId,
    pub name_with_owner: String,
    pub is_private: bool,
    pub pull_requests: Page<PullRequestNode>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestNode {
    pub id: String,
    pub number: PrNumber,
    pub title: String,
    pub state: String,
    pub merged: bool,
    pub updated_at: String,
    pub author: Option<Actor>,
    pub review_threads: Page<ThreadNode>,
    pub reviews: Page<ReviewNode>,
    pub comments: Page<ConversationNode>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadNode {
    pub id: String,
    pub is_resolved: bool,
    pub comments: Page<ReviewCommentNode>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewCommentNode {
    pub database_id: Option<i64>,
    pub id: String,
    pub body: String,
    pub path: String,
    pub line: Option<i64>,
    pub original_line: Option<i64>,
    pub diff_hunk: String,
    pub created_at: String,
    pub updated_at: String,
    pub url: String,
    pub author: Option<Actor>,
    pub author_association: String,
    pub reply_to: Option<DatabaseRef>,
    pub pull_request_review: Option<DatabaseRef>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewNode {
    pub database_id: Option<i64>,
    pub id: String,
    pub body: String,
    pub state: String,
    /// `null` while the review is pending: not submitted, not read.
    pub submitted_at: Option<String>,
    pub url: String,
    pub author: Option<Actor>,
    pub author_association: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationNode {
    pub database_id: Option<i64>,
    pub id: String,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
    pub url: String,
    pub author: Option<Actor>,
    pub author_association: String,
}

/// Unix seconds of a GraphQL `DateTime`.
pub fn seconds(value: &str) -> Result<i64> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.timestamp())
        .with_context(|| format!("GitHub answered `{value}`, which is not an RFC 3339 time"))
}

/// The pull request as a webhook snapshot describes it (no head sha: the backfill does not need
/// it, and a stored one is kept). Its author is spelled as a comment author is (a bot as
/// `login[bot]`); a deleted account is no author.
pub fn pull_request(node: &PullRequestNode) -> Result<PullRequest> {
    Ok(PullRequest {
        number: node.number,
        title: node.title.clone(),
        state: if node.state == "OPEN" {
            "open"
        } else {
            "closed"
        }
        .to_string(),
        merged: node.merged,
        head_sha: None,
        updated_at: seconds(&node.updated_at)?,
        author: node.author.as_ref().map(rest_login),
    })
}

/// An actor's login as REST spells it: a bot's as `login[bot]`.
fn rest_login(actor: &Actor) -> String {
    if actor.typename == "Bot" {
        format!("{}[bot]", actor.login)
    } else {
        actor.login.clone()
    }
}

/// The author as REST shows it: bots as `login[bot]`, a deleted account as `ghost`.
fn author(actor: Option<&Actor>, association: &str) -> Author {
    let (login, is_bot_account) = match actor {
        Some(a) => (rest_login(a), a.typename == "Bot"),
        None => (DELETED_ACCOUNT.to_string(), false),
    };
    Author {
        login,
        is_bot_account,
        association: Some(association.to_string()),
        via_app: None,
    }
}

/// An inline review comment, or `None` when GitHub gives it no database id.
pub fn inline_comment(node: &ReviewCommentNode) -> Result<Option<Comment>> {
    let Some(github_id) = node.database_id else {
        return Ok(None);
    };
    Ok(Some(Comment {
        kind: CommentKind::Inline,
        github_id,
        node_id: Some(node.id.clone()),
        author: author(node.author.as_ref(), &node.author_association),
        body: node.body.clone(),
        path: Some(node.path.clone()),
        line: node.line.or(node.original_line),
        diff_hunk: Some(node.diff_hunk.clone()),
        in_reply_to: node.reply_to.as_ref().and_then(|r| r.database_id),
        review_id: node
            .pull_request_review
            .as_ref()
            .and_then(|r| r.database_id),
        review_state: None,
        created_at: Some(seconds(&node.created_at)?),
        updated_at: seconds(&node.updated_at)?,
        html_url: Some(node.url.clone()),
    }))
}

/// A submitted review's body, ordered by its submission time as the webhook orders it; `None`
/// for a pending review or one without a database id.
pub fn review(node: &ReviewNode) -> Result<Option<Comment>> {
    let (Some(github_id), Some(submitted_at)) = (node.database_id, node.submitted_at.as_deref())
    else {
        return Ok(None);
    };
    let submitted_at = seconds(submitted_at)?;
    Ok(Some(Comment {
        node_id: Some(node.id.clone()),
        review_id: Some(github_id),
        review_state: Some(node.state.to_ascii_lowercase()),
        created_at: Some(submitted_at),
        html_url: Some(node.url.clone()),
        ..Comment::new(
            CommentKind::Review,
            github_id,
            author(node.author.as_ref(), &node.author_association),
            node.body.clone(),
            submitted_at,
        )
    }))
}

/// A conversation comment, or `None` when GitHub gives it no database id.
pub fn conversation(node: &ConversationNode) -> Result<Option<Comment>> {
    let Some(github_id) = node.database_id else {
        return Ok(None);
    };
    Ok(Some(Comment {
        node_id: Some(node.id.clone()),
        created_at: Some(seconds(&node.created_at)?),
        html_url: Some(node.url.clone()),
        ..Comment::new(
            CommentKind::Conversation,
            github_id,
            author(node.author.as_ref(), &node.author_association),
            node.body.clone(),
            seconds(&node.updated_at)?,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_gets_rests_suffix_and_a_deleted_account_is_ghost() {
        let bot = Actor {
            login: "renovate".into(),
            typename: "Bot".into(),
        };
        let a = author(Some(&bot), "NONE");
        assert_eq!(
            (a.login.as_str(), a.is_bot_account),
            ("renovate[bot]", true)
        );
        let ghost = author(None, "NONE");
        assert_eq!(
            (ghost.login.as_str(), ghost.is_bot_account),
            ("ghost", false)
        );
    }

    #[test]
    fn a_pending_review_is_not_read() {
        let node = ReviewNode {
            database_id: Some(3),
            id: "PRR_x".into(),
            body: "draft".into(),
            state: "PENDING".into(),
            submitted_at: None,
            url: "u".into(),
            author: None,
            author_association: "NONE".into(),
        };
        assert!(review(&node).unwrap().is_none());
    }

    #[test]
    fn a_pull_requests_author_is_spelled_as_rest_spells_it() {
        let node = |author: serde_json::Value| -> PullRequestNode {
            let empty = serde_json::json!({
                "pageInfo": { "hasNextPage": false, "endCursor": null }, "nodes": []
            });
            serde_json::from_value(serde_json::json!({
                "id": "PR_x", "number": 7, "title": "t", "state": "MERGED", "merged": true,
                "updatedAt": "2025-01-02T03:04:05Z", "author": author,
                "reviewThreads": empty, "reviews": empty, "comments": empty,
            }))
            .unwrap()
        };
        let author = |value| pull_request(&node(value)).unwrap().author;
        let user = serde_json::json!({ "login": "Octocat", "__typename": "User" });
        assert_eq!(author(user).as_deref(), Some("Octocat"));
        let bot = serde_json::json!({ "login": "dependabot", "__typename": "Bot" });
        assert_eq!(author(bot).as_deref(), Some("dependabot[bot]"));
        assert_eq!(author(serde_json::Value::Null), None);
    }
}
