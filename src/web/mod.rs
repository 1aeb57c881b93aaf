//! The web pages `gitlore serve` shows next to the webhook: `/` lists the repositories the
//! viewer may read, `/repos/{owner}/{repo}` shows one repository's findings, themes, history
//! figures and last analysis. Public repositories are readable by anyone unless the operator
//! turns that off; private ones only after signing in with GitHub (the App's OAuth client), by
//! people GitHub says can read them.
//!
//! `routes` are the handlers, `pages` the HTML (maud), `view` what a repository page reads from
//! the store, `access` who may read what, `oauth` the sign-in flow, `sessions` and `cookies` the
//! signed-in state.

mod access;
mod cookies;
mod oauth;
mod pages;
mod routes;
mod sessions;
mod view;

use std::sync::Arc;

use anyhow::{Context, Result};
use axum::Router;
use axum::routing::{get, post};

use crate::clock::Clock;
use crate::config::Settings;
use crate::domain::Secret;
use crate::domain::github_web::web_url;
use crate::github::client::{GitHub, TokioPause};
use crate::store::Store;

/// What the handlers share.
#[derive(Clone)]
pub struct WebState(Arc<Inner>);

/// What [`WebState`] holds.
pub struct Inner {
    store: Arc<Store>,
    api_url: String,
    /// GitHub's web host.
    github_web: String,
    /// `None` when signing in is not configured (no OAuth client or no public URL).
    flow: Option<oauth::Flow>,
    key: cookies::CookieKey,
    access: Arc<access::Access>,
    clock: Arc<dyn Clock>,
}

impl std::ops::Deref for WebState {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl WebState {
    /// The pages' state from the settings. Signing in needs the OAuth client and the public URL
    /// GitHub sends people back to; without them only public repositories show.
    pub fn new(settings: &Settings, store: Arc<Store>, clock: Arc<dyn Clock>) -> Result<WebState> {
        let web = &settings.web;
        let secret = web
            .session_secret
            .as_ref()
            .or(settings.private_key.as_ref())
            .context("The web pages need GITLORE_SESSION_SECRET or the App's private key to sign cookies")?;
        let github_web = web_url(&settings.github_api_url);
        let flow = match (&web.oauth, &settings.public_url) {
            (Some(client), Some(public_url)) => {
                Some(oauth::Flow::new(client.clone(), &github_web, public_url)?)
            }
            (Some(_), None) => {
                tracing::warn!(
                    "signing in is off: GITLORE_PUBLIC_URL is needed for GitHub to send people back"
                );
                None
            }
            (None, _) => None,
        };
        Ok(WebState(Arc::new(Inner {
            store,
            api_url: settings.github_api_url.clone(),
            github_web,
            flow,
            key: cookies::CookieKey::derive(secret.expose()),
            access: Arc::new(access::Access::new(
                &settings.github_api_url,
                clock.clone(),
                web.public_repos_anonymous,
            )),
            clock,
        })))
    }

    /// Runs a store call off the async threads.
    async fn on_store<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Store) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || job(&store)).await?
    }

    /// The login of a user token's owner.
    async fn user_login(&self, token: &Secret) -> Result<String> {
        let github = GitHub::with_token(
            &self.api_url,
            token.clone(),
            self.clock.clone(),
            Arc::new(TokioPause),
        )?;
        Ok(github.token_login().await?)
    }
}

/// The pages' routes, to merge into the server's router.
pub fn router(state: WebState) -> Router {
    Router::new()
        .route("/", get(routes::index))
        .route("/repos/{owner}/{repo}", get(routes::repository))
        .route("/signin", get(routes::sign_in_page))
        .route("/auth/github", get(routes::start_sign_in))
        .route("/auth/callback", get(routes::callback))
        .route("/signout", post(routes::sign_out))
        .route("/assets/gitlore.css", get(routes::style))
        .with_state(state)
}
