//! Our own serde types for the webhook payload fields gitlore uses, and nothing more: unknown
//! fields are skipped, so new GitHub fields never break parsing.

use serde::Deserialize;

use crate::domain::{InstallationId, PrNumber, RepoId};

#[derive(Debug, Deserialize)]
pub struct User {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: String,
}

#[derive(Debug, Deserialize)]
pub struct AppRef {
    pub id: i64,
}

#[derive(Debug, Deserialize)]
pub struct Installation {
    pub id: InstallationId,
    pub account: Option<User>,
}

#[derive(Debug, Deserialize)]
pub struct Repository {
    pub id: RepoId,
    pub full_name: String,
    #[serde(default)]
    pub private: bool,
    pub default_branch: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct GitRef {
    pub sha: String,
}

#[derive(Debug, Deserialize)]
pub struct PullRequest {
    pub number: PrNumber,
    #[serde(default)]
    pub title: String,
    pub state: String,
    pub merged_at: Option<String>,
    pub merged: Option<bool>,
    pub head: GitRef,
    pub updated_at: String,
    /// Who opened it; `null` for a deleted account.
    pub user: Option<User>,
}

/// An inline review comment or a conversation (issue) comment; the inline-only fields are absent
/// on the latter.
#[derive(Debug, Deserialize)]
pub struct Comment {
    pub id: i64,
    pub node_id: Option<String>,
    pub user: Option<User>,
    #[serde(default)]
    pub body: String,
    pub path: Option<String>,
    pub line: Option<i64>,
    pub original_line: Option<i64>,
    pub diff_hunk: Option<String>,
    pub in_reply_to_id: Option<i64>,
    pub pull_request_review_id: Option<i64>,
    pub author_association: Option<String>,
    pub performed_via_github_app: Option<AppRef>,
    pub created_at: String,
    pub updated_at: String,
    pub html_url: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Review {
    pub id: i64,
    pub node_id: Option<String>,
    pub user: Option<User>,
    pub body: Option<String>,
    pub state: String,
    pub submitted_at: Option<String>,
    pub author_association: Option<String>,
    pub html_url: Option<String>,
}

/// The `pull_request` link object an issue carries when it is a pull request.
#[derive(Debug, Deserialize)]
pub struct IssuePullRequestLink {
    pub merged_at: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Issue {
    pub number: i64,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub state: String,
    pub body: Option<String>,
    pub updated_at: Option<String>,
    pub pull_request: Option<IssuePullRequestLink>,
    /// Who opened it (the pull request's author, for a pull request).
    pub user: Option<User>,
}

#[derive(Debug, Deserialize)]
pub struct ThreadComment {
    pub id: i64,
    pub in_reply_to_id: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub struct Thread {
    pub node_id: Option<String>,
    pub comments: Vec<ThreadComment>,
}

#[derive(Debug, Deserialize)]
pub struct CheckRunPullRequest {
    pub number: PrNumber,
}

#[derive(Debug, Deserialize)]
pub struct CheckRun {
    pub id: i64,
    pub head_sha: String,
    pub app: Option<AppRef>,
    #[serde(default)]
    pub pull_requests: Vec<CheckRunPullRequest>,
}

#[derive(Debug, Deserialize)]
pub struct RequestedAction {
    pub identifier: String,
}

#[derive(Debug, Deserialize)]
pub struct BodyChange {
    pub from: String,
}

#[derive(Debug, Deserialize)]
pub struct Changes {
    pub body: Option<BodyChange>,
}

/// Just the action, to tell an unused action from a broken payload when the full read fails.
#[derive(Debug, Deserialize)]
pub struct ActionOnly {
    pub action: Option<String>,
}

/// Every top-level field gitlore reads, for all events: one pass over the body, then each event
/// takes the fields it needs (a missing one is a parse error naming it).
#[derive(Debug, Deserialize)]
pub struct Payload {
    pub action: Option<String>,
    pub installation: Option<Installation>,
    pub repository: Option<Repository>,
    pub sender: Option<User>,
    #[serde(default)]
    pub repositories: Vec<Repository>,
    #[serde(default)]
    pub repositories_added: Vec<Repository>,
    #[serde(default)]
    pub repositories_removed: Vec<Repository>,
    /// A review comment or an issue comment: the same struct reads both.
    pub comment: Option<Comment>,
    pub review: Option<Review>,
    pub pull_request: Option<PullRequest>,
    pub thread: Option<Thread>,
    pub issue: Option<Issue>,
    pub changes: Option<Changes>,
    pub check_run: Option<CheckRun>,
    pub requested_action: Option<RequestedAction>,
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
}
