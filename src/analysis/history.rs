//! The incremental history analysis: it reads from git only the commits not stored yet
//! (`log::read`), stores them (`store::history`), and computes the report from every stored
//! commit with `knowledge::history::analyze`. [`analyze_path`] does the same for any local
//! repository with a throw-away store.

use std::path::Path;

use anyhow::{Context, Result};

use crate::domain::history::Commit;
use crate::domain::{Repo, RepoId, RepoName};
use crate::knowledge::history::log::{self, Progress};
use crate::knowledge::history::{HistoryReport, analyze, joined};
use crate::store::{self, Store};

/// Brings the stored history of `repo_id` up to the head of `repo_path` (reading only the new
/// commits; everything again when the stored head is no longer an ancestor, as after a
/// force-push), then analyses every stored commit.
pub fn run(store: &Store, repo_id: RepoId, repo_path: &Path) -> Result<HistoryReport> {
    run_with_progress(store, repo_id, repo_path, &Progress::default())
}

/// [`run`], counting the commits read from git in `progress` as it goes.
pub fn run_with_progress(
    store: &Store,
    repo_id: RepoId,
    repo_path: &Path,
    progress: &Progress,
) -> Result<HistoryReport> {
    let Some(head) = log::head(repo_path)? else {
        store.write_derived(|tx| store::history::delete(tx, repo_id))?;
        return Ok(HistoryReport::default());
    };
    let stored = store::history::stored_head(&store.reader()?, repo_id)?;
    if stored.as_deref() == Some(head.as_str()) {
        return analyze_stored(store, repo_id, repo_path, head, 0);
    }
    let mut new = match &stored {
        Some(stored) if log::is_ancestor(repo_path, stored, &head)? => {
            log::read(repo_path, &[format!("{stored}..{head}")], progress)?
        }
        _ => Vec::new(),
    };
    // The new commits continue the stored line only if the oldest one's first parent is its
    // head (not so when the branch moved to a merge whose first parent is another line).
    let continues = match (new.last(), &stored) {
        (Some(oldest), Some(stored)) => oldest.parents.first() == Some(stored),
        _ => false,
    };
    if continues {
        new.reverse();
        store_commits(store, repo_id, &new, &head, false)?;
        return analyze_stored(store, repo_id, repo_path, head, new.len());
    }
    // Everything is read again: the commits in hand are the whole history, so they are stored
    // while they are analysed.
    let mut all = log::read(repo_path, std::slice::from_ref(&head), progress)?;
    all.reverse();
    let files = log::files_at(repo_path, &head)?;
    let (stored, mut report) = std::thread::scope(|scope| {
        let stored = scope.spawn(|| store_commits(store, repo_id, &all, &head, true));
        let report = analyze(&all, Some(head.clone()), files);
        (joined(stored.join()), report)
    });
    stored?;
    report.commits_read = all.len();
    Ok(report)
}

/// Stores `commits` (oldest first) after the stored ones, or instead of them with `replace`.
fn store_commits(
    store: &Store,
    repo_id: RepoId,
    commits: &[Commit],
    head: &str,
    replace: bool,
) -> Result<()> {
    store
        .write_derived(|tx| store::history::append(tx, repo_id, commits, head, replace))
        .with_context(|| format!("Cannot store the new commits of repository {repo_id}"))
}

/// The report over every stored commit, `read` of them read from git by this run.
fn analyze_stored(
    store: &Store,
    repo_id: RepoId,
    repo_path: &Path,
    head: String,
    read: usize,
) -> Result<HistoryReport> {
    let (commits, files) = std::thread::scope(|scope| {
        let files = scope.spawn(|| log::files_at(repo_path, &head));
        let commits = store
            .reader()
            .and_then(|db| store::history::commits(&db, repo_id));
        (commits, joined(files.join()))
    });
    let mut report = analyze(&commits?, Some(head), files?);
    report.commits_read = read;
    Ok(report)
}

/// The history report of any local repository (`gitlore analyze`), through [`run`] with a store
/// in a temporary directory.
pub fn analyze_path(repo_path: &Path) -> Result<HistoryReport> {
    let dir = tempfile::tempdir().context("Cannot create a temporary directory for the store")?;
    let store = Store::open(&store::database_path(dir.path()))?;
    let repo = Repo {
        id: LOCAL_REPO_ID,
        name: RepoName::parse("local/repository").context("A valid repository name")?,
        default_branch: None,
        private: true,
    };
    store.write_derived(|tx| store::repos::upsert_repo(tx, &repo, None, false))?;
    run(&store, LOCAL_REPO_ID, repo_path)
}

/// The id a local repository gets in a throw-away store.
const LOCAL_REPO_ID: RepoId = RepoId(1);
