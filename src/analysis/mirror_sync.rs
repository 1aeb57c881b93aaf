//! The repositories' mirrors as the store sees them: brought up to date when a push marked them
//! stale, and deleted when their repository is not live any more.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::domain::RepoId;
use crate::knowledge::history::mirror::{self, Remote};
use crate::store::{Store, history, repos};

/// Deletes the mirrors of repositories that are not live any more (removed, uninstalled or
/// unknown to the store): their clones are data of the repository too. Returns how many went.
pub fn remove_orphans(data_dir: &Path, store: &Store) -> Result<usize> {
    let dir = data_dir.join("mirrors");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(0);
    };
    let live = repos::live_repo_ids(&store.reader()?)?;
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".git"))
            .and_then(|n| n.parse::<i64>().ok())
            .map(RepoId)
        else {
            continue; // not a mirror (a clone in progress is `.clone-…`)
        };
        if !live.contains(&id) {
            std::fs::remove_dir_all(entry.path())
                .with_context(|| format!("Cannot delete the mirror {}", entry.path().display()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// [`mirror::update`] with the staleness the store records (set by a push to the default branch):
/// the mark is taken before fetching and put back if the fetch fails.
pub fn sync(
    store: &Store,
    data_dir: &Path,
    repo_id: RepoId,
    remote: &Remote,
    now: i64,
) -> Result<PathBuf> {
    let stale = store.write_derived(|tx| history::take_mirror_stale(tx, repo_id))?;
    match mirror::update(data_dir, repo_id, remote, stale, now) {
        Ok((mirror, _)) => Ok(mirror),
        Err(error) => {
            if stale {
                store.write_derived(|tx| repos::mark_mirror_stale(tx, repo_id))?;
            }
            Err(error)
        }
    }
}
