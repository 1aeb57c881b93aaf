//! GitHub as one installation sees one repository: `RepoClient` binds the installation and the
//! repository once, so that the operations of `ops/` take only what is their own, and holds the
//! one create-once loop every create goes through.

use std::future::Future;

use http::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::client::{As, GitHub, MAX_ATTEMPTS, PER_PAGE, Request, Retry};
use super::error::Result;
use crate::domain::{InstallationId, RepoName, Secret};

/// One repository, as one installation of the App. Cheap to make: borrow the `GitHub` client.
#[derive(Clone)]
pub struct RepoClient<'a> {
    github: &'a GitHub,
    installation: InstallationId,
    repo: RepoName,
}

/// What a create-once call did.
pub(super) enum Once<T> {
    /// It was there already (made by an earlier attempt, or an earlier job).
    Found(T),
    Created(T),
}

impl<T> Once<T> {
    pub(super) fn into_inner(self) -> T {
        match self {
            Once::Found(made) | Once::Created(made) => made,
        }
    }
}

impl GitHub {
    /// The client of `repo` as `installation`.
    pub fn repo(&self, installation: InstallationId, repo: &RepoName) -> RepoClient<'_> {
        RepoClient {
            github: self,
            installation,
            repo: repo.clone(),
        }
    }
}

impl<'a> RepoClient<'a> {
    /// The repository.
    pub fn name(&self) -> &RepoName {
        &self.repo
    }

    /// Another repository as the same installation (the owner's `.github`, say).
    pub fn sibling(&self, repo: &RepoName) -> RepoClient<'a> {
        self.github.repo(self.installation, repo)
    }

    /// The installation's token (for a git fetch over HTTPS).
    pub async fn installation_token(&self) -> Result<Secret> {
        self.github.installation_token(self.installation).await
    }

    /// The App's id, when the client has its key: what tells the bot's own comments and check
    /// runs from others'.
    pub(super) fn app_id(&self) -> Option<i64> {
        self.github.app_id()
    }

    /// Who this client calls as: its installation.
    pub fn who(&self) -> As {
        As::Installation(self.installation)
    }

    /// The REST path of `tail` under the repository (`/issues/3` → `/repos/o/n/issues/3`).
    pub(super) fn path(&self, tail: &str) -> String {
        format!("/repos/{}{tail}", self.repo)
    }

    /// `GET /repos/{repo}{tail}`, read as `T`. Retried.
    pub(super) async fn get<T: DeserializeOwned>(&self, tail: &str) -> Result<T> {
        let path = self.path(tail);
        self.github
            .call(Request::get(&path, self.who()))
            .await?
            .json()
    }

    /// A request under the repository that writes `body`, its answer read as `T`.
    pub(super) async fn write<T: DeserializeOwned>(
        &self,
        method: Method,
        tail: &str,
        body: &impl Serialize,
        retry: Retry,
    ) -> Result<T> {
        let path = self.path(tail);
        let request = Request::write(method, &path, self.who(), body, retry)?;
        self.github.call(request).await?.json()
    }

    /// Every item of a list under the repository, 100 a page; `items` takes them out of a
    /// page's answer. Retried.
    pub(super) async fn all_pages<P: DeserializeOwned, T>(
        &self,
        tail: &str,
        items: impl Fn(P) -> Vec<T>,
    ) -> Result<Vec<T>> {
        let separator = if tail.contains('?') { '&' } else { '?' };
        let first = self.path(&format!("{tail}{separator}per_page={PER_PAGE}"));
        self.github.all_pages(self.who(), &first, items).await
    }

    /// Runs a GraphQL document as the installation.
    pub(super) async fn graphql(&self, query: &str, variables: Value) -> Result<Value> {
        self.github.graphql_as(self.who(), query, variables).await
    }

    /// Creates something exactly once by POSTing `body` to `tail`. A create is not
    /// idempotent, so it is never sent again blindly: before each attempt `find` looks for what
    /// an earlier attempt (one that failed with a 5xx or no answer, and may have been applied)
    /// or an earlier job made, and that is returned if found.
    pub(super) async fn create_once<T, F, Fut>(
        &self,
        tail: &str,
        body: &impl Serialize,
        find: F,
    ) -> Result<Once<T>>
    where
        T: DeserializeOwned,
        F: Fn() -> Fut,
        Fut: Future<Output = Result<Option<T>>>,
    {
        let mut attempt = 1;
        loop {
            if let Some(found) = find().await? {
                return Ok(Once::Found(found));
            }
            match self.write(Method::POST, tail, body, Retry::Never).await {
                Ok(made) => return Ok(Once::Created(made)),
                Err(error) if error.may_have_been_applied() && attempt < MAX_ATTEMPTS => {
                    self.github.backoff(1).await;
                    attempt += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }
}
