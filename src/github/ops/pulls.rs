//! A pull request's changed files.

use serde::Deserialize;

use super::super::error::Result;
use super::super::repo::RepoClient;

use crate::domain::PrNumber;

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
    /// Every file pull request `number` changes, following every `Link` page with the token
    /// (GitHub lists at most 3,000). GETs: retried.
    pub async fn pull_request_files(&self, number: PrNumber) -> Result<Vec<PullFile>> {
        self.all_pages(&format!("/pulls/{number}/files"), |page| page)
            .await
    }
}
