//! The dismissals job: dismiss boxes ticked in the findings issue by someone with write access.

use anyhow::Result;

use super::RepoJob;
use crate::domain::job::Dismissals;
use crate::render::dismissals::ticked_dismissals;
use crate::store::{findings, publications};

impl RepoJob<'_> {
    /// Dismisses the findings whose box was ticked between the body gitlore published and the
    /// edited one, then publishes the issue again without them.
    pub(super) async fn dismissals(&self, job: &Dismissals) -> Result<()> {
        let runner = self.runner;
        let (number, edited, editor) = (job.issue, job.body.as_str(), job.editor.as_str());
        let known = publications::findings_issue(&runner.store.reader()?, self.repo_id)?;
        let Some(known) = known.filter(|issue| issue.number == number) else {
            tracing::info!(repo = %self.repo, issue = number, "an edited issue that is not the findings issue: ignored");
            return Ok(());
        };
        let ticked = ticked_dismissals(&known.body, edited);
        if ticked.is_empty() {
            return Ok(());
        }
        if !self.can_write(editor).await? {
            tracing::info!(repo = %self.repo, editor, ids = ?ticked, "dismissals ignored: the editor has no write permission");
            return Ok(());
        }
        let now = runner.now_secs();
        let dismissed = runner.store.write_derived(|tx| {
            let mut dismissed = Vec::new();
            for id in &ticked {
                if findings::dismiss(tx, self.repo_id, id, editor, now)? {
                    dismissed.push(id.clone());
                }
            }
            Ok(dismissed)
        })?;
        tracing::info!(repo = %self.repo, editor, ids = ?dismissed, "findings dismissed");
        if dismissed.is_empty() {
            return Ok(());
        }
        self.analyse_and_publish(false).await.map(|_| ())
    }
}
