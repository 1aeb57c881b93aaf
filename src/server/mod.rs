//! The HTTP side: webhook ingress, health and metrics. Handlers do three things and return;
//! everything slow happens behind the deliveries table.

mod connections;
mod effect_metrics;
mod metrics;
pub mod signature;
mod webhook;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Router};

use crate::domain::Secret;
use crate::health::Health;
use crate::ingress::Ingress;
use crate::store::Store;

pub use connections::{HEADER_TIMEOUT, MAX_CONNECTIONS, serve};

/// GitHub caps webhook payloads at 25 MB; a larger body is refused with 413.
pub const MAX_BODY_BYTES: usize = 25 * 1024 * 1024;

/// How long a webhook body may take to arrive. GitHub gives up on a delivery after 10 s.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Most bytes of large webhook bodies held in memory at once (bodies still arriving or being
/// verified): a few payloads of the largest size.
pub const MAX_BODY_BYTES_IN_FLIGHT: usize = 128 * 1024 * 1024;

/// A body of at most this many bytes is small: GitHub's deliveries are (a review comment's is
/// tens of KiB), and they never wait behind a large one.
pub const SMALL_BODY_BYTES: usize = 1024 * 1024;

/// Most bytes of small bodies held in memory at once: hundreds of ordinary deliveries.
pub const MAX_SMALL_BODY_BYTES_IN_FLIGHT: usize = 32 * 1024 * 1024;

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub webhook_secret: Arc<Secret>,
    pub ingress: Ingress,
    /// For `/metrics` (read-only connections).
    pub store: Arc<Store>,
    /// For `/healthz`.
    pub health: Arc<Health>,
}

/// How long `/healthz` waits for the database to answer.
const DATABASE_ANSWER_TIME: std::time::Duration = std::time::Duration::from_secs(3);

/// The router: `POST <webhook_path>`, `GET /healthz` and `GET /metrics`.
pub fn router(state: AppState, webhook_path: &str) -> Router {
    Router::new()
        .route(webhook_path, post(webhook::receive))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics::serve))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(Extension(webhook::BodyBudget::new(
            MAX_SMALL_BODY_BYTES_IN_FLIGHT,
            MAX_BODY_BYTES_IN_FLIGHT,
        )))
        .with_state(state)
}

/// `GET /healthz`: 200 while every part runs, the database answers, deliveries can be stored and
/// GitHub accepts the App's credentials; else 503 naming the parts that stopped, saying the
/// database does not answer, why the store cannot be written, or that GitHub authentication fails.
async fn healthz(State(state): State<AppState>) -> (StatusCode, String) {
    let dead = state.health.dead();
    if !dead.is_empty() {
        let parts = dead.join(", ");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("stopped: {parts}\n"),
        );
    }
    let store = state.store.clone();
    let ping = tokio::time::timeout(
        DATABASE_ANSWER_TIME,
        tokio::task::spawn_blocking(move || store.ping()),
    )
    .await;
    let unanswered = match ping {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(error))) => Some(format!("{error:#}")),
        Ok(Err(_)) => Some("the database check panicked".to_owned()),
        Err(_) => Some(format!(
            "no answer within {} s",
            DATABASE_ANSWER_TIME.as_secs()
        )),
    };
    if let Some(error) = unanswered {
        // The answer is public: the database's name and host go to the log only.
        tracing::warn!(%error, "the database does not answer");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer\n".to_owned(),
        );
    }
    if let Some(error) = state.health.store_error() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cannot store deliveries: {error}\n"),
        );
    }
    match state.health.github_auth_error() {
        Some(error) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("GitHub authentication fails: {error}\n"),
        ),
        None => (StatusCode::OK, "ok\n".into()),
    }
}
