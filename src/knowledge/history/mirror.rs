//! A bare mirror of each repository under `<data dir>/mirrors/<repo id>.git`: cloned once,
//! fetched when a push marked it stale or when it is older than [`MAX_AGE_SECS`].
//!
//! The installation token travels as an HTTP header in git's environment
//! (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_0=http.extraHeader`): never in the URL, the arguments,
//! the mirror's config on disk or a log line. A local path or `file://` URL works too.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use base64::Engine;

use super::git::Git;
use crate::domain::{RepoId, Secret};

/// The longest a first clone may take.
pub const CLONE_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// The longest a fetch may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// A mirror not fetched for this long is fetched before it is analysed, pushes or not.
pub const MAX_AGE_SECS: i64 = 24 * 60 * 60;
/// Written in the mirror after each clone or fetch: the unix seconds it happened.
const FETCHED_AT_FILE: &str = "gitlore-fetched-at";

/// Where a mirror comes from.
#[derive(Debug, Clone)]
pub struct Remote {
    /// `https://…`, `file://…` or a local path; never with credentials in it.
    pub url: String,
    /// The installation token, for an `https` remote.
    pub token: Option<Secret>,
}

/// What [`update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    Cloned,
    Fetched,
    /// Fresh enough: nothing fetched.
    Unchanged,
}

/// The mirror of a repository.
pub fn path(data_dir: &Path, repo_id: RepoId) -> PathBuf {
    data_dir.join("mirrors").join(format!("{repo_id}.git"))
}

/// Creates the mirror if missing, or fetches it (pruning deleted refs) when `stale` or older
/// than [`MAX_AGE_SECS`] at `now` (unix seconds).
pub fn update(
    data_dir: &Path,
    repo_id: RepoId,
    remote: &Remote,
    stale: bool,
    now: i64,
) -> Result<(PathBuf, Update)> {
    if has_credentials(&remote.url) {
        bail!("The remote URL of repository {repo_id} has credentials in it; pass the token apart");
    }
    let mirror = path(data_dir, repo_id);
    let update = if !mirror.join("HEAD").exists() {
        clone(&mirror, remote)?;
        Update::Cloned
    } else if stale || fetched_at(&mirror).is_none_or(|at| now - at > MAX_AGE_SECS) {
        // The repository may have moved (renamed, transferred): fetch from where it is now.
        Git::new(&mirror, FETCH_TIMEOUT)
            .args(["config", "remote.origin.url", remote.url.as_str()])
            .output()
            .with_context(|| {
                format!("Cannot set the origin of the mirror of repository {repo_id}")
            })?;
        authenticated(Git::new(&mirror, FETCH_TIMEOUT), remote)
            .args(["fetch", "--prune", "--quiet", "origin"])
            .output()
            .with_context(|| format!("Cannot update the mirror of repository {repo_id}"))?;
        Update::Fetched
    } else {
        Update::Unchanged
    };
    if update != Update::Unchanged {
        std::fs::write(mirror.join(FETCHED_AT_FILE), now.to_string())
            .with_context(|| format!("Cannot write in the mirror {}", mirror.display()))?;
    }
    Ok((mirror, update))
}

/// Clones into a temporary sibling and renames it into place, so a failed clone leaves no
/// half mirror behind.
fn clone(mirror: &Path, remote: &Remote) -> Result<()> {
    let parent = mirror
        .parent()
        .context("A mirror path has a parent directory")?;
    std::fs::create_dir_all(parent)
        .with_context(|| format!("Cannot create the mirrors directory {}", parent.display()))?;
    let partial = tempfile::Builder::new()
        .prefix(".clone-")
        .tempdir_in(parent)
        .with_context(|| format!("Cannot create a directory in {}", parent.display()))?;
    let target = partial.path().join("mirror.git");
    authenticated(Git::new(parent, CLONE_TIMEOUT), remote)
        .args(["clone", "--mirror", "--quiet", "--"])
        .args([remote.url.as_str()])
        .args([&target])
        .output()
        .with_context(|| format!("Cannot create the mirror {}", mirror.display()))?;
    std::fs::rename(&target, mirror)
        .with_context(|| format!("Cannot move the new mirror to {}", mirror.display()))
}

/// Adds the token as `Authorization: Basic base64(x-access-token:TOKEN)`, GitHub's form for
/// installation tokens over HTTPS.
fn authenticated(git: Git, remote: &Remote) -> Git {
    match &remote.token {
        Some(token) => {
            let credentials = base64::engine::general_purpose::STANDARD
                .encode(format!("x-access-token:{}", token.expose()));
            git.http_header(&format!("Authorization: Basic {credentials}"), &credentials)
                .redacting(token.expose())
        }
        None => git,
    }
}

/// `scheme://user:password@host/…`: what must never be stored as a remote.
fn has_credentials(url: &str) -> bool {
    url.split_once("://").is_some_and(|(_, rest)| {
        rest.split('/')
            .next()
            .is_some_and(|authority| authority.contains('@'))
    })
}

fn fetched_at(mirror: &Path) -> Option<i64> {
    std::fs::read_to_string(mirror.join(FETCHED_AT_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_are_spotted() {
        assert!(has_credentials(
            "https://x-access-token:abc@github.com/o/r.git"
        ));
        assert!(!has_credentials("https://github.com/o/r.git"));
        assert!(!has_credentials("git@github.com:o/r.git"));
        assert!(!has_credentials("/srv/repos/r.git"));
    }
}
