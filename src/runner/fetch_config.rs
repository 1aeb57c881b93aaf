//! Reading a repository's `.github/gitlore.toml` (and its org's) from GitHub; `repo_config`
//! parses and resolves what is read.

use crate::domain::RepoName;
use crate::github::error::Error as GitHubError;
use crate::github::ops::contents::FileContent;
use crate::github::repo::RepoClient;
use crate::repo_config::{CONFIG_PATH, ConfigProblem, Resolved, resolve, text_of};

/// Reads a repository's configuration from GitHub: `.github/gitlore.toml` on the default branch
/// (never a pull request's head) and the org's defaults from the same file in the owner's
/// `.github` repository. Missing files mean defaults; an unreadable org file (no access, no such
/// repository) is not an error, since most owners have none. A file that is not UTF-8 or too
/// large for GitHub to serve is a problem like any other: the defaults stand in for it.
pub async fn fetch(github: &RepoClient<'_>) -> Result<Resolved, GitHubError> {
    let repo = github.name();
    let branch = github.default_branch().await?;
    let own = github.file(CONFIG_PATH, &branch).await?;
    let owner = repo.as_str().split('/').next().unwrap_or_default();
    let org_repo = RepoName::parse(&format!("{owner}/.github"));
    let org = match org_repo.filter(|org| org != repo) {
        Some(org_repo) => {
            let org = github.sibling(&org_repo);
            match org.default_branch().await {
                Ok(org_branch) => org
                    .file(CONFIG_PATH, &org_branch)
                    .await
                    .ok()
                    .flatten()
                    .map(|content| (format!("{org_repo}:{CONFIG_PATH}"), content)),
                Err(_) => None,
            }
        }
        None => None,
    };
    let own = own.map(|content| (format!("{repo}:{CONFIG_PATH}"), content));
    let mut problems = Vec::new();
    let mut text_of = |file: Option<(String, FileContent)>| {
        let (source, content) = file?;
        match decode(&source, content) {
            Ok(text) => Some((source, text)),
            Err(problem) => {
                problems.push(problem);
                None
            }
        }
    };
    let own_present = own.is_some();
    let (org, own) = (text_of(org), text_of(own));
    let mut resolved = resolve(
        org.as_ref()
            .map(|(source, text)| (source.as_str(), text.as_str())),
        own.as_ref()
            .map(|(source, text)| (source.as_str(), text.as_str())),
    );
    problems.append(&mut resolved.problems);
    resolved.problems = problems;
    resolved.repo_file_unused |= own_present && own.is_none();
    Ok(resolved)
}

/// A config file as GitHub served it, as text.
fn decode(source: &str, content: FileContent) -> Result<String, ConfigProblem> {
    match content {
        FileContent::Bytes(bytes) => text_of(source, bytes),
        FileContent::TooLarge { size } => Err(ConfigProblem {
            source: source.to_string(),
            line: None,
            reason: format!(
                "is {size} bytes, larger than the 1 MB GitHub serves, so it cannot be read"
            ),
        }),
    }
}
