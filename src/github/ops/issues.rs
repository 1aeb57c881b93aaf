//! Issues: list those with a label, create one once (found again by a hidden marker), read one,
//! edit one in place, pin one.

use http::Method;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::super::client::Retry;
use super::super::error::{Error, Result};
use super::super::repo::RepoClient;
use super::null_as_default;

/// The document that pins an issue (validated against GitHub's schema by a test).
const PIN_ISSUE: &str = include_str!("../graphql/pin_issue.graphql");

/// An issue as the bot needs it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IssueRef {
    pub number: i64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub node_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub title: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub body: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub state: String,
}

/// What a new issue is made of.
#[derive(Debug, Clone)]
pub struct NewIssue<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub label: &'a str,
    /// A hidden marker in the body that finds the issue again.
    pub marker: &'a str,
}

/// The request that creates an issue.
#[derive(Serialize)]
struct CreateIssue<'a> {
    title: &'a str,
    body: &'a str,
    labels: [&'a str; 1],
}

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

impl RepoClient<'_> {
    /// Every issue (open or closed) carrying `label`, following every page. GETs: retried.
    pub async fn issues_with_label(&self, label: &str) -> Result<Vec<IssueRef>> {
        self.all_pages(&format!("/issues?state=all&labels={label}"), |page| page)
            .await
    }

    /// Creates an issue whose body contains `marker`, exactly once (`create_once`): it is
    /// looked up by `label` and `marker` before each attempt.
    pub async fn create_issue_once(&self, issue: &NewIssue<'_>) -> Result<IssueRef> {
        let request = CreateIssue {
            title: issue.title,
            body: issue.body,
            labels: [issue.label],
        };
        let find = move || async move {
            let listed = self.issues_with_label(issue.label).await?;
            Ok(listed
                .into_iter()
                .find(|found| found.body.contains(issue.marker)))
        };
        Ok(self
            .create_once("/issues", &request, find)
            .await?
            .into_inner())
    }

    /// One issue (or pull request, which GitHub also serves as an issue). A GET: retried.
    pub async fn get_issue(&self, number: i64) -> Result<IssueRef> {
        self.get(&format!("/issues/{number}")).await
    }

    /// Changes an issue's title, body or state. A PATCH that sets fields to given values is
    /// idempotent (applying it twice leaves the same issue), so it is retried.
    pub async fn update_issue(&self, number: i64, update: &IssueUpdate<'_>) -> Result<IssueRef> {
        let tail = format!("/issues/{number}");
        self.write(Method::PATCH, &tail, update, Retry::Safe).await
    }

    /// Pins an issue by its node id through GraphQL `pinIssue`. Pinning a pinned issue changes
    /// nothing, so the mutation is retried like a query. A repository that already has 3 pinned
    /// issues is an outcome (`LimitReached`), not an error: the bot goes on unpinned.
    pub async fn pin_issue(&self, issue_node_id: &str) -> Result<PinOutcome> {
        match self
            .graphql(PIN_ISSUE, json!({ "issueId": issue_node_id }))
            .await
        {
            Ok(_) => Ok(PinOutcome::Pinned),
            Err(error) if is_pin_limit(&error) => Ok(PinOutcome::LimitReached),
            Err(error) => Err(error),
        }
    }
}

/// Whether GitHub refused a pin because the repository has no pin left. GitHub's wording is not
/// published ("Maximum 3 pinned issues", "… already has 3 pinned issues"); every variant seen
/// names pinned issues, which no other error of this mutation does.
fn is_pin_limit(error: &Error) -> bool {
    match error {
        Error::GraphQl { messages } => messages
            .iter()
            .any(|m| m.to_ascii_lowercase().contains("pinned issues")),
        _ => false,
    }
}
