//! The `gitlore` check run of a pull request's head commit (behaviour §5.2): created once per
//! commit, then updated in place.

use http::Method;
use serde::{Deserialize, Serialize};

use super::super::client::Retry;
use super::super::error::{Error, Result};
use super::super::repo::{Once, RepoClient};
use super::{MadeBy, null_as_default};
use crate::domain::markers::CHECK_RUN_NAME;

/// A check run as the bot needs it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CheckRunRef {
    pub id: i64,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub html_url: String,
}

/// A check run as a commit's list shows it: with its name and the App that made it.
#[derive(Deserialize)]
struct ListedCheckRun {
    #[serde(flatten)]
    run: CheckRunRef,
    name: String,
    app: Option<MadeBy>,
}

/// A page of a commit's check runs.
#[derive(Deserialize)]
struct CheckRunList {
    check_runs: Vec<ListedCheckRun>,
}

/// The request that creates a check run.
#[derive(Serialize)]
struct CreateCheckRun<'a> {
    name: &'a str,
    head_sha: &'a str,
    #[serde(flatten)]
    fields: &'a CheckRunFields<'a>,
}

/// The writable fields of a check run; `None` and empty lists leave a field as it is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckRunFields<'a> {
    /// `queued`, `in_progress` or `completed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'a str>,
    /// Setting one completes the run; the bot's is `neutral` (it never blocks a merge).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<CheckOutput<'a>>,
    /// At most 3 buttons.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<CheckAction<'a>>,
}

/// A check run's output: summary and text at most 65,535 characters each.
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutput<'a> {
    pub title: &'a str,
    pub summary: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// At most 50 per request; later requests add to them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<CheckAnnotation<'a>>,
}

/// A note on lines of a changed file.
#[derive(Debug, Clone, Serialize)]
pub struct CheckAnnotation<'a> {
    pub path: &'a str,
    pub start_line: u32,
    pub end_line: u32,
    /// `notice`, `warning` or `failure`.
    pub annotation_level: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
}

/// A button on the check run (label ≤ 20, description ≤ 40, identifier ≤ 20 characters).
#[derive(Debug, Clone, Serialize)]
pub struct CheckAction<'a> {
    pub label: &'a str,
    pub description: &'a str,
    pub identifier: &'a str,
}

impl RepoClient<'_> {
    /// The `gitlore` check run of `head_sha`, created once (`create_once`): before each attempt
    /// the commit's check runs named `gitlore` are listed and one made by this App is reused;
    /// a reused run gets `fields` through an update.
    pub async fn create_check_run(
        &self,
        head_sha: &str,
        fields: &CheckRunFields<'_>,
    ) -> Result<CheckRunRef> {
        if head_sha.is_empty() || !head_sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(Error::Refused(format!("{head_sha:?} is not a commit sha")));
        }
        let request = CreateCheckRun {
            name: CHECK_RUN_NAME,
            head_sha,
            fields,
        };
        let find = || self.find_check_run(head_sha);
        match self.create_once("/check-runs", &request, find).await? {
            Once::Found(run) => self.update_check_run(run.id, fields).await,
            Once::Created(run) => Ok(run),
        }
    }

    /// Changes a check run. A PATCH setting fields to given values is idempotent, so it is
    /// retried (annotations add up on GitHub, so a retried request carrying annotations may
    /// show them twice; the bot sends them once, with the final update).
    pub async fn update_check_run(
        &self,
        check_run_id: i64,
        fields: &CheckRunFields<'_>,
    ) -> Result<CheckRunRef> {
        let tail = format!("/check-runs/{check_run_id}");
        self.write(Method::PATCH, &tail, fields, Retry::Safe).await
    }

    /// The newest `gitlore` check run this App made on `head_sha`.
    async fn find_check_run(&self, head_sha: &str) -> Result<Option<CheckRunRef>> {
        let tail = format!("/commits/{head_sha}/check-runs?check_name={CHECK_RUN_NAME}&filter=all");
        let runs = self
            .all_pages(&tail, |page: CheckRunList| page.check_runs)
            .await?;
        let app_id = self.app_id();
        Ok(runs
            .into_iter()
            .find(|listed| {
                listed.name == CHECK_RUN_NAME
                    && app_id.is_some()
                    && listed.app.as_ref().and_then(|app| app.id) == app_id
            })
            .map(|listed| listed.run))
    }
}
