//! Conversation comments the bot writes (created once, found again by a hidden marker) and the
//! reactions it puts on comments.

use http::Method;
use serde::{Deserialize, Serialize};

use super::super::client::Retry;
use super::super::error::Result;
use super::super::repo::RepoClient;
use super::{MadeBy, null_as_default};

use crate::domain::PrNumber;

/// A conversation comment the bot wrote.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CommentRef {
    pub id: i64,
    pub html_url: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub body: String,
}

/// A comment as a list shows it: with who wrote it.
#[derive(Deserialize)]
struct ListedComment {
    #[serde(flatten)]
    comment: CommentRef,
    user: Option<Author>,
    performed_via_github_app: Option<MadeBy>,
}

/// A comment's author.
#[derive(Deserialize)]
struct Author {
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// The request that writes a comment.
#[derive(Serialize)]
struct Body<'a> {
    body: &'a str,
}

/// The request that puts a reaction.
#[derive(Serialize)]
struct Content {
    content: &'static str,
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

impl RepoClient<'_> {
    /// Posts a comment whose `body` contains `marker` on pull request `number`, exactly
    /// once (`create_once`): before each attempt the issue's comments are searched for a bot
    /// comment carrying the marker. Comments by people are ignored, so nobody can silence the
    /// bot by quoting a marker.
    pub async fn create_issue_comment(
        &self,
        number: PrNumber,
        body: &str,
        marker: &str,
    ) -> Result<CommentRef> {
        let tail = format!("/issues/{number}/comments");
        let find = || self.find_bot_comment(&tail, marker);
        Ok(self
            .create_once(&tail, &Body { body }, find)
            .await?
            .into_inner())
    }

    /// The first comment on the list at `tail` written by a bot (this App when GitHub says
    /// which App) whose body contains `marker`.
    async fn find_bot_comment(&self, tail: &str, marker: &str) -> Result<Option<CommentRef>> {
        let comments: Vec<ListedComment> = self.all_pages(tail, |page| page).await?;
        Ok(comments
            .into_iter()
            .find(|c| self.written_by_this_app(c) && c.comment.body.contains(marker))
            .map(|c| c.comment))
    }

    /// Whether a comment's author is a bot and, when GitHub names the App that wrote it, ours.
    fn written_by_this_app(&self, comment: &ListedComment) -> bool {
        let bot = comment
            .user
            .as_ref()
            .is_some_and(|user| user.kind.as_deref() == Some("Bot"));
        let app = comment.performed_via_github_app.as_ref().and_then(|a| a.id);
        bot && app.is_none_or(|id| Some(id) == self.app_id())
    }

    /// Puts a reaction on a comment. GitHub answers 200 with the existing reaction when the
    /// App has reacted so already, so the request is idempotent and retried. GitHub's
    /// permission tables put reactions on review comments under pull requests (write), which
    /// `app-manifest.json` does not ask for; conversation comments need issues (write).
    pub async fn create_reaction(&self, on: ReactionTarget, reaction: Reaction) -> Result<()> {
        let tail = match on {
            ReactionTarget::IssueComment(id) => format!("/issues/comments/{id}/reactions"),
            ReactionTarget::ReviewComment(id) => format!("/pulls/comments/{id}/reactions"),
        };
        let content = Content {
            content: reaction.as_str(),
        };
        self.write::<serde::de::IgnoredAny>(Method::POST, &tail, &content, Retry::Safe)
            .await?;
        Ok(())
    }
}
