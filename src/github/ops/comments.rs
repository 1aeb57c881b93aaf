//! Conversation comments the bot writes (created once, found again by a hidden marker) and the
//! reactions it puts on comments.

use anyhow::{Context, Result, anyhow};
use http::Method;
use serde_json::{Value, json};

use super::super::client::{As, GitHub, MAX_ATTEMPTS, PER_PAGE, is_retryable};
use super::{i64_field, str_field};
use crate::domain::RepoName;

/// A conversation comment the bot wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentRef {
    pub id: i64,
    pub html_url: String,
    pub body: String,
}

/// The reactions GitHub knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    PlusOne,
    MinusOne,
    Laugh,
    Confused,
    Heart,
    Hooray,
    Rocket,
    Eyes,
}

impl Reaction {
    /// GitHub's name for it (`content`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reaction::PlusOne => "+1",
            Reaction::MinusOne => "-1",
            Reaction::Laugh => "laugh",
            Reaction::Confused => "confused",
            Reaction::Heart => "heart",
            Reaction::Hooray => "hooray",
            Reaction::Rocket => "rocket",
            Reaction::Eyes => "eyes",
        }
    }
}

/// The comment a reaction goes on, by its REST id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReactionTarget {
    /// A conversation comment of an issue or a pull request.
    IssueComment(i64),
    /// An inline review comment of a pull request.
    ReviewComment(i64),
}

impl GitHub {
    /// Posts a comment whose `body` contains `marker` on issue or pull request `number`, exactly
    /// once. A create is not idempotent, so it is never retried blindly: before each attempt the
    /// issue's comments are searched for a bot comment carrying the marker (a create that failed
    /// with a 5xx or a network error may have been applied), and that one is returned if found.
    /// Comments by people are ignored, so nobody can silence the bot by quoting a marker.
    pub async fn create_issue_comment(
        &self,
        installation: i64,
        repo: &RepoName,
        number: i64,
        body: &str,
        marker: &str,
    ) -> Result<CommentRef> {
        let failed = || format!("Cannot comment on #{number} of {repo}");
        let path = format!("/repos/{repo}/issues/{number}/comments");
        let payload = json!({ "body": body });
        let mut last_error = None;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(found) = self
                .find_bot_comment(installation, &path, marker)
                .await
                .with_context(failed)?
            {
                return Ok(found);
            }
            match self
                .call(
                    Method::POST,
                    &path,
                    As::Installation(installation),
                    Some(&payload),
                    false,
                )
                .await
            {
                Ok(reply) => return comment_ref(&reply.json()?),
                Err(error) if is_retryable(&error) => {
                    self.backoff(1).await;
                    last_error = Some(error);
                }
                Err(error) => return Err(error.context(failed())),
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow!("no attempt made"))).with_context(failed)
    }

    /// The first comment on the list at `path` written by a bot (this App when GitHub says
    /// which App) whose body contains `marker`.
    async fn find_bot_comment(
        &self,
        installation: i64,
        path: &str,
        marker: &str,
    ) -> Result<Option<CommentRef>> {
        let comments = self
            .all_pages(
                As::Installation(installation),
                &format!("{path}?per_page={PER_PAGE}"),
                None,
            )
            .await?;
        comments
            .iter()
            .find(|c| {
                self.written_by_this_app(c)
                    && c["body"].as_str().is_some_and(|b| b.contains(marker))
            })
            .map(comment_ref)
            .transpose()
    }

    /// Whether a comment's author is a bot and, when GitHub names the App that wrote it, ours.
    fn written_by_this_app(&self, comment: &Value) -> bool {
        let bot = comment["user"]["type"].as_str() == Some("Bot");
        let app = comment["performed_via_github_app"]["id"].as_i64();
        bot && app.is_none_or(|id| Some(id) == self.app_id())
    }

    /// Puts a reaction on a comment. GitHub answers 200 with the existing reaction when the
    /// App has reacted so already, so the request is idempotent and retried. GitHub's
    /// permission tables put reactions on review comments under pull requests (write), which
    /// `app-manifest.json` does not ask for; conversation comments need issues (write).
    pub async fn create_reaction(
        &self,
        installation: i64,
        repo: &RepoName,
        on: ReactionTarget,
        reaction: Reaction,
    ) -> Result<()> {
        let path = match on {
            ReactionTarget::IssueComment(id) => {
                format!("/repos/{repo}/issues/comments/{id}/reactions")
            }
            ReactionTarget::ReviewComment(id) => {
                format!("/repos/{repo}/pulls/comments/{id}/reactions")
            }
        };
        self.call(
            Method::POST,
            &path,
            As::Installation(installation),
            Some(&json!({ "content": reaction.as_str() })),
            true,
        )
        .await
        .with_context(|| format!("Cannot react to {on:?} of {repo}"))?;
        Ok(())
    }
}

fn comment_ref(comment: &Value) -> Result<CommentRef> {
    Ok(CommentRef {
        id: i64_field(comment, "id", "comment")?,
        html_url: str_field(comment, "html_url", "comment")?.to_string(),
        body: comment["body"].as_str().unwrap_or_default().to_string(),
    })
}
