//! What a signed-in person's own token (`As::Token`, from the web pages' GitHub sign-in) may
//! ask: who they are, and whether they can read a repository.

use anyhow::{Context, Result};
use http::Method;

use super::super::client::{As, GitHub, is_not_found};
use crate::domain::RepoName;

impl GitHub {
    /// The login of the token's user (`GET /user`). A GET: retried.
    pub async fn token_login(&self) -> Result<String> {
        let reply = self
            .call(Method::GET, "/user", As::Token, None, true)
            .await
            .context("Cannot ask GitHub who signed in")?;
        let body = reply.json()?;
        body["login"]
            .as_str()
            .map(str::to_string)
            .context("GitHub's answer to /user names no login")
    }

    /// Whether the token's user can read `repo`: GitHub shows it (`GET /repos/{repo}`) with
    /// `permissions.pull`. A repository GitHub hides (404) is not readable. A GET: retried.
    pub async fn token_can_read(&self, repo: &RepoName) -> Result<bool> {
        match self
            .call(
                Method::GET,
                &format!("/repos/{repo}"),
                As::Token,
                None,
                true,
            )
            .await
        {
            Ok(reply) => {
                let body = reply.json()?;
                // Without `permissions` (never for a signed-in user) GitHub showing it is all.
                Ok(body["permissions"]["pull"].as_bool().unwrap_or(true))
            }
            Err(error) if is_not_found(&error) => Ok(false),
            Err(error) => {
                Err(error.context(format!("Cannot ask GitHub whether {repo} is readable")))
            }
        }
    }
}
