//! The `gitlore` check run of a pull request's head commit (behaviour §5.2): created once per
//! commit, then updated in place.

use anyhow::{Context, Result, anyhow};
use http::Method;
use serde::Serialize;
use serde_json::Value;

use super::super::client::{As, GitHub, MAX_ATTEMPTS, PER_PAGE, is_retryable};
use super::{i64_field, str_field};
use crate::domain::RepoName;
use crate::domain::markers::CHECK_RUN_NAME;

/// A check run as the bot needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRunRef {
    pub id: i64,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub html_url: String,
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

impl GitHub {
    /// The `gitlore` check run of `head_sha`, created once. A create is not idempotent, so
    /// before each attempt the commit's check runs named `gitlore` are listed and one made by
    /// this App is reused (a create that failed with a 5xx or a network error may have been
    /// applied, or an earlier job made it); a reused run gets `fields` through an update.
    pub async fn create_check_run(
        &self,
        installation: i64,
        repo: &RepoName,
        head_sha: &str,
        fields: &CheckRunFields<'_>,
    ) -> Result<CheckRunRef> {
        let failed = || format!("Cannot create the check run of {head_sha} in {repo}");
        if !head_sha.chars().all(|c| c.is_ascii_hexdigit()) || head_sha.is_empty() {
            return Err(anyhow!("{head_sha:?} is not a commit sha")).with_context(failed);
        }
        let mut body = serde_json::to_value(fields).context("Cannot encode a check run")?;
        body["name"] = CHECK_RUN_NAME.into();
        body["head_sha"] = head_sha.into();
        let mut last_error = None;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(found) = self
                .find_check_run(installation, repo, head_sha)
                .await
                .with_context(failed)?
            {
                return self
                    .update_check_run(installation, repo, found.id, fields)
                    .await;
            }
            match self
                .call(
                    Method::POST,
                    &format!("/repos/{repo}/check-runs"),
                    As::Installation(installation),
                    Some(&body),
                    false,
                )
                .await
            {
                Ok(reply) => return check_run_ref(&reply.json()?),
                Err(error) if is_retryable(&error) => {
                    self.backoff(1).await;
                    last_error = Some(error);
                }
                Err(error) => return Err(error.context(failed())),
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow!("no attempt made"))).with_context(failed)
    }

    /// Changes a check run. A PATCH setting fields to given values is idempotent, so it is
    /// retried (annotations add up on GitHub, so a retried request carrying annotations may
    /// show them twice; the bot sends them once, with the final update).
    pub async fn update_check_run(
        &self,
        installation: i64,
        repo: &RepoName,
        check_run_id: i64,
        fields: &CheckRunFields<'_>,
    ) -> Result<CheckRunRef> {
        let body = serde_json::to_value(fields).context("Cannot encode a check run")?;
        let reply = self
            .call(
                Method::PATCH,
                &format!("/repos/{repo}/check-runs/{check_run_id}"),
                As::Installation(installation),
                Some(&body),
                true,
            )
            .await
            .with_context(|| format!("Cannot update check run {check_run_id} of {repo}"))?;
        check_run_ref(&reply.json()?)
    }

    /// The newest `gitlore` check run this App made on `head_sha`.
    async fn find_check_run(
        &self,
        installation: i64,
        repo: &RepoName,
        head_sha: &str,
    ) -> Result<Option<CheckRunRef>> {
        let url = format!(
            "/repos/{repo}/commits/{head_sha}/check-runs?check_name={CHECK_RUN_NAME}&filter=all&per_page={PER_PAGE}"
        );
        let runs = self
            .all_pages(As::Installation(installation), &url, Some("check_runs"))
            .await?;
        runs.iter()
            .find(|run| {
                run["name"].as_str() == Some(CHECK_RUN_NAME)
                    && run["app"]["id"].as_i64().is_some()
                    && run["app"]["id"].as_i64() == self.app_id()
            })
            .map(check_run_ref)
            .transpose()
    }
}

fn check_run_ref(run: &Value) -> Result<CheckRunRef> {
    Ok(CheckRunRef {
        id: i64_field(run, "id", "check run")?,
        head_sha: str_field(run, "head_sha", "check run")?.to_string(),
        status: str_field(run, "status", "check run")?.to_string(),
        conclusion: run["conclusion"].as_str().map(str::to_string),
        html_url: run["html_url"].as_str().unwrap_or_default().to_string(),
    })
}
