//! Issues: read one, edit one in place, pin one.

use anyhow::{Context, Result};
use http::Method;
use serde::Serialize;
use serde_json::json;

use super::super::client::{As, GitHub, GraphQlError, IssueRef, issue_ref};
use crate::domain::RepoName;

/// The document that pins an issue (validated against GitHub's schema by a test).
const PIN_ISSUE: &str = include_str!("../graphql/pin_issue.graphql");

/// An issue's open or closed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    Open,
    Closed,
}

/// The fields of an issue to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IssueUpdate<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<IssueState>,
}

/// What pinning an issue did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinOutcome {
    /// The issue is pinned (it may have been already).
    Pinned,
    /// The repository already has GitHub's maximum of 3 pinned issues; nothing changed.
    LimitReached,
}

impl GitHub {
    /// One issue (or pull request, which GitHub also serves as an issue). A GET: retried.
    pub async fn get_issue(
        &self,
        installation: i64,
        repo: &RepoName,
        number: i64,
    ) -> Result<IssueRef> {
        let reply = self
            .call(
                Method::GET,
                &format!("/repos/{repo}/issues/{number}"),
                As::Installation(installation),
                None,
                true,
            )
            .await
            .with_context(|| format!("Cannot read issue #{number} of {repo}"))?;
        issue_ref(&reply.json()?)
    }

    /// Changes an issue's title, body or state. A PATCH that sets fields to given values is
    /// idempotent (applying it twice leaves the same issue), so it is retried.
    pub async fn update_issue(
        &self,
        installation: i64,
        repo: &RepoName,
        number: i64,
        update: &IssueUpdate<'_>,
    ) -> Result<IssueRef> {
        let body = serde_json::to_value(update).context("Cannot encode an issue update")?;
        let reply = self
            .call(
                Method::PATCH,
                &format!("/repos/{repo}/issues/{number}"),
                As::Installation(installation),
                Some(&body),
                true,
            )
            .await
            .with_context(|| format!("Cannot update issue #{number} of {repo}"))?;
        issue_ref(&reply.json()?)
    }

    /// Pins an issue by its node id through GraphQL `pinIssue`. Pinning a pinned issue changes
    /// nothing, so the mutation is retried like a query. A repository that already has 3 pinned
    /// issues is an outcome (`LimitReached`), not an error: the bot goes on unpinned.
    pub async fn pin_issue(&self, installation: i64, issue_node_id: &str) -> Result<PinOutcome> {
        match self
            .graphql(installation, PIN_ISSUE, json!({ "issueId": issue_node_id }))
            .await
        {
            Ok(_) => Ok(PinOutcome::Pinned),
            Err(error) if is_pin_limit(&error) => Ok(PinOutcome::LimitReached),
            Err(error) => Err(error.context("Cannot pin the issue")),
        }
    }
}

/// Whether GitHub refused a pin because the repository has no pin left. GitHub's wording is not
/// published ("Maximum 3 pinned issues", "… already has 3 pinned issues"); every variant seen
/// names pinned issues, which no other error of this mutation does.
fn is_pin_limit(error: &anyhow::Error) -> bool {
    error.downcast_ref::<GraphQlError>().is_some_and(|e| {
        e.messages
            .iter()
            .any(|m| m.to_ascii_lowercase().contains("pinned issues"))
    })
}
