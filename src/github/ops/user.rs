//! What a signed-in person's own token (`As::Token`, from the web pages' GitHub sign-in) may
//! ask: who they are, and whether they can read a repository.

use serde::Deserialize;

use super::super::client::{As, GitHub, Request};
use super::super::error::Result;
use crate::domain::RepoName;

/// The part of `GET /user` the bot reads.
#[derive(Deserialize)]
struct User {
    login: String,
}

/// The part of `GET /repos/{repo}` that says what the token's user may do.
#[derive(Deserialize)]
struct Repository {
    permissions: Option<Permissions>,
}

#[derive(Deserialize)]
struct Permissions {
    pull: Option<bool>,
}

impl GitHub {
    /// The login of the token's user (`GET /user`). A GET: retried.
    pub async fn token_login(&self) -> Result<String> {
        let user: User = self.call(Request::get("/user", As::Token)).await?.json()?;
        Ok(user.login)
    }

    /// Whether the token's user can read `repo`: GitHub shows it (`GET /repos/{repo}`) with
    /// `permissions.pull`. A repository GitHub hides (404) is not readable. A GET: retried.
    pub async fn token_can_read(&self, repo: &RepoName) -> Result<bool> {
        let path = format!("/repos/{repo}");
        match self.call(Request::get(&path, As::Token)).await {
            // Without `permissions` (never for a signed-in user) GitHub showing it is all.
            Ok(reply) => Ok(reply
                .json::<Repository>()?
                .permissions
                .and_then(|p| p.pull)
                .unwrap_or(true)),
            Err(error) if error.is_gone() => Ok(false),
            Err(error) => Err(error),
        }
    }
}
