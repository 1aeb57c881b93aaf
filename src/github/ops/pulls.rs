//! Pull requests: one, the open ones, and a pull request's changed files.

use serde::Deserialize;
use serde_json::Value;

use super::super::error::{Error, Result};
use super::super::repo::RepoClient;

use crate::domain::{PrNumber, PullRequest};
use crate::events::pull_request_from_value;

/// A file a pull request changes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PullFile {
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`, `copied`, `changed` or `unchanged`.
    pub status: String,
    /// The old path of a renamed file.
    pub previous_filename: Option<String>,
    pub additions: i64,
    pub deletions: i64,
}

impl RepoClient<'_> {
    /// Pull request `number`. A GET: retried.
    pub async fn pull_request(&self, number: PrNumber) -> Result<PullRequest> {
        let tail = format!("/pulls/{number}");
        read_pull(self.get(&tail).await?, &tail)
    }

    /// The open pull requests, the most recently opened first, at most `limit` (one page, so at
    /// most 100). A GET: retried.
    pub async fn open_pull_requests(&self, limit: usize) -> Result<Vec<PullRequest>> {
        let tail = format!(
            "/pulls?state=open&sort=created&direction=desc&per_page={}",
            limit.clamp(1, 100)
        );
        let page: Vec<Value> = self.get(&tail).await?;
        page.into_iter()
            .map(|pull| read_pull(pull, &tail))
            .collect()
    }

    /// Every file pull request `number` changes, following every `Link` page with the token
    /// (GitHub lists at most 3,000). GETs: retried.
    pub async fn pull_request_files(&self, number: PrNumber) -> Result<Vec<PullFile>> {
        self.all_pages(&format!("/pulls/{number}/files"), |page| page)
            .await
    }
}

fn read_pull(value: Value, tail: &str) -> Result<PullRequest> {
    pull_request_from_value(value).map_err(|error| Error::Unexpected {
        url: tail.to_string(),
        reason: error.to_string(),
    })
}
