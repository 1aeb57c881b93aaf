//! The App's own calls: which installation covers a repository, and the manifest conversion
//! that registers the App (`gitlore setup`).

use anyhow::{Context, Result};
use http::Method;
use serde_json::json;

use super::super::client::{As, GitHub, is_not_found};
use super::{i64_field, str_field};
use crate::domain::RepoName;
use crate::domain::Secret;

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

impl GitHub {
    /// The id of the installation of this App that covers `repo`, or `None` when the App is not
    /// installed there. Asked as the App; a GET: retried.
    pub async fn repo_installation(&self, repo: &RepoName) -> Result<Option<i64>> {
        match self
            .call(
                Method::GET,
                &format!("/repos/{repo}/installation"),
                As::App,
                None,
                true,
            )
            .await
        {
            Ok(reply) => Ok(Some(i64_field(&reply.json()?, "id", "installation")?)),
            Err(error) if is_not_found(&error) => Ok(None),
            Err(error) => Err(error.context(format!("Cannot find the installation of {repo}"))),
        }
    }

    /// Turns the one-time `code` of the manifest flow into the new App's credentials
    /// (`POST /app-manifests/{code}/conversions`, no authentication: the code is the
    /// authority). Not retried: the code works once, so a repeat after a lost answer fails.
    pub async fn convert_manifest(&self, code: &str) -> Result<NewApp> {
        let failed = "Cannot exchange the manifest code for the App's credentials";
        if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
            anyhow::bail!("{failed}: the code GitHub returned is not alphanumeric");
        }
        let reply = self
            .call(
                Method::POST,
                &format!("/app-manifests/{code}/conversions"),
                As::Nobody,
                Some(&json!({})),
                false,
            )
            .await
            .context(failed)?;
        let body = reply.json().context(failed)?;
        Ok(NewApp {
            id: i64_field(&body, "id", "new App")?,
            slug: str_field(&body, "slug", "new App")?.to_string(),
            html_url: str_field(&body, "html_url", "new App")?.to_string(),
            pem: Secret::new(str_field(&body, "pem", "new App")?),
            webhook_secret: Secret::new(str_field(&body, "webhook_secret", "new App")?),
            client_id: str_field(&body, "client_id", "new App")?.to_string(),
            client_secret: Secret::new(str_field(&body, "client_secret", "new App")?),
        })
    }
}
