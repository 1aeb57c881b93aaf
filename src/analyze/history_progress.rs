//! Reading the git history for `gitlore analyze` with a progress line on stderr when the read
//! takes more than a moment, and one plain line when some commits lost their renames (a mirror
//! that lacks a few blobs: expected, not an error).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;

use crate::analysis::history;
use crate::domain::RepoId;
use crate::knowledge::history::{HistoryReport, log::Progress};
use crate::store::Store;

/// How long a read goes before progress is shown, and how often it is shown again.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// [`history::run`] for the command line.
pub fn read(store: &Store, repo_id: RepoId, path: &Path) -> Result<HistoryReport> {
    let progress = Progress::default();
    let (done, finished) = mpsc::channel::<()>();
    let report = std::thread::scope(|scope| {
        let progress = &progress;
        scope.spawn(move || {
            while finished.recv_timeout(PROGRESS_EVERY) == Err(mpsc::RecvTimeoutError::Timeout) {
                let total = progress.total.load(Ordering::Relaxed);
                let read = progress.read.load(Ordering::Relaxed);
                if total > 0 {
                    eprintln!("analyze: {read} of {total} commits read from git…");
                }
            }
        });
        let report = history::run_with_progress(store, repo_id, path, progress);
        drop(done);
        report
    })?;
    if report.commits_without_renames > 0 {
        eprintln!(
            "analyze: {} of {} commits could not be diffed whole (objects missing from the \
             repository): their files count, their renames are not followed",
            report.commits_without_renames, report.commits
        );
    }
    Ok(report)
}
