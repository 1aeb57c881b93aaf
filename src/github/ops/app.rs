//! The App's own calls: whether GitHub accepts its credentials, which installation covers a
//! repository, and the manifest conversion
//! that registers the App (`gitlore setup`).

use http::Method;
use serde::Deserialize;

use super::super::client::{As, GitHub, NoFields, Request, Retry};
use super::super::error::{Error, Result};
use crate::domain::Secret;
use crate::domain::{InstallationId, RepoName};

/// What GitHub hands over once, when a manifest becomes an App (`Debug` shows no secret).
#[derive(Debug)]
pub struct NewApp {
    pub id: i64,
    pub slug: String,
    /// The App's page (`https://github.com/apps/{slug}`); installs start at
    /// `{html_url}/installations/new`.
    pub html_url: String,
    pub pem: Secret,
    pub webhook_secret: Secret,
    /// The App's OAuth client, for signing in on the web pages.
    pub client_id: String,
    pub client_secret: Secret,
}

/// The App as `GET /app` answers it.
#[derive(Deserialize)]
struct App {
    slug: String,
}

/// An installation as GitHub answers it.
#[derive(Deserialize)]
struct Installation {
    id: InstallationId,
}

/// The answer of a manifest conversion (no `Debug`: it holds the App's secrets).
#[derive(Deserialize)]
struct Conversion {
    id: i64,
    slug: String,
    html_url: String,
    pem: String,
    webhook_secret: String,
    client_id: String,
    client_secret: String,
}

impl GitHub {
    /// The App's slug, asked as the App (`GET /app`): whether GitHub accepts the App's id and
    /// key. A GET: retried.
    pub async fn app_slug(&self) -> Result<String> {
        Ok(self
            .call(Request::get("/app", As::App))
            .await?
            .json::<App>()?
            .slug)
    }

    /// The id of the installation of this App that covers `repo`, or `None` when the App is not
    /// installed there. Asked as the App; a GET: retried.
    pub async fn repo_installation(&self, repo: &RepoName) -> Result<Option<InstallationId>> {
        let path = format!("/repos/{repo}/installation");
        match self.call(Request::get(&path, As::App)).await {
            Ok(reply) => Ok(Some(reply.json::<Installation>()?.id)),
            Err(error) if error.is_gone() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Turns the one-time `code` of the manifest flow into the new App's credentials
    /// (`POST /app-manifests/{code}/conversions`, no authentication: the code is the
    /// authority). Not retried: the code works once, so a repeat after a lost answer fails.
    pub async fn convert_manifest(&self, code: &str) -> Result<NewApp> {
        if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(Error::Refused(
                "the manifest code GitHub returned is not alphanumeric".into(),
            ));
        }
        let path = format!("/app-manifests/{code}/conversions");
        let request = Request::write(Method::POST, &path, As::Nobody, &NoFields {}, Retry::Never)?;
        let answer: Conversion = self.call(request).await?.json()?;
        Ok(NewApp {
            id: answer.id,
            slug: answer.slug,
            html_url: answer.html_url,
            pem: Secret::new(answer.pem),
            webhook_secret: Secret::new(answer.webhook_secret),
            client_id: answer.client_id,
            client_secret: Secret::new(answer.client_secret),
        })
    }
}
