//! The HTTP side: webhook ingress, health and metrics. Handlers do three things and return;
//! everything slow happens behind the deliveries table.

mod metrics;
pub mod signature;
mod webhook;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::{get, post};

use crate::config::Secret;
use crate::health::Health;
use crate::ingress::Ingress;
use crate::store::Store;

/// GitHub caps webhook payloads at 25 MB; a larger body is refused with 413.
pub const MAX_BODY_BYTES: usize = 25 * 1024 * 1024;

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

/// The router: `POST <webhook_path>`, `GET /healthz` and `GET /metrics`.
pub fn router(state: AppState, webhook_path: &str) -> Router {
    Router::new()
        .route(webhook_path, post(webhook::receive))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics::serve))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// `GET /healthz`: 200 while every part runs, 503 naming the parts that stopped.
async fn healthz(State(state): State<AppState>) -> (StatusCode, String) {
    let dead = state.health.dead();
    if dead.is_empty() {
        (StatusCode::OK, "ok\n".into())
    } else {
        let parts = dead.join(", ");
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("stopped: {parts}\n"),
        )
    }
}
