//! The report of a repository's last analysis (`analysis_runs.report`): its figures, the repo
//! config's problems and the analysis' notes, kept for the repository's web page, and the
//! configuration it ran with, kept for the next analysis.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::domain::RepoId;
use crate::domain::effect::EffectReport;
use crate::domain::themes::ModelLabels;
use crate::repo_config::RepoConfig;

/// What the last analysis reported besides its findings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunReport {
    /// Unix seconds of the analysis.
    pub run_at: i64,
    /// Non-noise review comments in the window.
    pub comments: usize,
    pub reviewers: usize,
    pub pull_requests: usize,
    pub window_months: u32,
    /// The analysed head commit of the default branch, if any.
    pub head: Option<String>,
    /// Problems with the repo config, worded for people (`file line N: reason`).
    pub config_problems: Vec<String>,
    /// What fell back to a built-in component, and why.
    pub notes: Vec<String>,
    /// The configuration the analysis ran with: the last good one, should the next repo file
    /// be unusable as a whole. Absent from reports of earlier versions.
    #[serde(default)]
    pub config: Option<RepoConfig>,
    /// Who judged the comments, when a model did. Absent from reports of earlier versions.
    #[serde(default)]
    pub model_labels: Option<ModelLabels>,
    /// Whether the lessons help (behaviour §3.4). Absent from reports of earlier versions.
    #[serde(default)]
    pub effect: Option<EffectReport>,
    /// Active findings the hold-back keeps out of what is published, for now.
    #[serde(default)]
    pub held_back: Vec<String>,
}

impl RunReport {
    /// Whether finding `id` is published (not held back) as of this report.
    pub fn shows(&self, id: &str) -> bool {
        !self.held_back.iter().any(|held| held == id)
    }
}

/// Saves the report of `repo_id`'s last analysis.
pub fn save(conn: &Connection, repo_id: RepoId, report: &RunReport) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO analysis_runs (repo_id, report) VALUES (?1, ?2)
         ON CONFLICT (repo_id) DO UPDATE SET report = excluded.report",
    )?
    .execute(params![repo_id, serde_json::to_string(report)?])
    .with_context(|| format!("Cannot save the run report of repository {repo_id}"))?;
    Ok(())
}

/// The report of `repo_id`'s last analysis, if one was saved.
pub fn load(conn: &Connection, repo_id: RepoId) -> Result<Option<RunReport>> {
    let text: Option<String> = conn
        .prepare_cached("SELECT report FROM analysis_runs WHERE repo_id = ?1")?
        .query_row([repo_id], |row| row.get(0))
        .optional()?
        .flatten();
    text.map(|text| {
        serde_json::from_str(&text)
            .with_context(|| format!("The run report of repository {repo_id} is not valid"))
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_report_reads_back_and_is_none_before_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        store
            .write(|tx| {
                tx.execute("INSERT INTO repos (id, full_name) VALUES (1, 'o/a')", [])?;
                Ok(())
            })
            .unwrap();
        assert_eq!(load(&store.reader().unwrap(), RepoId(1)).unwrap(), None);
        let report = RunReport {
            run_at: 1_700_000_000,
            comments: 12,
            config_problems: vec!["o/a:.github/gitlore.toml line 3: unknown key `x`".into()],
            ..RunReport::default()
        };
        store.write(|tx| save(tx, RepoId(1), &report)).unwrap();
        assert_eq!(
            load(&store.reader().unwrap(), RepoId(1)).unwrap(),
            Some(report)
        );
    }
}
