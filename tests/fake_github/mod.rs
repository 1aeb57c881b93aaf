//! A fake GitHub for integration tests: an in-memory model served over HTTP on 127.0.0.1, with
//! the status codes, headers and fields of GitHub's REST description, a GraphQL endpoint that
//! validates every document against GitHub's public schema and answers it from the model, App
//! authentication checked for real (RS256 JWT → installation token), injected faults, primary
//! rate limits, a settable clock and a log of every request.
//!
//! URL layout (GitHub Enterprise Server's, so that a client's path prefix handling is exercised):
//! REST at `base_url()` = `http://127.0.0.1:PORT/api/v3`, GraphQL at `graphql_url()` =
//! `http://127.0.0.1:PORT/api/graphql`. A client derives GraphQL from the REST base by the rule
//! GitHub uses: a base ending in `/api/v3` → `…/api/graphql`, any other base → `{base}/graphql`
//! (`https://api.github.com` → `https://api.github.com/graphql`). `start_dotcom_layout()` serves
//! the other shape: REST at the origin, GraphQL at `/graphql`.
//!
//! Use from an integration test with `mod fake_github;`:
//! ```ignore
//! let gh = FakeGitHub::start().await;
//! gh.seed(|m| {
//!     m.set_app(APP_ID, "gitlore", &fake_github::test_public_key_pem());
//!     m.add_installation(7, "acme", &["acme/widgets"]);
//! });
//! // point the client at gh.base_url(), then assert on gh.inspect(..) and gh.writes()
//! ```
//! Paths in the request log and in fault targets are relative to the REST base
//! (`/repos/acme/widgets/issues`); GraphQL requests are logged as `/graphql`. Like GitHub, the
//! fake writes `Link` URLs as `/repositories/{id}/…`, so pages after the first are logged (and
//! matched by fault targets) under that path.
//! The web host also serves GitHub's OAuth sign-in (`/login/oauth/…`, see `oauth.rs`).
//! The clock is frozen at the system time of `start()` until a test moves it.
#![allow(dead_code)] // each test binary uses a different part of the fake

pub mod auth;
pub mod faults;
mod graphql;
pub mod hooks;
mod json;
pub mod limits;
pub mod log;
pub mod model;
mod oauth;
mod ratelimit;
mod resolvers;
mod rest;
pub mod schema;
mod server;
pub mod webhooks;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use faults::{Fault, Target};
pub use log::LoggedRequest;
#[allow(unused_imports)] // each test binary uses a different part of the fake
pub use model::{ManifestConversion, Model, Role};

use ratelimit::{Payer, RateLimits};
use server::{Shared, Urls, lock};

/// The test App's private key (PKCS#1 PEM), relative to the crate root.
pub const TEST_PRIVATE_KEY_PATH: &str = "tests/fixtures/test-app-key.pem";
/// Its public key (`openssl rsa -in test-app-key.pem -pubout`), relative to the crate root.
pub const TEST_PUBLIC_KEY_PATH: &str = "tests/fixtures/test-app-key.pub.pem";

fn read_fixture(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The test App's private key PEM.
pub fn test_private_key_pem() -> String {
    read_fixture(TEST_PRIVATE_KEY_PATH)
}

/// The test App's public key PEM.
pub fn test_public_key_pem() -> String {
    read_fixture(TEST_PUBLIC_KEY_PATH)
}

/// Where the fake serves its two APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// GitHub Enterprise Server: `/api/v3` and `/api/graphql`.
    Enterprise,
    /// api.github.com: REST at the root, `/graphql`.
    DotCom,
}

/// A running fake GitHub. Dropping it stops the server.
pub struct FakeGitHub {
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl FakeGitHub {
    /// Starts a fake with the GitHub Enterprise Server layout on a free local port.
    pub async fn start() -> FakeGitHub {
        FakeGitHub::start_with(Layout::Enterprise).await
    }

    /// Starts a fake with the api.github.com layout on a free local port.
    pub async fn start_dotcom_layout() -> FakeGitHub {
        FakeGitHub::start_with(Layout::DotCom).await
    }

    pub async fn start_with(layout: Layout) -> FakeGitHub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake GitHub to 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let (rest_prefix, graphql_path) = match layout {
            Layout::Enterprise => ("/api/v3", "/api/graphql"),
            Layout::DotCom => ("", "/graphql"),
        };
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .expect("system clock after 1970");
        let shared = Arc::new(Shared {
            model: Mutex::new(Model::new(now_ms)),
            faults: Mutex::new(faults::Faults::default()),
            log: Mutex::new(Vec::new()),
            rate: Mutex::new(RateLimits::default()),
            urls: Urls {
                origin: format!("http://{addr}"),
                rest_prefix: rest_prefix.to_string(),
                graphql_path: graphql_path.to_string(),
            },
        });
        let router = axum::Router::new()
            .fallback(server::handle)
            .with_state(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        FakeGitHub {
            shared,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    /// The REST base URL (what `GITLORE_GITHUB_API_URL` would be).
    pub fn base_url(&self) -> String {
        self.shared.urls.rest_base()
    }

    /// The GraphQL endpoint.
    pub fn graphql_url(&self) -> String {
        format!(
            "{}{}",
            self.shared.urls.origin, self.shared.urls.graphql_path
        )
    }

    /// `http://127.0.0.1:PORT`, also the web host of `html_url`s.
    pub fn origin(&self) -> String {
        self.shared.urls.origin.clone()
    }

    /// Changes the model (seeding, or what a person would do on github.com meanwhile).
    pub fn seed<R>(&self, f: impl FnOnce(&mut Model) -> R) -> R {
        f(&mut lock(&self.shared.model))
    }

    /// Reads the model.
    pub fn inspect<R>(&self, f: impl FnOnce(&Model) -> R) -> R {
        f(&lock(&self.shared.model))
    }

    /// Registers the test App (`tests/fixtures/test-app-key.pem`) with this id and slug.
    pub fn with_test_app(&self, app_id: i64, slug: &str) {
        let public = test_public_key_pem();
        self.seed(|m| m.set_app(app_id, slug, &public));
    }

    /// The fake's clock, in ms since the epoch.
    pub fn now_ms(&self) -> i64 {
        self.inspect(|m| m.now_ms)
    }

    pub fn set_now_ms(&self, now_ms: i64) {
        self.seed(|m| m.now_ms = now_ms);
    }

    /// Moves the fake's clock forward.
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.seed(|m| m.now_ms = m.now_ms.saturating_add(ms));
    }

    /// Makes the next `times` requests matching `target` fail with `fault` (or wait, for
    /// `Fault::Delay`). Faults apply in the order they were added.
    pub fn inject(&self, target: Target, fault: Fault, times: usize) {
        lock(&self.shared.faults).add(target, fault, times);
    }

    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    /// Sets the hourly primary rate limit of installations and the App (GitHub: 5,000).
    pub fn set_rate_limit(&self, per_hour: i64) {
        lock(&self.shared.rate).limit = per_hour;
    }

    /// Spends the rest of an installation's budget for REST (`graphql: false`) or GraphQL: every
    /// request then gets GitHub's primary-limit answer until the window resets (one hour of the
    /// fake's clock after the bucket's first request).
    pub fn exhaust_rate_limit(&self, installation_id: i64, graphql: bool) {
        let now_s = self.now_ms().div_euclid(1000);
        let resource = if graphql { "graphql" } else { "core" };
        lock(&self.shared.rate).exhaust(&Payer::Installation(installation_id), resource, now_s);
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// The content writes so far: REST calls other than GET (the token exchange excepted) and
    /// GraphQL mutations, whatever their answer.
    pub fn writes(&self) -> Vec<LoggedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_write())
            .collect()
    }

    /// How many REST requests with `method` had a path starting with `path_prefix`.
    pub fn count(&self, method: &str, path_prefix: &str) -> usize {
        lock(&self.shared.log)
            .iter()
            .filter(|r| r.method.eq_ignore_ascii_case(method) && r.path.starts_with(path_prefix))
            .count()
    }

    /// The operation names of the GraphQL requests so far, in order (`?` for an anonymous one).
    pub fn graphql_operations(&self) -> Vec<String> {
        lock(&self.shared.log)
            .iter()
            .filter(|r| r.is_graphql())
            .map(|r| {
                r.graphql_operation
                    .clone()
                    .unwrap_or_else(|| "?".to_string())
            })
            .collect()
    }

    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// Stops the server (open keep-alive connections are dropped, not drained).
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
