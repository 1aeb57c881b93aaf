//! The git history an analysis reads: the repository's mirror, brought up to date, and the
//! history report of its stored commits. A history that cannot be read costs only itself: the
//! analysis goes on with review comments alone and says so.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::RepoJob;
use crate::analysis::{history, mirror_sync};
use crate::knowledge::history::HistoryReport;
use crate::knowledge::history::mirror::Remote;

/// Where mirrors live and where they are cloned from.
#[derive(Debug, Clone)]
pub struct HistorySource {
    /// Mirrors go to `<data_dir>/mirrors/<repo id>.git`.
    pub data_dir: PathBuf,
    /// What `/<owner>/<name>.git` is appended to: GitHub's web host (`https://github.com`),
    /// or a local directory of repositories (tests).
    pub remote_base: String,
}

/// The history an analysis gets.
pub(super) struct History {
    pub report: HistoryReport,
    /// The mirror, for the LLM's git tools.
    pub mirror: Option<PathBuf>,
    /// Why there is no history, when it could not be read.
    pub failure: Option<String>,
}

impl RepoJob<'_> {
    /// The repository's history, or an empty one when no source is configured or it fails.
    pub(super) async fn history(&self) -> History {
        let Some(source) = self.runner.settings.history.clone() else {
            return History {
                report: HistoryReport::default(),
                mirror: None,
                failure: None,
            };
        };
        match self.read_history(source).await {
            Ok((report, mirror)) => History {
                report,
                mirror: Some(mirror),
                failure: None,
            },
            Err(error) => {
                let error = format!("{error:#}");
                tracing::warn!(repo = %self.repo, %error, "cannot read the git history: analysing review comments alone");
                History {
                    report: HistoryReport::default(),
                    mirror: None,
                    failure: Some(error),
                }
            }
        }
    }

    async fn read_history(&self, source: HistorySource) -> Result<(HistoryReport, PathBuf)> {
        let runner = self.runner;
        let base = source.remote_base.trim_end_matches('/');
        let token = if base.starts_with("https://") || base.starts_with("http://") {
            Some(self.github.installation_token().await?)
        } else {
            None
        };
        let remote = Remote {
            url: format!("{base}/{}.git", self.repo),
            token,
        };
        let store = runner.store.clone();
        let (repo_id, now) = (self.repo_id, runner.now_secs());
        tokio::task::spawn_blocking(move || {
            let mirror = mirror_sync::sync(&store, &source.data_dir, repo_id, &remote, now)?;
            let report = history::run(&store, repo_id, &mirror)?;
            Ok((report, mirror))
        })
        .await
        .context("The git history reader panicked")?
    }
}
