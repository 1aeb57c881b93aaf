//! A pull request's changed files.

use anyhow::{Context, Result};
use serde_json::Value;

use super::super::client::{As, GitHub, PER_PAGE};
use super::{i64_field, str_field};
use crate::domain::RepoName;

/// A file a pull request changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullFile {
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`, `copied`, `changed` or `unchanged`.
    pub status: String,
    /// The old path of a renamed file.
    pub previous_filename: Option<String>,
    pub additions: i64,
    pub deletions: i64,
}

impl GitHub {
    /// Every file pull request `number` changes, following every `Link` page with the token
    /// (GitHub lists at most 3,000). GETs: retried.
    pub async fn pull_request_files(
        &self,
        installation: i64,
        repo: &RepoName,
        number: i64,
    ) -> Result<Vec<PullFile>> {
        let failed = || format!("Cannot list the files of pull request #{number} of {repo}");
        self.all_pages(
            As::Installation(installation),
            &format!("/repos/{repo}/pulls/{number}/files?per_page={PER_PAGE}"),
            None,
        )
        .await
        .with_context(failed)?
        .iter()
        .map(pull_file)
        .collect::<Result<_>>()
        .with_context(failed)
    }
}

fn pull_file(file: &Value) -> Result<PullFile> {
    Ok(PullFile {
        filename: str_field(file, "filename", "pull request file")?.to_string(),
        status: str_field(file, "status", "pull request file")?.to_string(),
        previous_filename: file["previous_filename"].as_str().map(str::to_string),
        additions: i64_field(file, "additions", "pull request file")?,
        deletions: i64_field(file, "deletions", "pull request file")?,
    })
}
