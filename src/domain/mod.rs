//! Domain types shared by the event parser, the store and the analysis: names and ids that mean
//! one thing each.

pub mod cache;
pub mod classification;
pub mod effect;
pub mod findings;
pub mod github_web;
pub mod history;
mod ids;
pub mod job;
pub mod markers;
mod secret;
pub mod themes;
mod time;

pub use ids::{InstallationId, PrNumber, RepoId};
pub use secret::Secret;
pub use time::UnixMs;

use std::fmt;

use sha2::Digest;

/// `owner/name` of a repository, lower-cased (GitHub names are case-insensitive).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoName(String);

impl RepoName {
    /// Parses `owner/name` as GitHub allows them (letters, digits, `-`, `_`, `.`; never `.` or
    /// `..`, which would name a directory in a path); anything else is rejected.
    pub fn parse(full_name: &str) -> Option<RepoName> {
        let (owner, name) = full_name.trim().split_once('/')?;
        let valid = |part: &str| {
            !matches!(part, "" | "." | "..")
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        (valid(owner) && valid(name)).then(|| RepoName(full_name.trim().to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a comment was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommentKind {
    /// A review comment on a line of the diff.
    Inline,
    /// The body of a submitted review.
    Review,
    /// A comment in the pull request's conversation.
    Conversation,
}

impl CommentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Inline => "inline",
            CommentKind::Review => "review",
            CommentKind::Conversation => "conversation",
        }
    }
}

/// A repository as an event names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Repo {
    pub id: RepoId,
    pub name: RepoName,
    pub default_branch: Option<String>,
    pub private: bool,
}

/// The pull request a comment or event belongs to, as the payload describes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PullRequest {
    pub number: PrNumber,
    pub title: String,
    /// `open` or `closed`.
    pub state: String,
    pub merged: bool,
    /// Absent when the payload does not carry it (issue comments).
    pub head_sha: Option<String>,
    /// Unix seconds; an older snapshot never overwrites a newer one.
    pub updated_at: i64,
    /// The login of who opened it, spelled as a comment author's is (bots as `name[bot]`);
    /// `None` when the source names nobody (GraphQL gives a deleted account as `null`).
    pub author: Option<String>,
}

/// Whether `author_login` (a comment's author) is `pr_author` (the login of who opened the pull
/// request). Logins are case-insensitive; an unknown PR author is nobody.
pub fn is_pr_author(author_login: &str, pr_author: Option<&str>) -> bool {
    pr_author.is_some_and(|pr_author| pr_author.eq_ignore_ascii_case(author_login))
}

/// The login GitHub shows for a deleted account, whose comments cannot be attributed.
pub const DELETED_ACCOUNT: &str = "ghost";

/// Who wrote something.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Author {
    pub login: String,
    /// GitHub says `type: "Bot"`.
    pub is_bot_account: bool,
    /// `author_association` (OWNER, MEMBER, CONTRIBUTOR, …), when given.
    pub association: Option<String>,
    /// The GitHub App the comment was made through (`performed_via_github_app.id`).
    pub via_app: Option<i64>,
}

/// A review comment, review body or conversation comment as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub kind: CommentKind,
    pub github_id: i64,
    pub node_id: Option<String>,
    pub author: Author,
    pub body: String,
    pub path: Option<String>,
    pub line: Option<i64>,
    pub diff_hunk: Option<String>,
    pub in_reply_to: Option<i64>,
    pub review_id: Option<i64>,
    pub review_state: Option<String>,
    /// Unix seconds.
    pub created_at: Option<i64>,
    /// Unix seconds; decides which of two versions of a comment wins.
    pub updated_at: i64,
    pub html_url: Option<String>,
}

impl Comment {
    /// A comment of `kind` with what every kind has; what only some kinds have (a node id, a
    /// place in a diff, a review, a creation time, a URL) is left empty for the caller to fill
    /// in (`Comment { path, ..Comment::new(…) }`).
    pub fn new(
        kind: CommentKind,
        github_id: i64,
        author: Author,
        body: String,
        updated_at: i64,
    ) -> Comment {
        Comment {
            kind,
            github_id,
            node_id: None,
            author,
            body,
            path: None,
            line: None,
            diff_hunk: None,
            in_reply_to: None,
            review_id: None,
            review_state: None,
            created_at: None,
            updated_at,
            html_url: None,
        }
    }

    /// The GitHub id of the first comment of this comment's review thread (inline comments only).
    pub fn thread_root(&self) -> Option<i64> {
        (self.kind == CommentKind::Inline).then(|| self.in_reply_to.unwrap_or(self.github_id))
    }
}

/// sha256 of a comment body, hex: with the classifier's version, the key that decides whether a
/// comment needs reclassifying.
pub fn body_hash(body: &str) -> String {
    hex::encode(sha2::Sha256::digest(body.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names_are_githubs_not_paths() {
        assert_eq!(
            RepoName::parse("Acme/Widgets.rs").map(|r| r.to_string()),
            Some("acme/widgets.rs".to_string())
        );
        for bad in [
            "acme/.",
            "acme/..",
            "../x",
            "acme/a\\b",
            "acme/a%2f",
            "acme/a\nb",
            "/x",
        ] {
            assert_eq!(RepoName::parse(bad), None, "{bad:?}");
        }
    }
}
