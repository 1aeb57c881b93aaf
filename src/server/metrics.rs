//! `GET /metrics`: the store's counts in Prometheus' text format, read off the async threads.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::effect_metrics::effect_metrics;
use crate::store::{effect, metrics};

/// Answers the scrape; 503 if the store cannot be read.
pub(super) async fn serve(State(state): State<AppState>) -> Response {
    let store = state.store.clone();
    let read = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
        let reader = store.reader()?;
        let mut all = metrics::snapshot(&reader)?;
        all.extend(effect_metrics(&effect::last_reports(&reader)?));
        Ok(metrics::prometheus_text(&all))
    })
    .await;
    match read {
        Ok(Ok(text)) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Ok(Err(error)) => {
            tracing::warn!(error = %format!("{error:#}"), "cannot read the metrics");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
