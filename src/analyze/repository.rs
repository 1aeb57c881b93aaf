//! The local repository `gitlore analyze` reads: that PATH is one, what it is called, where it
//! lives on GitHub (from its `origin` remote) and when its newest commit was made.

use std::path::Path;
use std::process::{Command, Output};

use anyhow::{Context, Result, bail};

use crate::domain::RepoName;

/// Fails with one sentence unless `path` is a git repository (one without commits is fine).
pub fn check(path: &Path) -> Result<()> {
    if !path.exists() {
        bail!("{} does not exist", path.display());
    }
    let output = git(path, &["rev-parse", "--git-dir"])?;
    if !output.status.success() {
        bail!(
            "{} is not a git repository: give the path of a clone",
            path.display()
        );
    }
    Ok(())
}

/// The repository's name for a local store: its directory's name.
pub fn directory_name(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|full| full.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "repository".to_string())
}

/// `owner/name` of the `origin` remote when it is on github.com.
pub fn github_origin(path: &Path) -> Option<RepoName> {
    let output = git(path, &["remote", "get-url", "origin"]).ok()?;
    if !output.status.success() {
        return None;
    }
    github_name(String::from_utf8_lossy(&output.stdout).trim())
}

/// Whether `path` is a shallow clone (CI's default): its history stops after a few commits.
pub fn is_shallow(path: &Path) -> bool {
    git(path, &["rev-parse", "--is-shallow-repository"])
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "true")
}

/// Whether `file` (relative to the root of `path`) differs from the last commit: changed, staged
/// or not committed at all.
pub fn has_uncommitted_changes(path: &Path, file: &str) -> bool {
    git(path, &["status", "--porcelain", "--", file])
        .is_ok_and(|output| output.status.success() && !output.stdout.is_empty())
}

/// Unix seconds of the newest commit reachable from HEAD; `None` without commits.
pub fn newest_commit_at(path: &Path) -> Result<Option<i64>> {
    let output = git(path, &["log", "-1", "--format=%ct", "HEAD", "--"])?;
    if !output.status.success() {
        return Ok(None); // no commit yet: HEAD names nothing
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text.trim().parse().ok())
}

/// `owner/name` of a github.com remote URL (HTTPS, SSH or scp-like), with or without `.git`.
fn github_name(url: &str) -> Option<RepoName> {
    let rest = [
        "https://github.com/",
        "http://github.com/",
        "ssh://git@github.com/",
    ]
    .iter()
    .find_map(|prefix| url.strip_prefix(prefix))
    .or_else(|| url.strip_prefix("git@github.com:"))?;
    let rest = rest.trim_end_matches('/');
    RepoName::parse(rest.strip_suffix(".git").unwrap_or(rest))
}

fn git(path: &Path, args: &[&str]) -> Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(path)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .context("Cannot run git: is it installed?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_remotes_give_their_name() {
        for url in [
            "https://github.com/acme/widgets.git",
            "https://github.com/acme/widgets",
            "git@github.com:acme/widgets.git",
            "ssh://git@github.com/acme/widgets.git",
        ] {
            assert_eq!(
                github_name(url).map(|n| n.to_string()),
                Some("acme/widgets".to_string()),
                "{url}"
            );
        }
        assert_eq!(github_name("https://gitlab.com/acme/widgets.git"), None);
        assert_eq!(github_name("/srv/git/widgets.git"), None);
    }
}
