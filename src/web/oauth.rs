//! Signing in with GitHub through the App's own OAuth client (the web application flow): the
//! browser goes to GitHub's authorize page with a random `state`, comes back to
//! `/auth/callback` with a one-time code and that state, and the code is exchanged for the
//! person's user token at GitHub's web host. Codes and tokens are never logged.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::config::OAuthClient;
use crate::domain::Secret;

/// How long the code exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(20);

/// Where GitHub's OAuth endpoints are and where it sends people back.
pub struct Flow {
    pub client: OAuthClient,
    /// GitHub's web host, e.g. `https://github.com`.
    pub web_url: String,
    /// This server's callback, `{public URL}/auth/callback`.
    pub redirect_uri: String,
    http: reqwest::Client,
}

impl Flow {
    pub fn new(client: OAuthClient, web_url: &str, public_url: &str) -> Result<Flow> {
        Ok(Flow {
            client,
            web_url: web_url.trim_end_matches('/').to_string(),
            redirect_uri: format!("{}/auth/callback", public_url.trim_end_matches('/')),
            http: reqwest::Client::builder()
                .timeout(EXCHANGE_TIMEOUT)
                .build()
                .context("Cannot build the HTTP client for signing in")?,
        })
    }

    /// GitHub's authorize page for this sign-in.
    pub fn authorize_url(&self, state: &str) -> Result<String> {
        let url = reqwest::Url::parse_with_params(
            &format!("{}/login/oauth/authorize", self.web_url),
            &[
                ("client_id", self.client.client_id.as_str()),
                ("redirect_uri", self.redirect_uri.as_str()),
                ("state", state),
                ("allow_signup", "false"),
            ],
        )
        .context("GitHub's web URL is not a URL")?;
        Ok(url.into())
    }

    /// The user token for a one-time `code`.
    pub async fn exchange(&self, code: &str) -> Result<Secret> {
        #[derive(Deserialize)]
        struct Answer {
            access_token: Option<String>,
            error: Option<String>,
        }
        let failed = "Cannot exchange GitHub's sign-in code for a token";
        let response = self
            .http
            .post(format!("{}/login/oauth/access_token", self.web_url))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&[
                ("client_id", self.client.client_id.as_str()),
                ("client_secret", self.client.client_secret.expose()),
                ("code", code),
                ("redirect_uri", self.redirect_uri.as_str()),
            ])
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("{failed}: {}", e.without_url()))?;
        let status = response.status();
        if !status.is_success() {
            bail!("{failed}: GitHub answered {status}");
        }
        let answer: Answer = response
            .json()
            .await
            .map_err(|e| anyhow::anyhow!("{failed}: {}", e.without_url()))?;
        match (answer.access_token, answer.error) {
            (Some(token), _) if !token.is_empty() => Ok(Secret::new(token)),
            // GitHub's error codes (`bad_verification_code`, …) say nothing private.
            (_, Some(error)) => bail!("{failed}: GitHub answered `{error}`"),
            _ => bail!("{failed}: GitHub's answer holds no token"),
        }
    }
}
